"""`@` completion over trees git would list: a `.gitignore` line git accepts that a regular
expression would not (`[z-a]`) outside a git work tree, a file name that is not UTF-8, and
a listing that fails (said in a toast; completion goes on folder by folder)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from tests.pi_harness import Fake, notes, wait_until

from widgets.prompt.completion import CompletionMenu, _path_candidate
from protocol.state.file_index import Entry
from widgets.prompt.editor import PromptEditor


def labels(pilot: Any) -> list[str]:
    menu = pilot.app.query_one(CompletionMenu)
    return [candidate.label for candidate in menu.candidates] if menu.display else []


async def retype(pilot: Any, text: str) -> None:
    pilot.app.query_one(PromptEditor).load("")
    await pilot.press(*text)


def test_a_name_that_is_not_utf8_shows_its_bytes_and_inserts_what_pi_reads() -> None:
    name = os.fsdecode(b"caf\xff\xfe.txt")
    candidate = _path_candidate(Entry(name, False))
    assert candidate.label == "caf\\xff\\xfe.txt"
    assert candidate.insert == "@caf\ufffd\ufffd.txt "
    assert candidate.insert.encode("utf-8"), "sendable to pi as JSON"


async def test_an_invalid_range_in_a_gitignore_still_lists_the_tree(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    (tmp_path / ".gitignore").write_text("[z-a]\n*.log\n")
    (tmp_path / "src" / "deep").mkdir(parents=True)
    (tmp_path / "src" / "deep" / "menu_widget.py").write_text("x")
    (tmp_path / "src" / "deep" / "menu.log").write_text("x")
    async with fake.run() as pilot:
        await retype(pilot, "@menuwid")
        await wait_until(pilot, lambda: labels(pilot) == ["src/deep/menu_widget.py"], timeout=30,
                         what="the fuzzy candidate from two folders down")  # fmt: skip


async def test_a_name_with_a_byte_that_is_not_utf8_keeps_the_menus_rows(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    try:
        (tmp_path / os.fsdecode(b"caf\xff.txt")).write_text("x")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system takes only UTF-8 names")
    (tmp_path / "cafe.txt").write_text("x")
    async with fake.run() as pilot:
        await retype(pilot, "@caf")
        await wait_until(pilot, lambda: "caf\\xff.txt" in labels(pilot), timeout=30, what="the odd name")
        menu = pilot.app.query_one(CompletionMenu)
        await pilot.pause()
        rows = [strip.text for strip in (menu.render_line(y) for y in range(menu.size.height))]
        assert any("caf\\xff.txt" in row for row in rows)
        assert len({len(row) for row in rows}) == 1, "every row as wide as the menu"
        menu.highlighted = labels(pilot).index("caf\\xff.txt")
        await pilot.press("tab")
        assert pilot.app.query_one(PromptEditor).text == "@caf\ufffd.txt "


async def test_a_listing_that_fails_is_said_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(root: Path) -> list[Entry]:
        raise PermissionError(13, "Permission denied", str(root))

    monkeypatch.setattr("app.main_screen.list_entries", broken)
    fake = Fake(tmp_path)
    (tmp_path / "notes.md").write_text("x")
    async with fake.run() as pilot:
        await retype(pilot, "@no")
        await wait_until(pilot, lambda: any("could not list the files" in note for note in notes(pilot.app)), what="the toast")
        await wait_until(pilot, lambda: labels(pilot) == ["notes.md"], what="the folder's entries by prefix")
        assert sum("could not list the files" in note for note in notes(pilot.app)) == 1
