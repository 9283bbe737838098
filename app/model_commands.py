"""`/model` and `/thinking`, and what Ctrl+L, Ctrl+P, Shift+Ctrl+P and Shift+Tab run.

pi's RPC cycles models forward only (`cycle_model`, over pi's scoped models when it
has any); the backward step is a `set_model` to the model before the current one in
`get_available_models`, the list pi's unscoped cycling walks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.command_support import guarded, refresh_state
from app.slash_commands import slash_command
from protocol.commands import (
    CycleModel,
    CycleThinkingLevel,
    GetAvailableModels,
    GetAvailableThinkingLevels,
    SetModel,
    SetThinkingLevel,
)
from protocol.responses import CycleModelResult, Model
from widgets.pickers import ChoicePicker, ModelPicker, model_key

if TYPE_CHECKING:
    from app.pideck_app import PideckApp


def current_model(app: PideckApp) -> Model | None:
    state = app.model.state
    return state.model if state is not None else None


def find_model(models: list[Model], wanted: str) -> Model | None:
    """The model `wanted` names exactly: `provider/id`, or an `id` only one provider has."""
    wanted = wanted.strip().lower()
    exact = [m for m in models if model_key(m).lower() == wanted]
    by_id = [m for m in models if m.id.lower() == wanted]
    found = exact or by_id
    return found[0] if len(found) == 1 else None


async def switch_model(app: PideckApp, model: Model) -> None:
    await app.client.call(SetModel(provider=model.provider, model_id=model.id))
    await refresh_state(app)
    state = app.model.state
    level = state.thinking_level if state is not None else "?"
    app.notify(f"Model: {model_key(model)} · thinking {level}", title="Model", markup=False)


@slash_command("model", "Select a model (Ctrl+L): pick from pi's available models", usage="[provider/model]")
@guarded("/model failed")
async def model_command(app: PideckApp, args: str) -> None:
    """With an exact name, switch at once; otherwise open the picker, filtered by `args`."""
    models = (await app.client.call(GetAvailableModels())).models
    if not models:
        app.notify(
            "pi has no available models: log in with pi's own /login, or set a provider API key.",
            title="/model", severity="warning", markup=False,
        )
        return
    chosen = find_model(models, args) if args else None
    if chosen is None:
        chosen = await app.push_screen_wait(ModelPicker(models, current_model(app), args))
    if chosen is not None:
        await switch_model(app, chosen)


@guarded("Cycle model failed")
async def cycle_model(app: PideckApp, _: str = "") -> None:
    """Ctrl+P: pi's `cycle_model` (next of the scoped models, or of all available ones)."""
    result: CycleModelResult | None = await app.client.call(CycleModel())
    if result is None:
        app.notify("Only one model is available.", title="Model", markup=False)
        return
    await refresh_state(app)
    scope = " (scoped)" if result.is_scoped else ""
    app.notify(f"Model{scope}: {model_key(result.model)} · thinking {result.thinking_level}", title="Model",
               markup=False)


@guarded("Cycle model failed")
async def cycle_model_back(app: PideckApp, _: str = "") -> None:
    """Shift+Ctrl+P: switch to the model before the current one in pi's available list."""
    models = (await app.client.call(GetAvailableModels())).models
    if len(models) < 2:
        app.notify("Only one model is available.", title="Model", markup=False)
        return
    current = current_model(app)
    keys = [model_key(m) for m in models]
    index = keys.index(model_key(current)) if current is not None and model_key(current) in keys else 0
    await switch_model(app, models[index - 1])


@guarded("Thinking level failed")
async def cycle_thinking(app: PideckApp, _: str = "") -> None:
    """Shift+Tab: pi's `cycle_thinking_level`."""
    result = await app.client.call(CycleThinkingLevel())
    if result is None:
        app.notify(_no_thinking(app), title="Thinking", markup=False)
        return
    await refresh_state(app)
    app.notify(f"Thinking level: {result.level}", title="Thinking", markup=False)


def _no_thinking(app: PideckApp) -> str:
    model = current_model(app)
    return f"{model_key(model) if model else 'The current model'} does not support thinking levels."


@slash_command("thinking", "Set the thinking level (Shift+Tab cycles)", usage="[level]")
@guarded("/thinking failed")
async def thinking_command(app: PideckApp, args: str) -> None:
    levels = (await app.client.call(GetAvailableThinkingLevels())).levels
    state = app.model.state
    current = state.thinking_level if state is not None else None
    if args:
        level = args.strip().lower()
        if level not in levels:
            app.notify(
                f"{args!r} is not a thinking level of this model. Levels: {', '.join(levels)}",
                title="/thinking", severity="error", markup=False,
            )
            return
    elif levels == ["off"]:
        app.notify(_no_thinking(app), title="Thinking", markup=False)
        return
    else:
        picked = await app.push_screen_wait(ChoicePicker("Thinking level", levels, current))
        if picked is None:
            return
        level = picked
    await app.client.call(SetThinkingLevel(level=level))
    await refresh_state(app)
    app.notify(f"Thinking level: {level}", title="Thinking", markup=False)
