"""pi's config files read within bounds (protocol/files/config_files.py) and pi's theme values
that the colour conversion cannot take (protocol/files/pi_colors.py): each such file is left
out with a one-line reason, never a traceback, and a device or a FIFO is never read."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from app.keybindings import read_keybindings
from protocol.files.config_files import MAX_BYTES, ConfigFileError, decode_json, depth, read_bytes, read_json
from protocol.files.pi_builtin_themes import DARK
from protocol.files.pi_colors import parse_color
from protocol.files.pi_themes import ThemeError, find_themes, load_theme
from protocol.files.session_files import pi_setting, settings_problems

NESTED = "[" * 100_000 + "]" * 100_000


def theme(name: str, **changes: Any) -> dict[str, Any]:
    document = json.loads(json.dumps(DARK))
    document["name"] = name
    document["vars"] = {**document.get("vars", {}), **changes.pop("vars", {})}
    document.update(changes)
    return document


def chain(length: int) -> dict[str, Any]:
    """A theme whose `accent` goes through `length` variables to a colour."""
    document = theme("chain")
    document["vars"] |= {f"v{n}": f"v{n + 1}" for n in range(length)} | {f"v{length}": "#ff0000"}
    document["colors"]["accent"] = "v0"
    return document


def test_colour_values_the_conversion_cannot_take_are_refused_not_raised() -> None:
    assert parse_color("oklch(0.5 1e200 0)") == "#636363", "out of gamut, as pi maps it (JavaScript's Infinity)"
    for value in ("okhsl(0 50% 1e-290)", "oklch(0.5 1e999 0)", "oklch(0.5 0.1 1e999)", "okhsl(1e999 50% 50%)",
                  f"oklch(0.5 0.1 {'9' * 5000})"):  # fmt: skip
        with pytest.raises(ValueError, match="out of range"):
            parse_color(value)


def test_a_long_variable_chain_resolves_and_a_cycle_is_named(tmp_path: Path) -> None:
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(chain(3000)))
    assert load_theme(path).colors["accent"] == "#ff0000"
    document = chain(3000)
    document["vars"]["v3000"] = "v0"
    path.write_text(json.dumps(document))
    with pytest.raises(ThemeError, match="circular"):
        load_theme(path)


def test_json_nested_too_deep_is_refused_before_it_is_decoded() -> None:
    assert depth('{"a": ["[[[[", {"b": "]]]\\"["}]}') == 3
    with pytest.raises(ConfigFileError, match="nested more than 100 deep"):
        decode_json(NESTED)
    assert decode_json("[" * 100 + "]" * 100) is not None


def test_devices_fifos_and_big_files_are_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    started = time.monotonic()
    for path in ("/dev/zero", fifo, tmp_path):
        with pytest.raises(ConfigFileError, match="not a regular file"):
            read_bytes(path)
    assert time.monotonic() - started < 5, "a FIFO without a writer is not waited on"
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_BYTES + 1))
    with pytest.raises(ConfigFileError, match="larger than"):
        read_json(big)
    with pytest.raises(FileNotFoundError):
        read_json(tmp_path / "none.json")


def test_every_bad_theme_is_one_problem_and_the_good_ones_load(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    themes = agent / "themes"
    themes.mkdir(parents=True)
    bad = {
        "overflow": theme("overflow", vars={"x": "oklch(0.5 1e999 0)"}),
        "zero": theme("zero", vars={"x": "okhsl(0 50% 1e-290)"}),
    }
    for name, document in bad.items():
        document["colors"]["accent"] = "x"
        (themes / f"{name}.json").write_text(json.dumps(document))
    (themes / "nested.json").write_text('{"name": "nested", "vars": {"x": ' + NESTED + "}}")
    (themes / "chain.json").write_text(json.dumps(chain(3000)))
    (themes / "good.json").write_text(json.dumps(theme("good")))
    os.mkfifo(themes / "fifo.json")
    (agent / "settings.json").write_text(json.dumps({"themes": ["/dev/zero", str(themes / "fifo.json")]}))
    started = time.monotonic()
    catalog = find_themes(agent)
    assert time.monotonic() - started < 5
    assert {"good", "chain", "dark", "light"} <= set(catalog.themes) and not {"overflow", "zero", "nested"} & set(catalog.themes)
    named = "\n".join(catalog.problems)
    for name in ("overflow.json", "zero.json", "nested.json", "fifo.json", "/dev/zero"):
        assert name in named
    assert all(len(problem) < 400 and "\n" not in problem for problem in catalog.problems)


def test_settings_and_keybindings_nested_too_deep_are_named(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "settings.json").write_text('{"theme": "light", "x": ' + NESTED + "}")
    (agent / "keybindings.json").write_text('{"x": ' + NESTED + "}")
    assert pi_setting("theme", tmp_path, agent) is None
    assert [problem for problem in settings_problems(tmp_path, agent) if "settings.json: nested more than" in problem]
    problem = read_keybindings(agent)
    assert isinstance(problem, str) and "nested more than" in problem


def test_a_session_file_nested_too_deep_is_listed_without_it(tmp_path: Path) -> None:
    from protocol.files.session_files import read_summary, session_cwd

    header = '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00Z","cwd":"/tmp"}\n'
    deep = '{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":'
    path = tmp_path / "s.jsonl"
    path.write_text(header + deep + NESTED + "}}\n")
    summary = read_summary(path)
    assert summary is not None and summary.id == "x" and summary.first_message == ""
    path.write_text(NESTED + "\n" + header)
    assert read_summary(path) is None and session_cwd(path, tmp_path) is None
