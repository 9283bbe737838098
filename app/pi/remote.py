"""pi on another host: `--pi "ssh devbox pi"`, a command that starts with `ssh`.

pi's RPC goes through ssh as it does through a local pipe, but what pideck reads from the
disk itself would be this machine's, not pi's: the `/resume` picker's session files, `@`
completion's files, the working directory a session file records. pideck does not read
those then, and says so when asked for them; paths it gives pi (`/export`, `/resume FILE`)
go as typed, for pi to resolve on its host. Images are still read here and sent as data.
The Changes view's reverts and /rewind read and write the host's files over the same ssh
(app/pi/remote_files.py).

ssh joins the words after the host with spaces for the remote shell, which splits them
again: `with_words` shell-quotes each word pideck adds to the `--pi` command (`--mode rpc`,
pi's flags, `--session FILE` on a restart, `/login`'s and `/logout`'s words) so that each
reaches pi as one word, as it is; the `--pi` command's own words are the user's, for that
shell (`cd ~/src && pi`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the launch imports this module before Textual is needed
    from widgets.prompt.completion import Candidate

# ssh's options that take a value (`ssh -p 22 host` or `ssh -p22 host`)
_WITH_VALUE = frozenset("BbcDEeFIiJLlmOoPpQRSWw")

# an `@` word being typed at the end of the prompt, quoted (`@"a b`) or not
_AT_WORD = re.compile(r'(?:^|\s)@(?:"[^"]*|\S*)$')

Completer = Callable[[str], "tuple[int, list[Candidate]]"]


def ssh_destination(argv: Sequence[str]) -> str | None:
    """The host an `ssh ...` command logs in to (as written, `user@host` too); None when the
    command is not ssh."""
    if not argv or PurePath(argv[0]).name != "ssh":
        return None
    words = iter(argv[1:])
    for word in words:
        if word == "--":
            return next(words, None)
        if not word.startswith("-") or word == "-":
            return word
        letters = word[1:]
        for position, letter in enumerate(letters):
            if letter in _WITH_VALUE:
                if position == len(letters) - 1:
                    next(words, None)  # the value is the next word
                break
    return None


def with_words(command: Sequence[str], words: Sequence[str]) -> list[str]:
    """`command` (the `--pi` one) followed by `words`, as it is run: for `ssh ...`, each of
    `words` shell-quoted, once, for the remote shell."""
    if ssh_destination(command) is None:
        return [*command, *words]
    return [*command, *map(shlex.quote, words)]


def needs_local_pi(what: str, host: str) -> str:
    """Why `what` is not available: it reads this machine's disk, and pi runs on `host`."""
    return f"{what} reads this machine's files, but pi runs on {host} (--pi starts with ssh)."


def without_local_files(completer: Completer, host: str, warn: Callable[[str], None]) -> Completer:
    """`completer`, but an `@` word lists no files (they would be this machine's): the first
    one says why."""
    told = False

    def complete(before_cursor: str) -> tuple[int, list[Candidate]]:
        nonlocal told
        if (match := _AT_WORD.search(before_cursor)) is None:
            return completer(before_cursor)
        if not told:
            told = True
            warn(needs_local_pi("@ completion", host) + " Type the path as it is there.")
        return match.end() - len(match.group().lstrip()), []

    return complete
