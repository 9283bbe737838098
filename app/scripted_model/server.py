"""An OpenAI-compatible streaming chat-completions server driven by scripted replies.

pi talks to it through a `models.json` provider with `api: "openai-completions"`.
The server runs its own asyncio loop in a daemon thread, so a busy UI loop in the
same process never slows what pi receives.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from protocol.numbers import parse_int


@dataclass(frozen=True)
class ToolCallSpec:
    """One tool call the model asks for; `arguments` is sent as JSON in `chunks` pieces."""

    name: str
    arguments: dict[str, Any]
    id: str = ""
    chunks: int = 3


@dataclass(frozen=True)
class Reply:
    """One scripted model response.

    `text` and `reasoning` are split into `chunk_chars`-sized deltas unless `deltas`
    gives the exact text deltas. `status` >= 400 answers with an HTTP error whose
    body carries `error_message`.
    """

    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCallSpec, ...] = ()
    deltas: tuple[str, ...] | None = None
    chunk_chars: int = 12
    delay: float = 0.0
    status: int = 200
    error_message: str = "scripted error"
    prompt_tokens: int = 120
    finish_reason: str | None = None


Responder = Callable[[dict[str, Any]], Reply]


def _split(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] if text else []


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def sse_chunks(reply: Reply, model: str, call_seq: int = 0) -> list[dict[str, Any]]:
    """The chat-completion chunks that stream `reply`, usage chunk last."""
    chunks: list[dict[str, Any]] = [_chunk(model, {"role": "assistant", "content": ""})]
    for piece in _split(reply.reasoning, reply.chunk_chars):
        chunks.append(_chunk(model, {"reasoning_content": piece}))
    deltas = list(reply.deltas) if reply.deltas is not None else _split(reply.text, reply.chunk_chars)
    for piece in deltas:
        chunks.append(_chunk(model, {"content": piece}))
    for index, call in enumerate(reply.tool_calls):
        call_id = call.id or f"call_{call_seq}_{index}"
        args = json.dumps(call.arguments)
        step = max(1, -(-len(args) // max(1, call.chunks)))
        pieces = _split(args, step) or [""]
        first = {"index": index, "id": call_id, "type": "function",
                 "function": {"name": call.name, "arguments": pieces[0]}}
        chunks.append(_chunk(model, {"tool_calls": [first]}))
        for piece in pieces[1:]:
            chunks.append(_chunk(model, {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
    chunks.append(_chunk(model, {}, finish))
    completion = sum(len(c) for c in deltas) // 4 + len(reply.reasoning) // 4 + 1
    usage = {"prompt_tokens": reply.prompt_tokens, "completion_tokens": completion,
             "total_tokens": reply.prompt_tokens + completion}
    chunks.append({**_chunk(model, {}), "choices": [], "usage": usage})
    return chunks


class ScriptedModel:
    """Serves queued `Reply`s (or a `responder`'s answer when the queue is empty).

    Every request body is kept in `requests` so tests can check what pi sent.
    """

    def __init__(self, responder: Responder | None = None, model_id: str = "scripted") -> None:
        self.model_id = model_id
        self.responder = responder
        self.replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.AbstractServer | None = None
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def start(self) -> ScriptedModel:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            self._server = loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", 0))
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            loop.run_forever()
            self._server.close()
            loop.run_until_complete(self._server.wait_closed())
            loop.close()

        self._thread = threading.Thread(target=run, name="scripted-model", daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5)
            self._loop = None

    def __enter__(self) -> ScriptedModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if self.replies:
                return self.replies.popleft()
        if self.responder is not None:
            return self.responder(body)
        return Reply(text="(the scripted model has no reply queued)")

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:] if ":" in ln)}
            body_bytes = await reader.readexactly(parse_int(headers.get("content-length", "0"), 0))
            if method == "GET" and path.rstrip("/").endswith("/models"):
                await self._send_json(writer, 200, {"object": "list", "data": [{"id": self.model_id, "object": "model"}]})
                return
            if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
                await self._send_json(writer, 404, {"error": {"message": f"no route {method} {path}"}})
                return
            body = json.loads(body_bytes or b"{}")
            reply = self._next_reply(body)
            if reply.status >= 400:
                if reply.delay:
                    await asyncio.sleep(reply.delay)
                await self._send_json(writer, reply.status, {"error": {"message": reply.error_message, "type": "scripted", "code": reply.status}})
                return
            await self._stream(writer, reply, body.get("model", self.model_id), len(self.requests))
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        finally:
            writer.close()

    async def _send_json(self, writer: asyncio.StreamWriter, status: int, obj: dict[str, Any]) -> None:
        data = json.dumps(obj).encode()
        writer.write(
            f"HTTP/1.1 {status} Scripted\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode()
            + data
        )
        await writer.drain()

    async def _stream(self, writer: asyncio.StreamWriter, reply: Reply, model: str, seq: int) -> None:
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
            b"Connection: close\r\n\r\n"
        )
        for chunk in sse_chunks(reply, model, seq):
            writer.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            if reply.delay:
                await writer.drain()
                await asyncio.sleep(reply.delay)
        writer.write(b"data: [DONE]\n\n")
        await writer.drain()
