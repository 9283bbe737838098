"""Helpers shared by pideck's `/` command modules and the keys that run them.

`guarded` turns a refused or failed pi call into an error toast instead of an
exception that would end the worker (and the app); `refresh_state` re-reads pi's
state and stats so the side pane shows a change at once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from app.slash_commands import Handler
from protocol.client import RpcError
from widgets.safe_text import clean

if TYPE_CHECKING:
    from app.pideck_app import PideckApp

ON_WORDS = {"on": True, "true": True, "yes": True, "1": True, "off": False, "false": False, "no": False, "0": False}


def guarded(title: str) -> Callable[[Handler], Handler]:
    """Report an RpcError from the handler as an error toast titled `title` (pi's text, cleaned)."""

    def wrap(handler: Handler) -> Handler:
        @functools.wraps(handler)
        async def run(app: PideckApp, args: str) -> Any:
            try:
                return await handler(app, args)
            except RpcError as exc:
                app.notify(clean(str(exc)), title=title, severity="error", markup=False)
                return None

        return run

    return wrap


async def refresh_state(app: PideckApp) -> None:
    """Read pi's state and session stats again and show them (model, thinking, modes)."""
    await app.refresh_stats().wait()


def parse_on_off(args: str) -> bool | None:
    """True/False for on/off (yes/no, true/false, 1/0); None for anything else."""
    return ON_WORDS.get(args.strip().lower())
