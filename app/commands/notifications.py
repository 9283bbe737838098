"""`/notifications` (F8): every notification kept, newest first; Enter shows one's full text."""

from __future__ import annotations

import time

from app.commands.context import CommandContext, SlashCommand
from app.toasts import LIST_KEY
from widgets.screens.notification_list import NotificationList
from widgets.screens.tool_output_screen import ToolOutputScreen


async def notifications_command(ctx: CommandContext, args: str) -> None:
    center = ctx.desk.shell.toasts.center
    while True:
        notices = list(center.entries)
        picked = await ctx.ask(NotificationList(notices, center.total))
        if picked is None:
            return
        notice = notices[picked]
        when = time.strftime("%H:%M:%S", time.localtime(notice.at))
        await ctx.ask(ToolOutputScreen(f"{when} {notice.title or notice.severity}", notice.message))


COMMANDS = (
    SlashCommand(
        "notifications", f"List the notifications, newest first, with their full text ({LIST_KEY})",
        notifications_command,
    ),
)
