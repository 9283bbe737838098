"""`pideck serve`: pideck in a web browser, through textual-serve.

Each page that connects gets a pideck of its own (`python -m app` with the same pideck and pi
flags), which textual-serve runs with Textual's web driver and links to the page by a
websocket. Whoever opens the page can run commands as the user, so every request (the page,
its websocket, its static files, downloads) must carry the random token of the printed URL:
as `?token=` (the page then sets it as a cookie for the rest) or as that cookie; any other
request gets 403. A websocket must also come from a page of this server (its Origin).

The page is textual-serve's, with a viewport (a phone lays it out at its own width) and, on
a touch screen, a bar of the keys a phone's keyboard lacks (served_page.html).

Each page's pideck and pi take about 60 MB: at most `--max-pages` pages (default 4) are
open at once. One more is refused, with a page that says why (a websocket: that message as
its terminal's text, then closed) and a line in the server's terminal.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import ipaddress
import logging
import secrets
import shlex
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from app.pi.launch import LaunchError, check_launch, refuse
from app.runtime import ProvisionError
from app.terminal.say import say
from protocol.control_codes import visible
from protocol.numbers import parse_int

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
DEFAULT_MAX_PAGES = 4
MOST_PAGES = 1000  # the largest --max-pages taken
TOKEN_COOKIE = "pideck_token_{port}"  # one per port: two servers on one host keep their own
MAX_CELLS = 1000  # a page's width or height in cells, at the most
PAGE_TEMPLATE = "served_page.html"  # textual-serve's page, with a phone's viewport and a key bar (beside this file)


class ServeError(Exception):
    """The server cannot start; the message says why."""


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
    attach = ["attach"] if getattr(args, "attach", False) else []
    own.append("--hold" if getattr(args, "hold", None) or attach else "--no-hold")  # (a closed page: its pi ends)  # every pi held, a terminal's too (app/cli/hold.py)
    return [sys.executable, "-P", "-m", "app", *attach, *own, "--", *args.pi_args]


def page_count(value: str) -> int:
    """`--max-pages`: a whole number from 1 to MOST_PAGES (argparse says what is wrong)."""
    pages = parse_int(value, low=1, high=MOST_PAGES)
    if pages is None:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to {MOST_PAGES}, not {value[:12]!r}")
    return pages


def pages_full(open_pages: int, max_pages: int, held: bool = False) -> str:
    """What a refused page reads (`held`: pages show held pis, which go on when one closes)."""
    return (f"pideck serve: {open_pages} pages are open, the most it allows (--max-pages {max_pages}). "
            f"Close one of them ({'its pideck ends, held pis go on' if held else 'its pideck and pi end'}), "
            "then reload this page.")


def page_words(held: bool, max_pages: int) -> tuple[str, str, str]:
    """What the server's terminal says at its start, at a page's close and at its stop:
    `held` (--attach, --hold), the pis pages show go on without them."""
    if held:
        return (f"pideck: each page gets its own pideck, which shows held pis: they go on when the page closes "
                f"(pideck ls lists them, pideck stop ends them); at most {max_pages} pages at once (--max-pages); "
                "Ctrl+C stops the server",
                "its pideck has ended; the held pis it showed go on (pideck ls lists them)",
                "pideck: stopping; each open page's pideck ends, the held pis they showed go on (pideck ls lists them)")
    return (f"pideck: each page gets its own pideck and pi, at most {max_pages} pages at once (--max-pages); "
            "Ctrl+C stops the server",
            "its pideck has ended",
            "pideck: stopping; open pages' pideck and pi are closed")


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


class _ShownFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return visible(super().format(record))


def serve(args: argparse.Namespace) -> int:
    """Run `pideck serve` until SIGINT or SIGTERM; 0, or 1 when the server cannot start."""
    try:
        check_launch(args)  # pideck's own refusals (and the runtime's install) here, not in each page
    except (LaunchError, ProvisionError) as exc:
        return refuse(exc)
    if not is_loopback(args.host):
        say(f"pideck: warning: listening on {args.host}: anyone who can reach this port and has the URL "
            "can run commands as you on this machine, and plain HTTP carries the token unencrypted")
    # exec: the shell textual-serve runs it with becomes pideck, which a page's end can then kill
    server = _token_server("exec " + shlex.join(pideck_command(args)), args.host, args.port, secrets.token_urlsafe(24),
                           args.max_pages, held=bool(getattr(args, "attach", False) or getattr(args, "hold", None)))
    try:
        asyncio.run(server.run())
    except ServeError as exc:
        say(f"pideck: {exc}")
        return 1
    return 0


def _token_server(command: str, host: str, port: int, token: str, max_pages: int = DEFAULT_MAX_PAGES,
                  held: bool = False) -> Any:
    import jinja2
    from aiohttp import WSCloseCode, web

    from widgets.engine.served import EngineAppService, EngineServer

    page = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent), autoescape=True).get_template(
        PAGE_TEMPLATE)

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

    words = page_words(held, max_pages)

    class PageService(EngineAppService):
        async def run(self) -> None:
            """textual-serve's, and then what pideck wrote to stderr as it ended (the command
            that resumes its session), which textual-serve's reader, stopped when stdout
            closes, may have left unread."""
            await super().run()
            if self.process is not None and self.process.stderr is not None:
                if rest := await self.process.stderr.read():
                    sys.stdout.write(visible(rest.decode("utf-8", "replace")))
                    sys.stdout.flush()

    class TokenServer(EngineServer):
        middlewares = (require_token,)

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.pages: set[web.WebSocketResponse] = set()  # open websockets, closed on stop

        async def on_startup(self, app: web.Application) -> None:
            pass  # run() prints the URL once the port is known

        def _full(self, request: web.Request) -> str | None:
            """When `max_pages` pages are open: what the refused page reads (the server's terminal
            says so too); else None."""
            if len(self.pages) < max_pages:
                return None
            say(f"pideck: refused a page from {request.remote}: {len(self.pages)} pages are open, the most "
                f"--max-pages allows ({max_pages})", file=sys.stdout, flush=True)
            return pages_full(len(self.pages), max_pages, held)

        async def handle_index(self, request: web.Request) -> web.StreamResponse:
            if (refused := self._full(request)) is not None:
                return web.Response(status=503, content_type="text/html", text=(
                    f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>pideck: too many pages</title></head>"
                    f"<body style=\"font-family: monospace; padding: 2em\"><p>{refused}</p></body></html>\n"))
            html = page.render(await self.page_context(request))
            return web.Response(text=html, content_type="text/html")

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            """textual-serve's, with a PageService and a line in the server's terminal when a
            page comes and goes (closed, reloaded or cut off: a hang-up for its pideck, which
            leaves held pis to the holder and closes any other in order)."""
            websocket = web.WebSocketResponse(heartbeat=15)
            if (refused := self._full(request)) is not None:  # a page loaded before the others filled the cap
                await websocket.prepare(request)
                await websocket.send_bytes(f"\r\n  {refused}\r\n".encode())
                await websocket.close(code=WSCloseCode.TRY_AGAIN_LATER, message=b"pideck serve: too many pages")
                return websocket
            self.pages.add(websocket)  # counted before any wait: pages opening at once cannot all pass the cap
            try:
                await websocket.prepare(request)
            except BaseException:
                self.pages.discard(websocket)
                raise
            say(f"pideck: a page connected from {request.remote}; starting its pideck", file=sys.stdout, flush=True)
            service = PageService(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                                  close=websocket.close, download_manager=self.download_manager)
            try:
                await service.start(parse_int(request.query.get("width", ""), 80, low=1, high=MAX_CELLS),
                                    parse_int(request.query.get("height", ""), 24, low=1, high=MAX_CELLS))
                await self.process_messages(websocket, service)
            except Exception as error:  # a page that sent garbage: its pideck still ends in order
                say(f"pideck: the page from {request.remote} failed: {error!r}", file=sys.stdout, flush=True)
            finally:
                self.pages.discard(websocket)
                await service.stop()
                say(f"pideck: a page from {request.remote} closed; {words[1]}", file=sys.stdout, flush=True)
            return websocket

        async def run(self) -> None:
            handler = logging.StreamHandler()  # (stderr) aiohttp's and textual-serve's warnings, controls shown
            handler.setFormatter(_ShownFormatter("pideck serve: %(message)s"))
            logging.basicConfig(level=logging.WARNING, handlers=[handler])
            runner = web.AppRunner(await self.make_app(), handle_signals=False, access_log=None)
            await runner.setup()
            try:
                await web.TCPSite(runner, self.host, self.port).start()
            except OSError as exc:
                await runner.cleanup()
                raise ServeError(_bind_error(self.host, self.port, exc)) from None
            bound = runner.addresses[0][1]
            self.public_url = origin(self.host, bound)  # the page's links to its websocket and files
            say(f"pideck: serving on {self.public_url}/?token={token}", file=sys.stdout, flush=True)
            say(words[0], file=sys.stdout, flush=True)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            try:
                await stop.wait()
            finally:
                say(words[2], file=sys.stdout, flush=True)
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
