"""The key table of `/hotkeys`, read from the live bindings rather than kept by hand.

Sections: the app's bindings (pideck's keys, Textual's Ctrl+Q and the palette key),
the prompt editor's own bindings plus the keys it handles itself (`EDITOR_KEYS`),
and the text-editing keys it inherits from Textual's TextArea. An editor key that a
priority app binding also claims is marked: the app sees it first.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from rich.table import Table
from rich.text import Text
from textual.binding import Binding, BindingsMap
from textual.widgets import TextArea

from widgets.engine.bindings import class_bindings
from widgets.panes.key_footer import UNBOUND
from widgets.colors import palette

# Keys PromptEditor handles in `on_key` instead of BINDINGS.
EDITOR_KEYS: list[tuple[list[str], str]] = [
    (["up", "down"], "Prompt history, on the first / last line of the prompt"),
    (["tab"], "Accept the highlighted completion"),
    (["/"], "Complete commands (pideck's and pi's)"),
    (["@"], "Complete file paths under pi's working directory"),
    (["!cmd", "!!cmd"], "Run a shell command through pi; !! keeps its output out of the context"),
]

_NAMES = {
    "escape": "Esc", "pageup": "PgUp", "pagedown": "PgDn", "delete": "Del", "backspace": "Backspace",
    "enter": "Enter", "tab": "Tab", "home": "Home", "end": "End", "up": "Up", "down": "Down",
    "left": "Left", "right": "Right", "space": "Space", "right_square_bracket": "]", "underscore": "_",
    "minus": "-", "backslash": "\\",
}


def key_label(key: str) -> str:
    """`ctrl+shift+p` → `Ctrl+Shift+P`; plain symbols and `!cmd` stay as they are."""
    if len(key) == 1 or key.startswith("!"):
        return key
    parts = key.split("+")
    return "+".join(_NAMES.get(part, part.upper() if len(part) == 1 else part.capitalize()) for part in parts)


def describe(binding: Binding) -> str:
    """What a binding does: its tooltip, else its Footer label, else its action."""
    return binding.tooltip or binding.description or binding.action


@dataclass
class KeyRow:
    keys: list[str]
    description: str
    note: str = ""

    @property
    def label(self) -> str:
        return ", ".join(key_label(key) for key in self.keys) or "(no key)"


def binding_rows(
    bindings: BindingsMap, skip: BindingsMap | None = None, taken: Collection[str] = (),
    shadowed: Collection[str] = (),
) -> list[KeyRow]:
    """One row per action, with every key bound to it. Bindings also in `skip` are left
    out, and so are keys in `shadowed` (bound to something else where it counts); keys in
    `taken` are noted as going to the app first."""
    skipped = {(key, b.action) for key, b in skip} if skip is not None else set()
    rows: dict[tuple[str, str], KeyRow] = {}
    for key, binding in bindings:
        if (key, binding.action) in skipped or binding.system or key in shadowed:
            continue
        description = describe(binding)
        # (one row for the keys of one action with one help, whatever its parameters: Alt+1…9)
        row = rows.setdefault((binding.action.split("(")[0], description), KeyRow([], description))
        if key not in row.keys and key != UNBOUND:
            row.keys.append(key)
    for row in rows.values():
        claimed = [key_label(key) for key in row.keys if key in taken]
        if claimed:
            row.note = f"{', '.join(claimed)}: pideck's key first"
    return list(rows.values())


def priority_keys(bindings: BindingsMap) -> set[str]:
    return {key for key, binding in bindings if binding.priority and not binding.system}


def hotkey_sections(app_bindings: BindingsMap, editor_bindings: BindingsMap) -> list[tuple[str, list[KeyRow]]]:
    taken = priority_keys(app_bindings)
    text_area = class_bindings(TextArea)
    editor = binding_rows(editor_bindings, skip=text_area, taken=taken)
    editor += [KeyRow(list(keys), description) for keys, description in EDITOR_KEYS]
    in_force = {(key, binding.action) for key, binding in editor_bindings}
    rebound = {key for key, binding in text_area if (key, binding.action) not in in_force}
    return [
        ("pideck", binding_rows(app_bindings)),
        ("Prompt editor", editor),
        ("Text editing", binding_rows(text_area, taken=taken, shadowed=rebound)),
    ]


def hotkeys_table(sections: list[tuple[str, list[KeyRow]]], notes: Collection[str] = ()) -> Table:
    """The sections' keys, then `notes` on pi's keybindings.json (what pideck could not follow)."""
    table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), expand=True)
    table.add_column("key", style=palette.style("border", "bold"), max_width=26)
    table.add_column("action", ratio=1)
    for index, (title, rows) in enumerate(sections):
        if index:
            table.add_row("", "")
        table.add_row(Text(title, "bold underline"), "")
        for row in rows:
            action = Text(row.description)
            if row.note:
                action.append(f"  ({row.note})", palette.style("muted"))
            table.add_row(row.label, action)
    if notes:
        table.add_row("", "")
        table.add_row(Text("keybindings.json", "bold underline"), "")
        for note in notes:
            table.add_row("", Text(note, palette.style("warning")))
    return table
