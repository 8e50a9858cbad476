"""Serve the bot as a process: metrics endpoint, migrations, then the bot until a stop signal.

Beside ``__main__`` because it builds the whole bot (``bot.app``); the drain-and-close steps it
runs on a stop signal live in ``bot/ops/shutdown.py``, which knows nothing of the app.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

import discord
from sqlalchemy.exc import SQLAlchemyError

from bot.config import Settings
from bot.db.migrate import upgrade_to_head
from bot.ops import Operations
from bot.ops.server import OpsServer
from bot.ops.shutdown import (
    DISCORD_ERRORS,
    STOP_SIGNALS,
    StartFailed,
    explain_database_error,
    explain_discord_error,
    run_until_stopped,
)

log = logging.getLogger(__name__)


def _install_signal_handlers(stop: asyncio.Event) -> list[signal.Signals]:
    loop = asyncio.get_running_loop()
    installed = []
    for sig in STOP_SIGNALS:
        with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    return installed


async def serve(settings: Settings, ops: Operations | None = None) -> None:
    """``python -m bot``: metrics endpoint, migrations, then the bot until a stop signal."""
    from bot.app import create_bot  # looked up per call: tests spy on it

    assert settings.discord_token is not None
    ops = ops or Operations()
    stop = asyncio.Event()
    installed = _install_signal_handlers(stop)
    server = (
        OpsServer(ops, settings.metrics_port, settings.metrics_host)
        if settings.metrics_port
        else None
    )
    try:
        if server is not None:
            port = await server.start()
            log.info("metrics and health on http://%s:%d (/metrics, /healthz)", server.host, port)
        try:
            await upgrade_to_head(settings.database_url)
        except (OSError, SQLAlchemyError) as error:
            log.debug("migrating the database failed", exc_info=True)
            raise StartFailed(explain_database_error(error)) from error
        ops.health.migrated = True
        if stop.is_set():
            return
        bot = create_bot(settings, ops=ops, freeze_heap=True)
        try:
            async with bot:  # sets up the client's loop-bound parts, closes it on the way out
                await run_until_stopped(bot, settings.discord_token.get_secret_value(), stop)
        except (discord.LoginFailure, *DISCORD_ERRORS) as error:
            # The traceback is aiohttp's and discord.py's insides; DEBUG keeps it.
            log.debug("the bot stopped on a Discord error", exc_info=True)
            raise StartFailed(explain_discord_error(error)) from error
    finally:
        loop = asyncio.get_running_loop()
        for sig in installed:
            loop.remove_signal_handler(sig)
        if server is not None:
            await server.stop()
