"""The screen shown when pi cannot start: what happened, pi's stderr tail, how to fix it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from widgets.text.page_keys import PagedScroll
from widgets.text.safe import clean
from widgets.colors import palette


def shown_argv(argv: Any) -> str:
    """The command line for people: the value of `--api-key` is not shown."""
    words = list(argv)
    for index, word in enumerate(words[:-1]):
        if word == "--api-key":
            words[index + 1] = "[redacted]"
    return " ".join(words)


def fix_hints(config: Any) -> list[str]:
    argv = shown_argv(getattr(config, "argv", ()))
    if (host := getattr(config, "remote", None)) is not None:
        return [
            f"pi runs on {host} through ssh (--pi starts with ssh); ssh's own message is above.",
            "ssh cannot ask anything here (a password, a new host key, a key's passphrase): run the",
            "same ssh command in a terminal once to answer it, or use a key that ssh-agent holds.",
            "Then start pideck again (with -- --continue for the last session there).",
            f"command tried: {argv}",
        ]
    return [
        "pideck --demo                      start on the built-in demo model (no API key)",
        'pideck --pi "node /path/cli.js"    use another pi (split like a shell, not run by one)',
        "pideck -- --provider P --model M   pass flags to pi after --",
        "pi   (then /login)                 log in to a provider with pi's own TUI",
        "python -m app.runtime              (re)install the pinned Node 24 + pi 1.6.0 runtime",
        f"command tried: {argv}",
    ]


class StartupErrorScreen(ModalScreen[None]):
    CSS_PATH = "startup_error.tcss"
    BINDINGS = [Binding("q,escape,enter", "dismiss", "Quit")]

    def __init__(self, reason: str, stderr_tail: str, config: Any) -> None:
        super().__init__()
        self.reason = reason
        self.stderr_tail = stderr_tail
        self.config = config

    def compose(self) -> ComposeResult:
        with PagedScroll(id="startup-error"):
            yield Static(Text("pi could not start", palette.style("error", "bold")), id="startup-title")
            yield Static(Text(clean(self.reason)), id="startup-reason")
            yield Static(Text("pi's last words (stderr):", "bold"))
            tail = clean(self.stderr_tail[-3000:]) or "(nothing on stderr)"
            yield Static(Text(tail, palette.style("muted")), id="startup-stderr")
            yield Static(Text("How to fix it:", "bold"))
            yield Static(Text("\n".join(fix_hints(self.config)), palette.style("toolPath")), id="startup-hints")
        yield Footer()
