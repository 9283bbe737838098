"""pi on another host: which `--pi` commands are ssh, and to which host."""

from __future__ import annotations

import pytest

from app.pi.remote import ssh_destination, without_local_files


@pytest.mark.parametrize(
    ("argv", "host"),
    [
        (["/usr/bin/ssh", "devbox", "pi"], "devbox"),
        (["ssh", "-p", "2222", "-i", "key", "-o", "BatchMode=yes", "ada@devbox", "pi"], "ada@devbox"),
        (["ssh", "-tp2222", "-v", "devbox", "cd src && pi"], "devbox"),
        (["ssh", "-J", "jump", "--", "devbox", "pi"], "devbox"),
        (["/usr/local/bin/node", "/opt/pi/dist/cli.js"], None),
        (["sshpi"], None),
        (["ssh", "-o", "BatchMode=yes"], None),
    ],
)
def test_the_host_of_an_ssh_command(argv: list[str], host: str | None) -> None:
    assert ssh_destination(argv) == host


def test_at_words_list_no_files_here_and_say_why_once() -> None:
    told: list[str] = []
    complete = without_local_files(lambda before: (0, ["/model"]), "devbox", told.append)  # type: ignore[list-item]
    assert complete("/mo") == (0, ["/model"]), "commands still complete"
    assert complete("look at @src/ma") == (8, [])
    assert complete('and @"my fi') == (4, [])
    assert len(told) == 1 and "pi runs on devbox" in told[0]
