"""Where pideck keeps what it writes for itself: `$XDG_STATE_HOME/pideck`, else
`~/.local/state/pideck` (the saved desks, the checkpoints, the protocol log).

Under pytest (PYTEST_CURRENT_TEST is set for each test, and the processes it starts inherit
it) the user's own state folder is refused with `RealStateInTests`: every test has a state
folder of its own (tests/conftest.py), and one that would still reach the user's fails
loudly instead of writing there.
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Mapping
from pathlib import Path


class RealStateInTests(RuntimeError):
    """A test would read or write the user's own state folder."""


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """pideck's state folder for the environment `env` (default: this process's)."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or os.path.join(env.get("HOME") or os.path.expanduser("~"), ".local", "state")
    if "PYTEST_CURRENT_TEST" in os.environ:
        _refuse_the_users_own(base)
    return Path(base) / "pideck"


def _refuse_the_users_own(base: str) -> None:
    try:
        home = pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return  # a user without a passwd entry has no home of its own to protect
    own = os.path.realpath(os.path.join(home, ".local", "state"))
    given = os.path.realpath(base)
    if given == own or given.startswith(own + os.sep):
        raise RealStateInTests(f"a test would use the user's own state folder {own}: "
                               "tests/conftest.py gives each test an XDG_STATE_HOME of its own")
