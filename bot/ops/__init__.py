"""Running the bot for real: metrics, health, log context, in-flight tracking, shutdown.

One :class:`Operations` per bot process (``bot.ops``). The command tree calls :meth:`admit`,
:meth:`run` and :func:`note_error`; button clicks and modal submits go through
:meth:`Operations.component` the same way; ``python -m bot`` starts the HTTP endpoint and the
signal handling in :mod:`bot.ops.shutdown`. Nothing here is state the bot needs to answer a
command: every shard process can restart at any time.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import re
import time
from collections.abc import Awaitable, Callable, Mapping
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

#: Gateway interaction types handled by views rather than the command tree.
_COMPONENT = 3
_MODAL_SUBMIT = 5
#: Our persistent buttons' custom ids start with their kind: ``pbp:req:12``, ``pbp:n20:7:keep``.
_PERSISTENT_ID = re.compile(r"^(pbp:[a-z0-9]{1,16})(?::|$)")

Parser = Callable[[Any], None]


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
        #: Watchers of component interactions in flight (a reference keeps each task alive).
        self._watchers: set[asyncio.Task[None]] = set()

    def attach(self, bot: commands.AutoShardedBot | commands.Bot) -> None:
        """Listen to the bot: ready after login, per-shard gateway latency, button clicks."""
        self.metrics.watch_gateway(lambda: _latencies(bot))
        bot.add_listener(self._on_ready, "on_ready")
        # Buttons and modals never reach the command tree: discord.py's view store runs them
        # from the INTERACTION_CREATE parser, which every shard's gateway reads from this map.
        self.watch_components(bot._connection.parsers, bot._connection)

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
            # The campaign is named by the services as they load it (context.note_campaign).
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

    def watch_components(self, parsers: dict[str, Parser], state: Any) -> None:
        """Route button clicks and modal submits through :meth:`component`."""
        original = parsers["INTERACTION_CREATE"]

        def parse(data: Mapping[str, Any]) -> None:
            if data.get("type") in (_COMPONENT, _MODAL_SUBMIT):
                self.component(data, original, state)
            else:
                original(data)

        parsers["INTERACTION_CREATE"] = parse

    def component(self, data: Mapping[str, Any], dispatch: Parser, state: Any) -> None:
        """One click, as :meth:`run` handles a command: admitted, in flight, timed, counted.

        While draining the click is refused ("try again in a moment") and never reaches its
        button, so nothing changes. Otherwise discord.py dispatches it as usual, inside this
        click's log context; the tasks it starts are then awaited to time and count the click.
        """
        inner = data.get("data") or {}
        name = component_name(str(inner.get("custom_id", "")))
        guild = data.get("guild_id")
        ctx = CommandContext(command=name, guild=int(guild) if guild else None)
        context = contextvars.copy_context()
        context.run(CURRENT.set, ctx)
        started = time.perf_counter()
        self.in_flight.enter()
        self.refresh_gauges()
        try:
            if self.in_flight.draining:
                interaction = discord.Interaction(data=data, state=state)  # type: ignore[arg-type]
                work = {asyncio.create_task(self.admit(interaction), context=context)}
            else:
                before = asyncio.all_tasks()
                context.run(dispatch, data)
                work = asyncio.all_tasks() - before
        except BaseException:
            self.in_flight.exit()
            self.refresh_gauges()
            raise
        watcher = asyncio.create_task(
            self._component_done(ctx, work, started), name=f"pbp-click-{name}", context=context
        )
        self._watchers.add(watcher)
        watcher.add_done_callback(self._watchers.discard)

    async def _component_done(
        self, ctx: CommandContext, work: set[asyncio.Task[Any]], started: float
    ) -> None:
        name = ctx.command or "view"
        try:
            if not work:
                # No button or view of this bot answers this id (say, a view from before a
                # restart): Discord shows the player "This interaction failed".
                ctx.outcome = "unhandled"
            else:
                await asyncio.wait(work)
            for task in work:
                if task.cancelled() or task.exception() is None:
                    continue
                error = task.exception()
                ctx.outcome, ctx.error_type = "error", type(error).__name__
                log.error("component %s failed", name, exc_info=error)
        finally:
            elapsed = time.perf_counter() - started
            self.in_flight.exit()
            self.metrics.command_done(name, ctx.outcome, elapsed)
            log.info("component %s %s in %.1f ms", name, ctx.outcome, elapsed * 1000)
            self.refresh_gauges()

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
