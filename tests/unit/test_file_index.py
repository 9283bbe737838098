"""The `@` file index: listing (git or a walk with .gitignore files), pi's ranking, fuzzy
matches, folders searched inside, and the cache listing again after a change."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from widgets.prompt.completion import complete
from protocol.state.file_index import Entry, FileCache, FileIndex, gitignore_rule, is_ignored, list_entries


def tree(root: Path, *paths: str) -> None:
    for path in paths:
        target = root / path
        if path.endswith("/"):
            target.mkdir(parents=True, exist_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("x")


def shown(entries: list[Entry]) -> list[str]:
    return [entry.path + ("/" if entry.is_dir else "") for entry in entries]


def index_of(*paths: str) -> FileIndex:
    entries: dict[str, bool] = {}
    for path in paths:
        parts = path.rstrip("/").split("/")
        for depth in range(1, len(parts)):
            entries["/".join(parts[:depth])] = True
        entries[path.rstrip("/")] = path.endswith("/")
    return FileIndex([Entry(path, is_dir) for path, is_dir in entries.items()])


def test_ranked_as_pi_ranks_then_fuzzy() -> None:
    index = index_of("src/app.py", "src/application/main.py", "app/", "README.md", "docs/app_notes.md",
                     "lib/zap.py", "tests/test_app.py", "deep/a/b/app.py", "xapp.txt")
    assert shown(index.search("app", 20)) == [
        "app/",  # the name is the query, a folder first
        "src/application/",  # names starting with it: the folder first
        "src/app.py", "docs/app_notes.md", "deep/a/b/app.py",  # then files, shallow and short first
        "xapp.txt", "tests/test_app.py",  # names holding it
        "src/application/main.py",  # a path holding it
        "lib/zap.py",  # a name holding a, p, p in order (fuzzy)
    ]
    assert shown(index.search("APP", 1)) == ["app/"]  # case does not matter; the limit holds
    assert shown(index.search("rdm", 20)) == ["README.md"]
    assert shown(index.search("srcmain", 20)) == ["src/application/main.py"]  # fuzzy over the path


def test_a_folder_in_the_query_searches_inside_it() -> None:
    index = index_of("src/app.py", "src/application/main.py", "lib/main.py", "main.py")
    assert shown(index.search("src/", 20)) == ["src/app.py", "src/application/", "src/application/main.py"]
    assert shown(index.search("src/ma", 20)) == ["src/application/main.py"]
    assert shown(index.search("./src/app.", 20))[0] == "src/app.py"
    assert shown(index.search("", 3)) == ["lib/", "src/", "main.py"]  # shallowest first
    assert shown(index.search("b/ma", 20)) == ["lib/main.py"]  # not a folder: the path holds it


def test_gitignore_rules_as_git_reads_them() -> None:
    rules = [rule for line in ["# comment", "*.log", "/build/", "!keep.log", "docs/**/draft", "\\#hash", "a?c"]
             if (rule := gitignore_rule(line)) is not None]
    assert len(rules) == 6
    assert is_ignored(rules, "x/y/z.log", False)
    assert not is_ignored(rules, "x/keep.log", False)  # negated by a later rule
    assert is_ignored(rules, "build", True) and not is_ignored(rules, "build", False)  # a folder only
    assert not is_ignored(rules, "src/build", True)  # anchored at its folder
    assert is_ignored(rules, "docs/draft", False) and is_ignored(rules, "docs/a/b/draft", True)
    assert is_ignored(rules, "#hash", False) and is_ignored(rules, "q/abc", False)
    nested = gitignore_rule("/out", "pkg")
    assert nested is not None and is_ignored([nested], "pkg/out", True) and not is_ignored([nested], "out", True)


FILES = ("keep.py", "debug.log", "pkg/out/gen.py", "pkg/src/mod.py", "pkg/src/notes.tmp",
         "node_modules/lib/index.js", "sub/.git/config", ".hidden/secret.txt", "build/x.o")


def test_walk_honours_nested_gitignores_and_skips_vendored_folders(tmp_path: Path) -> None:
    tree(tmp_path, *FILES)
    (tmp_path / ".gitignore").write_text("*.log\nbuild/\n")
    (tmp_path / "pkg" / ".gitignore").write_text("/out\n*.tmp\n")
    listed = shown(FileIndex(list_entries(tmp_path)).search("", 100))
    assert sorted(listed) == sorted([
        ".gitignore", "keep.py", "pkg/", "pkg/.gitignore", "pkg/src/", "pkg/src/mod.py", "sub/",
        ".hidden/", ".hidden/secret.txt",
    ])  # fmt: skip


def test_git_lists_tracked_and_untracked_files_not_ignored(tmp_path: Path) -> None:
    tree(tmp_path, *FILES, "committed/old.py")
    (tmp_path / ".gitignore").write_text("*.log\nbuild/\n")
    (tmp_path / "pkg" / ".gitignore").write_text("/out\n*.tmp\n")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "committed/old.py"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    (tmp_path / "sub" / ".git" / "config").unlink()  # not a repository of its own
    listed = shown(FileIndex(list_entries(tmp_path)).search("", 100))
    assert sorted(listed) == sorted([
        ".gitignore", "keep.py", "pkg/", "pkg/.gitignore", "pkg/src/", "pkg/src/mod.py",
        ".hidden/", ".hidden/secret.txt", "committed/", "committed/old.py",
    ])  # fmt: skip


def test_cache_lists_once_then_again_after_a_change(tmp_path: Path) -> None:
    asked: list[tuple[Path, int]] = []
    cache = FileCache(lambda folder, generation: asked.append((folder, generation)))
    assert cache.search(tmp_path, "a", 5) is None  # nothing listed yet: a listing is asked for
    assert cache.search(tmp_path, "ab", 5) is None and asked == [(tmp_path, 0)]  # asked once
    cache.store(tmp_path, 0, index_of("ab.txt"))
    assert shown(cache.search(tmp_path, "ab", 5) or []) == ["ab.txt"] and len(asked) == 1
    cache.changed()  # a tool ran: the old listing answers while a new one is made
    assert shown(cache.search(tmp_path, "ab", 5) or []) == ["ab.txt"] and asked[-1] == (tmp_path, 1)
    cache.store(tmp_path, 1, index_of("ab.txt", "abc.txt"))
    cache.store(tmp_path, 0, index_of("old.txt"))  # a slower, older listing does not win
    assert shown(cache.search(tmp_path, "ab", 5) or []) == ["ab.txt", "abc.txt"]
    assert cache.search(tmp_path / "other", "ab", 5) is None  # another folder: listed for itself


@pytest.mark.parametrize(("typed", "insert"), [
    ("see @my", '@"my docs/'),  # a folder with a space: the quote stays open
    ('see @"my docs/no', '@"my docs/notes 1.txt" '),
    ("@rea", "@README.md "),
    ("@lib", "@lib/"),
])  # fmt: skip
def test_completion_inserts_quoted_paths_and_folders_with_a_slash(tmp_path: Path, typed: str, insert: str) -> None:
    index = index_of("my docs/notes 1.txt", "README.md", "lib/x.py")
    start, candidates = complete(typed, [], tmp_path, index.search)
    assert typed[start] == "@" and candidates[0].insert == insert


def test_completion_lists_the_folder_until_the_tree_is_listed(tmp_path: Path) -> None:
    tree(tmp_path, "src/deep/app.py", "src/apple.txt", "apex.md")
    _, candidates = complete("@src/ap", [], tmp_path, lambda query, limit: None)
    assert [c.label for c in candidates] == ["src/apple.txt"]  # by prefix, in that folder only
    _, candidates = complete("@src/ap", [], tmp_path, FileIndex(list_entries(tmp_path)).search)
    assert [c.label for c in candidates] == ["src/apple.txt", "src/deep/app.py"]
