"""Telling the user pi needs them: when a run ends, fails, or an extension dialog starts
waiting, while the terminal is not focused (or, for a run, after one longer than
`PIDECK_NOTIFY_AFTER` seconds, 10 by default), a bell and a desktop notification; and a
marker in the terminal title while pi works.

`PIDECK_NOTIFY` (or `pideck --notify`) says what is sent: `bell`, `desktop` (OSC 777 for the
terminals that take it there: urxvt, foot, Ghostty and VTE's, such as GNOME Terminal; OSC 9
for the others: iTerm2, WezTerm, kitty, Windows Terminal ignores it), `osc9` or `osc777` to
choose, comma-separated; `off` sends nothing. The default is `bell,desktop`. Inside tmux the
notification goes through tmux's passthrough when its `allow-passthrough` is on (else tmux
drops it). Nothing sent names a prompt or model output: "pi is done", the error's first
line, the dialog's title.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from protocol.numbers import parse_float
from protocol.state.session_model import MessageItem, SessionModel
from widgets.text.safe import clean

DEFAULT_AFTER = 10.0  # seconds: a run at least this long alerts even in a focused terminal
MAX_AFTER = 86_400  # seconds: PIDECK_NOTIFY_AFTER's largest (a day)
RUNNING_MARK = "● "  # before the terminal title while pi works
NAME = "pideck"
KINDS = ("bell", "desktop", "osc9", "osc777")


@dataclass(frozen=True)
class NotifySetting:
    bell: bool = True
    osc: str | None = "9"  # "9", "777" or None
    after: float = DEFAULT_AFTER
    problems: tuple[str, ...] = ()


def notify_setting(env: Mapping[str, str]) -> NotifySetting:
    """`PIDECK_NOTIFY` and `PIDECK_NOTIFY_AFTER`; what is not understood is left out and named."""
    problems: list[str] = []
    words = {word.strip() for word in env.get("PIDECK_NOTIFY", "bell,desktop").lower().split(",") if word.strip()}
    if words & {"off", "none", "no", "0", "false"}:
        words = set()
    elif unknown := sorted(words.difference(KINDS)):
        problems.append(f"PIDECK_NOTIFY: {', '.join(unknown)} is not one of {', '.join(KINDS)} or off")
    osc = "9" if "osc9" in words else "777" if "osc777" in words else desktop_osc(env) if "desktop" in words else None
    after = DEFAULT_AFTER
    if (given := env.get("PIDECK_NOTIFY_AFTER")) is not None:
        seconds = parse_float(given.strip(), low=0, high=MAX_AFTER)
        if seconds is None:
            problems.append(f"PIDECK_NOTIFY_AFTER: {given[:40]!r} is not a number of seconds from 0 to {MAX_AFTER:,}")
        else:
            after = seconds
    return NotifySetting("bell" in words, osc, after, tuple(problems))


def desktop_osc(env: Mapping[str, str]) -> str:
    """The notification escape the terminal takes: "777" or "9"."""
    term, program = env.get("TERM", ""), env.get("TERM_PROGRAM", "").lower()
    if (term.startswith(("rxvt", "foot")) or term == "xterm-ghostty" or program == "ghostty"
            or "VTE_VERSION" in env or "GHOSTTY_RESOURCES_DIR" in env):  # fmt: skip
        return "777"
    return "9"


def desktop_sequence(osc: str, body: str) -> str:
    if osc == "777":
        return f"\x1b]777;notify;{NAME};{body}\x07"
    return f"\x1b]9;{NAME}: {body}\x07"


def tmux_passthrough(env: Mapping[str, str]) -> bool:
    """Whether tmux (if pideck runs in it) passes escapes wrapped for it to the terminal."""
    if not env.get("TMUX"):
        return False
    target = ["-t", env["TMUX_PANE"]] if env.get("TMUX_PANE") else []
    try:
        done = subprocess.run(["tmux", "display-message", "-p", *target, "#{allow-passthrough}"],
                              env=dict(env), capture_output=True, text=True, timeout=2, check=False)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return done.stdout.strip() in ("on", "all", "1")


def tmux_wrapped(sequence: str) -> str:
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def run_error(session: SessionModel) -> str | None:
    """The error the last answer ended with, if it did."""
    for item in reversed(session.items):
        if isinstance(item, MessageItem) and item.role == "assistant":
            message = item.message
            if getattr(message, "stop_reason", None) != "error":
                return None
            return (getattr(message, "error_message", None) or "unknown error").strip().splitlines()[0]
    return None


def one_line(text: str, limit: int = 120) -> str:
    line = " ".join(clean(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class RunAlerts:
    """`write` sends to the terminal; `focused` says whether the terminal has the focus (and
    the session is the one shown); `title` is the terminal title pideck shows (an extension's
    setTitle, else its name), written only while `shown`; `label` names the session in an
    alert ("" with one session)."""

    def __init__(self, write: Callable[[str], None], setting: NotifySetting, focused: Callable[[], bool],
                 title: Callable[[], str], env: Mapping[str, str], clock: Callable[[], float] = time.monotonic,
                 shown: Callable[[], bool] = lambda: True, label: Callable[[], str] = lambda: "") -> None:
        self._write, self.setting, self._focused, self._title = write, setting, focused, title
        self._shown, self._label = shown, label
        self._started: float | None = None  # when the run pi is in started
        self._clock = clock
        self._passthrough = lambda: tmux_passthrough(env)  # asked each time: the user may set it meanwhile

    @property
    def running(self) -> bool:
        return self._started is not None

    def run(self, running: bool) -> None:
        """pi started or stopped working: the title's marker."""
        if running == self.running:
            return
        self._started = self._clock() if running else None
        self.show_title()

    def show_title(self) -> None:
        if self._shown():
            self._write(f"\x1b]2;{RUNNING_MARK if self.running else ''}{self._title()}\x07")

    def settled(self, aborted: bool, error: str | None) -> None:
        """A run ended (before `run(False)`): an alert unless the user stopped it."""
        long_run = self._started is not None and self._clock() - self._started >= self.setting.after
        if aborted or not (long_run or not self._focused()):
            return
        self.alert(f"pi failed: {one_line(error)}" if error else "pi is done")

    def dialog(self, title: str) -> None:
        """An extension dialog waits for an answer."""
        if not self._focused():
            self.alert(f"pi asks: {one_line(title)}" if title.strip() else "pi asks a question")

    def alert(self, body: str) -> None:
        if label := self._label():
            body = f"{one_line(label, 40)}: {body}"
        if self.setting.bell:
            self._write("\a")
        if self.setting.osc is not None:
            sequence = desktop_sequence(self.setting.osc, body)
            self._write(tmux_wrapped(sequence) if self._passthrough() else sequence)
