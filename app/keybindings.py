"""pi's `<agent-dir>/keybindings.json`, read into Textual's keymap.

pi names its actions (`app.model.select`, `tui.editor.yank`, ...; pi docs/keybindings.md)
and pideck gives the bindings that do the same the same ids, so `App.set_keymap` puts the
user's keys on them: a key or a list replaces the action's keys, `[]` leaves it without
any. What cannot be followed (an id pi does not have, a key Textual cannot name, a key
given to two actions) is listed in `problems`; pi's actions that pideck has no binding
for in `not_in_pideck`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from textual.binding import Binding
from widgets.engine.key_events import key_name

from protocol.files.config_files import read_json
from protocol.numbers import is_digits
from widgets.panes.key_footer import UNBOUND

# Every action id pi 1.6.0 knows (pi's dist/core/keybindings.js and pi-tui's keybindings.js).
PI_ACTIONS = frozenset({
    *(f"tui.editor.{name}" for name in (
        "cursorUp", "cursorDown", "historyPrevious", "historyNext", "cursorLeft", "cursorRight",
        "cursorWordLeft", "cursorWordRight", "cursorLineStart", "cursorLineEnd", "jumpForward",
        "jumpBackward", "pageUp", "pageDown", "deleteCharBackward", "deleteCharForward",
        "deleteWordBackward", "deleteWordForward", "deleteToLineStart", "deleteToLineEnd", "yank",
        "yankPop", "undo")),
    *(f"tui.input.{name}" for name in ("newLine", "submit", "tab", "copy")),
    *(f"tui.select.{name}" for name in ("up", "down", "pageUp", "pageDown", "confirm", "cancel")),
    *(f"tui.altScreen.{name}" for name in (
        "pageUp", "pageDown", "halfPageUp", "halfPageDown", "lineUp", "lineDown", "previousPrompt",
        "nextPrompt", "search", "searchNext", "searchPrevious", "searchClose", "top", "bottom")),
    *(f"app.{name}" for name in (
        "interrupt", "clear", "exit", "suspend", "thinking.cycle", "thinking.save", "thinking.toggle",
        "model.cycleForward", "model.cycleBackward", "model.select", "tools.expand", "editor.external",
        "message.copy", "message.followUp", "message.dequeue", "clipboard.pasteImage",
        "session.new", "session.tree", "session.fork", "session.resume", "session.togglePath",
        "session.toggleSort", "session.toggleNamedFilter", "session.rename", "session.delete",
        "session.deleteNoninvasive", "models.save", "models.enableAll", "models.clearAll",
        "models.toggleProvider", "models.reorderUp", "models.reorderDown", "tree.foldOrUp",
        "tree.unfoldOrDown", "tree.editLabel", "tree.toggleLabelTimestamp", "tree.filter.default",
        "tree.filter.noTools", "tree.filter.userOnly", "tree.filter.labeledOnly", "tree.filter.all",
        "tree.filter.cycleForward", "tree.filter.cycleBackward")),
})

_MODIFIERS = ("alt", "ctrl", "shift", "super")  # Textual's order
_SYMBOLS = "`-=[]\\;',./!@#$%^&*()_+|~{}:<>?"
_NAMED = {
    "escape": "escape", "esc": "escape", "enter": "enter", "return": "enter", "tab": "tab",
    "space": "space", "backspace": "backspace", "delete": "delete", "insert": "insert", "home": "home",
    "end": "end", "pageup": "pageup", "pagedown": "pagedown", "up": "up", "down": "down", "left": "left",
    "right": "right", **{f"f{n}": f"f{n}" for n in range(1, 13)},
}


def textual_key(pi_key: str) -> str | None:
    """pi's `shift+ctrl+p` as Textual names it (`ctrl+shift+p`), or None if Textual cannot."""
    text = pi_key.strip()
    if text == "+" or text.endswith("++"):  # the `+` key itself
        *modifiers, key = [*text[:-2].split("+"), "+"] if len(text) > 1 else ["+"]
    else:
        *modifiers, key = text.split("+")
    modifiers = [m.lower() for m in modifiers]
    if any(m not in _MODIFIERS for m in modifiers) or len(set(modifiers)) < len(modifiers):
        return None
    if len(key) == 1 and key.isascii() and key.isalpha():
        if modifiers == ["shift"]:  # a capital letter, as Textual reports it
            return key.upper()
        key = key.lower()
    elif len(key) == 1 and key in _SYMBOLS:
        key = key_name(key)  # Textual's names: minus, right_square_bracket, ...
    elif not is_digits(key, 1):
        key = _NAMED.get(key.lower(), "")
        if not key:
            return None
    return "+".join([*sorted(modifiers), key])


@dataclass
class PiKeymap:
    keymap: dict[str, str] = field(default_factory=dict)  # binding id -> Textual's keys, comma-separated
    problems: list[str] = field(default_factory=list)
    not_in_pideck: list[str] = field(default_factory=list)  # pi actions set in the file pideck has no key for

    @property
    def notes(self) -> list[str]:
        """What /hotkeys says of the file."""
        unused = [f"pideck has no key for pi's {', '.join(self.not_in_pideck)}"] if self.not_in_pideck else []
        return [*self.problems, *unused]


def read_keybindings(agent: Path) -> dict[str, object] | str:
    """The file's object (empty if there is none), or what is wrong with it."""
    path = agent / "keybindings.json"
    try:
        data = read_json(path)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        return f"{path} cannot be read: {exc}"
    if not isinstance(data, dict):
        return f"{path} is not a JSON object"
    return {key: value for key, value in data.items() if key != "$schema"}


def pi_keymap(agent: Path, bindings: Iterable[Binding]) -> PiKeymap:
    """The keymap for pideck's `bindings` from pi's keybindings.json: those with an id are pi's
    actions; the keys of those without one are pideck's own, and a key given to an action
    that is one of them is a conflict."""
    defaults: dict[str, set[str]] = {}
    fixed: dict[str, str] = {}  # the keys of pideck's bindings that pi has no id for: what they do
    for binding in bindings:
        if binding.id is not None:
            defaults.setdefault(binding.id, set()).update(binding.key.split(","))
        else:
            fixed.update(dict.fromkeys(binding.key.split(","), binding.description or binding.action))
    result = PiKeymap()
    config = read_keybindings(agent)
    if isinstance(config, str):
        result.problems.append(config)
        return result
    keys_of = {action: keys - {UNBOUND} for action, keys in defaults.items()}
    for action, value in config.items():
        if action not in PI_ACTIONS:
            result.problems.append(f"{action}: not one of pi's actions")
            continue
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            result.problems.append(f"{action}: give a key or a list of keys")
            continue
        if action not in defaults:
            result.not_in_pideck.append(action)
            continue
        keys = []
        for pi_key in values:
            key = textual_key(pi_key)
            if key is None:
                result.problems.append(f"{action}: {pi_key!r} is not a key pideck can read")
            elif key not in keys:
                keys.append(key)
        keys_of[action] = set(keys)
        result.keymap[action] = ",".join(keys) or UNBOUND
    for action in sorted(result.keymap):
        for key in sorted(keys_of[action]):
            others = sorted(a for a, keys in keys_of.items() if a != action and key in keys and a not in _SHARED)
            if others and action not in _SHARED:
                result.problems.append(f"{action}: {key} is also {', '.join(others)}'s key")
            elif key in fixed:
                result.problems.append(f"{action}: {key} is also pideck's key for “{fixed[key]}”")
    return result


# An action whose key pi itself also gives another (Ctrl+D: quit on an empty prompt, else
# delete right), which pideck tells apart as pi does.
_SHARED = frozenset({"tui.editor.deleteCharForward"})
