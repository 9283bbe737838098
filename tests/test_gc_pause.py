"""Full garbage collections wait while pi streams, and run once it settles."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator

import pytest

from app.gc_pause import NEVER, StreamingGC


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    saved = gc.get_threshold()
    yield saved
    gc.set_threshold(*saved)


def test_full_collections_are_held_during_a_run_and_run_after_it(thresholds: tuple[int, int, int]) -> None:
    scheduled: list[tuple[float, Callable[[], object]]] = []
    pause = StreamingGC(lambda delay, callback: scheduled.append((delay, callback)))
    pause.streaming(False)
    assert gc.get_threshold() == thresholds and not scheduled, "nothing to undo before a run"
    pause.streaming(True)
    pause.streaming(True)
    assert gc.get_threshold() == (thresholds[0], thresholds[1], NEVER)
    assert pause.holding
    pause.streaming(False)
    assert gc.get_threshold() == thresholds, "the thresholds come back as they were"
    assert len(scheduled) == 1 and scheduled[0][0] > 0
    generations: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    gc.callbacks.append(note)
    try:
        scheduled[0][1]()
    finally:
        gc.callbacks.remove(note)
    assert generations == [2], "one full collection once the run settled"


def test_no_collection_if_a_new_run_started_before_it(thresholds: tuple[int, int, int]) -> None:
    scheduled: list[Callable[[], object]] = []
    pause = StreamingGC(lambda delay, callback: scheduled.append(callback))
    pause.streaming(True)
    pause.streaming(False)
    pause.streaming(True)
    full: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start" and info["generation"] == 2:
            full.append(2)

    gc.callbacks.append(note)
    try:
        scheduled[0]()
    finally:
        gc.callbacks.remove(note)
        pause.streaming(False)
    assert not full
