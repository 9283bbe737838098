"""No pure forwarders in the desk, its slots, the commands' context or the App: a command
that needs a new capability reaches it where it is (`ctx.pi`, `ctx.desk`, `ctx.screen`),
not through a property or a method re-declared on each layer.

A pure forwarder is a method or property whose body (its docstring aside) is one statement
that returns or calls something reached from `self` through an attribute chain, passing its
own parameters through unchanged (or, a property, returns such a chain). Textual's hooks
on the App (`on_…`, `action_…`, and what overrides Textual's App, as `notify`) are how
Textual calls pideck, and are not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

from textual.app import App

ROOT = Path(__file__).resolve().parents[2]
CHECKED = {
    "app/desk/desk.py": "Desk",
    "app/desk/slot.py": "SessionSlot",
    "app/commands/context.py": "CommandContext",
    "app/pideck_app.py": "PideckApp",
}
FunctionDef = ast.FunctionDef | ast.AsyncFunctionDef


def _chain(node: ast.expr) -> list[str] | None:
    """`self.a.b` as ["a", "b"]; None for what does not start at `self`."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return list(reversed(parts)) if isinstance(node, ast.Name) and node.id == "self" else None


def is_forwarder(function: FunctionDef) -> bool:
    body = [statement for statement in function.body
            if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return | ast.Expr) or body[0].value is None:
        return False
    value = body[0].value
    if isinstance(value, ast.Await):
        value = value.value
    params = [arg.arg for arg in function.args.args[1:]] + [arg.arg for arg in function.args.kwonlyargs]
    if isinstance(value, ast.Attribute):
        chain = _chain(value)
        return chain is not None and not params and (len(chain) >= 2 or chain[0] != function.name)
    if isinstance(value, ast.Call):
        chain = _chain(value.func)
        if chain is None or len(chain) < 2:
            return False
        passed = [arg.id for arg in value.args if isinstance(arg, ast.Name)]
        passed += [keyword.value.id for keyword in value.keywords if isinstance(keyword.value, ast.Name)]
        return len(passed) == len(value.args) + len(value.keywords) and sorted(passed) == sorted(params)
    return False


def textual_hook(name: str) -> bool:
    return name.startswith(("on_", "action_", "watch_")) or hasattr(App, name)


def forwarders(source: str, class_name: str, *, shell: bool = False) -> list[str]:
    """The pure forwarders of `class_name` in `source` (Textual's hooks left out for a `shell`)."""
    found = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ClassDef) and node.name == class_name]
    assert found, f"no class {class_name}"
    return [function.name for function in found[0].body if isinstance(function, FunctionDef)
            and is_forwarder(function) and not (shell and textual_hook(function.name))]


def test_the_check_finds_a_forwarder_planted() -> None:
    planted = '''
class Desk:
    @property
    def client(self):
        """pi's client."""
        return self.current.pi.client

    async def close(self, slot):
        await self.shell.close(slot)

    def show(self, number):
        return self.shell.show(number, True)

    def quit(self):
        self.shell.exit(self.exit_status)

    def on_key(self, event):
        self.desk.key(event)
'''
    assert forwarders(planted, "Desk") == ["client", "close", "on_key"]
    assert forwarders(planted, "Desk", shell=True) == ["client", "close"]


def test_no_forwarders_in_the_desk_its_slots_the_context_or_the_app() -> None:
    found = {f"{path}:{name}": forwarders((ROOT / path).read_text(), name, shell=name == "PideckApp")
             for path, name in CHECKED.items()}
    assert not any(found.values()), {where: names for where, names in found.items() if names}
