"""Two shard processes of one application against one database, rolling at the same time.

SimCord runs one bot per event loop, so each shard runs as its own bot in its own thread and
loop, as separate processes would: ``create_bot`` with ``SHARD_COUNT=2`` and ``SHARD_IDS=[k]``,
its own engine and pool, and a guild that Discord places on shard k. Both share the database
(PostgreSQL in CI; SQLite too, where several processes share one file). Each SimCord world is
its own fake Discord with the same virtual clock, so the second one starts a day later to keep
snowflakes (channels, interactions) unique across both, as Discord's are.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections import Counter
from dataclasses import dataclass, field

from simcord import Env
from sqlalchemy import select

from bot.app import create_bot
from bot.config import Settings
from bot.db.engine import Database
from bot.db.models import campaigns, characters, ledger
from bot.services.store import fortune
from bot.services.store.ledger import Origin

ROUNDS = 6
SHARDS = 2


@dataclass
class ShardRun:
    """What one shard's players did, for the checks afterwards."""

    shard_id: int
    guild_id: int = 0
    channel_id: int = 0
    users: dict[str, int] = field(default_factory=dict)
    seen_guilds: set[int] = field(default_factory=set)
    expected: Counter[tuple[int, str]] = field(default_factory=Counter)
    fortune: dict[str, int] = field(default_factory=dict)


async def _shard(url: str, run: ShardRun, barrier: threading.Barrier) -> None:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_url=url, shard_count=SHARDS, shard_ids=[run.shard_id]
    )
    bot = create_bot(settings, rng=random.Random(1000 + run.shard_id))
    # One application: its commands are synced once (the digest is shared in the database),
    # so the shard that skips the sync still finds them, as on Discord.
    env = Env(bot, strict_sync=False)
    await env.start()
    try:
        if run.shard_id:
            await env.advance_time(86_400)
        owner = env.create_user(f"owner{run.shard_id}")
        guild = env.create_guild(f"Server {run.shard_id}", shard_id=run.shard_id, owner=owner)
        admin = guild.add_member(owner)
        table = guild.create_text_channel("table")
        players = {
            name: guild.add_member(env.create_user(f"{name}{run.shard_id}"))
            for name in ("alice", "bob")
        }
        run.guild_id, run.channel_id = guild.id, table.id
        run.users = {name: m.id for name, m in players.items()}
        setup = await admin.slash(table, "campaign setup", system="roll-under")
        assert setup.response is not None and "Campaign created" in setup.response.content
        for name, member in players.items():
            await member.slash(table, "character create", name=f"{name.title()} {run.shard_id}")
            await member.slash(table, "character set", ability="AGI", value=12)
        campaign_id, ids = await _campaign(bot.db, table.id)
        run.seen_guilds = {g.id for g in bot.guilds}
        barrier.wait(timeout=60)  # both shards roll from here on, at the same time
        for i in range(ROUNDS):
            rolled = await players["alice"].slash(table, "roll", dice="1d20+2")
            assert rolled.response is not None and not rolled.ephemeral
            run.expected[(run.users["alice"], "roll")] += 1
            checked = await players["bob"].slash(table, "check", ability="agi")
            assert checked.response is not None and not checked.ephemeral
            run.expected[(run.users["bob"], "save")] += 1  # a roll-under check is a save
            # Fortune dice through the services (what the fortune buttons call).
            origin = Origin(channel_id=table.id, user_id=run.users["alice"], guild_id=guild.id)
            if i % 2 == 0:
                await fortune.give_fortune(bot.db, ids["alice"], origin)
                run.expected[(run.users["alice"], "fortune")] += 1
            elif i < ROUNDS - 1:
                await fortune.spend_fortune(bot.db, ids["alice"], origin, "hint")
                run.expected[(run.users["alice"], "fortune")] += 1
            await asyncio.sleep(0)
        run.fortune = {"alice": 1, "bob": 0}  # gained 3, spent 2
        assert campaign_id
    finally:
        await env.shutdown()
        await bot.close_database()  # SimCord detaches the bot without closing it


async def _campaign(db: Database, channel_id: int) -> tuple[int, dict[str, int]]:
    async with db.engine.connect() as conn:
        campaign_id = await conn.scalar(
            select(campaigns.c.id).where(campaigns.c.channel_id == channel_id)
        )
        rows = (
            await conn.execute(
                select(characters.c.id, characters.c.name).where(
                    characters.c.campaign_id == campaign_id
                )
            )
        ).all()
    return int(campaign_id or 0), {r.name.split()[0].lower(): r.id for r in rows}


def _thread(
    url: str, run: ShardRun, barrier: threading.Barrier, errors: list[BaseException]
) -> None:
    try:
        asyncio.run(_shard(url, run, barrier))
    except BaseException as exc:  # reported by the test thread
        barrier.abort()
        errors.append(exc)


async def test_two_shard_processes_share_one_database_and_keep_every_row_in_place(
    db: Database, db_url: str
) -> None:
    runs = [ShardRun(shard_id) for shard_id in range(SHARDS)]
    barrier = threading.Barrier(SHARDS)
    errors: list[BaseException] = []
    threads = [
        threading.Thread(target=_thread, args=(db_url, run, barrier, errors), name=f"shard-{i}")
        for i, run in enumerate(runs)
    ]
    for thread in threads:
        thread.start()
    await asyncio.to_thread(lambda: [t.join(timeout=300) for t in threads])
    if errors:
        raise errors[0]

    async with db.engine.connect() as conn:
        rows = (await conn.execute(select(ledger))).mappings().all()
        places = {
            r.id: (r.guild_id, r.channel_id) for r in (await conn.execute(select(campaigns))).all()
        }
        sheets = (await conn.execute(select(characters))).mappings().all()
    assert len(places) == SHARDS
    for run in runs:
        # Discord put the guild on this shard, and only this shard's bot saw it.
        assert (run.guild_id >> 22) % SHARDS == run.shard_id
        assert run.seen_guilds == {run.guild_id}
        [campaign_id] = [cid for cid, place in places.items() if place[0] == run.guild_id]
        assert places[campaign_id] == (run.guild_id, run.channel_id)
        mine = [r for r in rows if r["guild_id"] == run.guild_id]
        assert Counter((r["user_id"], r["kind"]) for r in mine) == run.expected
        assert all(r["channel_id"] == run.channel_id for r in mine)
        assert all(r["campaign_id"] == campaign_id for r in mine)
        own = {c["id"]: c for c in sheets if c["campaign_id"] == campaign_id}
        for r in mine:
            if r["kind"] == "roll":
                continue  # plain dice rolls are not tied to a character
            assert r["character_id"] in own
            assert own[r["character_id"]]["user_id"] == r["user_id"]
        fortune_now = {c["name"].split()[0].lower(): c["fortune"] for c in own.values()}
        assert fortune_now == run.fortune
    assert len(rows) == sum(sum(run.expected.values()) for run in runs)
    interactions = [r["interaction_id"] for r in rows if r["interaction_id"] is not None]
    assert len(interactions) == len(set(interactions))
