"""The operator's HTTP endpoint: ``/metrics`` (Prometheus) and ``/healthz`` (readiness).

aiohttp comes with discord.py, so this needs nothing more. ``/healthz`` answers 200 only once
the database is migrated and the bot has logged in to the gateway, and 503 before that and
again while shutting down, so an orchestrator routes nothing to a process that cannot answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

if TYPE_CHECKING:
    from bot.ops import Operations


#: Where the endpoint listens unless ``METRICS_HOST`` says otherwise: this machine only, as it
#: has no authentication. A container sets 0.0.0.0, so its orchestrator's probe reaches it
#: (docs/deploying.md, "Metrics and health").
DEFAULT_HOST = "127.0.0.1"


class OpsServer:
    """Serves one process's metrics and health on ``host:port`` (port 0: any free port)."""

    def __init__(self, ops: Operations, port: int, host: str = DEFAULT_HOST) -> None:
        self.ops = ops
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    async def _metrics(self, _request: web.Request) -> web.Response:
        self.ops.refresh_gauges()
        # CONTENT_TYPE_LATEST carries a charset; aiohttp wants it apart from the type.
        return web.Response(
            body=self.ops.metrics.render(), headers={"Content-Type": CONTENT_TYPE_LATEST}
        )

    async def _healthz(self, _request: web.Request) -> web.Response:
        health = self.ops.health
        return web.json_response(
            {
                "status": health.status,
                "migrated": health.migrated,
                "logged_in": health.logged_in,
                "in_flight": self.ops.in_flight.count,
            },
            status=200 if health.ready else 503,
        )

    async def start(self) -> int:
        """Start listening; returns the port actually bound."""
        app = web.Application()
        app.router.add_get("/metrics", self._metrics)
        app.router.add_get("/healthz", self._healthz)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        # The runner's public list of bound (host, port, ...) addresses: port 0 asks the OS.
        bound = [address for address in self._runner.addresses if isinstance(address, tuple)]
        if bound:
            self.port = int(bound[0][1])
        return self.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
