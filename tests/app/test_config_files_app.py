"""pideck starts whatever pi's config files hold: themes it cannot convert or decode, a
`themes` entry naming /dev/zero or a FIFO, settings.json and keybindings.json nested
100,000 deep. Each file is named in a toast and left out; the screen comes up."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.pi_harness import Fake, notes, wait_until

from protocol.files.pi_builtin_themes import LIGHT
from widgets.colors import palette

NESTED = "[" * 100_000 + "]" * 100_000


async def test_pideck_starts_over_hostile_config_files(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    agent = fake.agent_dir
    themes = agent / "themes"
    themes.mkdir(parents=True)
    good = json.loads(json.dumps(LIGHT)) | {"name": "mine"}
    (themes / "mine.json").write_text(json.dumps(good))
    for name, value in (("overflow", "oklch(0.5 1e999 0)"), ("zero", "okhsl(0 50% 1e-290)")):
        document = json.loads(json.dumps(LIGHT)) | {"name": name}
        document["colors"]["accent"] = value
        (themes / f"{name}.json").write_text(json.dumps(document))
    (themes / "nested.json").write_text('{"name": "nested", "vars": ' + NESTED + "}")
    os.mkfifo(tmp_path / "fifo.json")
    (agent / "settings.json").write_text(json.dumps({"theme": "mine", "themes": ["/dev/zero", str(tmp_path / "fifo.json")]}))
    (agent / "keybindings.json").write_text('{"x": ' + NESTED + "}")
    try:
        async with fake.run() as pilot:
            app = pilot.app
            assert app.theme != "system-dark", "the good theme is the one in use"
            for name in ("overflow.json", "zero.json", "nested.json", "/dev/zero", "fifo.json"):
                await wait_until(pilot, lambda name=name: sum(name in note for note in notes(app)) == 1, what=name)
            await wait_until(pilot, lambda: any("keybindings.json" in note and "nested more than" in note for note in notes(app)),
                             what="keybindings.json named")  # fmt: skip
            assert app.is_running
    finally:
        palette.use({})


async def test_a_settings_file_nested_too_deep_is_named_and_left_out(tmp_path: Path) -> None:
    fake = Fake(tmp_path)
    fake.agent_dir.mkdir(parents=True)
    (fake.agent_dir / "settings.json").write_text('{"theme": "light", "x": ' + NESTED + "}")
    async with fake.run() as pilot:
        app = pilot.app
        await wait_until(pilot, lambda: any("settings.json: nested more than 100 deep" in note for note in notes(app)),
                         what="settings.json named")  # fmt: skip
        assert app.theme == "system-dark", "its theme setting is left out with it"
