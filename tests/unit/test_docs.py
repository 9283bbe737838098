"""The user's reference in docs/ names what pideck has: every `/` command of the registry
is in docs/commands.md, and every page the README links to exists."""

from __future__ import annotations

import re
from pathlib import Path

from app.commands.registry import REGISTRY

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_is_in_the_commands_page() -> None:
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    missing = [name for name in REGISTRY if not re.search(rf"`/{re.escape(name)}[` ]", page)]
    assert len(REGISTRY) > 20 and missing == []


def test_the_readme_and_docs_link_to_pages_that_exist() -> None:
    pages = [ROOT / "README.md", ROOT / "ARCHITECTURE.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = [f"{page.name}: {target}" for page in pages
              for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8"))
              if not (page.parent / target).exists()]
    assert len(pages) > 5 and broken == []
