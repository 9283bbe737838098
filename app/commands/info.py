"""`/session`, `/hotkeys`, `/settings`, `/quit`, and pi's commands that RPC cannot run.

Every built-in command of pi's TUI (pi docs/slash-commands.md) is either a pideck
command or listed in `NOT_OVER_RPC`, which answers plainly why it does not work here;
pi would otherwise receive the text as a prompt for the model. (`/llama` and `/mcp`
are extensions pi reports through `get_commands`, so they go to pi.)
"""

from __future__ import annotations

from rich.table import Table

from app.commands.context import CommandContext, SlashCommand
from app.commands.support import refresh_state
from app.hotkeys_table import hotkey_sections, hotkeys_table
from app.pi.launch import interactive_pi
from protocol.state.formatting import cost, on_off, tokens
from protocol.wire.responses import SessionState, SessionStats
from widgets.colors import palette
from widgets.screens.info_screen import InfoScreen
from widgets.screens.pickers import ChoicePicker
from protocol.state.formatting import model_key
from widgets.text.safe import safe


_TERMINAL = "run {pi} in a terminal and use it there"  # {pi}: the command that runs pi here
NOT_OVER_RPC: dict[str, tuple[str, str]] = {
    "scoped-models": ("Configure the models Ctrl+P cycles through",
                      "pi's RPC cannot change scoped models, and pi's own UI cannot be started straight into "
                      f"/scoped-models: start pideck with `-- --models a,b`, or {_TERMINAL}"),
    "import": ("Import a JSONL session", "pi's RPC has no import: open the file with `pideck -- --session PATH`"),
    "share": ("Upload the session and get a viewer link", f"pi's RPC cannot share: use /export, or {_TERMINAL}"),
    "bug": ("Prepare a bug report for the pi developers", f"pi's RPC cannot prepare bug reports: {_TERMINAL}"),
    "trust": ("Save a project trust decision", f"pi's RPC cannot record trust decisions: {_TERMINAL}"),
    "changelog": ("Show pi's changelog", f"pi's RPC cannot show the changelog: {_TERMINAL}"),
    "debug": ("Write pi's debug log", f"pi's RPC has no debug dump: {_TERMINAL}"),
}


def _not_over_rpc(name: str, reason: str) -> SlashCommand:
    async def explain(ctx: CommandContext, args: str) -> None:
        text = reason.replace("{pi}", f"`{interactive_pi(ctx.pi.config)}`")
        ctx.warn(f"/{name} is not available over pi's RPC: {text}.", title=f"/{name}", timeout=10)

    return SlashCommand(name, f"{NOT_OVER_RPC[name][0]} (not over RPC)", explain)


def session_table(state: SessionState, stats: SessionStats, auto_retry: bool | None) -> Table:
    table = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
    table.add_column("what", style=palette.style("muted"), no_wrap=True)
    table.add_column("value", overflow="fold")  # a long session path wraps whole, never cut

    def row(label: str, value: str, style: str = "") -> None:
        table.add_row(label, safe(value, style))

    row("Name", state.session_name or "(unnamed)", "bold")
    row("ID", state.session_id)
    row("File", state.session_file or "not saved (pi runs with --no-session)")
    model = state.model
    row("Model", model_key(model) if model else "none selected", "bold")
    row("Thinking", state.thinking_level)
    row("Messages", f"{stats.user_messages} user · {stats.assistant_messages} assistant · {stats.tool_calls} "
                    f"tool calls · {stats.tool_results} tool results · {stats.total_messages} in all")
    counts = stats.tokens
    row("Tokens", f"{tokens(counts.input)} in · {tokens(counts.output)} out · {tokens(counts.cache_read)} cache "
                  f"read · {tokens(counts.cache_write)} cache write · {tokens(counts.total)} in all")
    row("Cost", cost(stats.cost))
    usage = stats.context_usage
    if usage is not None:
        percent = f" ({usage.percent:.1f}%)" if usage.percent is not None else ""
        row("Context", f"{tokens(usage.tokens)} of {tokens(usage.context_window)} tokens{percent}")
    row("Queue", f"steering {state.steering_mode} · follow-up {state.follow_up_mode} · "
                 f"{state.pending_message_count} waiting")
    retry = "unknown (pi does not report it)" if auto_retry is None else on_off(auto_retry)
    row("Automatic", f"compaction {on_off(state.auto_compaction_enabled)} · retry {retry}")
    return table


async def session_command(ctx: CommandContext, args: str) -> None:
    await refresh_state(ctx)
    state, stats = ctx.pi.model.state, ctx.pi.model.stats
    if state is None or stats is None:
        ctx.fail("pi did not report the session's state.", title="/session")
        return
    await ctx.ask(InfoScreen("Session", session_table(state, stats, ctx.pi.model.auto_retry), id="session-info"))


async def hotkeys_command(ctx: CommandContext, args: str) -> None:
    shell = ctx.desk.shell  # the app's keys, the prompt's, and what keybindings.json asked that was left out
    table = hotkeys_table(hotkey_sections(shell.key_bindings, ctx.screen.editor.key_bindings), shell.keys.notes)
    await ctx.ask(InfoScreen("Keys", table, id="hotkeys"))


async def reload_command(ctx: CommandContext, args: str) -> None:
    ctx.desk.shell.reread_settings()
    ctx.say("Read pi's keybindings.json, display settings and theme again. pi's RPC cannot reload extensions, skills, "
            "prompt templates or context files: restart pideck (with `-- --continue` to keep the session) for those.",
            title="/reload")


async def quit_command(ctx: CommandContext, args: str) -> None:
    ctx.desk.quit()


# /settings: what pi's RPC can change, each entry running the command that changes it.
_SETTINGS: list[tuple[str, str]] = [
    ("model", "Model"),
    ("thinking", "Thinking level"),
    ("steering-mode", "Steering delivery"),
    ("follow-up-mode", "Follow-up delivery"),
    ("auto-compact", "Automatic compaction"),
    ("auto-retry", "Automatic retry"),
]


def _setting_values(ctx: CommandContext) -> dict[str, str]:
    state = ctx.pi.model.state
    if state is None:
        return {}
    retry = ctx.pi.model.auto_retry
    return {
        "model": model_key(state.model) if state.model else "none",
        "thinking": state.thinking_level,
        "steering-mode": state.steering_mode,
        "follow-up-mode": state.follow_up_mode,
        "auto-compact": on_off(state.auto_compaction_enabled),
        "auto-retry": "unknown" if retry is None else on_off(retry),
    }


async def settings_command(ctx: CommandContext, args: str) -> None:
    values = _setting_values(ctx)
    labels = [f"{label}: {values.get(name, '?')}" for name, label in _SETTINGS]
    title = "Settings pi's RPC can change (the others live in pi's settings.json or pi's own /settings)"
    picked = await ctx.ask(ChoicePicker(title, labels))
    if picked is None:
        return
    name = _SETTINGS[labels.index(picked)][0]
    value = ""
    if name == "auto-retry":  # pi does not report it, so ask rather than toggle
        known = ctx.pi.model.auto_retry
        value = await ctx.ask(ChoicePicker("Automatic retry", ["on", "off"], None if known is None
                                           else on_off(known))) or ""
        if not value:
            return
    await ctx.commands[name].run(ctx, value)


COMMANDS = (
    *(_not_over_rpc(name, reason) for name, (_, reason) in NOT_OVER_RPC.items()),
    SlashCommand("session", "Show the session's file, ID, messages, tokens, cost and settings", session_command),
    SlashCommand("hotkeys", "Show every key binding", hotkeys_command),
    SlashCommand("quit", "Quit pideck (pi stops with it)", quit_command),
    SlashCommand("reload", "Read pi's keybindings.json, display settings and theme again", reload_command),
    SlashCommand(
        "settings", "Change what pi's RPC can change: model, thinking, queue modes, auto-compaction/retry",
        settings_command,
    ),
)
