"""Run the bot until SIGTERM / Ctrl-C, then shut down gracefully (exit code 0).

Order on a stop signal: refuse new interactions (players are told to retry in a moment) and
turn ``/healthz`` to 503; wait up to ``SHUTDOWN_GRACE_SECONDS`` for interactions in flight;
close the gateway and the database. Every roll is one transaction, so one cut short by the
grace period running out is rolled back, never half-written.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import TYPE_CHECKING

import aiohttp
import discord

if TYPE_CHECKING:
    from bot.app import PbpBot

log = logging.getLogger(__name__)

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
#: How long ``bot.start`` may take to return after ``close()`` before it is cancelled.
CLOSE_TIMEOUT = 10.0


class StartFailed(Exception):
    """The bot could not start (or lost Discord for good): one line for the operator."""


#: What ``bot.start`` raises when Discord cannot be reached or will not have us. Anything
#: else is a bug and keeps its traceback.
DISCORD_ERRORS = (
    aiohttp.ClientError,
    OSError,
    TimeoutError,
    discord.GatewayNotFound,
    discord.HTTPException,
    discord.ConnectionClosed,
)


def explain_discord_error(error: BaseException) -> str:
    """One line saying why Discord could not be reached, and what to do."""
    if isinstance(error, discord.LoginFailure):
        return (
            "Discord refused the token: copy a fresh one from the developer portal "
            "(Application -> Bot -> Reset Token) into DISCORD_TOKEN."
        )
    if isinstance(error, discord.HTTPException):
        # A 5xx body is often a whole HTML page: the status line says enough.
        reason = getattr(error.response, "reason", None) or ""
        status = f"HTTP {error.status} {reason}".strip()
        if isinstance(error, discord.DiscordServerError):
            return (
                f"Discord answered {status}: it may be down; see https://discordstatus.com "
                "and start the bot again later."
            )
        text = (error.text.strip().splitlines() or [""])[0][:200]
        return f"Discord refused to log the bot in ({status}{': ' + text if text else ''})."
    if isinstance(error, discord.GatewayNotFound):
        return (
            "Discord's gateway cannot be found: Discord may be down; see "
            "https://discordstatus.com and start the bot again later."
        )
    if isinstance(error, discord.ConnectionClosed):
        why = f": {error.reason}" if error.reason else ""
        return f"Discord closed the connection (code {error.code}{why}); start the bot again."
    if isinstance(error, aiohttp.ClientConnectorError):
        cause = error.os_error.strerror or str(error.os_error) or type(error.os_error).__name__
        where = f"{error.host}:{error.port}"
    else:
        cause = str(error) or ("no answer in time" if isinstance(error, TimeoutError) else "")
        cause = cause or type(error).__name__
        where = "discord.com"
    return (
        f"Cannot reach Discord at {where} ({cause}): check this machine's network "
        "connection, then start the bot again."
    )


def explain_database_error(error: BaseException) -> str:
    first = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return (
        f"Cannot open the database ({first}): check DATABASE_URL and that the database "
        "server is running, then start the bot again."
    )


async def graceful_shutdown(bot: PbpBot, grace_seconds: float) -> bool:
    """Drain, wait (bounded) for interactions in flight, close; True if none was cut short."""
    ops = bot.ops
    ops.start_draining()
    pending = ops.in_flight.count
    log.info(
        "shutting down: %d interaction(s) in flight, waiting up to %.0f s", pending, grace_seconds
    )
    finished = await ops.in_flight.wait_idle(grace_seconds)
    if not finished:
        log.warning(
            "shutting down with %d interaction(s) still running after %.0f s",
            ops.in_flight.count,
            grace_seconds,
        )
    await bot.close()
    log.info("bot closed; database connections released")
    return finished


async def run_until_stopped(bot: PbpBot, token: str, stop: asyncio.Event) -> None:
    """Run ``bot`` until it ends by itself (errors propagate) or ``stop`` is set."""
    starting = asyncio.create_task(bot.start(token), name="pbp-bot")
    stopping = asyncio.create_task(stop.wait(), name="pbp-stop")
    try:
        done, _ = await asyncio.wait({starting, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if starting in done:
            starting.result()
            return
        logged_in = bot.ops.health.logged_in
        await graceful_shutdown(bot, bot.settings.shutdown_grace_seconds)
        if not logged_in:
            # Still logging in (Discord slow or out of reach): no gateway session to close
            # politely, so the login is cancelled now (below) rather than given CLOSE_TIMEOUT,
            # which a container's stop timeout (Docker's default is 10 s) would cut short.
            log.info("stopped before the bot had logged in to Discord")
            return
        try:
            await asyncio.wait_for(starting, CLOSE_TIMEOUT)
        except TimeoutError:
            log.warning("the gateway did not close in %.0f s; leaving anyway", CLOSE_TIMEOUT)
    finally:
        stopping.cancel()
        if not starting.done():
            starting.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await starting
        if not bot.is_closed():
            await bot.close()
