"""`/model` and `/thinking`, and what Ctrl+L, Ctrl+P, Shift+Ctrl+P and Shift+Tab run.

pi's RPC cycles models forward only (`cycle_model`, over pi's scoped models when it
has any); the backward step is a `set_model` to the model before the current one in
`get_available_models`, the list pi's unscoped cycling walks.
"""

from __future__ import annotations

from app.commands.context import CommandContext, SlashCommand
from app.commands.support import guarded, refresh_state
from protocol.wire.commands import (
    CycleModel,
    CycleThinkingLevel,
    GetAvailableModels,
    GetAvailableThinkingLevels,
    SetModel,
    SetThinkingLevel,
)
from protocol.wire.responses import CycleModelResult, Model
from widgets.screens.pickers import ChoicePicker, ModelPicker
from protocol.state.formatting import model_key


def current_model(ctx: CommandContext) -> Model | None:
    state = ctx.pi.model.state
    return state.model if state is not None else None


def find_model(models: list[Model], wanted: str) -> Model | None:
    """The model `wanted` names exactly: `provider/id`, or an `id` only one provider has."""
    wanted = wanted.strip().lower()
    exact = [m for m in models if model_key(m).lower() == wanted]
    by_id = [m for m in models if m.id.lower() == wanted]
    found = exact or by_id
    return found[0] if len(found) == 1 else None


async def switch_model(ctx: CommandContext, model: Model) -> None:
    await ctx.pi.client.call(SetModel(provider=model.provider, model_id=model.id))
    await refresh_state(ctx)
    state = ctx.pi.model.state
    level = state.thinking_level if state is not None else "?"
    ctx.say(f"{model_key(model)} · thinking {level}", title="Model")


@guarded("/model failed")
async def model_command(ctx: CommandContext, args: str) -> None:
    """With an exact name, switch at once; otherwise open the picker, filtered by `args`."""
    models = (await ctx.pi.client.call(GetAvailableModels())).models
    if not models:
        ctx.warn("pi has no available models: log in with pi's own /login, or set a provider API key.", title="/model")
        return
    chosen = find_model(models, args) if args else None
    if chosen is None:
        chosen = await ctx.ask(ModelPicker(models, current_model(ctx), args))
    if chosen is not None:
        await switch_model(ctx, chosen)


@guarded("Cycle model failed")
async def cycle_model(ctx: CommandContext, _: str = "") -> None:
    """Ctrl+P: pi's `cycle_model` (next of the scoped models, or of all available ones)."""
    result: CycleModelResult | None = await ctx.pi.client.call(CycleModel())
    if result is None:
        ctx.say("Only one model is available.", title="Model")
        return
    await refresh_state(ctx)
    scope = " (scoped)" if result.is_scoped else ""
    ctx.say(f"{model_key(result.model)} · thinking {result.thinking_level}", title=f"Model{scope}")


@guarded("Cycle model failed")
async def cycle_model_back(ctx: CommandContext, _: str = "") -> None:
    """Shift+Ctrl+P: switch to the model before the current one in pi's available list."""
    models = (await ctx.pi.client.call(GetAvailableModels())).models
    if len(models) < 2:
        ctx.say("Only one model is available.", title="Model")
        return
    current = current_model(ctx)
    keys = [model_key(m) for m in models]
    index = keys.index(model_key(current)) if current is not None and model_key(current) in keys else 0
    await switch_model(ctx, models[index - 1])


@guarded("Thinking level failed")
async def cycle_thinking(ctx: CommandContext, _: str = "") -> None:
    """Shift+Tab: pi's `cycle_thinking_level`."""
    result = await ctx.pi.client.call(CycleThinkingLevel())
    if result is None:
        ctx.say(_no_thinking(ctx), title="Thinking")
        return
    await refresh_state(ctx)
    ctx.say(result.level, title="Thinking level")


def _no_thinking(ctx: CommandContext) -> str:
    model = current_model(ctx)
    return f"{model_key(model) if model else 'The current model'} does not support thinking levels."


@guarded("/thinking failed")
async def thinking_command(ctx: CommandContext, args: str) -> None:
    levels = (await ctx.pi.client.call(GetAvailableThinkingLevels())).levels
    state = ctx.pi.model.state
    current = state.thinking_level if state is not None else None
    if args:
        level = args.strip().lower()
        if level not in levels:
            ctx.fail(f"{args!r} is not a thinking level of this model. Levels: {', '.join(levels)}", title="/thinking")
            return
    elif levels == ["off"]:
        ctx.say(_no_thinking(ctx), title="Thinking")
        return
    else:
        picked = await ctx.ask(ChoicePicker("Thinking level", levels, current))
        if picked is None:
            return
        level = picked
    await ctx.pi.client.call(SetThinkingLevel(level=level))
    await refresh_state(ctx)
    ctx.say(level, title="Thinking level")


COMMANDS = (
    SlashCommand(
        "model",
        "Select a model (Ctrl+L): pick from pi's available models",
        model_command,
        usage="[provider/model]",
    ),
    SlashCommand("thinking", "Set the thinking level (Shift+Tab cycles)", thinking_command, usage="[level]"),
)
