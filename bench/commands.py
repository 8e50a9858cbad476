"""Command-path benchmark: the real bot (``create_bot``) answering slash commands in SimCord.

Run from the repo root: ``.venv/bin/python bench/commands.py`` (``--per-command``,
``--no-postgres``, ``--skip-memory``). Writes ``bench/results/latest.json`` and prints a
markdown table. Not a test: the numbers depend on the machine.

What one sample measures (in-process handling time of one interaction):

* start: just before SimCord emits ``INTERACTION_CREATE`` into discord.py's gateway parser, so
  discord.py's own parsing of the payload (Interaction, Member, options) is included;
* end ("response"): the moment SimCord's backend has recorded the interaction callback (the
  first answer a user sees); "complete": the command's handler (``CommandTree._call``)
  returned, i.e. every followup and GM-channel post is sent too.

Included: discord.py dispatch and option transformers, our tree's ops wrapper (metrics, log
context, campaign lookup), the cog, the services and their database transaction, rendering,
and discord.py building the REST request. SimCord's in-memory REST emulation (the stand-in for
Discord's servers) runs synchronously inside that window; its time is measured per interaction
and reported separately ("bot only" = handling time minus SimCord REST time). SimCord's settle
loop (its bookkeeping of bot tasks) is NOT in the window: interactions are emitted directly
and each sample waits on its own completion future; ``env.settle()`` runs between batches,
untimed. Not separated: SimCord's deep copy of the gateway payload before parsing (a few
microseconds; real Discord clients parse JSON instead).

"50 users at once": 50 members each emit one interaction in the same loop turn, then all are
awaited; a sample then includes waiting behind the others (queueing), as in production.

Garbage collection: the bot is built as ``python -m bot`` builds it (``freeze_heap=True``: the
start-up heap is frozen, bot/ops/heap.py). SimCord, unlike Discord, keeps the server's side of
the run in this process: every message, interaction and HTTP request (~60 objects a command,
~400,000 over a run), which would make each full collection inside a timed window rescan an
ever-growing history that a real bot's heap never holds (120-160 ms pauses, measured). So each
untimed settle (every 500 commands) also collects and freezes what is alive. That freezes the
bot's own objects made since start-up too (discord.py's caches of this small world, statement
caches), which a real bot's full collections would still walk, and collects the bot's cyclic
garbage outside the windows, so the figures lean slightly optimistic; ``--no-batch-freeze``
measures without it. The bot's young garbage is collected inside the windows, and the time
the collector spent there is reported ("gc").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import gc
import hashlib
import json
import os
import platform
import random
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import discord
import simcord
import simcord.actors as sim_actors
import simcord.http.router as sim_router
from discord import app_commands
from discord.ext import commands
from simcord import interactions as sim_interactions
from simcord.enums import AppCommandType, InteractionType
from sqlalchemy import bindparam, func, insert, select, text
from sqlalchemy.engine import make_url

from bot.app import PbpBot, create_bot
from bot.config import Settings
from bot.db.engine import create_database
from bot.db.migrate import upgrade_to_head
from bot.db.models import character_scores, ledger
from bot.dice.fair import FairDice
from bot.services.store import characters as chars
from bot.services.store.campaigns import DEFAULT_ABILITIES, setup_campaign

ROOT = Path(__file__).resolve().parents[1]
USERS = 50
PARTY = 6
PG_DB = "pbp_bench_cmds"
RESULTS = ROOT / "bench" / "results" / "latest.json"

#: (label, command, options, who): the commands of the issue.
SCENARIOS: list[tuple[str, str, dict[str, Any], str]] = [
    ("/roll dice:1d20+5", "roll", {"dice": "1d20+5"}, "roll"),
    ("/check (Pen & Dagger)", "check", {"ability": "DEX"}, "pen-and-dagger"),
    ("/check (roll-under)", "check", {"ability": "AGI"}, "roll-under"),
    ("/check (threshold) dc:12", "check", {"ability": "DEX", "dc": 12}, "threshold"),
    ("/check (d20 check) dc:12", "check", {"ability": "DEX", "dc": 12}, "d20-check"),
    ("/groupsave, 6-member party", "groupsave", {"ability": "DEX", "dc": 12}, "party"),
    ("/gm roll dice:1d20+3 secret:blind", "gm roll", {"dice": "1d20+3", "secret": "blind"}, "gm"),
]

#: The framework's floor: a stub discord.py bot (no database, no services, no ops wrapper)
#: whose one slash command answers one embed, in the same simulated server.
FLOOR: tuple[str, str, dict[str, Any], str] = (
    "floor: stub bot, /roll answers one embed",
    "roll",
    {"dice": "1d20+5"},
    "roll",
)

#: The durable floor: the stub bot that also commits, per command, one INSERT of a roll row
#: with its sha256 chain link on the project's engine (bot.db.engine, the database under test):
#: the least a recorded, hash-chained roll can cost.
DURABLE: tuple[str, str, dict[str, Any], str] = (
    "durable floor: one committed INSERT + sha256 link, answers one embed",
    "roll",
    {"dice": "1d20+5"},
    "roll",
)
FLOORS = (FLOOR, DURABLE)


# --- instrumentation ------------------------------------------------------------------------


@dataclass(slots=True)
class Sample:
    """One interaction's timestamps (perf_counter seconds)."""

    emitted: float
    done: asyncio.Future[None]
    response: float | None = None
    complete: float | None = None
    cpu_emitted: float = 0.0  # process_time() stamps: CPU of every thread, idle waits excluded
    cpu_response: float | None = None
    cpu_complete: float | None = None
    rest: float = 0.0  # SimCord REST emulation time inside the window
    rest_to_response: float = 0.0


_CURRENT: contextvars.ContextVar[Sample | None] = contextvars.ContextVar("bench", default=None)
_SAMPLES: dict[int, Sample] = {}


class GcClock:
    """Time the cyclic collector spends while :attr:`timing` (inside timed windows)."""

    def __init__(self) -> None:
        self.timing = False
        self.seconds = 0.0
        self.full = 0  # generation-2 collections
        self._started = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if not self.timing:
            return
        if phase == "start":
            self._started = time.perf_counter()
            return
        self.seconds += time.perf_counter() - self._started
        self.full += info["generation"] == 2

    def take(self) -> tuple[float, int]:
        """Time and full collections since the last call."""
        taken = (self.seconds, self.full)
        self.seconds, self.full = 0.0, 0
        return taken


GC = GcClock()


def instrument(bot: commands.Bot) -> None:
    """Time the tree's ``_call`` (instance attribute) and SimCord's REST router."""
    original_call = bot.tree._call

    async def timed_call(interaction: discord.Interaction[Any]) -> None:
        sample = _SAMPLES.get(interaction.id)
        token = _CURRENT.set(sample)
        try:
            await original_call(interaction)
        finally:
            _CURRENT.reset(token)
            if sample is not None:
                sample.complete = time.perf_counter()
                sample.cpu_complete = time.process_time()
                if not sample.done.done():
                    sample.done.set_result(None)

    bot.tree._call = timed_call  # type: ignore[method-assign]


_original_dispatch = sim_router.dispatch


def _timed_dispatch(backend: Any, method: str, path: str, **kwargs: Any) -> Any:
    started = time.perf_counter()
    try:
        return _original_dispatch(backend, method, path, **kwargs)
    finally:
        ended = time.perf_counter()
        sample = _CURRENT.get()
        if sample is not None:
            sample.rest += ended - started
            if sample.response is None and path.endswith("/callback"):
                sample.response = ended
                sample.cpu_response = time.process_time()
                sample.rest_to_response = sample.rest


sim_router.dispatch = _timed_dispatch


class IndexedCallbacks:
    """SimCord's list of tracked bot callbacks with O(1) removal.

    SimCord removes every invoked callback from a plain list (``list.remove``: linear, and
    quadratic with 50 interactions in flight, where it dominated the profile). Same order,
    same contents, same ``ValueError`` on a missing record; only the cost differs, so the
    samples do not charge SimCord's bookkeeping to the bot.
    """

    def __init__(self, records: Any = ()) -> None:
        self._items: dict[int, Any] = {id(r): r for r in records}

    def append(self, record: Any) -> None:
        self._items[id(record)] = record

    def remove(self, record: Any) -> None:
        if self._items.pop(id(record), None) is None:
            raise ValueError(record)

    def clear(self) -> None:
        self._items.clear()

    def __iter__(self) -> Iterator[Any]:
        return iter(list(self._items.values()))

    def __len__(self) -> int:
        return len(self._items)


def fast_callbacks(env: Any) -> None:
    """Install :class:`IndexedCallbacks` (again: SimCord's settle replaces the list)."""
    work = env._work
    if not isinstance(work.callbacks, IndexedCallbacks):
        work.callbacks = IndexedCallbacks(work.callbacks)


# --- the simulated server -------------------------------------------------------------------


@dataclass
class World:
    env: Any
    channels: dict[str, Any]
    users: list[Any]
    payloads: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)


def command_data(actor: Any, channel: Any, name: str, options: dict[str, Any]) -> dict[str, Any]:
    """The ``data`` of an application-command interaction, built as ``actor.slash`` does."""
    parts = name.split()
    root = sim_actors._resolve_visible_command(
        actor, channel.id, parts[0], AppCommandType.CHAT_INPUT
    )
    leaf, nesting = sim_interactions.walk_to_subcommand(root, parts[1:])
    leaf_options, resolved = sim_interactions.build_options(
        actor, name, leaf, options, channel_id=channel.id
    )
    data: dict[str, Any] = {
        "id": root["id"],
        "name": root["name"],
        "type": root.get("type", AppCommandType.CHAT_INPUT),
        "options": sim_interactions.nest_options(root, nesting, leaf_options),
    }
    if resolved:
        data["resolved"] = resolved
    return data


def emit(env: Any, actor: Any, channel: Any, data: dict[str, Any]) -> Sample:
    """Dispatch one interaction to the bot (no settling); its sample completes on its own."""
    record, payload = sim_interactions.base_payload(
        env.backend,
        type=InteractionType.APPLICATION_COMMAND,
        channel_id=channel.id,
        guild_id=actor.guild.id,
        user_id=actor.id,
        data=data,
    )
    sample = Sample(emitted=0.0, done=asyncio.get_running_loop().create_future())
    _SAMPLES[record.id] = sample
    sample.cpu_emitted = time.process_time()
    sample.emitted = time.perf_counter()
    env.backend.emit("INTERACTION_CREATE", payload)
    return sample


#: The world's channels and the rule system of each one's campaign.
SYSTEMS = {
    "roll": "d20-check",
    "pen-and-dagger": "pen-and-dagger",
    "roll-under": "roll-under",
    "threshold": "threshold",
    "d20-check": "d20-check",
    "party": "d20-check",
    "gm": "d20-check",
}


def build_server(env: Any) -> tuple[Any, Any, Any, list[Any], dict[str, Any]]:
    """The simulated server both bots answer in: a guild, a GM role and channel, 50 members
    holding the role, one text channel per :data:`SYSTEMS` key."""
    owner = env.create_user("owner")
    guild = env.create_guild("Bench", owner=owner)
    guild.add_member(owner)
    gm_role = guild.create_role("GM", permissions=discord.Permissions.none())
    gm_channel = guild.create_text_channel("gm")
    users = [guild.add_member(env.create_user(f"u{i}"), roles=[gm_role]) for i in range(USERS)]
    channels = {key: guild.create_text_channel(key) for key in SYSTEMS}
    return guild, gm_role, gm_channel, users, channels


async def build_world(env: Any, bot: PbpBot) -> World:
    """:func:`build_server` with one campaign per channel (its rule system), 50 characters
    in each (6 in the party channel, all in its party)."""
    guild, gm_role, gm_channel, users, channels = build_server(env)
    db = bot.db
    for key, system in SYSTEMS.items():
        channel = channels[key]
        campaign = await setup_campaign(
            db,
            guild.id,
            channel.id,
            system,
            gm_role_ids=[gm_role.id],
            gm_channel_id=gm_channel.id,
        )
        members = users[:PARTY] if key == "party" else users
        for i, user in enumerate(members):
            character = await chars.create_character(db, campaign.id, user.id, f"Hero {i}")
            for ability in DEFAULT_ABILITIES[campaign.system]:
                value = 2 if system == "threshold" else 12
                await chars.set_score(db, character.id, ability, value)
            if key == "party":
                await chars.party_add(db, character.id)
    world = World(env, channels, users)
    for label, command, options, where in SCENARIOS:
        for i, user in enumerate(users):
            world.payloads[(label, i)] = command_data(user, channels[where], command, options)
    return world


class FloorBot(commands.AutoShardedBot):
    """The floor: discord.py as our bot uses it (same client options, one shard, start-up
    heap frozen), with one slash command that answers one embed and does nothing else."""

    def __init__(self) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
            shard_count=1,
        )

        @self.tree.command(name="roll", description="Answer one embed")
        async def roll(
            interaction: discord.Interaction[Any], dice: app_commands.Range[str, 1, 1000]
        ) -> None:
            embed = discord.Embed(title=f"{interaction.user.display_name} rolls", description=dice)
            await interaction.response.send_message(embed=embed)

    async def setup_hook(self) -> None:
        await self.tree.sync()
        gc.collect()
        gc.freeze()  # as bot/ops/heap.py does for ours


#: The durable floor's one statement: a roll row, numbered, with its chain link.
_FLOOR_INSERT = text(
    "INSERT INTO ledger (guild_id, channel_id, user_id, interaction_id, kind, request, dice, "
    "outcome, visibility, created_at, scope_id, number, who, chain, format) VALUES (:guild, "
    ":channel, :user, :interaction, 'roll', :request, :dice, :outcome, 'public', :created, "
    ":channel, :number, :who, :chain, 3)"
).bindparams(
    bindparam("dice", type_=ledger.c.dice.type),
    bindparam("outcome", type_=ledger.c.outcome.type),
    bindparam("created", type_=ledger.c.created_at.type),
)


class DurableFloorBot(FloorBot):
    """:class:`FloorBot` whose /roll also commits one INSERT of a roll row carrying a sha256
    link to the previous row, on the project's engine (``create_database``: SQLite's pragmas
    and one-trip adapter, or asyncpg), before it answers: durable work with nothing else."""

    def __init__(self, url: str) -> None:
        super().__init__()
        self.db = create_database(url)
        self.head = "0" * 64
        self.number = 0
        self.tree.remove_command("roll")

        @self.tree.command(name="roll", description="Record a row, answer one embed")
        async def roll(
            interaction: discord.Interaction[Any], dice: app_commands.Range[str, 1, 1000]
        ) -> None:
            params = self.next_row(interaction, dice)
            async with self.db.engine.begin() as conn:
                await conn.execute(_FLOOR_INSERT, params)
            embed = discord.Embed(title=f"{interaction.user.display_name} rolls", description=dice)
            await interaction.response.send_message(embed=embed)

    def next_row(self, interaction: discord.Interaction[Any], dice: str) -> dict[str, Any]:
        """The next roll row's values, numbered and linked to the previous row."""
        self.number += 1
        entry = f"{self.number}|{interaction.user.id}|{dice}".encode()
        self.head = hashlib.sha256(bytes.fromhex(self.head) + entry).hexdigest()
        return {
            "guild": interaction.guild_id,
            "channel": interaction.channel_id,
            "user": interaction.user.id,
            "interaction": None,  # another SimCord world: its ids may repeat the bot's
            "request": f"/roll dice:{dice}",
            "dice": [{"notation": dice}],
            "outcome": {"total": 0},
            "created": datetime.now(UTC),
            "number": self.number,
            "who": self.head,
            "chain": self.head,
        }

    async def close(self) -> None:
        await super().close()
        await self.db.dispose()


@dataclass(frozen=True)
class Shape:
    """What one command of a scenario showed and stored, recorded from the real bot: the
    messages it sent (how, and their JSON as discord.py sent it) and the ledger rows it
    committed."""

    messages: tuple[tuple[str, dict[str, Any]], ...]
    rows: int


def shape_of(requests: list[Any], rows: int) -> Shape:
    """A :class:`Shape` from SimCord's log of one command's REST requests. Refuses what the
    shape floor cannot replay (an edit, a component), so it never measures less than was sent."""
    messages: list[tuple[str, dict[str, Any]]] = []
    for entry in requests:
        body = entry.json or {}
        if entry.method == "POST" and entry.path.endswith("/callback"):
            how, body = "response", body.get("data") or {}
        elif entry.method == "POST" and entry.path.startswith("/webhooks/"):
            how = "followup"
        elif entry.method == "POST" and entry.path.endswith("/messages"):
            how = "channel"
        else:
            raise RuntimeError(f"the shape floor cannot replay {entry.method} {entry.path}")
        if body.get("components") or body.get("attachments"):
            raise RuntimeError(f"the shape floor cannot replay components: {entry.path}")
        messages.append((how, body))
    return Shape(tuple(messages), rows)


class ShapeFloorBot(DurableFloorBot):
    """The durable floor with a command's shape: its /roll sends the messages the command sent
    (same embeds and text, the same way: response, followup, a GM-channel post) and commits as
    many chained roll rows in one transaction, with nothing else. What a command costs beyond
    this is its logic; this much is what it shows and stores."""

    def __init__(self, url: str, shape: Shape) -> None:
        super().__init__(url)
        self.shape = shape
        self.gm_channel_id = 0  # set once the simulated server exists
        # Numbers of their own: the durable floor numbered the same channel ids in its world.
        self.number = 10_000_000
        self.tree.remove_command("roll")

        @self.tree.command(name="roll", description="Record rows, send a command's messages")
        async def roll(
            interaction: discord.Interaction[Any], dice: app_commands.Range[str, 1, 1000]
        ) -> None:
            rows = [self.next_row(interaction, dice) for _ in range(self.shape.rows)]
            async with self.db.engine.begin() as conn:
                await conn.execute(_FLOOR_INSERT, rows)
            for how, body in self.shape.messages:
                content = body.get("content")
                embeds = [discord.Embed.from_dict(e) for e in body.get("embeds") or []]
                ephemeral = bool((body.get("flags") or 0) & 64)
                if how == "response":
                    await interaction.response.send_message(
                        content, embeds=embeds, ephemeral=ephemeral
                    )
                elif how == "followup":
                    await interaction.followup.send(content, embeds=embeds, ephemeral=ephemeral)
                else:
                    channel = self.get_channel(self.gm_channel_id)
                    assert isinstance(channel, discord.TextChannel)
                    await channel.send(content, embeds=embeds)


async def bench_floor(
    per_command: int, url: str | None = None, shape: Shape | None = None
) -> dict[str, Any]:
    """The floor bot (``url``: the durable floor, on that database; ``shape``: with a
    command's messages and rows) answering /roll one user at a time and 50 at once, measured as
    the scenarios are."""
    if shape is not None and url is not None:
        bot: FloorBot = ShapeFloorBot(url, shape)
    else:
        bot = FloorBot() if url is None else DurableFloorBot(url)
    async with simcord.run(bot) as env:
        instrument(bot)
        fast_callbacks(env)
        _, _, gm_channel, users, channels = build_server(env)
        if isinstance(bot, ShapeFloorBot):
            bot.gm_channel_id = gm_channel.id
        world = World(env, channels, users)
        label, command, options, where = FLOOR if url is None else DURABLE
        for i, user in enumerate(users):
            world.payloads[(label, i)] = command_data(user, channels[where], command, options)
        result = await users[0].slash(channels[where], command, **options)
        if result.response is None or not result.response.embeds:
            raise RuntimeError("the floor bot did not answer with an embed")
        measured = {
            "sequential": await run_scenario(world, label, per_command, concurrent=False),
            "concurrent_50": await run_scenario(world, label, per_command, concurrent=True),
        }
    await bot.close()
    for mode in measured.values():
        for key in ("_response", "_own", "_busy"):
            mode.pop(key)
    print(f"  {'shape floor' if shape else label}: done", file=sys.stderr)
    return measured


# --- measuring ------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


BATCH_FREEZE = True  # --no-batch-freeze
RUN_DURABLE = True  # False with --only naming the bare floor
#: --shape-floors: "no", "also" (each command and its shape floor), "only" (the shape floors,
#: each command played just once to record its shape; bench/instructions.py subtracts runs).
SHAPES = "no"


async def settle(env: Any) -> None:
    """Untimed: SimCord's bookkeeping, then freeze the simulated server's history (see top)."""
    await env.settle()
    fast_callbacks(env)
    if BATCH_FREEZE:
        gc.collect()
        gc.freeze()
    errors = env.errors
    if errors:
        raise RuntimeError(f"the bot raised during the benchmark: {errors[:3]!r}")


def check_answered(env: Any, samples: list[Sample], label: str) -> None:
    """Every timed interaction got a real answer (not an error message)."""
    for sample in samples:
        if sample.response is None or sample.complete is None:
            raise RuntimeError(f"{label}: an interaction was not answered")


async def run_scenario(world: World, label: str, count: int, concurrent: bool) -> dict[str, Any]:
    """``count`` timed commands of one scenario (``label`` keys ``world.payloads``), one at a
    time or 50 at once, after 20 untimed ones."""
    env = world.env
    where = next(s[3] for s in [*FLOORS, *SCENARIOS] if s[0] == label)
    channel = world.channels[where]
    samples: list[Sample] = []
    busy = 0.0  # wall time with commands in flight (batches), SimCord settling excluded
    busy_cpu = 0.0  # process CPU time over the same batches
    # warm-up (untimed): caches, statement compilation
    for i in range(20):
        sample = emit(env, world.users[i % USERS], channel, world.payloads[(label, i % USERS)])
        await sample.done
    await settle(env)
    GC.take()
    done = 0
    batch = USERS if concurrent else 1
    while done < count:
        started = time.perf_counter()
        started_cpu = time.process_time()
        GC.timing = True
        batch_samples = [
            emit(env, world.users[j], channel, world.payloads[(label, j)]) for j in range(batch)
        ]
        await asyncio.gather(*(s.done for s in batch_samples))
        GC.timing = False
        busy_cpu += time.process_time() - started_cpu
        busy += time.perf_counter() - started
        samples += batch_samples
        done += batch
        if done % 500 < batch:
            await settle(env)
    await settle(env)
    check_answered(env, samples, label)
    _SAMPLES.clear()
    response = [s.response - s.emitted for s in samples if s.response is not None]
    complete = [s.complete - s.emitted for s in samples if s.complete is not None]
    own = [s.response - s.emitted - s.rest_to_response for s in samples if s.response is not None]
    own_complete = [s.complete - s.emitted - s.rest for s in samples if s.complete is not None]
    cpu_response = [s.cpu_response - s.cpu_emitted for s in samples if s.cpu_response is not None]
    cpu_complete = [s.cpu_complete - s.cpu_emitted for s in samples if s.cpu_complete is not None]
    gc_seconds, gc_full = GC.take()
    return {
        "commands": len(samples),
        "response_p50_ms": pct(response, 0.5),
        "response_p99_ms": pct(response, 0.99),
        "complete_p50_ms": pct(complete, 0.5),
        "complete_p99_ms": pct(complete, 0.99),
        "bot_only_p50_ms": pct(own, 0.5),
        "bot_only_p99_ms": pct(own, 0.99),
        "bot_only_complete_p50_ms": pct(own_complete, 0.5),
        "simcord_rest_p50_ms": pct([s.rest for s in samples], 0.5),
        # CPU (process_time: every thread of this process, so aiosqlite's worker too; not
        # the PostgreSQL server). One user: per command, emitted -> answered / completed.
        # 50 users: the windows overlap, so only the batch's CPU / its commands means much.
        "cpu_response_p50_ms": pct(cpu_response, 0.5),
        "cpu_complete_p50_ms": pct(cpu_complete, 0.5),
        "cpu_complete_p99_ms": pct(cpu_complete, 0.99),
        "cpu_per_command_ms": busy_cpu / len(samples) * 1000,
        "commands_per_s": len(samples) / busy,
        "gc_share": gc_seconds / busy,
        "gc_full_collections": gc_full,
        "_response": response,
        "_own": own,
        "_busy": busy,
    }


async def record_shape(world: World, bot: PbpBot, label: str) -> Shape:
    """One more command of the scenario, untimed: the messages it sent and the ledger rows it
    committed (:class:`Shape`)."""
    where = next(s[3] for s in SCENARIOS if s[0] == label)
    command = next(s[1] for s in SCENARIOS if s[0] == label)
    options = next(s[2] for s in SCENARIOS if s[0] == label)
    requests = world.env.backend.http_requests
    count = select(func.count()).select_from(ledger)
    async with bot.db.engine.connect() as conn:
        before = (await conn.execute(count)).scalar_one()
    seen = len(requests)
    await world.users[1].slash(world.channels[where], command, **options)
    async with bot.db.engine.connect() as conn:
        after = (await conn.execute(count)).scalar_one()
    return shape_of(list(requests[seen:]), after - before)


async def first_answer(world: World, label: str) -> str:
    """The first answer of a scenario, to be sure it is the command's result, not an error."""
    where = next(s[3] for s in SCENARIOS if s[0] == label)
    command = next(s[1] for s in SCENARIOS if s[0] == label)
    options = next(s[2] for s in SCENARIOS if s[0] == label)
    result = await world.users[0].slash(world.channels[where], command, **options)
    response = result.response
    if response is None or result.ephemeral or not response.embeds:
        content = response.content if response is not None else None
        raise RuntimeError(f"{label} did not answer with a result: {content!r}")
    return str(response.embeds[0].title)


#: Budgets on (their charge is part of each command's cost) but too large to refuse: one
#: server's 50 members play thousands of commands a second here, 10 a second in a real game.
UNLIMITED: dict[str, float] = {
    "budget_user_burst": 1e12,
    "budget_user_per_second": 1e12,
    "budget_guild_burst": 1e12,
    "budget_guild_per_second": 1e12,
}


def make_rng(fair: bool) -> random.Random:
    """The bot's dice: a seeded generator (the baseline), or production's provably fair dice
    (``--rng both`` measures the two in one run, docs/fair-dice.md)."""
    return FairDice() if fair else random.Random(1)


async def bench_database(url: str, per_command: int, fair: bool = False) -> dict[str, Any]:
    """Every scenario, sequential then 50 at once, on one migrated database."""
    floor = await bench_floor(per_command)  # in the same run, just before
    # On this database (its rows are numbered under a channel of their own world).
    durable = await bench_floor(per_command, url) if RUN_DURABLE else None
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_url=url, shard_count=1, **UNLIMITED
    )
    started = time.perf_counter()
    bot = create_bot(settings, rng=make_rng(fair), freeze_heap=True)
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(bot.close_database)  # SimCord detaches, never closes
        env = await stack.enter_async_context(simcord.run(bot))
        ready_s = time.perf_counter() - started
        instrument(bot)
        fast_callbacks(env)
        world = await build_world(env, bot)
        results: dict[str, Any] = {
            "start_to_ready_s": ready_s,
            "floor": floor,
            "durable_floor": durable,
            "commands": {},
        }
        shapes: dict[str, Shape] = {}
        for label, *_ in SCENARIOS:
            await first_answer(world, label)
            if SHAPES != "no":
                shapes[label] = await record_shape(world, bot, label)
            if SHAPES == "only":
                continue
            results["commands"][label] = {
                "sequential": await run_scenario(world, label, per_command, concurrent=False),
                "concurrent_50": await run_scenario(world, label, per_command, concurrent=True),
            }
            print(f"  {label}: done", file=sys.stderr)
    if shapes:
        results["shape_floors"] = {
            label: await bench_floor(per_command, url, shape) for label, shape in shapes.items()
        }
    if SHAPES == "only":
        return results
    for mode in ("sequential", "concurrent_50") if SCENARIOS else ():
        runs = [results["commands"][label][mode] for label, *_ in SCENARIOS]
        response = [x for r in runs for x in r.pop("_response")]
        own = [x for r in runs for x in r.pop("_own")]
        busy = sum(r.pop("_busy") for r in runs)
        gc_share = sum(r["gc_share"] * r["commands"] / r["commands_per_s"] for r in runs) / busy
        results.setdefault("all", {})[mode] = {
            "gc_share": gc_share,
            "commands": len(response),
            "response_p50_ms": pct(response, 0.5),
            "response_p99_ms": pct(response, 0.99),
            "bot_only_p50_ms": pct(own, 0.5),
            "bot_only_p99_ms": pct(own, 0.99),
            "commands_per_s": len(response) / busy,
        }
    return results


# --- memory (a fresh process) ---------------------------------------------------------------


def rss_mib() -> float:
    """Resident set size of this process now (VmRSS), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def memory_run(url: str, campaigns: int, per_campaign: int) -> dict[str, Any]:
    """RSS of a fresh process: the bot ready, then after 1,000 campaigns with 10,000
    characters exist and the bot has answered one /check in each campaign's channel."""
    settings = Settings(_env_file=None, database_url=url, shard_count=1)  # type: ignore[call-arg]
    started = time.perf_counter()
    bot = create_bot(settings, rng=random.Random(1), freeze_heap=True)
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(bot.close_database)  # SimCord detaches, never closes
        env = await stack.enter_async_context(simcord.run(bot))
        ready_s = time.perf_counter() - started
        owner = env.create_user("owner")
        guild = env.create_guild("Memory", owner=owner)
        guild.add_member(owner)
        players = [guild.add_member(env.create_user(f"p{i}")) for i in range(per_campaign)]
        channels = [guild.create_text_channel(f"c{i}") for i in range(campaigns)]
        gc.collect()
        rss_ready = rss_mib()
        db = bot.db
        created = time.perf_counter()
        for channel in channels:
            campaign = await setup_campaign(db, guild.id, channel.id, "d20-check")
            abilities = DEFAULT_ABILITIES[campaign.system]
            ids = [
                (await chars.create_character(db, campaign.id, p.id, f"PC {i}")).id
                for i, p in enumerate(players)
            ]
            async with db.engine.begin() as conn:
                await conn.execute(
                    insert(character_scores),
                    [
                        {"character_id": c, "ability": a, "value": 12}
                        for c in ids
                        for a in abilities
                    ],
                )
        create_s = time.perf_counter() - created
        gc.collect()
        rss_data = rss_mib()
        for channel in channels:
            result = await players[0].slash(channel, "check", ability="DEX", dc=12)
            assert result.response is not None and not result.ephemeral
        gc.collect()
        rss_used = rss_mib()
    return {
        "start_to_ready_s": ready_s,
        "rss_ready_mib": rss_ready,
        "rss_after_data_mib": rss_data,
        "rss_after_checks_mib": rss_used,
        "create_s": create_s,
        "campaigns": campaigns,
        "characters": campaigns * per_campaign,
    }


# --- databases ------------------------------------------------------------------------------


async def pg_admin(url: str, sql: str) -> None:
    """Run one statement on the server's maintenance database, outside a transaction."""
    admin = create_database(make_url(url).set(database="postgres").render_as_string(False))
    try:
        async with admin.engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text(sql))
    finally:
        await admin.dispose()


@contextlib.contextmanager
def sqlite_url() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as tmp:
        yield f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite3'}"


def pg_base() -> str:
    return os.environ.get("PG_BENCH_URL") or "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"


async def with_database(kind: str, job: Callable[[str], Any]) -> Any:
    """Run ``job(url)`` on a freshly migrated throwaway database (migrations untimed)."""
    if kind == "SQLite":
        with sqlite_url() as url:
            await upgrade_to_head(url)
            return await job(url)
    base = pg_base()
    url = make_url(base).set(database=PG_DB).render_as_string(hide_password=False)
    await pg_admin(base, f"DROP DATABASE IF EXISTS {PG_DB}")
    await pg_admin(base, f"CREATE DATABASE {PG_DB}")
    try:
        await upgrade_to_head(url)
        return await job(url)
    finally:
        await pg_admin(base, f"DROP DATABASE IF EXISTS {PG_DB} WITH (FORCE)")


def memory_in_subprocess(kind: str, campaigns: int, per_campaign: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--memory-child", kind, str(campaigns), str(per_campaign)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def machine() -> dict[str, Any]:
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next(
        (ln.split(":", 1)[1].strip() for ln in lscpu.splitlines() if ln.startswith("Model name")),
        platform.processor(),
    )
    return {
        "nproc": os.cpu_count(),
        "cpu": model,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


# --- report ---------------------------------------------------------------------------------


def table(results: dict[str, Any]) -> str:
    lines = []
    dbs = list(results["databases"])  # SQLite, PostgreSQL; with --rng both, each with fair dice
    head = (
        "| command | mode | "
        + " | ".join(
            f"{d} response p50 / p99 (bot only p50 / p99) | {d} complete p50 | {d} cmd/s | {d} gc"
            for d in dbs
        )
        + " |"
    )
    lines += [head, "|---|---|" + "---|---|---|---|" * len(dbs)]
    for label, *_ in [*SCENARIOS, *FLOORS[: 1 + RUN_DURABLE]]:
        for mode, name in (("sequential", "1 user"), ("concurrent_50", "50 users")):
            cells = []
            for d in dbs:
                r = measured_of(results["databases"][d], label)[mode]
                cells.append(
                    f"{r['response_p50_ms']:.2f} / {r['response_p99_ms']:.2f} ms "
                    f"({r['bot_only_p50_ms']:.2f} / {r['bot_only_p99_ms']:.2f})"
                    f" | {r['complete_p50_ms']:.2f} ms | {r['commands_per_s']:,.0f}"
                    f" | {r['gc_share']:.0%}"
                )
            lines.append(f"| {label} | {name} | " + " | ".join(cells) + " |")
    for mode, name in (("sequential", "1 user"), ("concurrent_50", "50 users")):
        if "all" not in results["databases"][dbs[0]]:
            break
        cells = []
        for d in dbs:
            r = results["databases"][d]["all"][mode]
            cells.append(
                f"{r['response_p50_ms']:.2f} / {r['response_p99_ms']:.2f} ms "
                f"({r['bot_only_p50_ms']:.2f} / {r['bot_only_p99_ms']:.2f})"
                f" | - | {r['commands_per_s']:,.0f} | {r['gc_share']:.0%}"
            )
        n = results["databases"][dbs[0]]["all"][mode]["commands"]
        lines.append(f"| **all {n:,} above** | {name} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("| measure | " + " | ".join(dbs) + " |")
    lines.append("|---|" + "---|" * len(dbs))
    rows = [
        ("bot start to ready (migrated database, fresh process)", "start_to_ready_s", "{:.2f} s"),
        ("creating them through the services", "create_s", "{:.0f} s"),
        ("RSS, bot ready (world of 1,000 channels)", "rss_ready_mib", "{:.0f} MiB"),
        ("RSS, + 1,000 campaigns / 10,000 characters stored", "rss_after_data_mib", "{:.0f} MiB"),
        ("RSS, + one /check answered in each campaign", "rss_after_checks_mib", "{:.0f} MiB"),
    ]
    for name, key, fmt in rows:
        cells = [
            fmt.format(results["databases"][d]["memory"][key])
            if "memory" in results["databases"][d]
            else "-"
            for d in dbs
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def measured_of(measured: dict[str, Any], label: str) -> dict[str, Any]:
    """One database's figures for a scenario or either floor."""
    if label == FLOOR[0]:
        return dict(measured["floor"])
    if label == DURABLE[0]:
        return dict(measured["durable_floor"])
    return dict(measured["commands"][label])


def floor_table(results: dict[str, Any]) -> str:
    """Each command's CPU time against the bare floor and the durable floor, same run."""
    dbs = list(results["databases"])  # SQLite, PostgreSQL; with --rng both, each with fair dice
    lines = [
        "| command | "
        + " | ".join(
            f"{d} CPU p50, 1 user (to answer / to complete) | × floor | × durable"
            f" | {d} CPU a command, 50 users | × floor | × durable"
            for d in dbs
        )
        + " |",
        "|---|" + "---|---|---|---|---|---|" * len(dbs),
    ]
    for label, *_ in [*FLOORS[: 1 + RUN_DURABLE], *SCENARIOS]:
        cells = []
        for d in dbs:
            measured = results["databases"][d]
            r = measured_of(measured, label)
            seq, conc = r["sequential"], r["concurrent_50"]
            ratios = []
            for base in (measured["floor"], measured["durable_floor"] or measured["floor"]):
                one = seq["cpu_complete_p50_ms"] / base["sequential"]["cpu_complete_p50_ms"]
                many = conc["cpu_per_command_ms"] / base["concurrent_50"]["cpu_per_command_ms"]
                ratios.append((one, many))
            cells.append(
                f"{seq['cpu_response_p50_ms']:.3f} / {seq['cpu_complete_p50_ms']:.3f} ms"
                f" | {ratios[0][0]:.2f}× | {ratios[1][0]:.2f}×"
                f" | {conc['cpu_per_command_ms']:.3f} ms"
                f" | {ratios[0][1]:.2f}× | {ratios[1][1]:.2f}×"
            )
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def fair_table(results: dict[str, Any]) -> str:
    """``--rng both``: each command's CPU with provably fair dice against the seeded baseline
    of the same run (docs/fair-dice.md; the target is within 5% for /roll and /check)."""
    pairs = [(d, f"{d} (fair dice)") for d in ("SQLite", "PostgreSQL")]
    pairs = [(a, b) for a, b in pairs if a in results["databases"] and b in results["databases"]]
    if not pairs:
        return ""
    lines = [
        "| command | "
        + " | ".join(
            f"{a} CPU p50 seeded → fair, 1 user | {a} CPU a command, 50 users" for a, _ in pairs
        )
        + " |",
        "|---|" + "---|---|" * len(pairs),
    ]
    for label, *_ in SCENARIOS:
        cells = []
        for a, b in pairs:
            x = results["databases"][a]["commands"][label]
            y = results["databases"][b]["commands"][label]
            s1, f1 = x["sequential"]["cpu_complete_p50_ms"], y["sequential"]["cpu_complete_p50_ms"]
            s50 = x["concurrent_50"]["cpu_per_command_ms"]
            f50 = y["concurrent_50"]["cpu_per_command_ms"]
            cells.append(
                f"{s1:.3f} → {f1:.3f} ms ({f1 / s1 - 1:+.1%})"
                f" | {s50:.3f} → {f50:.3f} ms ({f50 / s50 - 1:+.1%})"
            )
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def shape_table(results: dict[str, Any]) -> str:
    """``--shape-floors``: each command against its shape floor (the durable floor sending the
    command's messages and committing its rows), CPU p50 to complete, one user, same run."""
    dbs = [d for d, m in results["databases"].items() if "shape_floors" in m]
    if not dbs:
        return ""
    lines = [
        "| command | "
        + " | ".join(
            f"{d} shape floor CPU p50 | × durable floor | command × durable floor"
            f" | command × shape floor"
            for d in dbs
        )
        + " |",
        "|---|" + "---|---|---|---|" * len(dbs),
    ]
    for label, *_ in SCENARIOS:
        cells = []
        for d in dbs:
            measured = results["databases"][d]
            durable = measured["durable_floor"]["sequential"]["cpu_complete_p50_ms"]
            shape = measured["shape_floors"][label]["sequential"]["cpu_complete_p50_ms"]
            command = measured["commands"].get(label)
            own = command["sequential"]["cpu_complete_p50_ms"] if command else None
            cells.append(
                f"{shape:.3f} ms | {shape / durable:.2f}×"
                + (f" | {own / durable:.2f}× | {own / shape:.2f}×" if own else " | - | -")
            )
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {
        "command": " ".join(
            shlex.quote(a) for a in [".venv/bin/python", "bench/commands.py", *sys.argv[1:]]
        ),
        "machine": machine(),
        "uptime_before": uptime(),
        "per_command": args.per_command,
        "batch_freeze": not args.no_batch_freeze,
        "databases": {},
        "notes": [],
    }
    kinds = ["SQLite"] if args.no_postgres else ["SQLite", "PostgreSQL"]
    modes = {"seeded": [False], "fair": [True], "both": [False, True]}[args.rng]
    for kind, fair in ((k, f) for k in kinds for f in modes):
        name = f"{kind} (fair dice)" if fair and len(modes) > 1 else kind
        print(f"{name}: commands", file=sys.stderr)
        try:
            measured = await with_database(
                kind, lambda url, fair=fair: bench_database(url, args.per_command, fair)
            )
        except OSError as exc:  # no PostgreSQL server
            results["notes"].append(f"{kind} skipped: {exc}")
            continue
        results["databases"][name] = measured
        if name != kind:
            continue
        if not args.skip_memory:
            print(f"{kind}: memory", file=sys.stderr)
            results["databases"][kind]["memory"] = memory_in_subprocess(
                kind, args.campaigns, args.characters // args.campaigns
            )
    results["uptime_after"] = uptime()
    return results


# --- fair dice against the seeded baseline, paired (bench/fair_paired.py, --paired) ---------


async def paired(url: str, per_command: int, labels: list[str]) -> dict[str, Any]:
    """Fair dice against the seeded baseline on one bot (bench/fair_paired.py says why). Per
    scenario: ``per_command`` pairs (seeded, fair or fair, seeded) on one bot."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_url=url, shard_count=1, **UNLIMITED
    )
    fair, seeded = FairDice(), random.Random(1)
    bot = create_bot(settings, rng=fair, freeze_heap=True)
    out: dict[str, Any] = {}
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(bot.close_database)  # SimCord detaches, never closes
        env = await stack.enter_async_context(simcord.run(bot))
        instrument(bot)
        fast_callbacks(env)
        world = await build_world(env, bot)
        for label in labels:
            await first_answer(world, label)
            where = next(s[3] for s in SCENARIOS if s[0] == label)
            channel = world.channels[where]
            cpu: dict[str, list[float]] = {"seeded": [], "fair": []}
            for i in range(20 + per_command):  # the first 20 pairs warm up, untimed
                order = (("seeded", seeded), ("fair", fair))
                for name, source in order if i % 2 == 0 else order[::-1]:
                    bot.rng = source
                    u = i % USERS
                    sample = emit(env, world.users[u], channel, world.payloads[(label, u)])
                    await sample.done
                    if sample.cpu_complete is None:
                        raise RuntimeError(f"{label}: an interaction was not answered")
                    if i >= 20:
                        cpu[name].append((sample.cpu_complete - sample.cpu_emitted) * 1000)
                if i % 100 == 99:
                    await settle(env)
            await settle(env)
            _SAMPLES.clear()
            s50, f50 = statistics.median(cpu["seeded"]), statistics.median(cpu["fair"])
            diffs = [f - s for s, f in zip(cpu["seeded"], cpu["fair"], strict=True)]
            half = len(diffs) // 2
            out[label] = {
                "pairs": len(diffs),
                "seeded_p50_ms": s50,
                "fair_p50_ms": f50,
                "fair_vs_seeded": f50 / s50 - 1,
                "pair_diff_p50_ms": statistics.median(diffs),
                # The same figure over each half of the run: how steady it is.
                "halves": [
                    statistics.median(cpu["fair"][:half]) / statistics.median(cpu["seeded"][:half])
                    - 1,
                    statistics.median(cpu["fair"][half:]) / statistics.median(cpu["seeded"][half:])
                    - 1,
                ],
            }
            print(f"  {label}: done", file=sys.stderr)
        bot.rng = fair
    return out


def paired_table(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| database | command | pairs | seeded CPU p50 | fair CPU p50 | fair vs seeded "
        "| first half / second half | median pair difference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for kind, rows in results.items():
        for label, r in rows.items():
            a, b = r["halves"]
            lines.append(
                f"| {kind} | {label} | {r['pairs']} | {r['seeded_p50_ms']:.3f} ms "
                f"| {r['fair_p50_ms']:.3f} ms | {r['fair_vs_seeded']:+.1%} | {a:+.1%} / {b:+.1%} "
                f"| {r['pair_diff_p50_ms'] * 1000:+.0f} µs |"
            )
    return "\n".join(lines)


async def run_paired(
    labels: list[str], per_command: int, postgres: bool
) -> dict[str, dict[str, Any]]:
    """:func:`paired` on a fresh SQLite database, then (``postgres``) a PostgreSQL one."""
    kinds = ["SQLite", "PostgreSQL"] if postgres else ["SQLite"]
    results: dict[str, dict[str, Any]] = {}
    for kind in kinds:
        print(f"{kind}: pairs", file=sys.stderr)
        try:
            results[kind] = await with_database(kind, lambda url: paired(url, per_command, labels))
        except OSError as exc:  # no PostgreSQL server
            print(f"{kind} skipped: {exc}", file=sys.stderr)
    return results


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--memory-child":
        kind, campaigns, per = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        result = asyncio.run(with_database(kind, lambda url: memory_run(url, campaigns, per)))
        print(json.dumps(result))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--per-command",
        type=int,
        default=5000,
        help="timed commands per command and mode (7 commands x 2 modes; the issue asks for "
        "medians and p99s over at least 5,000)",
    )
    parser.add_argument("--campaigns", type=int, default=1000)
    parser.add_argument("--characters", type=int, default=10_000)
    parser.add_argument(
        "--only",
        metavar="TEXT",
        help="run only the commands whose label contains TEXT (several: TEXT|TEXT|...)",
    )
    parser.add_argument(
        "--no-batch-freeze",
        action="store_true",
        help="do not freeze the heap between batches (SimCord's history stays in full GCs)",
    )
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument(
        "--pg-database",
        default="pbp_bench_cmds",
        help="the throwaway PostgreSQL database (dropped and created; default %(default)s)",
    )
    parser.add_argument("--skip-memory", action="store_true")
    parser.add_argument(
        "--rng",
        choices=("seeded", "fair", "both"),
        default="seeded",
        help="the bot's dice: seeded (baseline), fair (production's provably fair dice), or "
        "both in one run, for the cost of fair dice per command",
    )
    parser.add_argument(
        "--paired",
        action="store_true",
        help="also measure fair dice against the seeded baseline paired command by command on "
        "one bot (bench/fair_paired.py; steadier than two phases on a busy machine)",
    )
    parser.add_argument(
        "--shape-floors",
        choices=("no", "also", "only"),
        default="no",
        help="also measure each command's shape floor: the durable floor sending the messages "
        "the command sent and committing as many rows (only: the shape floors alone)",
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    global BATCH_FREEZE, PG_DB, RUN_DURABLE, SHAPES
    BATCH_FREEZE = not args.no_batch_freeze
    PG_DB = args.pg_database
    SHAPES = args.shape_floors
    if args.only:
        # The floors always run; naming one runs no command (instructions.py subtracts runs).
        parts = args.only.split("|")
        wanted = [s for s in SCENARIOS if any(part in s[0] for part in parts)]
        if not wanted and args.only in FLOOR[0]:
            RUN_DURABLE = False
        elif not wanted and args.only not in DURABLE[0]:
            parser.error(f"no command label contains {args.only!r}")
        SCENARIOS[:] = wanted
    results = asyncio.run(main_async(args))
    if args.paired:
        labels = [s[0] for s in SCENARIOS]
        results["paired"] = asyncio.run(
            run_paired(labels, args.per_command, postgres=not args.no_postgres)
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"`{results['command']}`\n")
    shapes = shape_table(results)
    if SHAPES == "only":
        print(shapes)
        return
    print(table(results))
    print(
        "\nAgainst the framework's floor and the durable floor (CPU, process_time; × = CPU p50"
        " to complete, or CPU a command with 50 users, / the floor's)\n"
    )
    print(floor_table(results))
    if shapes:
        print(
            "\nAgainst each command's shape floor: the durable floor sending the same messages "
            "and committing as many rows, nothing else (CPU p50 to complete, one user)\n"
        )
        print(shapes)
    fair = fair_table(results)
    if fair:
        print("\nProvably fair dice against the seeded baseline, same run (CPU, process_time)\n")
        print(fair)
    if args.paired:
        print(
            "\nProvably fair dice against the seeded baseline, paired: one bot, the sources "
            "alternating command by command (CPU, process_time)\n"
        )
        print(paired_table(results["paired"]))
    print(f"\nmachine: {results['machine']}")
    print(f"before: {results['uptime_before']}\nafter:  {results['uptime_after']}")
    for note in results["notes"]:
        print(note)


if __name__ == "__main__":
    main()
