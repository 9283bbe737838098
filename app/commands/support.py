"""Helpers shared by pideck's `/` command modules and the keys that run them.

`guarded` turns a refused or failed pi call into an error toast instead of an
exception that would end the worker (and the app); `refresh_state` re-reads pi's
state and stats so the side pane shows a change at once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from app.commands.context import CommandContext, Handler
from protocol.wire.client import RpcError

ON_WORDS = {"on": True, "true": True, "yes": True, "1": True, "off": False, "false": False, "no": False, "0": False}


def guarded(title: str) -> Callable[[Handler], Handler]:
    """Report an RpcError from the handler as an error toast titled `title` (pi's text; toasts are cleaned)."""

    def wrap(handler: Handler) -> Handler:
        @functools.wraps(handler)
        async def run(ctx: CommandContext, args: str) -> Any:
            try:
                return await handler(ctx, args)
            except RpcError as exc:
                ctx.fail(str(exc), title=title)
                return None

        return run

    return wrap


async def refresh_state(ctx: CommandContext) -> None:
    """Read pi's state and session stats again and show them (model, thinking, modes)."""
    await ctx.refresh().wait()


def parse_on_off(args: str) -> bool | None:
    """True/False for on/off (yes/no, true/false, 1/0); None for anything else."""
    return ON_WORDS.get(args.strip().lower())
