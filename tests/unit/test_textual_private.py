"""Textual's private names (and Rich's and textual-serve's) are touched only in the engine
(widgets/engine/): a scan of pideck's code fails on any other use, whether on purpose or by
accident (a method named as a private one of Textual's overrides it).

What counts as private: a module or imported name starting with `_`; and a `_name`
(not `__dunder__`) that a class of theirs defines, as a method, a class attribute, a slot
or an attribute its methods set on `self`, found by reading the installed packages. The
scan then fails on, outside the engine:
- an import of a private module or name of theirs, or of the engine's `private` module;
- in a class built on one of theirs: a method or class attribute of a private name of its
  bases (an override, or a shadow by accident), or `self._name` / `super()._name` of one;
- anywhere: `obj._name` (or `getattr(obj, "_name")`) of a name private to a class of
  theirs, unless `obj` is known to be of the module's own class that defines the name:
  `self` or `cls` in a method, the class itself, or a name assigned from a call of one;
- `importlib.import_module("textual._x")` or `__import__` of a private module of theirs;
- an attribute of theirs set from outside (a class-wide patch).
The benchmarks are scanned too.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import textwrap
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import ModuleType

import pytest

from widgets.engine import TEXTUAL_CHECKED

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "widgets" / "engine"
THEIRS = ("textual", "rich", "textual_serve")

# path: {name: why}. A use here is Textual's documented way, or has no other; keep it short.
ALLOWED: dict[str, dict[str, str]] = {}


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def theirs(module: str) -> bool:
    return module.split(".")[0] in THEIRS


def _self_stores(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name)
                and node.value.id == "self" and private(node.attr)):
            yield node.attr


@cache
def members(cls: type) -> frozenset[str]:
    """The private names a class of theirs defines itself."""
    names = {name for name in vars(cls) if private(name)}
    slots = vars(cls).get("__slots__", ())
    names.update(slot for slot in ([slots] if isinstance(slots, str) else slots) if private(slot))
    try:
        source = textwrap.dedent(inspect.getsource(cls))
    except (OSError, TypeError):
        return frozenset(names)
    names.update(_self_stores(ast.parse(source)))
    return frozenset(names)


def their_members(cls: type) -> dict[str, str]:
    """The private names of the classes of theirs in `cls`'s MRO: name -> the class's name."""
    found: dict[str, str] = {}
    for base in cls.__mro__:
        if theirs(base.__module__):
            for name in members(base):
                found.setdefault(name, f"{base.__module__}.{base.__qualname__}")
    return found


def _item_members(item: ast.stmt) -> Iterator[str]:
    """The private names a statement of a class body defines."""
    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and private(item.name):
        yield item.name
    elif isinstance(item, (ast.Assign, ast.AnnAssign)):
        for target in item.targets if isinstance(item, ast.Assign) else [item.target]:
            if isinstance(target, ast.Name) and private(target.id):
                yield target.id


def _body(node: ast.ClassDef) -> Iterator[ast.stmt]:
    """The statements of a class body, those under an `if` or a `try` there too."""
    todo = list(node.body)
    while todo:
        item = todo.pop(0)
        if isinstance(item, (ast.If, ast.Try)):
            todo[:0] = [*item.body, *item.orelse, *getattr(item, "finalbody", [])]
        else:
            yield item


def _class_members(node: ast.ClassDef) -> Iterator[str]:
    for item in _body(node):
        yield from _item_members(item)


@cache
def every_private_of_theirs() -> dict[str, str]:
    """Every private name a class of theirs defines (read from their sources, not imported)."""
    found: dict[str, str] = {}
    for package in THEIRS:
        folder = Path(importlib.import_module(package).__file__ or "").parent
        for path in sorted(folder.rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef):
                    where = f"{path.relative_to(folder.parent).with_suffix('')}.{node.name}".replace("/", ".")
                    for name in [*_class_members(node), *_self_stores(node)]:
                        found.setdefault(name, where)
    return found


def module_name(path: Path, root: Path = ROOT) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")


class Scan:
    """The uses of private names of theirs in one module of pideck's (under `root`, on sys.path)."""

    def __init__(self, path: Path, root: Path = ROOT) -> None:
        self.path = path
        self.where = str(path.relative_to(root))
        self.tree = ast.parse(path.read_text(encoding="utf-8"))
        self.module = importlib.import_module(module_name(path, root))
        self.imported: dict[str, str] = {}  # a name imported anywhere in the module -> "module.attr" or "module"
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                self.imported.update({(a.asname or a.name): f"{node.module}.{a.name}" for a in node.names})
            elif isinstance(node, ast.Import):
                self.imported.update({(a.asname or a.name.split(".")[0]): a.name if a.asname else a.name.split(".")[0]
                                      for a in node.names})
        self.classes = {node.name: node for node in ast.walk(self.tree) if isinstance(node, ast.ClassDef)}
        self.own = {name for node in self.classes.values() for name in _class_members(node)}
        self.own.update(_self_stores(self.tree))
        self.own_objects = {"self", "cls", *self.classes}  # names known to be of the module's own classes
        for node in ast.walk(self.tree):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                    and node.value.func.id in self.own_objects):
                self.own_objects.update(target.id for target in node.targets if isinstance(target, ast.Name))
        self.found: list[str] = []

    def hit(self, node: ast.AST, name: str, what: str) -> None:
        if name not in ALLOWED.get(self.where, {}):
            self.found.append(f"{self.where}:{getattr(node, 'lineno', 0)}: {what}")

    def resolve(self, expression: ast.expr) -> object:
        """What a base class expression names: an object, a ClassDef of this module, or None."""
        if isinstance(expression, ast.Subscript):
            return self.resolve(expression.value)
        if isinstance(expression, ast.Name):
            if expression.id in vars(self.module):
                return vars(self.module)[expression.id]
            if expression.id in self.classes:
                return self.classes[expression.id]
            if expression.id in self.imported:
                module, _, attr = self.imported[expression.id].rpartition(".")
                return getattr(importlib.import_module(module), attr, None)
        if isinstance(expression, ast.Attribute):
            owner = self.resolve(expression.value)
            return getattr(owner, expression.attr, None) if owner is not None else None
        return None

    def bases_members(self, node: ast.ClassDef) -> dict[str, str]:
        """The private names of theirs that `node`'s class inherits, or that the classes built
        on it (a mixin's) do."""
        found: dict[str, str] = {}
        runtime = vars(self.module).get(node.name)
        if isinstance(runtime, type) and runtime.__module__ == self.module.__name__:
            for cls in [runtime, *_subclasses(runtime)]:
                found.update(their_members(cls))
            return found
        for base in node.bases:
            resolved = self.resolve(base)
            if isinstance(resolved, ast.ClassDef):
                found.update(self.bases_members(resolved))
            elif isinstance(resolved, type):
                found.update(their_members(resolved))
        return found

    def run(self) -> list[str]:
        everywhere = every_private_of_theirs()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                parts = node.module.split(".")
                if node.module == "widgets.engine.private" or (theirs(node.module) and (
                        any(map(private, parts)) or any(private(alias.name) for alias in node.names))):
                    self.hit(node, node.module, f"imports from {node.module}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if theirs(alias.name) and any(map(private, alias.name.split("."))):
                        self.hit(node, alias.name, f"imports {alias.name}")
            elif isinstance(node, ast.ClassDef):
                self.scan_class(node)
            elif isinstance(node, ast.Attribute):
                self.scan_attribute(node, everywhere)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                  and node.func.id in ("getattr", "setattr", "hasattr", "delattr") and len(node.args) >= 2
                  and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
                name = node.args[1].value
                if private(name) and name in everywhere and not self.owned(node.args[0], name):
                    self.hit(node, name, f"{node.func.id}(…, {name!r}): {everywhere[name]}'s")
            elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                self.scan_dynamic_import(node)
        return self.found

    def owned(self, value: ast.expr, name: str) -> bool:
        """`value.name` is the module's own: `value` is known to be of its classes, which define `name`."""
        return name in self.own and isinstance(value, ast.Name) and value.id in self.own_objects

    def scan_dynamic_import(self, node: ast.Call) -> None:
        """`importlib.import_module("textual._x")`, `import_module(...)`, `__import__(...)`."""
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        module = node.args[0].value  # type: ignore[attr-defined]
        if called in ("import_module", "__import__") and isinstance(module, str) and (
                module == "widgets.engine.private" or (theirs(module) and any(map(private, module.split("."))))):
            self.hit(node, module, f"imports {module} by name")

    def scan_class(self, node: ast.ClassDef) -> None:
        inherited = self.bases_members(node)
        if not inherited:
            return
        for item in _body(node):
            for name in _item_members(item):
                if name in inherited:
                    self.hit(item, name, f"{node.name}.{name} overrides {inherited[name]}.{name}")
        for item in _body(node):
            if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for sub in ast.walk(item):
                if not isinstance(sub, ast.Attribute) or sub.attr not in inherited:
                    continue
                value = sub.value
                if (isinstance(value, ast.Name) and value.id in ("self", "cls")) or (
                        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"):
                    self.hit(sub, sub.attr, f"{node.name} uses {inherited[sub.attr]}.{sub.attr}")

    def scan_attribute(self, node: ast.Attribute, everywhere: dict[str, str]) -> None:
        value = node.value
        if isinstance(node.ctx, ast.Store) and isinstance(value, ast.Name) and _of_theirs(self.resolve(value)):
            self.hit(node, node.attr, f"sets {value.id}.{node.attr}, an attribute of theirs")
        if not private(node.attr) or node.attr not in everywhere or self.owned(value, node.attr):
            return
        if isinstance(value, ast.Name) and isinstance(module := self.resolve(value), ModuleType) and not theirs(module.__name__):
            return  # (a function of a module of another's: `os._exit`)
        if (isinstance(value, ast.Name) and value.id in ("self", "cls")) or (
                isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"):
            return  # (a class of theirs: scan_class; else the module's own)
        self.hit(node, node.attr, f"._{node.attr[1:]}: {everywhere[node.attr]}'s")


def _of_theirs(thing: object) -> bool:
    """`thing` is a module or a class of theirs."""
    if isinstance(thing, ModuleType):
        return theirs(thing.__name__)
    return isinstance(thing, type) and theirs(thing.__module__)


def _subclasses(cls: type) -> list[type]:
    found, todo = [], [cls]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.append(sub)
            todo.append(sub)
    return found


SCANNED = ("app", "widgets", "protocol", "benchmarks")


def pideck_modules() -> list[Path]:
    return [path for package in SCANNED for path in sorted((ROOT / package).rglob("*.py"))
            if path.name != "__main__.py"]


@pytest.fixture(scope="module")
def every_module() -> list[Path]:
    paths = pideck_modules()
    for path in paths:  # (every class is there to be found, with the classes built on it)
        importlib.import_module(module_name(path))
    return paths


def test_only_the_engine_touches_textuals_private_names(every_module: list[Path]) -> None:
    outside = [path for path in every_module if ENGINE not in path.parents]
    found = [hit for path in outside for hit in Scan(path).run()]
    assert len(outside) > 100
    assert found == [], "Textual's private names outside widgets/engine/:\n" + "\n".join(found)


def test_the_scan_sees_the_engines_uses(every_module: list[Path]) -> None:
    """The engine does all of these, so each rule finds something there."""
    found = "\n".join(hit for path in every_module if ENGINE in path.parents for hit in Scan(path).run())
    for what in ("imports from textual._compositor", "imports from widgets.engine.private",
                 "EngineApp._display overrides textual.app.App._display", "EngineScreen uses textual.screen.Screen._compositor",
                 "._vertical_scrollbar: ", "sets linux_driver.WriterThread", "sets XTermParser.feed", "getattr(…, '_anchor_released')"):
        assert what in found, what


def test_every_allowed_use_is_still_there(every_module: list[Path]) -> None:
    for where, names in ALLOWED.items():
        scan = Scan(ROOT / where)
        saved = ALLOWED.pop(where)
        try:
            found = scan.run()
        finally:
            ALLOWED[where] = saved
        for name in names:
            assert any(name in hit for hit in found), f"{where}: {name} is allowed but no longer used"


def test_the_textual_allowed_is_what_ci_tests() -> None:
    """pyproject.toml allows Textual from the lowest that CI runs the unit tests on (`make
    test-lowest`) to the one the engine was checked on, where it runs (elsewhere it is off)."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    lowest = re.search(r"^LOWEST_TEXTUAL := (\S+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert lowest is not None
    assert f"textual>={lowest[1]},<={TEXTUAL_CHECKED}" in dependencies


PLANTED = {
    "a private method of theirs reached through a call's result, in a module that defines one of that name": (
        "from textual.screen import Screen\n\n\nclass Main(Screen):\n    def _run(self) -> None:\n        pass\n\n"
        "    def on_mount(self) -> None:\n        self.set_timer(5, print)._run()\n", "._run: "),
    "a private module of theirs imported by name": (
        "import importlib\n\ncompositor = importlib.import_module('textual._compositor')\n",
        "imports textual._compositor by name"),
    "a private module of theirs through __import__": (
        "parser = __import__('textual._xterm_parser')\n", "imports textual._xterm_parser by name"),
}


@pytest.mark.parametrize("case", list(PLANTED))
def test_the_scan_finds_what_is_planted(case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each hole the scan once had, planted in a module of its own: the scan finds it."""
    source, expected = PLANTED[case]
    name = f"planted_{abs(hash(case))}"
    (tmp_path / f"{name}.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = Scan(tmp_path / f"{name}.py", root=tmp_path).run()
    assert any(expected in hit for hit in found), found


def test_the_benchmarks_are_scanned(every_module: list[Path]) -> None:
    assert any(path.parent.name == "benchmarks" for path in every_module)
