"""A held link's way to its holder is its opener's (protocol/hold/held_link.py): the link
broken, the opener is run again, and a holder out of reach for now (`Unreachable`: a host
over a link that is down) is tried again, with backoff, until it answers."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping
from pathlib import Path

from protocol.hold.held_link import HeldLink, Unreachable, connect_holder
from protocol.wire.extension_ui import CaughtUp
from protocol.wire.link import Relinked
from tests.held_holder import holder_in_loop

FAKE_PI = [sys.executable, str(Path(__file__).parents[1] / "fake_pi.py")]


async def test_a_holder_out_of_reach_is_tried_again_until_it_answers(tmp_path: Path) -> None:
    async with holder_in_loop(tmp_path / "run") as held:
        tries: list[bool] = []
        writers: list[asyncio.StreamWriter] = []

        async def opener(env: Mapping[str, str], start: bool = True) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
            tries.append(start)
            if not start and len(tries) <= 3:
                raise Unreachable("the link is down")
            reader, writer = await connect_holder(env, start)
            writers.append(writer)
            return reader, writer

        link = HeldLink(FAKE_PI, holder_env=held.env, env=held.env, opener=opener)
        await link.start()
        try:
            writers[0].transport.abort()  # (the link breaks)
            got: list[object] = []
            async with asyncio.timeout(60):
                while not any(isinstance(item, CaughtUp) for item in got) and (items := await link.read()):
                    got += items
            assert tries == [True, False, False, False]  # a spawn, then attaches only: no holder started for it
            assert [type(item) for item in got[-2:]] == [Relinked, CaughtUp]
            assert not link.exited.done() and link.exit_error is None
        finally:
            link.close_pipes()
