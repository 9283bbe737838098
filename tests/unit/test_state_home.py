"""No test reads or writes the user's own state folder: each has its own XDG_STATE_HOME
(tests/conftest.py), its children too, and pideck refuses the user's own under pytest."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.files.desk_file import desks_dir
from protocol.state.checkpoints import default_root
from protocol.state_home import RealStateInTests, state_dir
from protocol.wire.protocol_log import default_log_path

ROOT = Path(__file__).resolve().parents[2]
REAL_STATE = Path(pwd.getpwuid(os.getuid()).pw_dir) / ".local" / "state"


def test_each_test_has_a_state_folder_of_its_own(own_state: Path, tmp_path: Path) -> None:
    assert os.environ["XDG_STATE_HOME"] == str(own_state) and own_state.is_dir()
    assert not own_state.is_relative_to(tmp_path), "the test's tmp_path holds only what the test puts there"
    for path in (desks_dir(os.environ), default_root(), default_log_path()):
        assert path.is_relative_to(own_state / "pideck"), path
    child = subprocess.run([sys.executable, "-c", "from protocol.state_home import state_dir; print(state_dir())"],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert child.stdout.strip() == str(own_state / "pideck"), child.stderr


def test_pideck_refuses_the_users_own_state_folder_under_pytest(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(REAL_STATE.parent.parent))
    for where in (state_dir, lambda: desks_dir(os.environ), default_root, default_log_path):
        with pytest.raises(RealStateInTests, match="own state folder"):
            where()
    with pytest.raises(RealStateInTests):
        state_dir({"XDG_STATE_HOME": str(REAL_STATE / "deeper")})
    child = subprocess.run([sys.executable, "-c", "from protocol.state_home import state_dir; state_dir()"],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert child.returncode != 0 and "RealStateInTests" in child.stderr, "a child of a test refuses it too"
    monkeypatch.setenv("HOME", str(tmp_path))
    assert state_dir() == tmp_path / ".local" / "state" / "pideck", "another HOME's is that HOME's"
