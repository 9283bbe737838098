"""`pideck serve`'s command line, and the pideck each page runs: the same pideck and pi flags."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.cli.pideck import main, parse_args
from app.cli.serve import is_loopback, origin, pideck_command


def test_serve_takes_pidecks_flags_where_to_listen_and_pis_arguments(tmp_path: Path) -> None:
    args = parse_args(["serve", "--demo", "--port", "0", "--cwd", str(tmp_path), "--", "-e", "ext.ts", "--", "hi"])
    assert args.serve and args.demo and args.port == 0 and args.host == "127.0.0.1"
    command = pideck_command(args)
    assert command[:4] == [sys.executable, "-P", "-m", "app"], "this pideck, never an `app` of the working directory"
    assert command[command.index("--cwd") + 1] == str(tmp_path.resolve()) and "--demo" in command
    assert command[command.index("--") :] == ["--", "-e", "ext.ts", "--", "hi"]
    assert not parse_args(["--demo"]).serve
    assert parse_args(["--", "serve"]).pi_args == ["serve"], "after --, serve is pi's"


def test_a_bad_serve_flag_names_serves_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", "x"]) == 2
    assert "see pideck serve --help" in capsys.readouterr().err
    assert main(["serve", "--demo", "--", "--mode", "json"]) == 2, "checked before serving"
    assert "--mode cannot be passed to pi" in capsys.readouterr().err


def test_loopback_hosts_and_the_address_a_browser_opens() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.1.2.3", "::1", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.5", "example.com"))
    assert origin("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert origin("::1", 80) == "http://[::1]:80"


def test_max_pages_is_a_whole_number_from_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse_args(["serve"]).max_pages == 4 and parse_args(["serve", "--max-pages", "12"]).max_pages == 12
    for bad in ("0", "-1", "abc", "²", "1" * 5000, "1001", " 2"):
        assert main(["serve", "--max-pages", bad]) == 2, bad
        err = capsys.readouterr().err
        assert "--max-pages: must be a whole number from 1 to 1000" in err and "see pideck serve --help" in err
    with pytest.raises(SystemExit):
        parse_args(["--max-pages", "2"])  # pideck's own command line has no pages


def test_a_page_holds_pi_only_when_asked() -> None:
    """A closed page ends its pi unless the server was told to hold (`--hold`, `--attach`)."""
    plain, held, attach = (pideck_command(parse_args(["serve", *flags])) for flags in ([], ["--hold"], ["--attach"]))
    assert "--no-hold" in plain and "--hold" not in plain
    assert "--hold" in held and "attach" not in held
    assert attach[4] == "attach" and "--hold" in attach
