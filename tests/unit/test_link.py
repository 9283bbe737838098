"""The links to pi (protocol/wire/link.py) against what the client needs of them, one suite
that a pi of the window's own (`LocalLink`) and a pi the holder keeps (`HeldLink`, on a
holder in the test's loop) both pass: lines in order, a broken and an overlong line, the
exit status, the end in order, the detach each allows."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

import protocol.hold.held_pi as held_pi
import protocol.wire.local_link as local_link
from protocol.hold.held_link import HeldLink
from protocol.wire.codec import ProtocolError
from protocol.wire.link import Link, LinkError
from protocol.wire.local_link import LocalLink
from tests.held_holder import holder_in_loop
from tests.unit.test_client_unit import fake

MakeLink = Callable[..., Link]


@pytest.fixture(params=["own", "held"])
async def make_link(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[MakeLink]:
    """`make_link(*actions)`: the link to tests/unit/test_client_unit.py's fake pi playing
    `actions` (or to `argv`), not started; each is ended at the test's end."""
    links: list[Link] = []
    if request.param == "own":
        def make(*actions: list[Any], argv: list[str] | None = None) -> Link:
            links.append(LocalLink(argv or fake(*actions)))
            return links[-1]

        yield make
        for link in links:
            link.kill()
        return
    async with holder_in_loop(tmp_path / "run") as held:
        def make_held(*actions: list[Any], argv: list[str] | None = None) -> Link:
            links.append(HeldLink(argv or fake(*actions), holder_env=held.env, env=held.env))
            return links[-1]

        yield make_held
        for link in links:
            link.close_pipes()


async def read_all(link: Link, timeout: float = 30.0) -> list[Any]:
    """What the link hands on from pi's stdout, to its end."""
    items: list[Any] = []
    async with asyncio.timeout(timeout):
        while got := await link.read():
            items += got
    return items


def line(record: dict[str, Any]) -> bytes:
    return json.dumps(record).encode()


async def test_pi_s_lines_come_whole_in_order_then_its_exit_status(make_link: MakeLink) -> None:
    link = make_link(["many", 5000], ["raw", "a\r\nb\n\nc"], ["exit", 3])
    start = await link.start()
    assert (start.hello is not None) == (link.held is not None) and start.snapshot is None
    items = await read_all(link)
    expected = [b'{"type":"bash_execution_update","delta":"%d"}' % index for index in range(5000)]
    assert [item for item in items if item] == [*expected, b"a", b"b", b"c"], "split on LF once, a CR before it dropped"
    await asyncio.wait_for(asyncio.shield(link.exited), 30)
    assert link.returncode == 3 and link.exit_error is None


async def test_a_broken_line_goes_on_as_it_came_and_an_overlong_one_as_a_protocol_error(
        make_link: MakeLink, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_link, "MAX_LINE", 100_000)
    monkeypatch.setattr(held_pi, "MAX_LINE", 100_000)
    head = '{"type":"response","id":"big","command":"get_messages","success":true,"data":"'
    link = make_link(["emit", {"type": "agent_start"}], ["raw", "not json\n"], ["padded", head, 2_000_000, '"}\n'],
                     ["emit", {"type": "agent_settled"}], ["exit", 0])
    await link.start()
    items = await read_all(link)
    assert items[:2] == [line({"type": "agent_start"}), b"not json"]
    assert isinstance(items[2], ProtocolError) and items[2].raw.startswith(head.encode())
    assert len(items[2].raw) <= 65536 and "line longer than" in items[2].error
    assert items[3:] == [line({"type": "agent_settled"})], "the rest of the overlong line let go, what follows kept"


async def test_end_closes_stdin_then_terms_then_kills(make_link: MakeLink) -> None:
    gentle = make_link(["echo"], ["exit", 7])  # ends when its stdin closes
    await gentle.start()
    await gentle.end(5.0, 5.0)
    assert gentle.exited.done() and gentle.returncode == 7

    stubborn = make_link(["ignore_term"], ["emit", {"type": "agent_start"}], ["hang"])
    await stubborn.start()
    assert await asyncio.wait_for(stubborn.read(), 30) == [line({"type": "agent_start"})], "SIGTERM ignored from now"
    loop = asyncio.get_running_loop()
    begun = loop.time()
    await stubborn.end(0.2, 0.2)
    assert stubborn.exited.done() and stubborn.returncode == -9, "SIGKILLed once stdin and SIGTERM were not enough"
    assert loop.time() - begun >= 0.4, "each step given its grace"


async def test_a_detach_is_refused_by_a_pi_of_the_window_s_own_only(make_link: MakeLink) -> None:
    link = make_link(["echo"])
    await link.start()
    if link.held is None:
        with pytest.raises(LinkError, match="cannot go on without it"):
            link.detach("draft")
        assert not link.exited.done()
        return
    link.detach("draft")
    assert await read_all(link) == []
    await asyncio.wait_for(asyncio.shield(link.exited), 10)
    assert link.returncode is None and link.exit_error is None and not link.kept, "pi goes on in the holder"


async def test_a_pi_that_cannot_start_is_said_as_a_link_error(make_link: MakeLink, tmp_path: Path) -> None:
    link = make_link(argv=[str(tmp_path / "no-such-pi")])
    with pytest.raises(LinkError, match="cannot start .*No such file or directory"):
        await link.start()
    assert not link.spawned


@pytest.mark.parametrize("link", [LocalLink(["pi"]), HeldLink(["pi"], holder_env={})], ids=["own", "held"])
def test_each_link_has_every_member_of_the_protocol(link: Link) -> None:
    members = [name for name in vars(Link) if not name.startswith("_")]
    missing = [name for name in members if not name == "exited" and not hasattr(link, name)]
    assert len(members) > 20 and missing == [], "(`exited` is there once started)"


async def test_what_the_holder_says_comes_in_its_place_among_pi_s_lines() -> None:
    """A frame's lines are handed on as they came (cut at their LFs, nothing joined), and what
    the holder says between two frames of them comes between them."""
    from protocol.hold import frames
    from protocol.wire.extension_ui import DialogAnswered

    link = HeldLink(["pi"], holder_env={})
    await link._frames([
        (frames.STDOUT, b'{"a":1}\n{"b":2}\n'),
        (frames.CONTROL, frames.control(op="answered", id="dialog-1")[frames.HEADER.size:]),
        (frames.STDOUT, b'{"c":3}\n'),
        (frames.CONTROL, frames.control(op="dropped", head='{"type":"response","id":"x"', size=600)[frames.HEADER.size:]),
        (frames.STDOUT, b"\n"),
        (frames.STDOUT, b'{"d":4}'),
    ])
    assert await link.read() == [b'{"a":1}', b'{"b":2}']
    assert await link.read() == [DialogAnswered(id="dialog-1")]
    assert await link.read() == [b'{"c":3}']
    (dropped,) = await link.read()
    assert isinstance(dropped, ProtocolError) and dropped.raw == b'{"type":"response","id":"x"'
    assert dropped.error == "line longer than 600 bytes; dropped"
    assert await link.read() == [b""], "a blank line handed on as such (the client passes over it)"
    assert await link.read() == [b'{"d":4}'], "a last line without its LF"
