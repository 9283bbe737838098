"""What pideck prints to the terminal outside its screen (a refusal, a left-out session, the
server's log), shown and never acted on: every control character as `visible` shows it
(protocol/control_codes.py), so a folder named with `ESC ] 52 ; c ; …` prints `␛]52;c;…`
instead of writing the clipboard. The commands pideck prints are quoted to be printable
(app/cli/resume_commands.py `shell_join`) before they get here."""

from __future__ import annotations

import argparse
import sys
from typing import IO, NoReturn

from protocol.control_codes import visible


def say(text: str, file: IO[str] | None = None, flush: bool = False) -> None:
    """Print `text` (to stderr unless `file`), its controls shown."""
    print(visible(text), file=sys.stderr if file is None else file, flush=flush)


class ShownParser(argparse.ArgumentParser):
    """An ArgumentParser whose help, usage and messages are printed with their controls shown
    (they quote what was typed, and defaults that come from the environment)."""

    def format_help(self) -> str:
        return visible(super().format_help())

    def format_usage(self) -> str:
        return visible(super().format_usage())

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        super().exit(status, None if message is None else visible(message))
