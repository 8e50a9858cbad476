"""Running the bot for real: metrics, health, log context, in-flight tracking, shutdown.

One :class:`Operations` per bot process (``bot.ops``). The command tree's and every view's
``interaction_check`` call :meth:`Operations.begin`, and errors go through
:func:`note_error`; ``python -m bot`` starts the HTTP endpoint and the signal handling in
:mod:`bot.ops.shutdown`. Nothing here is state the bot needs to answer a
command: every shard process can restart at any time.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord

from bot.log_context import CURRENT, CommandContext
from bot.ops.inflight import InFlight
from bot.ops.metrics import Metrics

if TYPE_CHECKING:
    from discord.ext import commands

    from bot.db.engine import Database

log = logging.getLogger(__name__)

RESTARTING = "The bot is restarting; try again in a moment."

_MODAL = discord.InteractionType.modal_submit
#: Our persistent buttons' custom ids start with their kind: ``pbp:req:12``, ``pbp:n20:7:keep``.
_PERSISTENT_ID = re.compile(r"^(pbp:[a-z0-9]{1,16})(?::|$)")


def component_name(custom_id: str) -> str:
    """The metric and log name of a clicked component: ``pbp:req`` for ``pbp:req:12``.

    Other views' ids are random per message (discord.py makes them), so they all count as
    ``view``: a label value per message would grow without bound.
    """
    match = _PERSISTENT_ID.match(custom_id)
    return match[1] if match else "view"


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

    def attach(self, bot: commands.AutoShardedBot | commands.Bot) -> None:
        """Listen to the bot: ready after login, per-shard gateway latency."""
        self.metrics.watch_gateway(lambda: _latencies(bot))
        bot.add_listener(self._on_ready, "on_ready")

    async def _on_ready(self) -> None:
        self.health.logged_in = True
        self.refresh_gauges()

    def instrument_database(self, db: Database) -> None:
        """Time the database's statements."""
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

    async def begin(self, interaction: discord.Interaction[Any]) -> bool:
        """Take one interaction in hand: in flight, with log context, timed and counted when
        the task that handles it ends; False (the player told to retry) while draining.

        Called first thing in the handling task (the command tree's and each view's public
        ``interaction_check``), so the log context set here holds for the whole command or
        click, and the task's end is the interaction's end.
        """
        autocomplete = interaction.type is discord.InteractionType.autocomplete
        if interaction.type in (discord.InteractionType.component, _MODAL):
            data: Mapping[str, Any] = interaction.data or {}
            name: str | None = component_name(str(data.get("custom_id", "")))
            kind = "component"
        else:
            name = interaction.command.qualified_name if interaction.command else None
            kind = "command"
        ctx = CommandContext(command=name, guild=interaction.guild_id)
        CURRENT.set(ctx)
        self.in_flight.enter()
        self.refresh_gauges()
        started = time.perf_counter()

        def done(task: asyncio.Future[Any]) -> None:
            if not task.cancelled() and task.exception() is not None:
                # The tree and the views answer every error; this is a bug in the bot itself.
                error = task.exception()
                ctx.outcome, ctx.error_type = "error", type(error).__name__
            elapsed = time.perf_counter() - started
            self.in_flight.exit()
            if not autocomplete:
                label = name or "unknown"
                self.metrics.command_done(label, ctx.outcome, elapsed)
                shown = f"/{label}" if kind == "command" else label
                log.info("%s %s %s in %.1f ms", kind, shown, ctx.outcome, elapsed * 1000)
            self.refresh_gauges()

        task = asyncio.current_task()
        if task is None:  # not in a task: nothing to wait for
            self.in_flight.exit()
            self.refresh_gauges()
        else:
            task.add_done_callback(done)
        return await self.admit(interaction)

    def unhandled(self, interaction: discord.Interaction[Any]) -> None:
        """A click no view of this bot took (say, from before a restart): counted."""
        data: Mapping[str, Any] = interaction.data or {}
        name = component_name(str(data.get("custom_id", "")))
        self.metrics.command_done(name, "unhandled", 0.0)
        log.info("component %s unhandled", name)

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


__all__ = ["RESTARTING", "Health", "Operations", "component_name", "note_error", "ops_of"]
