"""Game clock benchmark: the scheduler's idle cost and due→done time for 10,000 due jobs.

Run from the repo root: ``.venv/bin/python bench/scheduler.py`` (``--jobs``, ``--guilds``,
``--no-postgres``). SQLite uses a temp file; PostgreSQL (``TEST_DATABASE_URL``'s server, or the
local one) a throwaway database ``pbp_bench_scheduler``, dropped afterwards. Prints a markdown
table. Not a test: the numbers depend on the machine.

A "pass" is what the clock cog (bot/cogs/clock) does each time its loop wakes:
``scheduler.run_due`` (claims and runs due jobs, one transaction each, until none is due) then
``scheduler.next_due`` (when to wake next). Idle, the loop wakes only at the next due job or
after ``SCHEDULER_POLL_SECONDS`` (default 3600; a process wakes itself for the jobs it
schedules), so idle queries per minute = statements per idle pass x passes per minute.

The jobs run a small handler like the clock's own (one INSERT in the job's transaction), claimed
and run ``scheduler.BATCH`` per transaction. Due
→ done is the wall time from the start of the pass (every job already due) to each job's
commit. "2 shard processes": two engines (two pools) on one event loop, each serving one of
two shards (``Shards(2, (k,))``), both started at once.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shlex
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database, create_database
from bot.db.migrate import upgrade_to_head
from bot.db.models import bot_state
from bot.services.kit.sql import transaction
from bot.services.table import scheduler

T0 = datetime(2026, 6, 1, tzinfo=UTC)
BATCH = 500  # the clock cog's BATCH
PG_DB = "pbp_bench_scheduler"
_done: dict[int, float] = {}


async def _touch(session: AsyncSession, job: scheduler.Job, context: scheduler.JobContext) -> None:
    await session.execute(
        bot_state.insert().values(key=f"bench:{job.id}", value="1", updated_at=context.now)
    )
    _done[job.id] = time.perf_counter()


scheduler.register("bench.touch", _touch)


def _guild(i: int) -> int:
    """Distinct snowflake-like guild ids, spread over the shards by Discord's formula."""
    return ((10**6 + i) << 22) | 1


async def _fill(db: Database, jobs: int, guilds: int, due: datetime) -> None:
    async with transaction(db) as session:
        rows = [
            {
                "kind": "bench.touch",
                "key": None,
                "payload": {},
                "guild_id": _guild(i % guilds),
                "due_at": due,
                "state": "pending",
                "attempts": 0,
                "created_at": T0,
            }
            for i in range(jobs)
        ]
        for start in range(0, len(rows), 1000):
            await session.execute(scheduler.scheduled_jobs.insert(), rows[start : start + 1000])


async def _reset(db: Database) -> None:
    async with db.engine.begin() as conn:
        if db.dialect == "postgresql":  # no dead rows left for the next measure to skip over
            await conn.execute(text("TRUNCATE scheduled_jobs, bot_state"))
        else:
            await conn.execute(text("DELETE FROM scheduled_jobs"))
            await conn.execute(text("DELETE FROM bot_state"))
    _done.clear()


class Counter:
    """Statements sent on an engine (the idle cost in queries)."""

    def __init__(self, db: Database) -> None:
        self.count = 0
        event.listen(db.engine.sync_engine, "before_cursor_execute", self._on)

    def _on(self, *args: Any) -> None:
        self.count += 1


async def _pass(db: Database, shards: scheduler.Shards, now: datetime) -> int:
    ran = 0
    while True:
        done = await scheduler.run_due(db, now, random.Random(1), shards=shards, limit=BATCH)
        ran += len(done)
        if len(done) < BATCH:
            break
    await scheduler.next_due(db, shards)
    return ran


async def _idle(db: Database, counter: Counter, future_jobs: int) -> tuple[float, float]:
    """Statements and median milliseconds of an idle pass (``future_jobs`` pending later)."""
    await _reset(db)
    if future_jobs:
        await _fill(db, future_jobs, 1000, T0 + timedelta(days=1))
    for _ in range(20):
        await _pass(db, scheduler.Shards(), T0)
    times = []
    before = counter.count
    for _ in range(200):
        started = time.perf_counter()
        await _pass(db, scheduler.Shards(), T0)
        times.append(time.perf_counter() - started)
    return (counter.count - before) / 200, statistics.median(times) * 1000


async def _drain(
    url: str, jobs: int, guilds: int, processes: int
) -> tuple[float, float, float, float]:
    """Seconds until all done, jobs/s, p50 and p99 due→done in seconds."""
    main = create_database(url)
    try:
        await _reset(main)
        await _fill(main, jobs, guilds, T0)
    finally:
        await main.dispose()
    dbs = [create_database(url) for _ in range(processes)]
    try:
        shards = (
            [scheduler.Shards()]
            if processes == 1
            else [scheduler.Shards(processes, (k,)) for k in range(processes)]
        )
        started = time.perf_counter()
        counts = await asyncio.gather(*(_pass(d, s, T0) for d, s in zip(dbs, shards, strict=True)))
        took = time.perf_counter() - started
    finally:
        for d in dbs:
            await d.dispose()
    assert sum(counts) == jobs, (counts, jobs)
    waits = sorted(t - started for t in _done.values())
    return (
        took,
        jobs / took,
        waits[len(waits) // 2],
        waits[min(len(waits) - 1, int(0.99 * len(waits)))],
    )


async def run(url: str, jobs: int, guilds: int) -> dict[str, Any]:
    await upgrade_to_head(url)
    db = create_database(url)
    counter = Counter(db)
    out: dict[str, Any] = {}
    try:
        out["idle_q"], out["idle_ms"] = await _idle(db, counter, 0)
        out["idle_q_future"], out["idle_ms_future"] = await _idle(db, counter, jobs)
        await _reset(db)
    finally:
        await db.dispose()
    out["one_guild"] = await _drain(url, jobs, 1, 1)
    out["many_guilds"] = await _drain(url, jobs, guilds, 1)
    out["many_guilds_2"] = await _drain(url, jobs, guilds, 2)
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
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--guilds", type=int, default=1_000)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()

    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'bench.sqlite3'}"
        results["SQLite"] = await run(url, args.jobs, args.guilds)
    notes = []
    if not args.no_postgres:
        base = (
            os.environ.get("TEST_DATABASE_URL")
            or "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
        )
        bench_url = make_url(base).set(database=PG_DB).render_as_string(hide_password=False)
        try:
            await pg_admin(base, f"DROP DATABASE IF EXISTS {PG_DB}")
            await pg_admin(base, f"CREATE DATABASE {PG_DB}")
        except Exception as exc:  # no server: say so and go on
            notes.append(f"PostgreSQL skipped: {type(exc).__name__}: {exc}")
        else:
            try:
                results["PostgreSQL"] = await run(bench_url, args.jobs, args.guilds)
            finally:
                await pg_admin(base, f"DROP DATABASE IF EXISTS {PG_DB}")

    command = [".venv/bin/python", "bench/scheduler.py", *sys.argv[1:]]
    print(f"`{' '.join(shlex.quote(a) for a in command)}`")
    print()
    names = list(results)
    print("| measure | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))

    def row(label: str, cell: Any) -> None:
        print(f"| {label} | " + " | ".join(cell(results[n]) for n in names) + " |")

    row("statements per idle pass (no job pending)", lambda r: f"{r['idle_q']:.0f}")
    row("idle pass, median (no job pending)", lambda r: f"{r['idle_ms']:.2f} ms")
    row(
        f"idle pass, median ({args.jobs:,} jobs pending tomorrow)",
        lambda r: f"{r['idle_ms_future']:.2f} ms",
    )
    row("idle queries per minute, default poll (3600 s)", lambda r: f"{r['idle_q'] / 60:.3f}")
    row("idle queries per minute, if SCHEDULER_POLL_SECONDS=30", lambda r: f"{r['idle_q'] * 2:.0f}")
    for key, label in (
        ("one_guild", f"{args.jobs:,} due jobs, one guild, one process"),
        ("many_guilds", f"{args.jobs:,} due jobs, {args.guilds:,} guilds, one process"),
        ("many_guilds_2", f"{args.jobs:,} due jobs, {args.guilds:,} guilds, 2 shard processes"),
    ):
        row(f"{label}: all done", lambda r, k=key: f"{r[k][0]:.1f} s ({r[k][1]:,.0f} jobs/s)")
        row(
            f"{label}: due→done p50 / p99",
            lambda r, k=key: f"{r[k][2]:.1f} s / {r[k][3]:.1f} s",
        )
    for note in notes:
        print()
        print(note)


if __name__ == "__main__":
    asyncio.run(main())
