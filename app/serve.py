"""`pideck serve`: pideck in a web browser, through textual-serve.

Each page that connects gets a pideck of its own (`python -m app` with the same pideck and pi
flags), which textual-serve runs with Textual's web driver and links to the page by a
websocket. Whoever opens the page can run commands as the user, so every request (the page,
its websocket, its static files, downloads) must carry the random token of the printed URL:
as `?token=` (the page then sets it as a cookie for the rest) or as that cookie; any other
request gets 403. A websocket must also come from a page of this server (its Origin).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import ipaddress
import logging
import os
import secrets
import shlex
import signal
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.launch import LaunchError, check_launch, refuse
from app.runtime import ProvisionError

if TYPE_CHECKING:
    from protocol.responses import SessionState

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
TOKEN_COOKIE = "pideck_token_{port}"  # one per port: two servers on one host keep their own
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"  # what textual-serve sets in TEXTUAL_DRIVER


class ServeError(Exception):
    """The server cannot start; the message says why."""


def served_in_browser() -> bool:
    """This pideck runs for a page of `pideck serve` (its stdin and stdout are textual-serve's)."""
    return os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER


def tell_server_how_to_resume(args: argparse.Namespace, state: SessionState | None) -> None:
    """A page's pideck has ended: the command that resumes its session (if saved) goes to
    stderr, which textual-serve prints in the server's terminal."""
    from app.exit_output import resume_command

    command = resume_command(args, state)
    try:
        if command is not None:
            print(f"pideck: the page's session is saved; to resume it: {command}", file=sys.stderr, flush=True)
    except OSError:
        pass  # the server is gone


def pideck_command(args: argparse.Namespace) -> list[str]:
    """The pideck that runs for each page: this Python, pideck's flags as given, then pi's.
    `-P` keeps the working directory off the import path (an `app` folder there is not pideck)."""
    own = ["--protocol-log", str(args.protocol_log)]
    if args.pi is not None:
        own += ["--pi", args.pi]
    if args.demo:
        own.append("--demo")
    if args.cwd is not None:
        own += ["--cwd", str(Path(args.cwd).expanduser().resolve())]
    if getattr(args, "record", None) is not None:  # each page records to a file of its own (FILE-2, ...)
        own += ["--record", str(Path(args.record).expanduser().resolve())]
    return [sys.executable, "-P", "-m", "app", *own, "--", *args.pi_args]


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def origin(host: str, port: int) -> str:
    """The server's address for a browser; a wildcard host (0.0.0.0, ::) is this machine's name."""
    if host in ("", "0.0.0.0", "::"):
        host = socket.gethostname()
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"


def serve(args: argparse.Namespace) -> int:
    """Run `pideck serve` until SIGINT or SIGTERM; 0, or 1 when the server cannot start."""
    try:
        check_launch(args)  # pideck's own refusals (and the runtime's install) here, not in each page
    except (LaunchError, ProvisionError) as exc:
        return refuse(exc)
    if not is_loopback(args.host):
        print(
            f"pideck: warning: listening on {args.host}: anyone who can reach this port and has the URL "
            "can run commands as you on this machine, and plain HTTP carries the token unencrypted",
            file=sys.stderr,
        )
    server = _token_server(shlex.join(pideck_command(args)), args.host, args.port, secrets.token_urlsafe(24))
    try:
        asyncio.run(server.run())
    except ServeError as exc:
        print(f"pideck: {exc}", file=sys.stderr)
        return 1
    return 0


def _token_server(command: str, host: str, port: int, token: str) -> Any:
    from aiohttp import web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server, to_int

    @web.middleware
    async def require_token(request: web.Request, handler: Any) -> web.StreamResponse:
        cookie = TOKEN_COOKIE.format(port=request.url.port)
        given = request.query.get("token") or request.cookies.get(cookie) or ""
        if not secrets.compare_digest(given.encode(), token.encode()):
            raise web.HTTPForbidden(text="pideck: a wrong or missing token; open the URL pideck serve printed\n")
        origin = request.headers.get("Origin")
        if request.path == "/ws" and origin is not None and origin.split("://", 1)[-1] != request.host:
            raise web.HTTPForbidden(text="pideck: the websocket must come from pideck's own page\n")
        response = await handler(request)
        if request.path == "/" and "token" in request.query:
            response.set_cookie(cookie, token, httponly=True, samesite="Strict")
        return response

    class PageService(AppService):
        async def run(self) -> None:
            """textual-serve's, and then what pideck wrote to stderr as it ended (the command
            that resumes its session), which textual-serve's reader, stopped when stdout
            closes, may have left unread."""
            await super().run()
            if self._process is not None and self._process.stderr is not None:
                if rest := await self._process.stderr.read():
                    sys.stdout.write(rest.decode("utf-8", "replace"))
                    sys.stdout.flush()

    class TokenServer(Server):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.pages: set[web.WebSocketResponse] = set()  # open websockets, closed on stop

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.middlewares.append(require_token)
            return app

        async def on_startup(self, app: web.Application) -> None:
            pass  # run() prints the URL once the port is known

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            """textual-serve's, with a PageService and a line in the server's terminal when a
            page comes and goes (closed, reloaded or cut off: its pideck closes pi in order)."""
            websocket = web.WebSocketResponse(heartbeat=15)
            await websocket.prepare(request)
            print(f"pideck: a page connected from {request.remote}; starting its pideck", flush=True)
            self.pages.add(websocket)
            service = PageService(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                                  close=websocket.close, download_manager=self.download_manager)
            try:
                await service.start(to_int(request.query.get("width", "80"), 80),
                                    to_int(request.query.get("height", "24"), 24))
                await self._process_messages(websocket, service)
            except Exception as error:  # a page that sent garbage: its pideck still ends in order
                print(f"pideck: the page from {request.remote} failed: {error!r}", flush=True)
            finally:
                self.pages.discard(websocket)
                await service.stop()
                print(f"pideck: a page from {request.remote} closed; its pideck and pi have ended", flush=True)
            return websocket

        async def run(self) -> None:
            logging.basicConfig(level=logging.WARNING, format="pideck serve: %(message)s")
            runner = web.AppRunner(await self._make_app(), handle_signals=False, access_log=None)
            await runner.setup()
            try:
                await web.TCPSite(runner, self.host, self.port).start()
            except OSError as exc:
                await runner.cleanup()
                raise ServeError(_bind_error(self.host, self.port, exc)) from None
            bound = runner.addresses[0][1]
            self.public_url = origin(self.host, bound)  # the page's links to its websocket and files
            print(f"pideck: serving on {self.public_url}/?token={token}", flush=True)
            print("pideck: each page gets its own pideck and pi; Ctrl+C stops the server", flush=True)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            try:
                await stop.wait()
            finally:
                print("pideck: stopping; open pages' pideck and pi are closed", flush=True)
                await asyncio.gather(*(page.close() for page in list(self.pages)))  # each ends its pideck
                await runner.cleanup()

    return TokenServer(command, host=host, port=port, title="pideck")


def _bind_error(host: str, port: int, exc: OSError) -> str:
    if exc.errno == errno.EADDRINUSE:
        return f"port {port} on {host} is in use; choose another with --port (--port 0 takes any free one)"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"--host {host}: no network interface of this machine has that address"
    if isinstance(exc, socket.gaierror):
        return f"--host {host}: {exc.strerror or exc}"
    return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
