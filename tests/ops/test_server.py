"""The operator's HTTP endpoint: /healthz 503 until migrated and logged in, and again while
draining.

Tests bot/ops/server.py.
"""

from __future__ import annotations

import json
import random

import aiohttp
from simcord import Env

from bot.app import create_bot
from bot.config import Settings
from bot.ops import Operations
from bot.ops.server import OpsServer
from tests.fixtures.table import SEED


async def _get(port: int, path: str) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        return response.status, await response.text()


async def test_healthz_is_503_until_migrated_and_logged_in_and_again_while_draining(
    settings: Settings,
) -> None:
    ops = Operations()
    server = OpsServer(ops, 0, host="127.0.0.1")
    port = await server.start()
    try:
        status, body = await _get(port, "/healthz")
        assert (status, json.loads(body)["status"]) == (503, "starting")
        ops.health.migrated = True  # what `serve` sets after the migrations
        assert (await _get(port, "/healthz"))[0] == 503
        bot = create_bot(settings, rng=random.Random(SEED), ops=ops)
        env = Env(bot)
        await env.start()
        try:
            status, body = await _get(port, "/healthz")
            assert (status, json.loads(body)["status"]) == (200, "ready")
            ops.start_draining()
            status, body = await _get(port, "/healthz")
            assert (status, json.loads(body)["status"]) == (503, "shutting down")
        finally:
            await env.shutdown()
            await bot.close_database()  # SimCord detaches the bot without closing it
    finally:
        await server.stop()
