"""The git branch of pi's working directory, found as pi's footer finds it (pi's dist/core/
footer-data-provider.js): the nearest `.git` up from the folder (a directory, or a worktree's
`gitdir:` file), its `HEAD` read (`ref: refs/heads/NAME` is the branch, anything else
`detached`), and `git symbolic-ref` asked only where HEAD does not name it (a reftable
repository's `.invalid`).

Every read is bounded (`HEAD_BYTES`, `MAX_LEVELS` folders up, `GIT_TIMEOUT` for git), and
`BranchWatch.check` runs in a thread (app/pideck_app.py), never on the UI's: a folder on a
slow or hung network disk must not freeze the screen. It reads HEAD again only when the
folder or HEAD's file changed.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from textual.app import App

from protocol.regular_file import open_regular

HEAD_BYTES = 4096  # more than any HEAD or `.git` file holds
MAX_LEVELS = 64  # folders up from the working directory
GIT_TIMEOUT = 2.0  # seconds for `git symbolic-ref`
_BRANCH = "ref: refs/heads/"


def _read(path: Path) -> str:
    with open_regular(path) as file:  # (a FIFO put there would block open())
        return file.read(HEAD_BYTES).decode("utf-8", "replace").strip()


def head_file(cwd: Path) -> Path | None:
    """The HEAD file of the repository `cwd` is in; None outside one."""
    folder = cwd
    for _ in range(MAX_LEVELS):
        git = folder / ".git"
        try:
            if git.is_dir():
                return git / "HEAD"
            if git.is_file():
                text = _read(git)
                return (folder / text[len("gitdir: "):].strip() / "HEAD") if text.startswith("gitdir: ") else None
        except OSError:
            return None
        if folder.parent == folder:
            return None
        folder = folder.parent
    return None


def branch_of(head: Path, repo: Path) -> str | None:
    """The branch HEAD names, `detached`, or None if it cannot be read."""
    try:
        text = _read(head)
    except OSError:
        return None
    if not text.startswith(_BRANCH):
        return "detached"
    name = text[len(_BRANCH):].split("\n", 1)[0].strip()
    if name != ".invalid":
        return name or "detached"
    try:
        done = subprocess.run(["git", "--no-optional-locks", "symbolic-ref", "--quiet", "--short", "HEAD"],
                              cwd=repo, capture_output=True, timeout=GIT_TIMEOUT, check=False)
    except (OSError, subprocess.SubprocessError):
        return "detached"
    if done.returncode != 0:
        return "detached"
    return done.stdout[:HEAD_BYTES].decode("utf-8", "replace").strip() or "detached"


@dataclass
class BranchWatch:
    """The branch of the folder last checked; `check` says whether it changed."""

    branch: str | None = None
    _folder: Path | None = None
    _head: Path | None = None
    _signature: tuple[int, int, int] | None = None  # HEAD's inode, size and mtime when last read

    def check(self, cwd: Path) -> bool:
        """Look again (in a thread: it reads the disk); True if the branch changed."""
        if cwd != self._folder:
            self._folder, self._head, self._signature = cwd, head_file(cwd), None
        head = self._head
        if head is None:
            return self._set(None)
        try:
            stat = os.stat(head)
        except OSError:
            self._head = head_file(cwd)  # the repository may have gone (or come)
            return self._set(None)
        signature = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        if signature == self._signature:
            return False
        self._signature = signature
        return self._set(branch_of(head, cwd))

    def _set(self, branch: str | None) -> bool:
        changed = branch != self.branch
        self.branch = branch
        return changed


BRANCH_EVERY = 2.0  # seconds between two looks at HEAD (pi watches it, 500 ms after a change)


class BranchFollower:
    """Keeps `shown` told of the branch of `cwd()`: looks every `BRANCH_EVERY` seconds, in a
    worker thread of the app's, one look at a time; `shown` is called on the UI thread."""

    def __init__(self, app: App[Any], cwd: Callable[[], Path], shown: Callable[[str | None], None]) -> None:
        self.app, self._cwd, self._shown = app, cwd, shown
        self.watch = BranchWatch()
        self._looking = False
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.look()
        self.app.set_interval(BRANCH_EVERY, self.look)

    def look_afresh(self) -> None:
        """Look now, as if for the first time (`cwd()` is another session's folder)."""
        self.watch = BranchWatch()
        self.look()

    def look(self) -> None:
        if not self._looking:
            self._looking = True
            self.app.run_worker(partial(self._look, self._cwd()), thread=True, group="git-branch", exit_on_error=False)

    def _look(self, cwd: Path) -> None:
        changed = False
        try:
            changed = self.watch.check(cwd)
        finally:  # (not call_from_thread, which would wait for ever on a loop that has stopped)
            with suppress(RuntimeError):  # the loop has closed meanwhile
                self._loop.call_soon_threadsafe(self._looked, changed)

    def _looked(self, changed: bool) -> None:
        self._looking = False
        if changed:
            self._shown(self.watch.branch)
