"""The keys that work over every screen (the App's bindings); the conversation's are
MainScreen's (app/main_screen.py)."""

from __future__ import annotations

from textual.binding import Binding

GLOBAL_KEYS = [
    Binding("f1", "command_palette", "Commands", show=False, priority=True,
            tooltip="Command palette: pideck's and pi's commands, and the actions of these keys"),
    Binding("ctrl+c", "clear_or_quit", "Clear/Quit", priority=True,
            tooltip="Copy the selection; else clear the prompt, twice to quit", id="app.clear"),
    Binding("ctrl+z", "suspend_process", "Suspend", show=False, priority=True,
            tooltip="Suspend pideck to the shell (fg brings it back); pi keeps its state", id="app.suspend"),
    Binding("ctrl+backslash", "detach", "Detach", show=False, priority=True,
            tooltip="Leave this window; held pis go on (pideck attach brings them back)", id="pideck.detach"),
    # Alt+N twice: for the prompt, which runs it as it reads the key (the keys of a burst after
    # it go to the session it shows; widgets/engine/keys_in_order.py), and over a dialog or a
    # picker, where it acts at once (`check_action` offers each only where it applies)
    *(Binding(f"alt+{n}", f"show_session({n}{over})", f"Session {n}", show=False, priority=bool(over),
              tooltip="Show session 1 to 9, as the sessions row numbers them (/sessions lists them)",
              id=f"pideck.session.{n}") for n in range(1, 10) for over in ("", ", True")),
    *(Binding("alt+0", f"next_needing_you({over})", "Needs you", show=False, priority=bool(over),
              tooltip="Show the next session that needs you (a dialog waits), else one whose run ended unseen",
              id="pideck.session.needsYou") for over in ("", "True")),
    # Alt+N's where the terminal types a character for Alt+digit (xterm's default, "±" for Alt+1)
    *(Binding(key, f"step_session({step}{over})", label, show=False, priority=bool(over),
              tooltip=f"Show the {name} session, round the end (where Alt+1…9 type characters: xterm)",
              id=f"pideck.session.{name}")
      for key, step, name, label in (("ctrl+pageup", -1, "previous", "Previous session"),
                                     ("ctrl+pagedown", 1, "next", "Next session"))
      for over in ("", ", True")),
]
