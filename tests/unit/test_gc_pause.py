"""Full garbage collections wait while pi streams, and run once it settles."""

from __future__ import annotations

import gc
import weakref
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


class Node:
    """An object in a reference cycle: only the collector frees it."""

    def __init__(self) -> None:
        self.me = self


def one_run(pause: StreamingGC, scheduled: list[Callable[[], object]]) -> None:
    pause.streaming(True)
    pause.streaming(False)
    scheduled.pop()()


def test_what_a_run_leaves_alive_is_left_out_of_the_next_run_s_collection(thresholds: tuple[int, int, int]) -> None:
    """A run's full collection walks what came since the last one, not the whole
    transcript again: what survives it is frozen too."""
    scheduled: list[Callable[[], object]] = []
    pause = StreamingGC(lambda delay, callback: scheduled.append(callback))
    pause.started()
    try:
        reply = [Node() for _ in range(100)]
        one_run(pause, scheduled)
        assert not any(gc.is_tracked(node) and node in gc.get_objects() for node in reply[:3]), "frozen by the release"
        assert gc.get_freeze_count() >= len(reply)
        walked: list[int] = []
        gc.callbacks.append(lambda phase, info: walked.append(len(gc.get_objects())) if phase == "start" else None)
        try:
            one_run(pause, scheduled)
        finally:
            gc.callbacks.pop()
        assert walked and walked[-1] < len(reply) * 50, "the next run's collection walks only what came since"
    finally:
        pause.close()
    assert gc.get_freeze_count() == 0


def test_dead_cycles_that_were_frozen_are_collected_once_the_frozen_objects_double(
    thresholds: tuple[int, int, int],
) -> None:
    scheduled: list[Callable[[], object]] = []
    pause = StreamingGC(lambda delay, callback: scheduled.append(callback))
    pause.started()
    try:
        dead = Node()
        probe = weakref.ref(dead)
        one_run(pause, scheduled)  # frozen while alive
        del dead
        one_run(pause, scheduled)
        assert probe() is not None, "a frozen cycle waits for the complete collection"
        start = gc.get_freeze_count()
        grown = [Node() for _ in range(start + 10)]  # the frozen objects more than double
        one_run(pause, scheduled)
        assert probe() is None, "the complete collection freed it"
        assert gc.get_freeze_count() >= len(grown), "and froze what lives again"
    finally:
        pause.close()


def test_a_run_s_release_does_not_count_the_frozen_objects(thresholds: tuple[int, int, int],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """gc.get_freeze_count() walks every frozen object (9 ms after start-up's 50,000): a
    release counts only what it freezes, which its collection walked anyway."""
    scheduled: list[Callable[[], object]] = []
    pause = StreamingGC(lambda delay, callback: scheduled.append(callback))
    pause.started()
    counted: list[int] = []
    count = gc.get_freeze_count
    monkeypatch.setattr(gc, "get_freeze_count", lambda: counted.append(1) or count())
    try:
        kept = [Node() for _ in range(10)]
        one_run(pause, scheduled)
        assert not counted, "the frozen objects were walked to count them"
        assert not any(node in gc.get_objects() for node in kept[:3]), "what the run left alive is frozen"
    finally:
        pause.close()
