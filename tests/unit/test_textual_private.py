"""Textual's private API is taken in one package (widgets/engine/), checked on one Textual
version: a new Textual makes this fail so that every use is looked at again."""

from __future__ import annotations

import ast
from pathlib import Path

import textual

from widgets.engine import TEXTUAL_CHECKED

ROOT = Path(__file__).resolve().parents[2]


def private_textual_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "textual":
            if any(part.startswith("_") for part in node.module.split(".")) or any(
                    alias.name.startswith("_") for alias in node.names):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.module}")
        elif isinstance(node, ast.Import):
            found += [f"{path.relative_to(ROOT)}:{node.lineno}: {alias.name}" for alias in node.names
                      if alias.name.split(".")[0] == "textual" and any(p.startswith("_") for p in alias.name.split("."))]
    return found


def test_only_the_engine_imports_textuals_private_api() -> None:
    sources = [path for package in ("app", "widgets", "protocol") for path in sorted((ROOT / package).rglob("*.py"))]
    engine = ROOT / "widgets" / "engine"
    offenders = [hit for path in sources if engine not in path.parents for hit in private_textual_imports(path)]
    assert len(sources) > 100 and offenders == []
    assert private_textual_imports(engine / "private.py")  # the check sees them there


def test_the_private_api_was_checked_on_the_textual_installed() -> None:
    assert textual.__version__ == TEXTUAL_CHECKED, (
        f"Textual {textual.__version__} is installed; widgets/engine/ was checked on {TEXTUAL_CHECKED}: "
        "check every name there (and the App overrides it lists) against this Textual, then update TEXTUAL_CHECKED")
