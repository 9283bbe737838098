"""The generated parts of docs/keys.md and docs/commands.md, so the pages cannot drift from
`/hotkeys` and the `/` commands: the keys `/hotkeys` shows with pi's default keymap (no
keybindings.json is read) and the commands of the registry.

`python -m app.docs_pages` writes each part between its page's markers
(`<!-- generated: NAME (python -m app.docs_pages) -->` … `<!-- end generated -->`), the
hand-written prose around them kept; tests/unit/test_docs.py fails when a page differs.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from textual.binding import Binding, BindingsMap

from app.commands.context import SlashCommand
from app.commands.info import NOT_OVER_RPC
from app.commands.registry import REGISTRY
from app.hotkeys_table import KeyRow, hotkey_sections
from app.main_screen import MainScreen
from app.pideck_app import PideckApp
from widgets.engine.bindings import class_bindings

COMMAND = "python -m app.docs_pages"
DOCS = Path(__file__).resolve().parents[1] / "docs"
END = "<!-- end generated -->"


def default_key_sections() -> list[tuple[str, list[KeyRow]]]:
    """/hotkeys' sections with no keybindings.json: the App's keys and the main screen's (its
    actions named `screen.…`, as the App's `key_bindings` names them), and the prompt editor's."""
    screen = BindingsMap(replace(b, action=f"screen.{b.action}") for b in MainScreen.BINDINGS if isinstance(b, Binding))
    app_keys = BindingsMap.merge([BindingsMap(PideckApp.BINDINGS), screen])
    return hotkey_sections(app_keys, class_bindings(MainScreen.prompt_class))


def _cell(text: str) -> str:
    """Plain text in a Markdown table cell, nothing in it read as Markdown."""
    return re.sub(r"([\\`*_<>\[\]|])", r"\\\1", text)


def _pipes(text: str) -> str:
    """`text` in a table cell as Markdown, its `|` (even in code) not ending the cell."""
    return text.replace("|", r"\|")


def keys_part() -> str:
    lines: list[str] = []
    for title, rows in default_key_sections():
        lines += ["", f"### {title}", "", "| Key | What it does |", "|---|---|"]
        for row in rows:
            note = f" ({row.note})" if row.note else ""
            lines.append(f"| {_cell(row.label)} | {_cell(row.description + note)} |")
    return "\n".join(lines[1:])


def _command_rows(commands: list[SlashCommand]) -> list[str]:
    """A table of `commands` by name; their descriptions are Markdown (`code` in them is meant)."""
    rows = ["| Command | What it does |", "|---|---|"]
    for command in sorted(commands, key=lambda c: c.name):
        usage = f"/{command.name} {command.usage}".strip()
        rows.append(f"| {_pipes(f'`{usage}`')} | {_pipes(command.description)} |")
    return rows


def commands_part() -> str:
    """pideck's commands, then pi's that pideck cannot run over RPC (each says what to do instead)."""
    ours = [command for name, command in REGISTRY.items() if name not in NOT_OVER_RPC]
    theirs = [command for name, command in REGISTRY.items() if name in NOT_OVER_RPC]
    return "\n".join([*_command_rows(ours), "", "pi's commands that need pi's own UI (pideck answers them with what "
                      "to do instead):", "", *_command_rows(theirs)])


PARTS: dict[str, tuple[str, Callable[[], str]]] = {
    "keys": ("keys.md", keys_part),
    "commands": ("commands.md", commands_part),
}


def with_part(page: str, name: str, body: str) -> str:
    """`page` with what its markers for part `name` hold replaced by `body`."""
    start = f"<!-- generated: {name} ({COMMAND}) -->"
    head, found, rest = page.partition(start)
    if not found or END not in rest:
        raise ValueError(f"no {start} … {END} in the page")
    return f"{head}{start}\n\n{body}\n\n{END}{rest.partition(END)[2]}"


def generated_pages(docs: Path = DOCS) -> dict[Path, str]:
    """Each page with its generated parts as they should be."""
    pages: dict[Path, str] = {}
    for name, (page, part) in PARTS.items():
        path = docs / page
        try:
            pages[path] = with_part(pages.get(path) or path.read_text(encoding="utf-8"), name, part())
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
    return pages


def main() -> int:
    for path, text in generated_pages().items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(DOCS.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
