"""The host's files over ssh (app/pi/remote_files.py), against the test ssh server: bytes read
and written exactly, whatever the file's name, bounded, and the extension put there once."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from app.pi.checkpoint_launch import EXTENSION, REMOTE_FLAG, checkpoint_root, with_checkpoints
from app.pi.launch import LaunchConfig
from app.pi.remote_files import Changed, RemoteFiles, ssh_login

HOSTILE = ["a b.txt", "it's \"quoted\".txt", "new\nline.txt", "-n", "--help", "$(touch pwned)", "tab\there ; rm -rf x",
           "trailing newline\n", "ünïcode ✓.txt", "*"]


def files(sshd: Any) -> RemoteFiles:
    return RemoteFiles(ssh_login(sshd.ssh()), "127.0.0.1")


def test_hostile_names_are_read_written_and_removed_exactly(sshd: Any, tmp_path: Path) -> None:
    remote = files(sshd)
    folder = tmp_path / "odd 'dir'\n$(x)"
    for index, name in enumerate(HOSTILE):
        path = str(folder / name)
        data = bytes(range(256)) * 3 + f"{index}\r\n".encode() + b"\0no newline at the end"
        remote.write(path, data, None)
        assert Path(path).read_bytes() == data
        assert remote.read(path, 1 << 20) == data
    assert sorted(os.listdir(folder)) == sorted(HOSTILE)  # no stray temporary file, nothing run
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()
    many = remote.read_many([str(folder / name) for name in HOSTILE] + [str(folder / "absent")], 1 << 20)
    assert many[str(folder / "absent")] is None
    assert all(isinstance(many[str(folder / name)], bytes) for name in HOSTILE)
    with pytest.raises(Changed):  # it holds something else: left as it is
        remote.write(str(folder / "-n"), None, b"not what it holds")
    assert (folder / "-n").exists()
    remote.write(str(folder / "-n"), None, (folder / "-n").read_bytes())
    assert not (folder / "-n").exists() and remote.read(str(folder / "-n"), 100) is None


def test_a_write_keeps_the_mode_and_refuses_a_file_that_changed_and_a_new_file_gets_the_umask(sshd: Any, tmp_path: Path) -> None:
    remote = files(sshd)
    script = tmp_path / "run me.sh"
    script.write_text("old\n")
    script.chmod(0o751)
    with pytest.raises(Changed, match="changed on 127.0.0.1 since pideck read it"):
        remote.write(str(script), b"new\n", None)  # pideck thought there was no file
    remote.write(str(script), b"new\n", b"old\n")
    assert script.read_bytes() == b"new\n" and stat.S_IMODE(script.stat().st_mode) == 0o751
    remote.write(str(tmp_path / "deep" / "er" / "made.txt"), b"x", None)
    assert stat.S_IMODE((tmp_path / "deep" / "er" / "made.txt").stat().st_mode) & 0o600 == 0o600
    assert (tmp_path / "deep" / "er" / "made.txt").read_bytes() == b"x"


def test_reads_are_bounded_and_say_why(sshd: Any, tmp_path: Path) -> None:
    remote = files(sshd)
    (tmp_path / "big").write_bytes(b"x" * 1001)
    (tmp_path / "folder").mkdir()
    found = remote.read_many([str(tmp_path / "big"), str(tmp_path / "folder")], 1000)
    assert "larger than 1000 bytes" in str(found[str(tmp_path / "big")])
    assert "not a regular file" in str(found[str(tmp_path / "folder")])
    with pytest.raises(OSError, match="larger than"):
        remote.read(str(tmp_path / "big"), 1000)


def test_an_unreachable_host_fails_without_a_prompt(sshd: Any, tmp_path: Path) -> None:
    refused = RemoteFiles(ssh_login(sshd.ssh(key=sshd.stray_key)), "127.0.0.1")
    with pytest.raises(OSError, match="asks for no password"):
        refused.read(str(tmp_path / "x"), 10)


def test_the_extension_goes_to_the_hosts_state_folder_once(sshd: Any, tmp_path: Path) -> None:
    config = LaunchConfig(argv=(*sshd.ssh(), "pi", "--mode", "rpc", "--model", "m"), env={}, cwd=tmp_path,
                          demo=False, protocol_log=tmp_path / "log", remote="127.0.0.1")
    launched = with_checkpoints(config)
    at = launched.argv.index("-e")
    placed = Path(launched.argv[at + 1])
    assert launched.argv[at + 2] == REMOTE_FLAG + str(sshd.state / "pideck" / "checkpoints")
    assert launched.argv[at + 3 :] == ("--model", "m")
    assert placed.parent == sshd.state / "pideck" / "extensions" and placed.read_bytes() == EXTENSION.read_bytes()
    assert checkpoint_root(launched) == sshd.state / "pideck" / "checkpoints"
    written = placed.stat().st_mtime_ns
    assert with_checkpoints(config) == launched and placed.stat().st_mtime_ns == written  # once
    assert with_checkpoints(launched) == launched


def test_a_host_that_cannot_be_reached_starts_pi_without_checkpoints(sshd: Any, tmp_path: Path) -> None:
    config = LaunchConfig(argv=(*sshd.ssh(key=sshd.stray_key), "pi", "--mode", "rpc"), env={}, cwd=tmp_path,
                          demo=False, protocol_log=tmp_path / "log", remote="127.0.0.1")
    assert with_checkpoints(config) == config and checkpoint_root(config) is None


@pytest.mark.parametrize(("command", "login"), [
    (["ssh", "box", "pi"], ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "box"]),
    (["ssh", "-p", "22", "-o", "ConnectTimeout=3", "me@box", "cd ~/src && pi"],
     ["ssh", "-o", "BatchMode=yes", "-p", "22", "-o", "ConnectTimeout=3", "-o", "ConnectTimeout=15", "me@box"]),
    (["/usr/bin/ssh", "-p22", "-l", "box", "box", "pi"],  # the host after an option's value that spells it
     ["/usr/bin/ssh", "-o", "BatchMode=yes", "-p22", "-l", "box", "-o", "ConnectTimeout=15", "box"]),
    (["ssh", "--", "box", "pi"], ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=15", "--", "box"]),
])
def test_the_login_keeps_the_users_options_and_asks_nothing(command: list[str], login: list[str]) -> None:
    assert ssh_login(command) == login


def test_an_answer_longer_than_asked_for_ends_the_call(sshd: Any, tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"x" * 100)
    with pytest.raises(OSError, match="longer than pideck reads"):
        files(sshd)._run("cat -- \"$1\"; cat -- \"$1\"", [str(tmp_path / "f")], most=150)


def test_the_remote_files_benchmark_runs_against_the_api_it_measures() -> None:
    """`python -m benchmarks remote_files` called `write` without the content it expects
    there, and failed after its reads."""
    from benchmarks import remote_files

    rows = remote_files.run()
    assert [row.name for row in rows][-1] == "write one 4 KB file"
    assert all(row.value > 0 for row in rows)
