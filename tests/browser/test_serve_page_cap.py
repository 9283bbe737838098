"""`pideck serve --max-pages N`: at most N pages, each with its own pideck and pi, are open at
once (50 websockets with the token once started 50 pidecks and 50 pis, about 3.1 GB). One
more is refused, and told why: a page load gets a page that says so (503), a websocket that
text as its terminal's output and then a close (1013, try again later); the server's
terminal says so too. A page that closes makes room for the next. Driven by websockets
straight from aiohttp's client, each page's pideck over the fake pi."""

from __future__ import annotations

import asyncio
import shlex
import time
import urllib.error
import urllib.request
from pathlib import Path

import aiohttp
from tests.browser.test_serve_in_browser import Served
from tests.load import out_of_time
from tests.pi_harness import Fake


def pidecks(server: Served) -> int:
    """The pideck processes the server started for its pages (`python -P -m app`)."""
    count = 0
    for pid in server.processes():
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        count += argv[1:4] == [b"-P", b"-m", b"app"]
    return count


async def page(session: aiohttp.ClientSession, server: Served) -> tuple[aiohttp.ClientWebSocketResponse, bytearray]:
    """A page's websocket and what its terminal received (read in the background)."""
    ws = await session.ws_connect(f"{server.origin.replace('http', 'ws')}/ws?width=80&height=24")
    received = bytearray()

    async def read() -> None:
        async for message in ws:
            if message.type == aiohttp.WSMsgType.BINARY:
                received.extend(message.data)

    asyncio.get_running_loop().create_task(read())
    return ws, received


async def until(condition: object, what: str, timeout: float = 60.0) -> None:
    started = time.monotonic()
    while not condition():  # type: ignore[operator]
        if out_of_time(started, timeout):
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


async def test_pages_beyond_max_pages_are_refused_and_told_why(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    server = Served(tmp_path, "--max-pages", "2", "--pi", shlex.join(fake.argv))
    token = server.url.split("token=", 1)[1]
    try:
        assert "at most 2 pages at once" in server.log()
        async with aiohttp.ClientSession(cookies={f"pideck_token_{server.origin.rsplit(':', 1)[1]}": token}) as session:
            first, first_seen = await page(session, server)
            second, second_seen = await page(session, server)
            await until(lambda: len(first_seen) > 1000 and len(second_seen) > 1000, "two pages drawn")
            assert pidecks(server) == 2

            third, third_seen = await page(session, server)
            await until(lambda: third.closed, "the third page closed")
            assert third.close_code == aiohttp.WSCloseCode.TRY_AGAIN_LATER
            assert b"2 pages are open, the most it allows (--max-pages 2)" in third_seen
            assert b"Close one of them" in third_seen
            body = refused_page(server.url)
            assert "2 pages are open" in body and "reload this page" in body
            assert server.log().count("refused a page from") == 2, server.log()
            assert pidecks(server) == 2, "no pideck started for a refused page"

            await first.close()
            await until(lambda: "closed; its pideck has ended" in server.log(), "the first page's pideck ended")
            fourth, fourth_seen = await page(session, server)
            await until(lambda: len(fourth_seen) > 1000, "a page in the room the first left")
            assert not fourth.closed
            await asyncio.gather(second.close(), fourth.close())
    finally:
        server.stop()


def refused_page(url: str) -> str:
    """The page a refused page load gets (status 503, HTML), as text."""
    try:
        urllib.request.urlopen(url, timeout=30)
    except urllib.error.HTTPError as refused:
        assert refused.code == 503 and refused.headers.get_content_type() == "text/html"
        return refused.read().decode()
    raise AssertionError("the page loaded beyond --max-pages")
