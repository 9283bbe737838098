"""textual-serve's server and app service, with what `pideck serve` needs of their insides:
a middleware on every request, the loop that reads a page's websocket, and the pideck a page
runs (imported only by `pideck serve`)."""

from __future__ import annotations

from asyncio.subprocess import Process
from typing import Any

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server


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

    async def process_messages(self, websocket: web.WebSocketResponse, service: AppService) -> None:
        """Read what the page sends (keys, resizes...) into `service` until the page closes."""
        await self._process_messages(websocket, service)


class EngineAppService(AppService):
    @property
    def process(self) -> Process | None:
        """The pideck this page runs, once started."""
        return getattr(self, "_process", None)
