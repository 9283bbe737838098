"""textual-serve's server and app service, with what `pideck serve` needs of their insides:
a middleware on every request, the loop that reads a page's websocket, the pideck a page
runs, and how it ends when its page goes (imported only by `pideck serve`)."""

from __future__ import annotations

import asyncio
import contextlib
from asyncio.subprocess import Process
from typing import Any

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server

END_WITHIN = 15.0  # seconds a page's pideck has to end after its page went, before SIGKILL


class EngineServer(Server):
    """`middlewares` run on every request, before textual-serve's own handlers."""

    middlewares: tuple[Any, ...] = ()

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.extend(self.middlewares)
        return app

    async def make_app(self) -> web.Application:
        """The aiohttp application that serves the pages, for a runner of the caller's."""
        return await self._make_app()

    async def page_context(self, request: web.Request) -> dict[str, Any]:
        """What textual-serve's page template is given for `request` (its websocket's URL...)."""
        return await Server.handle_index.__wrapped__(self, request)  # type: ignore[attr-defined, no-any-return]

    async def process_messages(self, websocket: web.WebSocketResponse, service: AppService) -> None:
        """Read what the page sends (keys, resizes...) into `service` until the page closes."""
        await self._process_messages(websocket, service)


class EngineAppService(AppService):
    @property
    def process(self) -> Process | None:
        """The pideck this page runs, once started."""
        return getattr(self, "_process", None)

    async def stop(self, end_within: float = END_WITHIN) -> None:
        """The page went: its pideck's stdin is closed, a hang-up as a terminal's (held pis go
        on, any other is closed in order), where textual-serve sent a quit, which ends a held
        pi its page was the last to show. Whatever state it is in, pideck is killed if it has
        not ended `end_within` s later, and this returns once its output is read to the end."""
        task, self._task = self._task, None
        if task is None:
            return
        await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
        if self._stdin is not None:
            self._stdin.close()
        try:
            await asyncio.wait_for(asyncio.shield(task), end_within)
        except TimeoutError:
            if (process := self.process) is not None and process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
            await task
