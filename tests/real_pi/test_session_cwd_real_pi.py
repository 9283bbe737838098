"""pi's working directory after a session switch, driven through pideck against the REAL pi: pi
runs where the session it switched to was recorded, and pideck follows it for `@` path
completion and for /resume's "this folder" list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pi_harness import SIZE, PiHarness, copy_session, quiesce, send, transcript_text, wait_until

from app.pideck_app import PideckApp
from widgets.prompt.completion import CompletionMenu
from widgets.prompt.editor import PromptEditor
from widgets.screens.session_picker import SessionPicker


async def first_completion(pilot: Any, text: str) -> str | None:
    """The first label the completion menu offers for `text` typed in the prompt (the fuzzy
    candidates that follow depend on whether the folder was listed yet)."""
    editor = pilot.app.query_one(PromptEditor)
    editor.load("")
    editor.insert(text)
    await pilot.pause()  # the editor's Changed message fills the menu
    labels = [candidate.label for candidate in pilot.app.query_one(CompletionMenu).candidates]
    editor.load("")
    return labels[0] if labels else None


async def pwd_of_pi(pilot: Any, marker: str) -> str:
    """The directory pi's `bash` runs in (`!!` keeps it out of the model's context)."""
    await send(pilot, f"!!echo {marker}=$(pwd)")
    found = await wait_until(
        pilot, lambda: [line for line in transcript_text(pilot.app).splitlines() if f"{marker}=/" in line],
        timeout=30, what=f"pwd ({marker})",
    )  # fmt: skip
    return found[-1].split(f"{marker}=", 1)[1].strip()


async def test_pideck_follows_pi_into_a_resumed_sessions_directory(pi_harness: PiHarness, tmp_path: Path) -> None:
    pi_harness.reset_model()
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "src").mkdir(parents=True)
    (elsewhere / "only_elsewhere.txt").write_text("there\n")
    sessions = tmp_path / "sessions"
    here = copy_session("branched.jsonl", sessions, pi_harness.cwd)
    there = copy_session("plain.jsonl", sessions, elsewhere)
    launch_only = pi_harness.cwd / "only_at_launch.txt"  # the harness's cwd is shared: removed at the end
    launch_only.write_text("here\n")
    try:
        await resume_elsewhere(pi_harness, sessions, here, there, elsewhere)
    finally:
        launch_only.unlink()


async def resume_elsewhere(pi_harness: PiHarness, sessions: Path, here: Path, there: Path, elsewhere: Path) -> None:
    app = PideckApp(pi_harness.launch_config(session_dir=sessions))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready and app.desk.current.pi.model.state is not None, timeout=30, what="start-up")
        assert app.desk.current.pi.cwd == pi_harness.cwd
        assert await first_completion(pilot, "@only_") == "only_at_launch.txt"

        await send(pilot, "/resume")  # "this folder": the launch directory's session only
        picker = await wait_until(pilot, lambda: isinstance(app.screen, SessionPicker) and app.screen, what="picker")
        await wait_until(pilot, lambda: len(picker.shown) == 1, what="one session here")
        assert picker.shown[0].value.path == here
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SessionPicker), what="picker closed")

        await send(pilot, f"/resume {there}")
        await wait_until(pilot, lambda: "The build uses make" in transcript_text(app), what="the other session")
        assert app.desk.current.pi.model.state is not None and app.desk.current.pi.model.state.session_file == str(there)
        assert app.desk.current.pi.cwd == elsewhere
        assert await pwd_of_pi(pilot, "AFTER_RESUME") == str(elsewhere), "pi itself runs there"
        assert await first_completion(pilot, "@only_") == "only_elsewhere.txt"
        assert await first_completion(pilot, "@sr") == "src/"

        await send(pilot, "/resume")  # "this folder" is now the other directory
        picker = await wait_until(pilot, lambda: isinstance(app.screen, SessionPicker) and app.screen, what="picker")
        await wait_until(pilot, lambda: len(picker.shown) == 1, what="one session there")
        assert picker.shown[0].value.path == there
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, SessionPicker), what="picker closed")

        # a new session is not on disk until pi's first answer: pi (and pideck) stay where they are
        new_sessions = len(list(sessions.iterdir()))
        await send(pilot, "/new")
        await wait_until(pilot, lambda: app.desk.current.pi.model.state is not None and app.desk.current.pi.model.state.session_file != str(there),
                         what="a new session")  # fmt: skip
        assert app.desk.current.pi.cwd == elsewhere
        assert await pwd_of_pi(pilot, "AFTER_NEW") == str(elsewhere)
        assert len(list(sessions.iterdir())) == new_sessions
        await quiesce(pilot)
