"""Full garbage collections wait while pi streams, and run once it settles."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator

import pytest

from app.gc_pause import NEVER, YOUNG, StreamingGC


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    saved = gc.get_threshold()
    yield saved
    gc.set_threshold(*saved)


def full_collections(run: Callable[[], object]) -> list[int]:
    """The generations collected while `run()` runs."""
    generations: list[int] = []

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    gc.callbacks.append(note)
    try:
        run()
    finally:
        gc.callbacks.remove(note)
    return [g for g in generations if g == 2]


def test_full_collections_are_held_during_a_run_and_after_it_until_the_collection(
    thresholds: tuple[int, int, int],
) -> None:
    scheduled: list[tuple[float, Callable[[], object]]] = []
    pause = StreamingGC(lambda delay, callback: scheduled.append((delay, callback)))
    pause.streaming(False)
    assert gc.get_threshold() == thresholds and not scheduled, "nothing to undo before a run"
    pause.streaming(True)
    pause.streaming(True)
    assert gc.get_threshold() == (max(thresholds[0], YOUNG), thresholds[1], NEVER)
    assert pause.holding
    pause.streaming(False)
    pause.streaming(False)
    assert gc.get_threshold() == (max(thresholds[0], YOUNG), thresholds[1], NEVER), "still held: the last frames come first"
    assert len(scheduled) == 1 and scheduled[0][0] > 0, "one release, later"
    assert full_collections(scheduled[0][1]) == [2], "one full collection once the run settled"
    assert gc.get_threshold() == thresholds, "then the thresholds come back as they were"
    assert not pause.holding


def test_a_run_that_starts_before_the_release_keeps_holding(thresholds: tuple[int, int, int]) -> None:
    scheduled: list[Callable[[], object]] = []
    pause = StreamingGC(lambda delay, callback: scheduled.append(callback))
    pause.streaming(True)
    pause.streaming(False)
    pause.streaming(True)
    assert not full_collections(scheduled[0])
    assert pause.holding and gc.get_threshold()[2] == NEVER
    pause.streaming(False)
    assert len(scheduled) == 2, "the new run's end schedules the release"
    assert full_collections(scheduled[1]) == [2]
    assert gc.get_threshold() == thresholds


def test_close_gives_the_thresholds_back_at_once(thresholds: tuple[int, int, int]) -> None:
    pause = StreamingGC(lambda delay, callback: None)
    pause.streaming(True)
    pause.close()
    assert gc.get_threshold() == thresholds and not pause.holding


def test_what_start_up_made_is_frozen_until_close(thresholds: tuple[int, int, int]) -> None:
    pause = StreamingGC(lambda delay, callback: None)
    kept = [object() for _ in range(10)] + [{"start-up": i} for i in range(10)]
    pause.started()
    try:
        assert gc.get_freeze_count() >= len(kept), "left out of every later collection"
    finally:
        pause.close()
    assert gc.get_freeze_count() == 0, "collectable again once the app closes"


def test_a_run_s_release_keeps_start_up_frozen(thresholds: tuple[int, int, int]) -> None:
    """Only closing gives start-up back: a release that did would make every later full
    collection walk all of it again (some 50,000 objects, half its cost)."""
    scheduled: list[Callable[[], object]] = []
    pause = StreamingGC(lambda delay, callback: scheduled.append(callback))
    pause.started()
    try:
        frozen = gc.get_freeze_count()
        pause.streaming(True)
        pause.streaming(False)
        assert full_collections(scheduled[0]) == [2]
        assert gc.get_threshold() == thresholds
        assert gc.get_freeze_count() > frozen // 2, "start-up is still left out (less what refcounting freed)"
    finally:
        pause.close()
    assert gc.get_freeze_count() == 0
