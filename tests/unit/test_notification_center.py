"""The notification center's rules: a few toasts at once, the rest counted, every notice kept
(bounded), and toasts cut short."""

from __future__ import annotations

import protocol.state.notification_center as nc
from protocol.state.notification_center import MAX_TOASTS, NotificationCenter, toast_text


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_few_toasts_at_once_the_rest_counted_and_all_kept() -> None:
    clock = Clock()
    center = NotificationCenter(clock)
    shown = [center.add(f"note {i}", "", "information", 5) for i in range(1000)]
    # the first three, then the fourth at once in the place of the first; the flood after it waits
    assert [toast.message for toast in shown if toast is not None] == [f"note {i}" for i in range(MAX_TOASTS + 1)]
    assert shown[MAX_TOASTS].folds == shown[0].key
    clock.now += nc.FOLD_EVERY
    newest = center.due()
    assert newest is not None and newest.message == "note 999" and newest.folds == shown[1].key
    assert center.due() is None
    assert center.hidden == 1000 - MAX_TOASTS
    assert center.summary(5, "F8").startswith(f"+{1000 - MAX_TOASTS:,} more notifications · F8")
    assert center.total == 1000 and [n.message for n in center.entries][-1] == "note 999"
    assert len(center.entries) == nc.MAX_ENTRIES


def test_the_newest_shows_at_once_and_the_oldest_is_folded() -> None:
    """Three toasts up, then the answer to the key just pressed: it shows, not "+1 more"."""
    clock = Clock()
    center = NotificationCenter(clock)
    first = [center.add(f"n{i}", "", "warning" if i == 0 else "information", 10) for i in range(MAX_TOASTS)]
    clock.now += 1
    newest = center.add("Exported to /tmp/x.html", "", "information", 10)
    assert newest is not None and newest.message == "Exported to /tmp/x.html"
    assert first[0] is not None and newest.folds == first[0].key
    assert center.hidden == 1 and center.hidden_severity == "warning"
    assert center.summary(5, "F8").startswith("+1 more notification · F8")


def test_a_toast_taken_off_makes_room_and_is_kept_in_the_list() -> None:
    clock = Clock()
    center = NotificationCenter(clock)
    first = [center.add(f"n{i}", "", "information", 10) for i in range(MAX_TOASTS)]
    assert first[1] is not None
    center.taken_off(first[1].key)
    assert first[1].key not in center.up()
    clock.now += 1
    newest = center.add("another", "", "information", 10)
    assert newest is not None and newest.folds is None and center.hidden == 0
    assert [n.message for n in center.entries] == ["n0", "n1", "n2", "another"]


def test_toasts_come_back_when_the_shown_ones_go_and_the_count_starts_afresh() -> None:
    clock = Clock()
    center = NotificationCenter(clock)
    for i in range(MAX_TOASTS + 2):  # the fourth folds the first; the fifth waits
        center.add(f"n{i}", "", "warning" if i == 1 else "information", 5)
    assert center.hidden == 1 and center.hidden_severity == "information"
    clock.now += nc.FOLD_EVERY
    assert center.due() is not None and center.hidden == 2 and center.hidden_severity == "warning"
    center.summary(5, "F8")
    clock.now += 6  # every toast, the "+N more" one too, went away
    assert center.add("later", "", "information", 5) is not None
    for i in range(MAX_TOASTS):
        center.add(f"again {i}", "", "information", 5)
    assert center.hidden == 1 and center.hidden_severity == "information"  # "later" was folded


def test_the_count_keeps_growing_while_the_summary_is_up() -> None:
    clock = Clock()
    center = NotificationCenter(clock)
    for i in range(MAX_TOASTS + 1):
        center.add(f"n{i}", "", "information", 60)
    center.summary(5, "F8")
    clock.now += 1
    center.add("one more", "", "information", 60)
    assert center.hidden == 2


def test_a_huge_notice_is_a_short_toast_and_whole_in_the_list() -> None:
    center = NotificationCenter(Clock())
    message = "error: " + "x" * 1_000_000
    toast = center.add(message, "pi refused " * 20, "error", 5)
    assert toast is not None and toast.cut
    assert len(toast.message) < nc.TOAST_CHARS + 80 and "more characters: /notifications shows all" in toast.message
    assert len(toast.title) <= nc.TITLE_CHARS and "\n" not in toast.title
    assert center.entries[-1].message == message


def test_toast_text_cuts_lines_and_says_how_many_are_left() -> None:
    text, cut = toast_text("\n".join(f"line {i}" for i in range(100)))
    assert cut and text.count("\n") == nc.TOAST_LINES and "94 more lines" in text
    assert toast_text("short\ntext") == ("short\ntext", False)


def test_the_list_is_bounded_in_characters(monkeypatch) -> None:
    monkeypatch.setattr(nc, "MAX_CHARS", 1000)
    center = NotificationCenter(Clock())
    for i in range(10):
        center.add(str(i) * 300, "", "information", 5)
    assert sum(len(n.message) for n in center.entries) <= 1000
    assert center.entries[-1].message == "9" * 300
