"""A float where pi documents an int (pi takes `"contextWindow": 131072.5` in models.json):
pideck starts, shows it and switches models, with real pi."""

from __future__ import annotations

import json
from pathlib import Path

from tests.pi_harness import PiHarness, wait_until
from textual.widgets import OptionList

from app.pideck_app import PideckApp
from app.scripted_model.agent_dir import MODEL_ID, PROVIDER, write_agent_dir
from widgets.screens.pickers import ModelPicker


async def test_a_float_context_window_in_models_json(pi_harness: PiHarness, tmp_path: Path) -> None:
    agent = write_agent_dir(tmp_path / "agent", pi_harness.model.base_url)
    models_file = agent / "models.json"
    models = json.loads(models_file.read_text())
    for model in models["providers"][PROVIDER]["models"]:  # the current model (start-up) and the other (Ctrl+L)
        model["contextWindow"] = 131072.5
    models_file.write_text(json.dumps(models))
    app = PideckApp(pi_harness.launch_config(env={"PI_CODING_AGENT_DIR": str(agent)}))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.desk.current.pi.ready, timeout=60, what="start-up")
        state = app.desk.current.pi.model.state
        assert state is not None and state.model is not None and state.model.context_window == 131072.5
        await pilot.press("ctrl+l")
        picker = await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker) and app.screen, what="model picker")
        options = picker.query_one(OptionList)
        await wait_until(pilot, lambda: options.option_count == 2, what="two models")
        await pilot.press(*"mini")
        await wait_until(pilot, lambda: options.option_count == 1, what="filtered to one model")
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: app.desk.current.pi.model.state and app.desk.current.pi.model.state.model and app.desk.current.pi.model.state.model.id == MODEL_ID + "-mini",
            timeout=30, what="the mini model",
        )
        errors = [str(n.message) for n in app._notifications if n.severity == "error"]
        assert not errors, errors
        assert app.is_running
