"""The claim on a session file (protocol/hold/session_claims.py): one holder at a time, let
go when released or when its process dies, keyed by host and by the file's real path."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from protocol.hold import session_claims
from protocol.hold.session_claims import Claim, claim, owner

CLAIMER = textwrap.dedent("""
    import sys
    from protocol.hold.session_claims import claim
    got = claim(sys.argv[1], None, {"pid": 1234, "number": 5})
    print("claimed" if not isinstance(got, dict) else "taken", flush=True)
    sys.stdin.read()
""")


def test_one_claim_at_a_time_and_the_file_free_once_released(tmp_path: Path) -> None:
    session = str(tmp_path / "s.jsonl")
    first = claim(session, None, {"pid": os.getpid(), "number": 3})
    assert isinstance(first, Claim)
    assert owner(session, None) == {"pid": os.getpid(), "number": 3, "session_file": session, "host": None}
    assert claim(session, None, {"pid": 1}) == {"pid": os.getpid(), "number": 3, "session_file": session, "host": None}
    first.release()
    assert owner(session, None) is None
    second = claim(session, None, {"pid": 2})
    assert isinstance(second, Claim)
    second.release()
    first.release()  # (twice: nothing more)
    assert list(session_claims.claims_dir().iterdir()) == []


def test_a_link_to_a_claimed_file_is_the_same_file_and_another_host_another(tmp_path: Path) -> None:
    session = tmp_path / "s.jsonl"
    session.write_text("")
    link = tmp_path / "link.jsonl"
    link.symlink_to(session)
    held = claim(str(session), None, {"pid": 7})
    assert isinstance(held, Claim)
    assert owner(str(link), None) is not None
    elsewhere = claim(str(session), "devbox", {"pid": 8})
    assert isinstance(elsewhere, Claim)
    assert owner(str(session), "devbox") == {"pid": 8, "session_file": str(session), "host": "devbox"}
    elsewhere.release()
    held.release()


def test_a_claim_ends_with_its_process(tmp_path: Path) -> None:
    """The kernel lets go of a dead owner's claim: a holder killed leaves no file claimed."""
    session = str(tmp_path / "s.jsonl")
    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen([sys.executable, "-c", CLAIMER, session], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "claimed"
        assert owner(session, None) == {"pid": 1234, "number": 5, "session_file": session, "host": None}
        assert isinstance(claim(session, None, {"pid": 1}), dict)
    finally:
        child.kill()
        child.wait()
    assert owner(session, None) is None
    assert list(session_claims.claims_dir().iterdir()) == [], "the dead owner's lock file is removed"
    again = claim(session, None, {"pid": 1})
    assert isinstance(again, Claim)
    again.release()
