"""What windows of a held pi had typed and not sent: every window's draft is kept by the
holder, however the window went, whole, and put back at the next attach."""

from __future__ import annotations

import argparse
import asyncio
import time
from dataclasses import replace
from typing import Any

from tests.pi_harness import SIZE, PiHarness, notes, started, wait_until
from tests.real_pi.test_hold_real_pi import holder_env, windows  # noqa: F401 (fixtures)

from app.hold_cli import DRAFTS_APART, attach_launches
from app.pideck_app import PideckApp
from protocol.hold.ask import held
from protocol.hold.held_client import HeldChild

import pytest

pytestmark = pytest.mark.pi


def _drafts(env: dict[str, str]) -> list[str]:
    (pi,) = held(env, drafts=True)
    return pi["drafts"]


async def _eventually(condition: Any, what: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.05)


async def test_every_windows_draft_is_kept_newest_first_and_put_back(pi_harness: PiHarness, windows: Any,
                                                                   holder_env: dict[str, str]) -> None:
    """A's window dies without a word (its connection drops, as at a SIGKILL) after it said
    its draft; B detaches with its own, C with an empty prompt: an attach gets both, B's
    first, and takes them (the holder keeps them no more)."""
    config = replace(pi_harness.launch_config(env={"XDG_RUNTIME_DIR": holder_env["XDG_RUNTIME_DIR"]}), hold=True)
    a = PideckApp(config)
    said: list[str] = []
    async with a.run_test(size=SIZE) as pilot:
        await started(pilot)
        number = a.client.hello["number"]
        report = a.client.report_draft
        a.client.report_draft = lambda draft: (said.append(draft), report(draft))  # type: ignore[method-assign]
        a.main.editor.insert("precious draft")
        await wait_until(pilot, lambda: said and said[-1] == "precious draft", what="the draft said to the holder")
        process = a.client.process
        assert isinstance(process, HeldChild)
        await process.written(10)
        process._writer.transport.abort()  # (the window is gone: nothing more from it)
        b = await windows(number)
        c = await windows(number)
        await _eventually(lambda: _drafts(holder_env) == ["precious draft"], "A's draft kept")
        a.exit()
    b.client.detach("draft in B")
    await b.client.written(10)
    c.client.detach("")
    await c.client.written(10)
    await _eventually(lambda: held(holder_env)[0]["windows"] == 0, "B and C gone")
    assert _drafts(holder_env) == ["draft in B", "precious draft"]

    ((launch, draft),) = attach_launches(config, argparse.Namespace(attach=[]), holder_env)
    assert draft == "draft in B" + DRAFTS_APART + "precious draft"
    attached = PideckApp(launch, drafts=[draft])
    async with attached.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: attached._session_ready and attached.main.editor.text == draft,
                         what="both drafts in the prompt")
        assert any("2 drafts left by windows that went are in the prompt" in note for note in notes(attached))
        assert _drafts(holder_env) == [], "the drafts are the attached window's now"
        attached.main.editor.load("")
        attached.detach()
    assert _drafts(holder_env) == [], "a draft emptied in the prompt is not put back"


async def test_a_draft_over_a_control_frame_is_kept_whole(pi_harness: PiHarness, holder_env: dict[str, str]) -> None:
    """5 M characters left at Ctrl+\\: the window waits for them to be sent, the holder keeps
    them whole (they were dropped with the connection, or cut to 1 M characters)."""
    config = replace(pi_harness.launch_config(env={"XDG_RUNTIME_DIR": holder_env["XDG_RUNTIME_DIR"]}), hold=True)
    big = ("a long draft é😀\n" * 400_000)[:5_000_000]
    app = PideckApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await started(pilot)
        app.main.editor.load(big)
        app.detach()
    kept = _drafts(holder_env)
    assert len(kept) == 1 and len(kept[0]) == len(big) and kept[0] == big
