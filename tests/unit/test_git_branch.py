"""The git branch of pi's folder, found as pi's footer finds it (app/git_branch.py): HEAD read
up from the folder, a worktree's `gitdir:` file followed, `detached` for a commit, and HEAD
read again only when its file changed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import app.git_branch as git_branch
from app.git_branch import BranchWatch, head_file


def repo(folder: Path, head: str = "ref: refs/heads/main\n") -> Path:
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "HEAD").write_text(head)
    return folder


def test_the_branch_of_a_folder_deep_in_a_repository(tmp_path: Path) -> None:
    repo(tmp_path, "ref: refs/heads/feature/login\n")
    deep = tmp_path / "src" / "app"
    deep.mkdir(parents=True)
    watch = BranchWatch()
    assert watch.check(deep) and watch.branch == "feature/login"
    assert not watch.check(deep)  # nothing changed: HEAD not read again


def test_a_commit_is_detached_and_no_repository_is_none(tmp_path: Path) -> None:
    repo(tmp_path / "a", "3f2c9e1d0b8a7f6e5d4c3b2a1908f7e6d5c4b3a2\n")
    watch = BranchWatch()
    assert watch.check(tmp_path / "a") and watch.branch == "detached"
    (tmp_path / "b").mkdir()
    assert watch.check(tmp_path / "b") and watch.branch is None


def test_a_worktree_follows_its_gitdir_file(tmp_path: Path) -> None:
    main = repo(tmp_path / "main")
    (main / ".git" / "worktrees" / "wt").mkdir(parents=True)
    (main / ".git" / "worktrees" / "wt" / "HEAD").write_text("ref: refs/heads/wt-branch\n")
    (tmp_path / "wt").mkdir()
    (tmp_path / "wt" / ".git").write_text(f"gitdir: {main / '.git' / 'worktrees' / 'wt'}\n")
    watch = BranchWatch()
    assert watch.check(tmp_path / "wt") and watch.branch == "wt-branch"


def test_a_checkout_is_seen_at_the_next_look(tmp_path: Path) -> None:
    head = repo(tmp_path) / ".git" / "HEAD"
    watch = BranchWatch()
    watch.check(tmp_path)
    head.write_text("ref: refs/heads/release\n")
    os.utime(head, ns=(1, 1))  # a new mtime even on a coarse clock
    assert watch.check(tmp_path) and watch.branch == "release"


def test_reads_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo(tmp_path, "ref: refs/heads/" + "x" * 10_000_000)
    watch = BranchWatch()
    watch.check(tmp_path)
    assert watch.branch is not None and len(watch.branch) < git_branch.HEAD_BYTES
    deep = tmp_path / "d"
    for _ in range(git_branch.MAX_LEVELS + 2):
        deep = deep / "d"
    deep.mkdir(parents=True)
    assert head_file(deep) is None  # the repository is too far up to look for


def test_a_reftable_head_asks_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo(tmp_path, "ref: refs/heads/.invalid\n")  # as a reftable repository has it
    asked: list[list[str]] = []

    def git(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
        asked.append(argv)
        assert kwargs["timeout"] == git_branch.GIT_TIMEOUT and kwargs["cwd"] == tmp_path
        return subprocess.CompletedProcess(argv, 0, b"topic\n", b"")

    monkeypatch.setattr(git_branch.subprocess, "run", git)
    watch = BranchWatch()
    watch.check(tmp_path)
    assert watch.branch == "topic" and asked[0][-4:] == ["symbolic-ref", "--quiet", "--short", "HEAD"]
