"""A bare Textual app, the floor under pideck in `versus_pi_tui`: what Textual alone costs
to start and to draw, in the same pty and run as pideck and pi's TUI.

One Static showing READY. Enter adds the next reply's token (`token(n)`) to it at once; `p`
adds a reply of N words DELAY seconds apart (`--paced N DELAY`), the last ending in its
token. No pi, no model.

Run: `python benchmarks/_bare_textual.py [--paced N DELAY]` (versus_pi_tui starts it).
"""

from __future__ import annotations

import argparse

from textual.app import App, ComposeResult
from textual.events import Key
from textual.timer import Timer
from textual.widgets import Static

READY = "bare-textual ready"


def token(count: int) -> str:
    return f"BARETOKEN{count}"


class BareApp(App[None]):
    def __init__(self, paced: int, delay: float) -> None:
        super().__init__()
        self.paced, self.delay = paced, delay
        self.text, self.replies, self.words = READY, 0, 0
        self.timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(READY, id="text")

    def on_key(self, event: Key) -> None:
        if event.key == "enter":
            self.replies += 1
            self.show(f" {token(self.replies)}")
        elif event.key == "p" and self.paced:
            self.replies, self.words = self.replies + 1, 0
            self.timer = self.set_interval(self.delay, self.word)

    def word(self) -> None:
        self.words += 1
        last = self.words >= self.paced
        self.show(f" {token(self.replies)}" if last else f" word{self.words}")
        if last and self.timer is not None:
            self.timer.stop()

    def show(self, words: str) -> None:
        self.text += words
        self.query_one("#text", Static).update(self.text)


def main() -> None:
    parser = argparse.ArgumentParser(prog="_bare_textual.py", description=__doc__.splitlines()[0])
    parser.add_argument("--paced", nargs=2, metavar=("N", "DELAY"), default=("0", "0"),
                        help="each reply is N words DELAY seconds apart")
    options = parser.parse_args()
    BareApp(int(options.paced[0]), float(options.paced[1])).run()


if __name__ == "__main__":
    main()
