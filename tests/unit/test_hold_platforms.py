"""The uid at the other end of the holder's socket, read as each platform offers it, and
pideck without the holder where none does (protocol/hold/place.py)."""

from __future__ import annotations

import io
import os
import socket
import struct

import pytest

from protocol.hold import place


@pytest.mark.parametrize("platform, getpeereid, way", [
    ("linux", None, "SO_PEERCRED"),
    ("darwin", None, "LOCAL_PEERCRED"),
    ("freebsd14", None, "LOCAL_PEERCRED"),
    ("openbsd7", lambda fd: 0, "getpeereid"),
    ("netbsd10", lambda fd: 0, "getpeereid"),
    ("sunos5", None, None),
])
def test_each_platform_has_its_way_or_none(monkeypatch: pytest.MonkeyPatch, platform: str, getpeereid: object,
                                           way: str | None) -> None:
    monkeypatch.setattr(place, "_getpeereid", lambda: getpeereid)
    assert place.peer_way(platform) == way


def test_so_peercred_reads_the_peer_here() -> None:
    left, right = socket.socketpair(socket.AF_UNIX)
    with left, right:
        assert place.peer_uid(left, "SO_PEERCRED") == os.getuid()


class FakeSocket:
    """A socket whose getsockopt answers what macOS's LOCAL_PEERCRED would."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.asked: list[tuple[int, int, int]] = []

    def getsockopt(self, level: int, option: int, size: int) -> bytes:
        self.asked.append((level, option, size))
        return self.answer

    def fileno(self) -> int:
        return 7


def test_local_peercred_reads_an_xucred() -> None:
    xucred = struct.pack("=IIh2x16I", 0, 501, 1, *([20] * 16))  # cr_version, cr_uid, cr_ngroups, cr_groups
    sock = FakeSocket(xucred)
    assert place.peer_uid(sock, "LOCAL_PEERCRED") == 501  # type: ignore[arg-type]
    assert sock.asked[0][:2] == (0, 1)  # SOL_LOCAL, LOCAL_PEERCRED
    assert place.peer_uid(FakeSocket(struct.pack("=II", 1, 501)), "LOCAL_PEERCRED") is None  # type: ignore[arg-type]
    assert place.peer_uid(FakeSocket(b"\0"), "LOCAL_PEERCRED") is None  # type: ignore[arg-type]


def test_getpeereid_is_libcs(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    monkeypatch.setattr(place, "_getpeereid", lambda: lambda fd: asked.append(fd) or 1234)
    assert place.peer_uid(FakeSocket(b""), "getpeereid") == 1234  # type: ignore[arg-type]
    assert asked == [7]


def test_without_a_way_pi_is_not_held_and_pideck_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """No way to tell a peer's uid (SO_PEERCRED, LOCAL_PEERCRED, getpeereid): pideck runs pi
    as its own child, as --no-hold does, says why once, and pideck ls says so; where there
    is a way, pi is held."""
    from app.cli.pideck import parse_args
    from app.cli.hold import ls_main
    from app.pi.launch import build_launch

    config = build_launch(parse_args(["--hold", "--pi", "true"]))
    assert config.hold and config.unheld is None
    monkeypatch.setattr(place, "peer_way", lambda platform=None: None)
    config = build_launch(parse_args(["--hold", "--pi", "true"]))
    assert not config.hold and config.unheld is not None and "--no-hold" in config.unheld
    assert build_launch(parse_args(["--no-hold", "--pi", "true"])).unheld is None, "not said when not asked for"
    out = io.StringIO()
    assert ls_main([], {}, out) == 0
    assert "no pi is held" in out.getvalue() and "getpeereid" in out.getvalue()
