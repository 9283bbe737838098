"""The protocol package stays UI-free: no Textual, no Rich, no app or widgets.

Checked three ways: the import-linter contract in pyproject.toml, a fresh interpreter
that imports every protocol module, and the import statements in the source itself
(which also catches imports inside functions that a plain import would not run).
Above it, app/ sits over widgets/, and inside app/ only the cli imports the App:
commands and helpers get what they need through their constructor or context.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = ROOT / "protocol"
FORBIDDEN = ("textual", "rich", "app", "widgets")


def forbidden(module: str) -> bool:
    return any(module == name or module.startswith(name + ".") for name in FORBIDDEN)


def lint_imports_command() -> list[str]:
    script = Path(sys.executable).with_name("lint-imports")
    if script.exists():
        return [str(script)]
    found = shutil.which("lint-imports")
    if found:
        return [found]
    pytest.skip("import-linter's lint-imports is not installed")


def test_the_contract_forbids_the_ui_for_protocol() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert {"protocol", "app", "widgets"} <= set(config["root_packages"])
    assert config.get("include_external_packages") is True  # needed to see textual and rich
    contracts = [c for c in config["contracts"] if c["type"] == "forbidden" and "protocol" in c["source_modules"]]
    assert contracts, "no forbidden-imports contract for protocol"
    assert set(FORBIDDEN) <= {module for contract in contracts for module in contract["forbidden_modules"]}


def test_lint_imports_passes() -> None:
    result = subprocess.run(
        [*lint_imports_command(), "--no-cache", "--no-logo"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "broken" in result.stdout and " 0 broken" in result.stdout


PROBE = r"""
import importlib, json, pkgutil, sys
import protocol
names = ["protocol"] + [info.name for info in pkgutil.walk_packages(protocol.__path__, "protocol.")]
for name in names:
    importlib.import_module(name)
print(json.dumps({"file": protocol.__file__, "imported": names, "modules": sorted(sys.modules)}))
"""


def test_importing_every_protocol_module_loads_no_ui() -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    result = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert Path(report["file"]).resolve().is_relative_to(PROTOCOL)  # this checkout's protocol
    expected = {".".join(path.relative_to(ROOT).with_suffix("").parts) for path in PROTOCOL.rglob("*.py") if path.stem != "__init__"}
    assert expected <= set(report["imported"])
    loaded = [name for name in report["modules"] if forbidden(name)]
    assert loaded == [], f"importing protocol loaded {loaded}"


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import statement in a file, wherever it is."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if name in {"import_module", "__import__"} and node.args and isinstance(node.args[0], ast.Constant):
                found.append((node.lineno, str(node.args[0].value)))
    return found


def test_no_protocol_source_imports_the_ui() -> None:
    sources = sorted(PROTOCOL.rglob("*.py"))
    assert len(sources) >= 10
    offenders = [f"{path.relative_to(ROOT)}:{line}: {module}" for path in sources for line, module in imports_of(path) if forbidden(module)]
    assert offenders == []


def test_the_contracts_put_app_over_widgets_over_protocol_and_the_app_on_top_of_app() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    layers = [c for c in contracts if c["type"] == "layers"]
    assert any(c["layers"] == ["app", "widgets", "protocol"] and not c.get("containers") for c in layers)
    inside = [c for c in layers if c.get("containers") == ["app"]]
    assert inside and inside[0]["layers"][0] == "cli", "the cli on top of app/"
    order = inside[0]["layers"]
    assert order.index("pideck_app") < order.index("commands") < order.index("pi"), "the App over its commands over pi's life"
    assert order.index("cli") < order.index("view") < order.index("pideck_app"), "the commands over the read-only App over the App"
    inside_cli = [c for c in layers if c.get("containers") == ["app.cli"]]
    assert inside_cli and inside_cli[0]["layers"][0] == "pideck", "the pideck command over the others"
    inside_protocol = [c for c in layers if c.get("containers") == ["protocol"]]
    assert inside_protocol and inside_protocol[0]["layers"][:3] == ["state", "files | hold", "wire"]
    inside_widgets = [c for c in layers if c.get("containers") == ["widgets"]]
    assert inside_widgets and inside_widgets[0]["layers"][0] == "screens" and inside_widgets[0]["layers"][-2:] == ["text | colors", "engine"]


def test_only_the_cli_imports_the_app_module() -> None:
    """Commands and helpers get what they need from the App, not the App itself
    (TYPE_CHECKING imports included): no import circle in app/. `pideck view`'s app is an App
    of its own, pideck's over a file instead of pi, and started by its own command line; the
    docs' generator (app/docs_pages.py) reads the App's keys, run by `python -m` alone."""
    sources = sorted((ROOT / "app").rglob("*.py"))
    offenders = [
        f"{path.relative_to(ROOT)}:{line}" for path in sources
        if path.relative_to(ROOT).as_posix() not in ("app/pideck_app.py", "app/cli/pideck.py", "app/view/app.py", "app/docs_pages.py")
        for line, module in imports_of(path) if module == "app.pideck_app"
    ]
    assert len(sources) >= 20 and offenders == []


def test_no_helper_reaches_into_the_apps_private_attributes() -> None:
    """(The engine reaches into Textual's App, never pideck's: it imports nothing of pideck's.)"""
    pattern = re.compile(r"(?<![\w.])app\._\w|self\.app\._\w|\bdeck\._\w")
    engine = ROOT / "widgets" / "engine"
    sources = [*sorted((ROOT / "app").rglob("*.py")),
               *(path for path in sorted((ROOT / "widgets").rglob("*.py")) if engine not in path.parents)]
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}" for path in sources if path.stem != "pideck_app"
        for number, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)
    ]
    assert offenders == []


def test_every_widget_module_is_in_a_room_of_its_feature() -> None:
    """widgets/ holds packages (transcript/, prompt/, panes/, ...), each named in the widgets
    layers contract, and no module of its own."""
    rooms = sorted(path.name for path in (ROOT / "widgets").iterdir() if (path / "__init__.py").exists())
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    named = {room.strip() for c in contracts if c.get("containers") == ["widgets"]
             for layer in c["layers"] for room in re.split(r"[|:]", layer)}
    assert sorted(path.name for path in (ROOT / "widgets").glob("*.py")) == ["__init__.py"]
    assert len(rooms) > 5 and set(rooms) == named


def test_no_widget_but_a_screen_imports_a_screen() -> None:
    """Modal screens sit above the widgets they are made of, never the other way round."""
    sources = [path for path in sorted((ROOT / "widgets").rglob("*.py")) if "screens" not in path.parts]
    offenders = [f"{path.relative_to(ROOT)}:{line}: {module}" for path in sources for line, module in imports_of(path)
                 if module == "widgets.screens" or module.startswith("widgets.screens.")]
    assert len(sources) > 20 and offenders == []


def test_no_import_circle_among_pideck_s_modules() -> None:
    """No module of app/, widgets/ or protocol/ imports, through others, one that imports it
    (imports inside functions and TYPE_CHECKING ones included): each part can be read, and
    tested, from the bottom up."""
    modules = {".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): path
               for top in ("app", "widgets", "protocol") for path in sorted((ROOT / top).rglob("*.py"))}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for _, module in imports_of(path):
            while module and module not in modules:
                module = module.rpartition(".")[0]
            if module and module != name and not name.startswith(module + "."):
                graph[name].add(module)  # (a package's own __init__ is not a way back)
    circles: list[list[str]] = []
    done: set[str] = set()

    def walk(name: str, path: list[str]) -> None:
        for following in sorted(graph[name]):
            if following in path:
                circles.append(path[path.index(following):] + [following])
            elif following not in done:
                walk(following, [*path, following])
        done.add(name)

    for name in sorted(graph):
        if name not in done:
            walk(name, [name])
    assert len(modules) > 100 and circles == []
