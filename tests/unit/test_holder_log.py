"""holder.log stays small whatever a peer makes the holder say (protocol/hold/log.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from protocol.hold import log as holder_log
from protocol.hold.log import HolderLog


@pytest.fixture
def fd(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A descriptor standing for the holder's stderr."""
    spare = os.open(os.devnull, os.O_WRONLY)
    yield spare
    os.close(spare)


def test_a_line_said_again_and_again_is_counted_not_written(tmp_path: Path, fd: int,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    now = [1000.0]
    monkeypatch.setattr(holder_log.time, "monotonic", lambda: now[0])
    log = HolderLog(tmp_path / "holder.log", fd=fd)
    for number in range(10_000):
        log(f"a line for pi {number % 3} refused: not one line")
    log("pi 1 exited (0)")
    text = (tmp_path / "holder.log").read_text()
    assert text.count("refused: not one line") == holder_log.BURST
    assert "pi 1 exited (0)" in text
    now[0] += holder_log.REPEAT_WINDOW
    log.tick()
    text = (tmp_path / "holder.log").read_text()
    assert f"({10_000 - holder_log.BURST} more like it in 10 s, the last: a line for pi 0 refused: not one line)" in text


def test_the_log_moves_to_its_old_copy_past_its_cap(tmp_path: Path, fd: int) -> None:
    path = tmp_path / "holder.log"
    log = HolderLog(path, cap=10_000, fd=fd)
    for number in range(2000):
        log(f"line {'x' * (number % 7)} {chr(65 + number % 26) * 20}")  # (words that differ: none counted)
        assert path.stat().st_size <= 10_000 + 100
    old = path.with_name("holder.log.1")
    assert old.exists() and old.stat().st_size <= 10_000 + 100
    assert sorted(p.name for p in tmp_path.iterdir()) == ["holder.log", "holder.log.1"]
    os.write(fd, b"x" * 20_000)  # (what else goes to stderr: Python's last words)
    log("after")
    assert path.read_text().endswith("after\n") and path.stat().st_size < 100


def test_a_log_past_its_cap_at_start_starts_anew(tmp_path: Path, fd: int) -> None:
    path = tmp_path / "holder.log"
    path.write_bytes(b"y" * 5000)
    HolderLog(path, cap=1000, fd=fd)("hello")
    assert path.read_text().endswith("hello\n") and path.stat().st_size < 100
    assert path.with_name("holder.log.1").stat().st_size == 5000


def test_a_log_whose_folder_is_gone_stays_bounded(tmp_path: Path, fd: int) -> None:
    """The runtime folder removed at a logout, not made again for a while: the log written to
    (a file nobody can reach any more) does not grow past its cap."""
    folder = tmp_path / "pideck"
    folder.mkdir()
    log = HolderLog(folder / "holder.log", cap=10_000, fd=fd)
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    for number in range(2000):
        log(f"line {chr(65 + number % 26) * 20} {'y' * (number % 9)}")
        assert os.fstat(fd).st_size <= 10_000 + 100
