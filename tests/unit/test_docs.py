"""The user's reference in docs/ names what pideck has: every `/` command of the registry
is in docs/commands.md, every flag pideck's parsers know in docs/command-line.md, and every
page the README links to exists."""

from __future__ import annotations

import re
from pathlib import Path

from app import cli, hold_cli, view_cli
from app.commands.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_is_in_the_commands_page() -> None:
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    missing = [name for name in REGISTRY if not re.search(rf"`/{re.escape(name)}[` ]", page)]
    assert len(REGISTRY) > 20 and missing == []


def test_the_command_line_page_names_every_flag() -> None:
    page = (ROOT / "docs" / "command-line.md").read_text(encoding="utf-8")
    parsers = [cli.parser(), cli.parser(serve=True), hold_cli.attach_parser(), hold_cli.ls_parser(),
               hold_cli.stop_parser(), view_cli.parser(), view_cli.replay_parser()]
    flags = {flag: parser.prog for parser in parsers for action in parser._actions for flag in action.option_strings}
    missing = [f"{prog} {flag}" for flag, prog in flags.items() if not re.search(rf"`{re.escape(flag)}[` \]]", page)]
    assert len(flags) > 15 and missing == [], f"not in docs/command-line.md: {', '.join(missing)}"


def test_the_readme_and_docs_link_to_pages_that_exist() -> None:
    pages = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = [f"{page.name}: {target}" for page in pages
              for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8"))
              if not (page.parent / target).exists()]
    assert len(pages) > 5 and broken == []
