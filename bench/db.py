"""Database benchmark: the check transaction, concurrent throughput, the ledger at 1M rows.

Run from the repo root: ``.venv/bin/python bench/db.py`` (``--rows``, ``--checks``,
``--no-postgres``). SQLite uses a temp file; PostgreSQL (``TEST_DATABASE_URL`` or the local
server) uses a throwaway database ``pbp_bench`` that is dropped afterwards. Prints a markdown
table. Not a test: the numbers depend on the machine.

A "check" is what the bot does per /check (``bot.services.rolling.checks._perform``): one
transaction, opened as the bot opens it (``transaction(db)``, an ORM session), that reads the
channel's campaign and the caller's active character (with scores and proficiencies), records
the ledger row and updates the fortune counter atomically. The same transaction on a Core
connection is measured too. The engine is ``create_database(url)`` as the bot builds it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url

from bot.db.engine import Database, create_database
from bot.db.migrate import upgrade_to_head
from bot.services.kit.sql import core_transaction, transaction
from bot.services.store.campaigns import campaign_for_channel_in, setup_campaign
from bot.services.store.characters import (
    create_character,
    resolve_character_in,
    set_proficiency,
    set_score,
)
from bot.services.store.fortune import gain_fortune_in, spend_fortune_in
from bot.services.store.ledger import NewRoll, Origin, latest_rolls_in, record_in
from bot.words import LedgerKind

USERS = 50
GUILD = 10**17
_interaction = iter(range(10**18, 10**18 + 10**9))


def pct(samples: list[float], q: float) -> float:
    """The q-th quantile (0..1) of samples, in milliseconds."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _roll(campaign_id: int, character_id: int, name: str, channel_id: int, user_id: int) -> NewRoll:
    return NewRoll(
        origin=Origin(
            channel_id=channel_id,
            user_id=user_id,
            guild_id=GUILD,
            interaction_id=next(_interaction),
        ),
        kind=LedgerKind.CHECK,
        request="/check STR dc:15",
        dice=[{"sides": 20, "value": 17}],
        outcome={"total": 20, "dc": 15, "success": True},
        campaign_id=campaign_id,
        character_id=character_id,
        character_name=name,
    )


async def _check_in(session: Any, channel_id: int, user_id: int) -> None:
    # The same building blocks as bot.services.rolling.checks._perform: the channel's campaign, the
    # caller's active character (scores, proficiencies...), the ledger row; then a counter.
    campaign = await campaign_for_channel_in(session, GUILD, channel_id, None)
    character = await resolve_character_in(session, campaign.id, user_id, None)
    recorded = await record_in(
        session, _roll(campaign.id, character.id, character.name, channel_id, user_id)
    )
    assert not recorded.duplicate
    if character.fortune < character.fortune_max:
        await gain_fortune_in(session, character.id, strict=False)
    else:
        await spend_fortune_in(session, character.id)


async def check(db: Database, channel_id: int, user_id: int) -> None:
    """One check transaction as the bot runs it: ``transaction(db)``, an ORM session."""
    async with transaction(db) as session:
        await _check_in(session, channel_id, user_id)


async def check_core(db: Database, channel_id: int, user_id: int) -> None:
    """The same on a Core connection (``core_transaction``, what ``_perform`` could use)."""
    async with core_transaction(db) as connection:
        await _check_in(connection, channel_id, user_id)


async def setup(db: Database) -> list[tuple[int, int, int]]:
    """One campaign and character per user; returns (campaign id, channel id, user id)."""
    players = []
    for i in range(USERS):
        campaign = await setup_campaign(db, GUILD, 1000 + i, "d20-check")
        pc = await create_character(db, campaign.id, 5000 + i, f"PC {i}", level=5)
        await set_score(db, pc.id, "STR", 16)
        await set_proficiency(db, pc.id, "Athletics", degree=1)
        players.append((campaign.id, 1000 + i, 5000 + i))
    return players


FILL_SQLITE = """
WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < :rows)
INSERT INTO ledger (campaign_id, character_id, character_name, guild_id, channel_id, user_id,
    interaction_id, kind, request, dice, outcome, visibility, created_at)
SELECT (x % :users) + 1, (x % :users) + 1, 'PC', :guild, 1000 + x % :users, 5000 + x % :users,
    :base + x, 'check', '/check STR dc:15', '[{"sides": 20, "value": 17}]',
    '{"total": 20, "dc": 15, "success": true}', 'public', '2026-01-01 00:00:00.000000'
FROM n
"""
FILL_PG = """
INSERT INTO ledger (campaign_id, character_id, character_name, guild_id, channel_id, user_id,
    interaction_id, kind, request, dice, outcome, visibility, created_at)
SELECT (x % :users) + 1, (x % :users) + 1, 'PC', CAST(:guild AS BIGINT),
    1000 + x % :users, 5000 + x % :users,
    CAST(:base AS BIGINT) + x, 'check', '/check STR dc:15', '[{"sides": 20, "value": 17}]',
    '{"total": 20, "dc": 15, "success": true}', 'public', now()
FROM generate_series(1, :rows) AS x
"""


async def ledger_bytes(db: Database) -> tuple[float, str]:
    """Bytes the ledger table and its indexes take per row."""
    async with db.engine.connect() as conn:
        rows = (await conn.execute(text("SELECT count(*) FROM ledger"))).scalar_one()
        if db.dialect == "postgresql":
            await conn.execute(text("VACUUM ANALYZE ledger").execution_options())
            size = (
                await conn.execute(text("SELECT pg_total_relation_size('ledger')"))
            ).scalar_one()
            return size / rows, "pg_total_relation_size"
        try:
            size = (
                await conn.execute(
                    text(
                        "SELECT sum(pgsize) FROM dbstat WHERE name IN "
                        "(SELECT name FROM sqlite_master WHERE tbl_name = 'ledger')"
                    )
                )
            ).scalar_one()
            return size / rows, "dbstat (table + indexes)"
        except Exception:  # dbstat not compiled in
            pages = (await conn.exec_driver_sql("PRAGMA page_count")).scalar_one()
            page = (await conn.exec_driver_sql("PRAGMA page_size")).scalar_one()
            return pages * page / rows, "file size / rows"


async def run(url: str, rows: int, checks: int) -> dict[str, Any]:
    """Every measurement on one database."""
    await upgrade_to_head(url)
    # The bot's own configuration (bot.app builds it the same way), nothing tuned for the bench.
    db = create_database(url)
    out: dict[str, Any] = {}
    try:
        players = await setup(db)
        _, channel_id, user_id = players[0]
        for key, run_check in (("check", check), ("core", check_core)):
            for _ in range(200):  # warm up connections, statement caches
                await run_check(db, channel_id, user_id)
            samples = []
            for _ in range(checks):
                start = time.perf_counter()
                await run_check(db, channel_id, user_id)
                samples.append(time.perf_counter() - start)
            out[f"{key}_p50"] = pct(samples, 0.5)
            out[f"{key}_p99"] = pct(samples, 0.99)

        per_user = max(20, checks // USERS)

        async def user(player: tuple[int, int, int]) -> None:
            for _ in range(per_user):
                await check(db, player[1], player[2])

        start = time.perf_counter()
        await asyncio.gather(*(user(p) for p in players))
        out["throughput"] = USERS * per_user / (time.perf_counter() - start)

        start = time.perf_counter()
        async with db.engine.begin() as conn:
            await conn.execute(
                text(FILL_PG if db.dialect == "postgresql" else FILL_SQLITE),
                {"rows": rows, "users": USERS, "guild": GUILD, "base": 2 * 10**18},
            )
        out["fill_s"] = time.perf_counter() - start
        if db.dialect == "postgresql":
            async with db.engine.connect() as conn:
                await conn.execution_options(isolation_level="AUTOCOMMIT")
                await conn.execute(text("VACUUM ANALYZE ledger"))
        else:
            async with db.engine.begin() as conn:
                await conn.execute(text("ANALYZE"))
        async with db.engine.connect() as conn:
            out["rows"] = (await conn.execute(text("SELECT count(*) FROM ledger"))).scalar_one()

        samples = []
        for i in range(300):
            start = time.perf_counter()
            async with db.engine.begin() as session:
                latest = await latest_rolls_in(session, players[i % USERS][0], limit=20)
            samples.append(time.perf_counter() - start)
            assert len(latest) == 20
        out["latest_p50"] = pct(samples, 0.5)
        out["latest_p99"] = pct(samples, 0.99)
        if db.dialect == "postgresql":
            async with db.engine.connect() as conn:
                await conn.execution_options(isolation_level="AUTOCOMMIT")
                size = (
                    await conn.execute(text("SELECT pg_total_relation_size('ledger')"))
                ).scalar_one()
            out["bytes"], out["bytes_how"] = size / out["rows"], "pg_total_relation_size"
        else:
            out["bytes"], out["bytes_how"] = await ledger_bytes(db)
    finally:
        await db.dispose()
    return out


async def pg_admin(url: str, sql: str) -> None:
    """Run one statement on the server's maintenance database, outside a transaction."""
    admin = create_database(make_url(url).set(database="postgres"))
    try:
        async with admin.engine.connect() as conn:
            await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text(sql))
    finally:
        await admin.dispose()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="ledger rows to fill")
    parser.add_argument("--checks", type=int, default=3000, help="timed check transactions")
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()

    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite3'}"
        results["SQLite"] = await run(url, args.rows, args.checks)

    notes = []
    if not args.no_postgres:
        base = (
            os.environ.get("TEST_DATABASE_URL")
            or "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
        )
        bench_url = make_url(base).set(database="pbp_bench").render_as_string(hide_password=False)
        try:
            await pg_admin(base, "DROP DATABASE IF EXISTS pbp_bench")
            await pg_admin(base, "CREATE DATABASE pbp_bench")
        except Exception as exc:  # no server: say so and go on
            notes.append(f"PostgreSQL skipped: {type(exc).__name__}: {exc}")
        else:
            try:
                results["PostgreSQL"] = await run(bench_url, args.rows, args.checks)
            finally:
                await pg_admin(base, "DROP DATABASE IF EXISTS pbp_bench")

    print(
        f"`{' '.join(shlex.quote(a) for a in ['.venv/bin/python', 'bench/db.py', *sys.argv[1:]])}`"
    )
    print()
    names = list(results)
    print("| measure | " + " | ".join(names) + " | target (SQLite) |")
    print("|---|" + "---|" * len(names) + "---|")
    table = [
        ("check transaction p50 (as the bot: ORM session)", "check_p50", "{:.3f} ms", "<= 1 ms"),
        ("check transaction p99 (as the bot: ORM session)", "check_p99", "{:.3f} ms", "<= 3 ms"),
        ("check transaction p50 (Core connection)", "core_p50", "{:.3f} ms", ""),
        ("check transaction p99 (Core connection)", "core_p99", "{:.3f} ms", ""),
        (f"checks/s, {USERS} concurrent users", "throughput", "{:,.0f}", ">= 1,000"),
        ("ledger rows", "rows", "{:,}", ""),
        ("fill time (one INSERT ... SELECT)", "fill_s", "{:.1f} s", ""),
        ("latest 20 of a campaign, p50", "latest_p50", "{:.3f} ms", "<= 2 ms"),
        ("latest 20 of a campaign, p99", "latest_p99", "{:.3f} ms", ""),
        ("bytes per ledger row (incl. indexes)", "bytes", "{:.0f}", ""),
    ]
    for label, key, fmt, target in table:
        cells = [fmt.format(results[n][key]) for n in names]
        print(f"| {label} | " + " | ".join(cells) + f" | {target} |")
    print()
    print(
        f"Timed checks: {args.checks} sequential after 200 warm-up; bytes: "
        + ", ".join(f"{n} via {results[n]['bytes_how']}" for n in names)
        + "."
    )
    for note in notes:
        print(note)


if __name__ == "__main__":
    asyncio.run(main())
