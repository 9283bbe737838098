"""The user's reference in docs/ says what pideck has: the keys and commands pages hold the
tables generated from the bindings and the command registry (app/docs_pages.py) as they are
now, the command-line page names every flag pideck's parsers know, and every page the README
links to exists."""

from __future__ import annotations

import re
from pathlib import Path

from app.cli import hold as hold_cli, pideck as cli, view as view_cli
from app.docs_pages import COMMAND, generated_pages
from widgets.engine import TEXTUAL, TEXTUAL_CHECKED

ROOT = Path(__file__).resolve().parents[2]


def test_the_keys_and_commands_pages_hold_what_the_bindings_and_the_registry_say() -> None:
    pages = generated_pages()
    if TEXTUAL != TEXTUAL_CHECKED:  # (the keys page is written on the Textual pideck is checked on: its text area's own keys differ on another)
        pages = {path: text for path, text in pages.items() if path.name != "keys.md"}
    stale = [path.name for path, text in pages.items() if path.read_text(encoding="utf-8") != text]
    assert len(pages) == (2 if TEXTUAL == TEXTUAL_CHECKED else 1) and stale == [], f"{', '.join(stale)} out of date: run `{COMMAND}`"


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
