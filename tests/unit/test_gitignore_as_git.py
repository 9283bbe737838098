"""`.gitignore` patterns read as git reads them (protocol/state/file_index.py), checked against
git itself: the walk outside a work tree leaves out exactly what `git ls-files --others
--exclude-standard` leaves out, for bracket expressions git accepts that a regular
expression would not (`[z-a]`, `[[:bogus:]]`, an unclosed `[`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from protocol.state.file_index import gitignore_rule, list_entries

PATTERNS = ["[z-a]", "[a-c]x", "[!a]y", "[]]", "[[:digit:]]*.num", "[[:bogus:]]z", "[abc", "\\[lit\\]", "[a\\]b]w",
            "[^x]q", "[a-]d", "[[]b", "[[:x]v", "[!]]k", "tail\\", "[[:upper:][:digit:]]u", "m[a-c-e]"]  # fmt: skip
NAMES = ["zz", "a", "z", "ax", "bx", "dx", "ay", "by", "]", "1.num", "a.num", "[abc", "[lit]", "l", "]w", "aw", "bw",
         "xq", "yq", "-d", "ad", "bd", "[b", "[v", ":v", "xv", "]k", "ak", "tail\\", "tail", "Au", "3u", "au", "mb", "m-",
         "me", "md"]  # fmt: skip


def test_a_bracket_git_accepts_never_raises() -> None:
    for pattern in PATTERNS:
        gitignore_rule(pattern)


@pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0, reason="no git")
def test_the_walk_ignores_what_git_ignores(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / ".gitignore").write_text("\n".join(PATTERNS) + "\n")
    for name in NAMES:
        (tree / name).write_text("x")
    walked = {entry.path for entry in list_entries(tree)}  # no git work tree here: the walk
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    listed = subprocess.run(["git", "-C", str(tree), "ls-files", "-z", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")  # fmt: skip
    assert walked == {path for path in listed if path}
