"""Build the bot. `create_bot` is the only way main, the tests and the offline table get one."""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import pkgutil
import random
from datetime import datetime
from typing import Any

import discord
from discord.ext import commands

from bot import cogs
from bot.config import Settings, load_settings
from bot.db.engine import Database, create_database
from bot.dice.fair import FairDice
from bot.ops import Operations
from bot.ops.exposure import ExposureCheck
from bot.ops.heap import freeze_startup_heap
from bot.services.kit.budgets import Budgets, Rate
from bot.services.kit.clock import Clock
from bot.services.kit.personal import declarations
from bot.services.store import bot_state
from bot.tree import PbpTree

log = logging.getLogger(__name__)

SYNC_STATE_KEY = "command_tree_sha256"


def extension_names() -> list[str]:
    """Every feature under `bot/cogs/`: a module, or a package when it has private helpers
    beside its cog; private (`_`-prefixed) modules are shared helpers, not features."""
    return sorted(
        f"{cogs.__name__}.{module.name}"
        for module in pkgutil.iter_modules(cogs.__path__)
        if not module.name.startswith("_")
    )


class DiscordClock:
    """The game clock of the running bot: discord.py's ``utcnow``, which SimCord virtualizes,
    so tests move deadlines with ``env.advance_time`` instead of sleeping."""

    def now(self) -> datetime:
        return discord.utils.utcnow()


class PbpBot(commands.AutoShardedBot):
    """The pbp-dice bot: settings, the random source and the database travel with it."""

    def __init__(
        self,
        settings: Settings,
        *,
        rng: random.Random,
        sync_commands: bool = True,
        ops: Operations | None = None,
        freeze_heap: bool = False,
        clock: Clock | None = None,
        **client_options: Any,
    ) -> None:
        options: dict[str, Any] = {
            # Slash commands only: no message content, no privileged intents.
            "command_prefix": commands.when_mentioned,
            "intents": discord.Intents.default(),
            "help_command": None,
            "tree_cls": PbpTree,
            "allowed_mentions": discord.AllowedMentions.none(),
        }
        if settings.shard_count is not None:
            options["shard_count"] = settings.shard_count
        if settings.shard_ids is not None:
            options["shard_ids"] = settings.shard_ids
        options.update(client_options)
        super().__init__(**options)
        self.settings = settings
        self.rng = rng
        #: The one source of "now" for deadlines, reminders and turns (bot/services/kit/clock.py).
        self.clock: Clock = clock if clock is not None else DiscordClock()
        self.sync_commands = sync_commands
        #: Freeze the start-up heap once set up (bot/ops/heap.py): the running bot, not tests.
        self.freeze_heap = freeze_heap
        self._db: Database | None = None
        self._features: set[str] = set()  # feature modules whose setup ran on this bot
        #: Budgets of expensive work, in this process's memory (bot/services/kit/budgets.py).
        self.budgets = make_budgets(settings)
        #: Metrics, health, in-flight interactions and graceful shutdown (bot/ops).
        self.ops = ops if ops is not None else Operations()
        self.ops.attach(self)
        #: Start-up warnings about set-ups that show hidden results to every member.
        self.exposure_check = ExposureCheck(self)

    @property
    def db(self) -> Database:
        """The database; available from `setup_hook` on."""
        if self._db is None:
            raise RuntimeError("the database is opened in setup_hook")
        return self._db

    async def load_features(self) -> None:
        """Run every feature's ``setup`` on this bot, once (a restarted client keeps them).

        Not discord.py's ``load_extension``: it executes a module afresh at every load, while
        a feature attaches its commands to shared groups (``/gm``) when imported, and one
        process can build several bots (shards, tests). So a feature's module is imported once
        per process, as any module, and its ``setup`` runs once per bot."""
        for name in extension_names():
            if name not in self._features:
                await importlib.import_module(name).setup(self)
                self._features.add(name)

    async def setup_hook(self) -> None:
        if self._db is None:  # a client restarted without close() keeps its open database
            self._db = create_database(self.settings.database_url)
            self.ops.instrument_database(self._db)
        await self.load_features()
        # Every service module and its personal-data declaration, now: the first /privacy
        # show or erasure then imports nothing while the event loop serves players.
        declarations()
        if self.sync_commands:
            await self.sync_command_tree()
        if self.freeze_heap:
            log.info("start-up heap frozen: %d objects", freeze_startup_heap())

    async def close(self) -> None:
        await super().close()
        await self.close_database()

    async def close_database(self) -> None:
        """Close the pool; for hosts that stop the client without ``close()`` (SimCord
        detaches it, which keeps its extensions loaded for the next test's bot)."""
        if self._db is not None:
            await self._db.dispose()
            self._db = None

    def command_payload_hash(self, guild: discord.abc.Snowflake | None) -> str:
        """A stable digest of what `tree.sync` would send, to skip unchanged syncs."""
        payload = [cmd.to_dict(self.tree) for cmd in self.tree.get_commands(guild=guild)]
        payload.sort(key=lambda c: (str(c.get("type")), str(c.get("name"))))
        blob = json.dumps(payload, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()

    async def sync_command_tree(self) -> bool:
        """Sync to `DEV_GUILD_ID` (instant) or globally, unless nothing changed since last time.

        Discord rate-limits syncs; restarts of an unchanged bot must not spend them. The last
        synced digest lives in the database, so every shard process shares it. Returns whether
        a sync was sent.
        """
        guild = discord.Object(self.settings.dev_guild_id) if self.settings.dev_guild_id else None
        if guild is not None:
            self.tree.copy_global_to(guild=guild)
        key = f"{SYNC_STATE_KEY}:{guild.id if guild else 'global'}:{self.application_id}"
        digest = self.command_payload_hash(guild)
        if await bot_state.get_value(self.db, key) == digest:
            log.info("command tree unchanged since the last sync; not syncing")
            return False
        await self.tree.sync(guild=guild)
        await bot_state.set_value(self.db, key, digest)
        log.info(
            "synced %d commands %s",
            len(self.tree.get_commands(guild=guild)),
            f"to guild {guild.id}" if guild else "globally",
        )
        return True


def make_budgets(settings: Settings) -> Budgets | None:
    """The process's budgets from the settings (None when switched off). Retry times are
    Discord's clock (``utcnow``), which SimCord's virtual time drives in tests."""
    if not settings.budgets_enabled:
        return None
    return Budgets(
        Rate(settings.budget_user_burst, settings.budget_user_per_second),
        Rate(settings.budget_guild_burst, settings.budget_guild_per_second),
        wall=lambda: discord.utils.utcnow().timestamp(),
    )


def create_bot(
    settings: Settings | None = None,
    *,
    rng: random.Random | None = None,
    **client_options: Any,
) -> PbpBot:
    """Build the configured bot.

    ``rng`` overrides the dice, for tests only; production rolls provably fair dice
    (:class:`bot.dice.fair.FairDice`: each recorded roll's faces derived from its committed
    seeds, docs/fair-dice.md; anything else drawn from the operating system's CSPRNG).
    """
    return PbpBot(
        settings or load_settings(),
        rng=rng if rng is not None else FairDice(),
        **client_options,
    )
