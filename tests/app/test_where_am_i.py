"""Where pi works and what it costs, always on screen, as pi's footer shows them: pi's folder
(`~` for the home folder) with its git branch on the prompt's bottom border, followed when the
branch changes and looked up off the UI thread; and below 100 columns, where the side panes
hide, `model • thinking`, the context, tokens and cost on the status line."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from tests.pi_harness import Fake, ready, type_text, wait_until

import app.git_branch as git_branch
from protocol.state.session_model import SessionModel
from widgets.prompt.editor import PromptEditor
from widgets.panes.side import StatusLine
from widgets.panes.status_where import where_label


def status_text(app: Any) -> str:
    return app.query_one(StatusLine)._shown.plain


def border(app: Any) -> str:
    """The prompt's bottom border's text (Textual keeps a Text given to it as markup)."""
    return Text.from_markup(app.query_one(PromptEditor).border_subtitle or "").plain


async def test_folder_branch_and_footer_at_80x24(tmp_path: Path) -> None:
    work = tmp_path / "parser"
    (work / ".git").mkdir(parents=True)
    head = work / ".git" / "HEAD"
    head.write_text("ref: refs/heads/main\n")
    fake = Fake(work)
    app = fake.app({"HOME": str(tmp_path)})
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, fake)
        await wait_until(pilot, lambda: border(app) == "~/parser (main)", what="the folder and branch")
        await wait_until(pilot, lambda: status_text(app).endswith("↑240 ↓21 $0.000  0.1%/128k (auto)  scripted-demo • medium"),
                         what="pi's footer on the status line")
        assert status_text(app).startswith("● ready")
        head.write_text("ref: refs/heads/topic\n")  # a checkout, in pi's bash or another terminal
        await wait_until(pilot, lambda: border(app) == "~/parser (topic)", timeout=git_branch.BRANCH_EVERY * 5,
                         what="the new branch")
        await pilot.resize_terminal(120, 36)
        await wait_until(pilot, lambda: status_text(app) == "● ready", what="the side panes say it")
        assert border(app) == "~/parser (topic)"


async def test_a_slow_disk_does_not_hold_the_screen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HEAD on a hung network folder: keys still reach the prompt while the look waits."""
    looking, release = threading.Event(), threading.Event()
    branch_of = git_branch.branch_of

    def hung(head: Path, repo: Path) -> str | None:
        looking.set()
        release.wait(10)
        return branch_of(head, repo)

    monkeypatch.setattr(git_branch, "branch_of", hung)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    fake = Fake(tmp_path)
    app = fake.app()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await ready(pilot, fake)
            await wait_until(pilot, looking.is_set, what="the look at HEAD")
            await type_text(pilot, "still typing")
            assert app.query_one(PromptEditor).text == "still typing" and "(main)" not in border(app)
            release.set()
            await wait_until(pilot, lambda: border(app).endswith("(main)"), what="the branch once read")
    finally:
        release.set()


def test_the_label_is_text_cut_from_its_left_and_names_a_remote_host() -> None:
    session = SessionModel()
    session.cwd = "/home/ada/src/[b]odd[/b] project"
    label = where_label(session, branch="main", home="/home/ada", host=None, cells=200)
    assert label.plain == "~/src/[b]odd[/b] project (main)"  # a folder's name is not markup
    assert Text.from_markup(label.markup).plain == label.plain
    short = where_label(session, branch="main", home="/home/ada", host=None, cells=16).plain
    assert short.startswith("…") and short.endswith("project (main)") and len(short) == 16
    assert where_label(session, branch=None, home=None, host="devbox", cells=80).plain == "pi on devbox"


async def test_the_same_label_leaves_the_prompt_unpainted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every state pi sends (after each reply) shows where it works again: the same label
    set again repainted the whole prompt, 1 ms a reply."""
    fake = Fake(tmp_path)
    app = fake.app({"HOME": str(tmp_path)})
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot, fake)
        await wait_until(pilot, lambda: border(app) != "", what="the folder on the border")
        editor = app.query_one(PromptEditor)
        repaints: list[object] = []
        refresh = editor.refresh
        monkeypatch.setattr(editor, "refresh", lambda *a, **k: repaints.append(a) or refresh(*a, **k))
        app.screen.show_where()
        assert repaints == []
        app.screen.branch = "topic"
        app.screen.show_where()
        assert len(repaints) == 1 and border(app).endswith("(topic)")
