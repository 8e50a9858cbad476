"""Running the bot for real: metrics, health, log context, in-flight tracking, shutdown.

One :class:`Operations` per bot process (``bot.ops``). The command tree calls :meth:`admit`,
:meth:`run` and :func:`note_error`; ``python -m bot`` starts the HTTP endpoint and the
signal handling in :mod:`bot.ops.shutdown`. Nothing here is state the bot needs to answer a
command: every shard process can restart at any time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord
from sqlalchemy import select

from bot.db.models import campaigns
from bot.ops.context import CURRENT, CommandContext
from bot.ops.inflight import InFlight
from bot.ops.metrics import Metrics

if TYPE_CHECKING:
    from discord.ext import commands

    from bot.db.engine import Database

log = logging.getLogger(__name__)

RESTARTING = "The bot is restarting; try again in a moment."


@dataclass(slots=True)
class Health:
    """Readiness: migrated, logged in, and not shutting down."""

    migrated: bool = False
    logged_in: bool = False
    draining: bool = False

    @property
    def ready(self) -> bool:
        return self.migrated and self.logged_in and not self.draining

    @property
    def status(self) -> str:
        if self.draining:
            return "shutting down"
        return "ready" if self.ready else "starting"


class Operations:
    """Metrics, health and in-flight interactions of one bot process."""

    def __init__(self) -> None:
        self.metrics = Metrics()
        self.in_flight = InFlight()
        self.health = Health()
        self._db: Database | None = None

    def attach(self, bot: commands.AutoShardedBot | commands.Bot) -> None:
        """Listen to the bot: ready after login, per-shard gateway latency."""
        self.metrics.watch_gateway(lambda: _latencies(bot))
        bot.add_listener(self._on_ready, "on_ready")

    async def _on_ready(self) -> None:
        self.health.logged_in = True
        self.refresh_gauges()

    def instrument_database(self, db: Database) -> None:
        """Time the database's statements; remember it to name the campaign in logs."""
        self._db = db
        self.metrics.instrument_engine(db.engine)

    def refresh_gauges(self) -> None:
        self.metrics.in_flight.set(self.in_flight.count)
        self.metrics.ready.set(1 if self.health.ready else 0)

    def start_draining(self) -> None:
        """Refuse new interactions from now on; readiness turns 503."""
        self.in_flight.start_draining()
        self.health.draining = True
        self.refresh_gauges()

    async def admit(self, interaction: discord.Interaction[Any]) -> bool:
        """False (and the player is told to retry) once the process is shutting down."""
        if not self.in_flight.draining:
            return True
        ctx = CURRENT.get()
        if ctx is not None:
            ctx.outcome = "rejected"
        if interaction.type is not discord.InteractionType.autocomplete:
            try:
                await interaction.response.send_message(RESTARTING, ephemeral=True)
            except discord.HTTPException:
                log.warning("could not tell a player the bot is restarting")
        return False

    async def _campaign_id(self, interaction: discord.Interaction[Any]) -> int | None:
        """The campaign of the channel (or of a thread's parent), for the log lines."""
        if self._db is None or interaction.channel_id is None:
            return None
        channels = [interaction.channel_id]
        parent = getattr(interaction.channel, "parent_id", None)
        if isinstance(parent, int):
            channels.append(parent)
        try:
            async with self._db.engine.connect() as conn:
                found = await conn.scalar(
                    select(campaigns.c.id).where(campaigns.c.channel_id.in_(channels)).limit(1)
                )
        except Exception:  # logging context only: never fail a command over it
            return None
        return int(found) if found is not None else None

    async def run(
        self,
        interaction: discord.Interaction[Any],
        call: Callable[[discord.Interaction[Any]], Awaitable[None]],
    ) -> None:
        """Handle one interaction: in flight, with log context, timed and counted."""
        autocomplete = interaction.type is discord.InteractionType.autocomplete
        command = interaction.command.qualified_name if interaction.command else None
        ctx = CommandContext(command=command, guild=interaction.guild_id)
        token = CURRENT.set(ctx)
        self.in_flight.enter()
        started = time.perf_counter()
        try:
            if not autocomplete and not self.in_flight.draining:
                ctx.campaign = await self._campaign_id(interaction)
            await call(interaction)
        except Exception as exc:  # the tree handles errors; this is a bug in the bot itself
            ctx.outcome = "error"
            ctx.error_type = type(exc).__name__
            raise
        finally:
            elapsed = time.perf_counter() - started
            self.in_flight.exit()
            if not autocomplete:
                name = command or "unknown"
                self.metrics.command_done(name, ctx.outcome, elapsed)
                log.info("command /%s %s in %.1f ms", name, ctx.outcome, elapsed * 1000)
            self.refresh_gauges()
            CURRENT.reset(token)

    def note_error(self, error: BaseException, incident: str | None) -> None:
        """Count an answered error by type and mark the current command's outcome."""
        error_type = type(error).__name__
        self.metrics.error(error_type)
        ctx = CURRENT.get()
        if ctx is not None:
            ctx.outcome = "error" if incident else "user_error"
            ctx.error_type = error_type
            ctx.incident = incident


def _latencies(bot: commands.AutoShardedBot | commands.Bot) -> list[tuple[int, float]]:
    if isinstance(bot, discord.AutoShardedClient):
        return list(bot.latencies)
    return [(0, bot.latency)]


def ops_of(interaction: discord.Interaction[Any]) -> Operations | None:
    """The operations of the bot that received ``interaction`` (None for a foreign client)."""
    ops = getattr(interaction.client, "ops", None)
    return ops if isinstance(ops, Operations) else None


def note_error(
    interaction: discord.Interaction[Any], error: BaseException, incident: str | None
) -> None:
    """:meth:`Operations.note_error` for the bot that received ``interaction``, if it has one."""
    ops = ops_of(interaction)
    if ops is not None:
        ops.note_error(error, incident)


__all__ = ["RESTARTING", "Health", "Operations", "note_error", "ops_of"]
