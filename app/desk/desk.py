"""`Desk`: the sessions open in a window, as a plain object (no Textual): the slots in the
order Alt+N reaches them, the one shown (`current`), those closed and those left held, each
session's life (opened, started, shown, closed), the drafts left in their prompts, and what
pideck tells the holder and prints at its exit.

A session's `PiSession` hands its model's changes once per frame to its slot, which draws
them on its main screen and does its part, then tells the desk (`session_changed`): the
terminal's progress and title while it is shown, the collector's pace, the keys offered, a
start-up error, the sessions row. What the desk needs of Textual it asks of its `Shell`
(app/desk/shell.py), the App.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from app.commands.context import SlashCommand
from app.commands.registry import REGISTRY
from app.desk.shell import Shell
from app.desk.slot import SessionSlot
from app.gc_pause import StreamingGC
from app.git_branch import BranchFollower
from app.main_screen import MainScreen
from app.notifier import Notifier
from app.pi.checkpoint_launch import with_checkpoints
from app.pi.launch import LaunchConfig, open_launch
from app.pi.session import PiSession
from app.pi.settings import terminal_progress
from app.terminal.progress import TerminalProgress
from protocol.state.desk import Mark, SessionLine
from protocol.state.session_model import Changes
from protocol.wire.client import RpcClient
from protocol.wire.responses import SessionState
from widgets.engine import SETTING, off_note, setting_problem
from widgets.engine.key_events import EIGHT_BIT_ALT
from widgets.markdown.stream import RENDERER, import_renderer
from widgets.text.safe import clean
from widgets.screens.startup_error import StartupErrorScreen

if TYPE_CHECKING:
    from widgets.prompt.editor import PromptEditor

HIDDEN_VIEWS = 40  # messages a session keeps mounted while another is shown
EXPLAIN_FOR = 20.0  # seconds a toast that explains a setting stays up

AtExit = tuple[str, LaunchConfig, SessionState | None, bool, str]


def attached_note(windows: list[int]) -> str:
    """What an attach says of the held pis it brought back, given how many other windows
    showed each."""
    alone, shared = sum(not count for count in windows), sum(bool(count) for count in windows)
    them = "them" if len(windows) > 1 else "it"
    if not shared:
        they = "they" if alone > 1 else "it"
        said = f"{alone} held pi{'s' * (alone > 1)} brought back as {they} went on without a window"
    elif not alone:
        said = (f"{shared} held pi{'s' * (shared > 1)} shown here too: another window shows {them} as well, "
                f"and both follow and answer the same run{'s' * (shared > 1)}")
    else:
        said = (f"{len(windows)} held pis brought back: {alone} went on without a window, {shared} "
                f"{'is' if shared == 1 else 'are'} shown in another window too")
    return f"{said} (pideck ls lists {them}; /open starts another)"


class Desk:
    """`config` is the first session's launch (it owns the demo model and the recording);
    `client` its pi when already started; `restore` the sessions to open beside it
    (--restore), `drafts` the drafts they left, the first session's first, `notes` what
    --restore said of the sessions it left out."""

    session_class: type[PiSession] = PiSession
    screen_class: type[MainScreen] = MainScreen  # each session's screen
    commands: Mapping[str, SlashCommand] = REGISTRY  # pideck's `/` commands its sessions offer (the palette's too)

    def __init__(self, shell: Shell, config: LaunchConfig, *, client: RpcClient | None = None,
                 restore: list[LaunchConfig] | None = None, drafts: list[str] | None = None,
                 notes: list[str] | None = None) -> None:
        self.shell = shell
        self.config = config
        self.notes = list(notes or ())
        self.tell = Notifier(shell.notify)
        self.progress = TerminalProgress(shell.set_interval, shell.write_to_terminal, terminal_progress(config))
        self.gc = StreamingGC(shell.set_timer)
        self.slots: list[SessionSlot] = []  # the sessions open, in the order Alt+N reaches them
        self.closed: list[SessionSlot] = []  # closed with /close (their resume commands are printed at exit)
        self.left_held: list[SessionSlot] = []  # sessions whose pi the holder keeps at the exit (/detach, a hang-up)
        self._serial = 0
        self.restore = list(restore or ())  # sessions to open beside the first (--restore)
        self._drafts = list(drafts or ())  # the drafts --restore brought, the first session's first
        self._attaching = sum(launch.brought_back for launch in (config, *self.restore))  # held pis brought back
        self._attached: list[int] = []  # of those started, how many other windows show each
        self._editors: dict[SessionSlot, PromptEditor] = {}  # each session's prompt, once composed (its draft at exit)
        self._draft_of: dict[SessionSlot, str] = {}  # a draft not in its prompt yet
        self._drafts_changed: set[SessionSlot] = set()  # held sessions whose draft the holder has not been told
        self._eight_bit_alt_said = False  # the toast on xterm's Alt+digit characters (said once)
        self.current = self._new_slot(config, client)
        # the git branch of the shown session's folder (one look every 2 s, not one per session)
        self.branches = BranchFollower(shell, lambda: self.current.pi.cwd, self._branch_shown)  # type: ignore[arg-type]

    def _new_slot(self, config: LaunchConfig, client: RpcClient | None = None) -> SessionSlot:
        self._serial += 1
        slot = SessionSlot(self, config, self._serial, client)
        if not self.slots:
            slot.show(True)  # the screen pideck starts with: what pi sends before it mounts waits for it there
        self.slots.append(slot)
        return slot

    @property
    def exit_status(self) -> int:
        """pideck's exit code: 0 unless the shown session's pi could not be started."""
        return self.shell.return_code or self.current.pi.exit_status

    def quit(self) -> None:
        self.shell.exit(self.exit_status)

    def say_at_start(self) -> None:
        """What pideck says as it starts: the settings it could not follow, how pi runs, what
        --restore left out, the drafts other windows left."""
        for problem in self.current.alerts.setting.problems:
            self.tell.warn(problem, title="Notifications")
        if (problem := setting_problem(os.environ.get(SETTING))) is not None:
            self.tell.warn(problem, title=SETTING)
        if (note := off_note()) is not None:
            self.tell.say(note, title="Engine")
        if self.config.unheld is not None:
            self.tell.warn(self.config.unheld, title="Not held")
        for note in self.notes:
            self.tell.warn(note, title="--restore")
        if merged := [config for config in (self.config, *self.restore) if len(config.attach_drafts) > 1]:
            count = sum(len(config.attach_drafts) for config in merged)
            self.tell.say(f"{count} drafts left by windows that went are in the prompt{'s' * (len(merged) > 1)}, the "
                          "newest first, each older one after a line “─── an older draft, left by another window ───”",
                          title="Drafts", timeout=EXPLAIN_FOR)

    def typed_eight_bit_alt(self, character: str) -> None:
        """A character xterm types for Alt+digit ("±" for Alt+1), typed while several sessions
        are open: once, a toast says how to make Alt+digit reach pideck, and the other keys.
        The character is typed as ever (a keyboard has "°" and "²" too)."""
        if self._eight_bit_alt_said or len(self.slots) < 2:
            return
        self._eight_bit_alt_said = True
        self.tell.say(f"“{character}” is what xterm types for Alt+{EIGHT_BIT_ALT[character]} unless it sends Alt as Esc: "
                      "for Alt+1…9 and Alt+0 to switch sessions, put XTerm*metaSendsEscape: true in ~/.Xresources "
                      "(then xrdb -merge ~/.Xresources, and a new xterm). Ctrl+PgUp / Ctrl+PgDn show the previous / "
                      "next session in any terminal", title="Alt+digits", timeout=EXPLAIN_FOR)

    def warn_of_held_runs(self, timeout: float) -> bool:
        """Before a quit: whether a toast said that it stops the runs still working in held
        pis (the holder would keep them), and how to leave them working."""
        working = [slot.name for slot in self.slots if slot.pi.held and slot.pi.model.busy]
        if working:
            self.tell.warn(f"Press ctrl+c again to quit: it stops the run{'s' * (len(working) > 1)} still working "
                           f"in {', '.join(working)}. Ctrl+\\ (or /detach) leaves {(it := 'them' if len(working) > 1 else 'it')} "
                           f"working: pideck attach brings {it} back", title="Quit", timeout=timeout)
        return bool(working)

    # --- the sessions' life -------------------------------------------------------------------

    def start(self) -> None:
        """The app runs: the first session's pi starts, then those --restore brought."""
        drafts = iter(self._drafts)
        self._open_slot(self.current, draft=next(drafts, ""))
        self.branches.start()
        self.shell.call_after_refresh(self.gc.started)  # (what the first frame made is kept too)
        for config in self.restore:
            self._open_slot(self._new_slot(config), show=False, draft=next(drafts, ""))

    def _open_slot(self, slot: SessionSlot, show: bool = True, draft: str = "") -> None:
        """Give `slot` its screen's mode, start its pi and its dialogs; show it; `draft` goes
        into its prompt once that is there."""
        self.shell.add_mode(slot.mode, lambda: slot.main)  # (the first one's stack is there already)
        if show:
            self._switch(slot)
        self.start_session(slot)
        slot.workers.append(self.shell.run_worker(slot.run_dialogs(), name="dialogs", group="dialogs"))
        if draft:
            self._draft_of[slot] = clean(draft)  # (what the file holds: no terminal controls into the prompt)
        slot.workers.append(self.shell.run_worker(self._prompt_composed(slot), name="prompt", group="session"))
        self.changed()

    async def _prompt_composed(self, slot: SessionSlot) -> None:
        """Keep the session's prompt (its draft is read from it at exit), and put in it the
        draft --restore brought, once its screen is first shown."""
        await slot.main.composed.wait()
        editor = self._editors[slot] = slot.main.editor
        if draft := self._draft_of.pop(slot, ""):
            editor.put_before([draft])

    def start_session(self, slot: SessionSlot) -> None:
        slot.pi.model.starting(time.monotonic())  # "starting pi…" from the first frame, never "ready" before it
        if slot.main.is_mounted:
            slot.main.status.refresh_status()
        slot.workers.append(self.shell.run_worker(self._start(slot), name="session", group="session"))

    async def _start(self, slot: SessionSlot) -> None:
        await slot.pi.start()
        if slot.config.brought_back:
            self._brought_back(slot)
        if slot.pi.ready and RENDERER not in sys.modules:
            self.shell.run_worker(import_renderer, thread=True, group="import", exit_on_error=False)

    def _brought_back(self, slot: SessionSlot) -> None:
        """A held pi attached to has started: a run it ended that no window showed is marked
        unseen (its ✓) where it is not shown; once all have, a toast says what they were."""
        hello = slot.pi.client.hello
        if hello is not None and hello.state == "done" and not slot.shown:
            slot.unread = True
            self.changed()
        self._attached.append(hello.windows if hello is not None else 0)
        if len(self._attached) == self._attaching:
            self.tell.say(attached_note(self._attached), title="Attached")

    def open(self, cwd: Path, pi_args: list[str] | None = None, pi_flag: str | None = None,
             session: str | None = None) -> SessionSlot:
        """/open: another pi, in `cwd` (on `session`'s file), shown at once, and a toast that
        names it. Raises LaunchError for what cannot start."""
        config = with_checkpoints(open_launch(self.current.config, cwd, pi_args, pi_flag, session))
        slot = self._new_slot(config)
        self._open_slot(slot)
        self.tell.say("Alt+1 to Alt+9 switch sessions, /sessions lists them, /close ends one",
                      title=f"Session {slot.number} opened: {slot.name}")
        return slot

    async def close(self, slot: SessionSlot | None = None) -> None:
        """/close: end a session's pi in order and take its screen away; the last one quits."""
        slot = slot or self.current
        if len(self.slots) == 1:
            self.quit()
            return
        if slot.closing:
            return
        slot.closing = True
        self.closed.append(slot)
        index = self.slots.index(slot)
        self.slots.remove(slot)
        if slot.shown:
            self._switch(self.slots[min(index, len(self.slots) - 1)])
        for worker in slot.workers:
            worker.cancel()
        await self.shell.remove_mode(slot.mode)
        await slot.pi.close()
        self.changed()

    def slot_of(self, pi: PiSession) -> SessionSlot:
        """The session, open or closed, whose pi `pi` is."""
        return next(slot for slot in [*self.slots, *self.closed] if slot.pi is pi)

    def shown_here(self, slot: SessionSlot, session_file: str) -> bool:
        """`slot`'s pi opened `session_file`, which another session here has open (/open of a
        session this window shows): that one is shown and `slot` closed; False if none has it."""
        other = next((shown for shown in self.slots if shown is not slot and shown.pi.model.state is not None
                      and shown.pi.model.state.session_file == session_file), None)
        if other is None:
            return False
        self.show(other.number)
        self.shell.run_worker(self._give_way(slot), group="desk")
        self.tell.say(f"That session is open here already, as session {other.number}: it is shown", title="Sessions")
        return True

    async def _give_way(self, slot: SessionSlot) -> None:
        """Close `slot`, a second view of a session shown here: no resume command or desk entry of its own."""
        await self.close(slot)
        if slot in self.closed:
            self.closed.remove(slot)

    async def close_all(self, detach: bool) -> None:
        """The app unmounts: every pi closed in order (held ones left to the holder on a
        detach or a hang-up), each told the draft left in its prompt."""
        self.progress.clear()
        self.gc.close()
        await asyncio.gather(*(slot.pi.close(detach=detach, draft=self.draft(slot)) for slot in self.slots))

    # --- which session is shown ---------------------------------------------------------------

    def show(self, number: int) -> bool:
        """Show the session Alt+`number` reaches; False if there is none."""
        if not 1 <= number <= len(self.slots):
            return False
        self._switch(self.slots[number - 1])
        self.shell.run_worker(self.current.pi.apply_changes(), group="flush", exit_on_error=True)  # what waited to be drawn
        self.changed()
        return True

    def _switch(self, slot: SessionSlot) -> None:
        """Show `slot`'s screen (its own mode: what was over it is still there)."""
        previous = self.current
        if previous is not slot:
            previous.show(False)
        self.current = slot
        slot.show(True)
        self.shell.switch_mode(slot.mode)
        self.shell.title = slot.title or self.shell.TITLE
        if not self.shell.is_headless:
            slot.alerts.show_title()
        self.progress.show(slot.pi.model.running)
        if previous is not slot and self.shell.is_running:
            self.branches.look_afresh()
            self.shell.call_after_refresh(self.shell.run_worker, self._trim_hidden(previous), name="trim", group="trim")

    def _branch_shown(self, branch: str | None) -> None:
        slot = self.current
        if slot.config.remote is not None:
            return  # pi's folder is on its host: not read from here
        slot.main.branch = branch
        if slot.main.is_mounted:
            slot.main.show_where()

    async def _trim_hidden(self, slot: SessionSlot) -> None:
        """A session no longer shown keeps only its newest HIDDEN_VIEWS messages mounted (when
        it was following the end; the others load as in a long session): showing it again lays
        out its screen's every widget, 0.5 s for 400 messages."""
        async with slot.pi.drawing:
            if not slot.shown and not slot.closing and slot.main.is_mounted:
                await slot.main.transcript.trim(HIDDEN_VIEWS)

    def show_number(self, number: int) -> None:
        """Alt+`number`: that session, else a toast that says which there are."""
        if not self.show(number) and len(self.slots) > 1:
            self.tell.say(f"There are {len(self.slots)} sessions: Alt+1 to Alt+{len(self.slots)}", title="Sessions")
        elif len(self.slots) == 1 and number != 1:
            self.tell.say("One session is open: /open starts another", title="Sessions")

    def step(self, step: int) -> None:
        """Ctrl+PgUp / Ctrl+PgDn: the session before or after the one shown, round the end."""
        if len(self.slots) == 1:
            self.tell.say("One session is open: /open starts another", title="Sessions")
            return
        self.show((self.slots.index(self.current) + step) % len(self.slots) + 1)

    def next_needing_you(self) -> None:
        """Alt+0: the next session after the one shown whose dialog waits, else whose run
        ended unseen, else one that failed."""
        order = self.slots[self.slots.index(self.current) + 1 :] + self.slots[: self.slots.index(self.current)]
        for marks in ((Mark.NEEDS_YOU,), (Mark.DONE,), (Mark.FAILED, Mark.EXITED)):
            for slot in order:
                if slot.mark in marks:
                    self.show(slot.number)
                    return
        self.tell.say("No other session needs you", title="Sessions")

    # --- the sessions' changes ----------------------------------------------------------------

    def session_changed(self, slot: SessionSlot, changes: Changes) -> None:
        """What a session's changes ask of the window (the session drew them and did its part):
        the terminal's progress and title while it is shown, the collector's pace, the keys
        offered, a start-up error, the sessions row."""
        if slot.shown:
            if changes.run:
                self.progress.show(slot.pi.model.running)
            if changes.title is not None:
                slot.title = changes.title
                self.set_title(changes.title)
        self.gc.streaming(any(other.pi.model.running for other in self.slots))
        if changes.status:
            if slot.shown:
                self.shell.refresh_bindings()  # Ctrl+R is offered while pi is not running
            self._say_startup_error(slot)
        if changes.run or changes.status or changes.settled is not None or changes.dialogs or changes.session:
            self.changed()

    def set_title(self, title: str) -> None:
        """An extension's setTitle: the terminal title, with control characters removed."""
        self.shell.title = clean(title).replace("\n", " ")[:200]
        if not self.shell.is_headless:
            self.current.alerts.show_title()  # with the running mark while pi works

    def _say_startup_error(self, slot: SessionSlot) -> None:
        """The start-up error screen of a session whose pi could not start, once it is shown:
        closing it quits pideck when it was the only session, else closes that session."""
        error = slot.pi.model.life.startup_error
        if error is None or slot.startup_error_shown or not slot.shown:
            return
        slot.startup_error_shown = True
        only = len(self.slots) == 1
        self.shell.push_screen(StartupErrorScreen(error, slot.pi.client.stderr_tail, slot.config),
                               lambda _: self.shell.exit(1) if only else self.shell.run_worker(self.close(slot), group="desk"))

    def tick(self) -> None:
        """Every quarter second: the spinner and running tool durations animated, what pi
        sent wrong reported, the toasts of sessions that ask named afresh, the sessions row (a
        dialog's time running out changes its mark)."""
        if not self.shell.is_running or self.shell.closing or not self.current.main.status.is_attached:
            return  # the app is closing: its widgets are going away
        for slot in self.slots:
            slot.pi.problems.check()
            slot.follow_name()
        self.current.main.animate()
        self.shell.toasts.after_question()
        if len(self.slots) > 1:
            self.changed()

    def screens(self) -> list[MainScreen]:
        """Every session's screen that is mounted."""
        return [slot.main for slot in self.slots if slot.main.is_mounted]

    def restyle(self) -> None:
        """The theme changed: every session's screen drawn again in the palette's new colours."""
        for slot in self.slots:
            if slot.main.composed.is_set():
                slot.main.refresh_panes()
                if slot.main.transcript.views:  # (none at start-up: nothing to draw again)
                    self.shell.call_later(slot.main.transcript.rebuild)

    def changed(self) -> None:
        """The sessions row of the screen shown says the sessions as they are now."""
        if not self.shell.leaving:
            self.current.main.show_desk(self.lines())

    def lines(self) -> list[SessionLine]:
        """Every session open, as /sessions lists them ([] while only one is open)."""
        return [slot.line() for slot in self.slots] if len(self.slots) > 1 else []

    # --- the drafts and what is left at the exit ----------------------------------------------

    def prompt_changed(self, editor: object) -> None:
        """A held session's prompt changed: its holder is told within DRAFT_EVERY s."""
        for slot, prompt in self._editors.items():
            if prompt is editor and slot.pi.held:
                self._drafts_changed.add(slot)

    def report_drafts(self) -> None:
        """Tell the holder of each held pi whose prompt changed what it holds now, so that a
        window killed without a word (SIGKILL) leaves its draft all the same."""
        changed, self._drafts_changed = self._drafts_changed, set()
        for slot in changed:
            if slot in self.slots and not self.shell.leaving:
                slot.pi.report_draft(self.draft(slot))

    def draft(self, slot: SessionSlot) -> str:
        """What its prompt holds, after the messages that waited for pi to be ready."""
        editor = self._editors.get(slot)
        if editor is None:
            return self._draft_of.get(slot, "")
        return "\n\n".join(text for text in (*slot.main.waiting_texts, editor.expanded_text) if text)

    def hang_up(self) -> None:
        """The terminal is gone: a held pi goes on in the holder, any other is closed in order."""
        if not self.shell.leaving:
            self.left_held = [slot for slot in self.slots if slot.pi.held]

    def detach(self) -> bool:
        """/detach, Ctrl+\\: the held pis go on in the holder and the window quits (a pi not
        held is closed as on a quit); False, and nothing done, when none is held."""
        held = [slot for slot in self.slots if slot.pi.held]
        if not held or self.shell.leaving:
            return False
        self.left_held = held
        self.shell.exit(0)
        return True

    @property
    def detached(self) -> int:
        """How many pis the holder keeps at this window's exit."""
        return len(self.left_held)

    def sessions_at_exit(self) -> list[AtExit]:
        """Every session open and closed: its name, launch, pi's last state, whether it is the
        one pideck was started with, and the draft left in its prompt (none for one closed).
        Not those whose pi goes on held (`pideck attach` brings them back): a desk restored
        would start a second pi on the same session file."""
        return [(slot.name, slot.config, slot.pi.model.state, slot.config is self.config,
                 "" if slot in self.closed else self.draft(slot)) for slot in [*self.slots, *self.closed]
                if slot not in self.left_held and not slot.pi.kept]

    def held_at_exit(self) -> list[tuple[AtExit, int, int]]:
        """The sessions whose pi the holder keeps at the exit (a detach, a hang-up, another
        window that shows it), as sessions_at_exit gives them, each with its pi's number and its holder's pid."""
        return [((slot.name, slot.config, slot.pi.model.state, slot.config is self.config, self.draft(slot)),
                 hello.number, hello.holder)
                for slot in self.slots
                if (slot in self.left_held or slot.pi.kept) and (hello := slot.pi.client.hello) is not None]

    def held_stopped_at_exit(self) -> set[tuple[int, int]]:
        """The held pis this window stopped at its exit (a quit), by number and holder's pid."""
        return {(hello.number, hello.holder) for slot in [*self.slots, *self.closed]
                if (hello := slot.pi.client.hello) is not None and slot not in self.left_held and not slot.pi.kept}
