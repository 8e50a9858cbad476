"""The durable scheduler: exactly once across processes, shard-aware, effects with the stamp."""

from __future__ import annotations

import asyncio
import random
import threading
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database, create_database
from bot.db.models import bot_state, scheduled_jobs
from bot.services.kit.clock import ManualClock, parse_duration
from bot.services.kit.sql import transaction
from bot.services.table import scheduler

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
#: A guild id Discord places on shard 1 of 2: (id >> 22) % 2 == 1.
GUILD_ON_SHARD_1 = (12345 << 22) | 7
GUILD_ON_SHARD_0 = (12344 << 22) | 7


async def _mark(session: AsyncSession, job: scheduler.Job, context: scheduler.JobContext) -> str:
    """A job's effect: one bot_state row per run (a second run would add a second row)."""
    run = uuid.uuid4().hex
    await session.execute(
        bot_state.insert().values(
            key=f"ran:{job.id}:{run}", value=str(job.payload["n"]), updated_at=T0
        )
    )
    return f"job {job.payload['n']}"


class Boom(RuntimeError):
    pass


async def _boom(session: AsyncSession, job: scheduler.Job, context: scheduler.JobContext) -> None:
    await session.execute(bot_state.insert().values(key=f"boom:{job.id}", value="x", updated_at=T0))
    raise Boom("handler failed")


OWNED_ATTEMPTS: list[int] = []


async def _owned(session: AsyncSession, job: scheduler.Job, context: scheduler.JobContext) -> str:
    """A job that locks the row it belongs to, as a request's deadline locks the request."""
    owner = job.payload["owner"]
    OWNED_ATTEMPTS.append(job.id)  # kept even when the attempt rolls back
    await session.execute(select(bot_state.c.key).where(bot_state.c.key == owner).with_for_update())
    await session.execute(bot_state.insert().values(key=f"ran:{job.id}", value="x", updated_at=T0))
    return "owned"


scheduler.register("test.mark", _mark)
scheduler.register("test.boom", _boom)
scheduler.register("test.owned", _owned, owner=lambda payload: (bot_state, payload["owner"]))


async def _schedule(db: Database, n: int, due: datetime, guild_id: int | None = None) -> None:
    async with transaction(db) as session:
        for i in range(n):
            await scheduler.schedule_in(
                session, "test.mark", due, {"n": i}, guild_id=guild_id, key=f"t:{i}"
            )


async def _count(db: Database, key_prefix: str) -> int:
    async with transaction(db) as session:
        stmt = select(func.count()).where(bot_state.c.key.like(f"{key_prefix}%"))
        return int((await session.execute(stmt)).scalar_one())


async def test_a_job_runs_once_when_due_and_never_before(db: Database) -> None:
    await _schedule(db, 1, T0 + timedelta(hours=2))
    assert await scheduler.run_due(db, T0, random.Random(1)) == []
    assert await scheduler.next_due(db) == T0 + timedelta(hours=2)
    ran = await scheduler.run_due(db, T0 + timedelta(hours=3), random.Random(1))
    assert [r.notice for r in ran] == ["job 0"]
    assert await scheduler.run_due(db, T0 + timedelta(days=9), random.Random(1)) == []
    assert await _count(db, "ran:") == 1
    assert await scheduler.next_due(db) is None


async def test_a_failing_handler_leaves_no_effect_and_is_retried_then_given_up(
    db: Database,
) -> None:
    async with transaction(db) as session:
        await scheduler.schedule_in(session, "test.boom", T0, {}, guild_id=None)
    now = T0
    for attempt in range(1, scheduler.MAX_ATTEMPTS + 1):
        assert await scheduler.run_due(db, now, random.Random(1)) == []
        assert await _count(db, "boom:") == 0  # rolled back with the failed attempt
        async with transaction(db) as session:
            row = (await session.execute(select(scheduled_jobs))).one()
        assert row.attempts == attempt and row.last_error == "Boom"
        now = row.due_at if row.state == "pending" else now
        assert row.due_at > T0 or row.state == "failed"
    assert row.state == "failed"
    assert await scheduler.next_due(db) is None


async def test_move_and_cancel_act_on_pending_jobs_by_key(db: Database) -> None:
    await _schedule(db, 2, T0)
    async with transaction(db) as session:
        assert await scheduler.move_in(session, "t:0", T0 + timedelta(days=1)) == 1
        assert await scheduler.cancel_in(session, "t:1", T0) == 1
    assert await scheduler.run_due(db, T0 + timedelta(hours=1), random.Random(1)) == []
    ran = await scheduler.run_due(db, T0 + timedelta(days=1), random.Random(1))
    assert [r.notice for r in ran] == ["job 0"]


async def test_a_job_of_another_shards_guild_is_left_to_that_shard(db: Database) -> None:
    await _schedule(db, 1, T0, guild_id=GUILD_ON_SHARD_1)
    shard0 = scheduler.Shards(count=2, ids=(0,))
    shard1 = scheduler.Shards(count=2, ids=(1,))
    assert await scheduler.next_due(db, shard0) is None
    assert await scheduler.run_due(db, T0, random.Random(1), shards=shard0) == []
    assert len(await scheduler.run_due(db, T0, random.Random(1), shards=shard1)) == 1
    assert shard1.owns(GUILD_ON_SHARD_1) and not shard0.owns(GUILD_ON_SHARD_1)
    assert shard0.owns(GUILD_ON_SHARD_0) and shard0.owns(None)


async def test_two_schedulers_on_one_database_run_each_due_job_exactly_once(
    db_url: str, db: Database
) -> None:
    """Two engines (two processes' pools) poll the same due jobs at the same moment."""
    await _schedule(db, 60, T0)
    first, second = create_database(db_url), create_database(db_url)
    try:
        ran = await asyncio.gather(
            scheduler.run_due(first, T0, random.Random(1)),
            scheduler.run_due(second, T0, random.Random(2)),
        )
    finally:
        await first.dispose()
        await second.dispose()
    ids = [r.job.id for batch in ran for r in batch]
    assert len(ids) == 60 and len(set(ids)) == 60
    assert await _count(db, "ran:") == 60


def _process(url: str, barrier: threading.Barrier, out: list[int]) -> None:
    async def run() -> None:
        database = create_database(url)
        try:
            barrier.wait(timeout=30)
            for _ in range(5):
                out.extend(r.job.id for r in await scheduler.run_due(database, T0, random.Random()))
                await asyncio.sleep(0)
        finally:
            await database.dispose()

    asyncio.run(run())


async def test_two_processes_polling_the_same_due_job_one_runs_it(
    db_url: str, db: Database
) -> None:
    """Each "process" has its own event loop, engine and pool (threads stand in for
    processes); both wake at the same instant for one due job."""
    await _schedule(db, 1, T0)
    barrier = threading.Barrier(2)
    outs: list[list[int]] = [[], []]
    threads = [threading.Thread(target=_process, args=(db_url, barrier, outs[i])) for i in range(2)]
    for t in threads:
        t.start()
    await asyncio.get_running_loop().run_in_executor(None, lambda: [t.join(60) for t in threads])
    assert len(outs[0] + outs[1]) == 1
    assert await _count(db, "ran:") == 1


def test_durations_in_the_players_words() -> None:
    assert parse_duration("90m") == timedelta(minutes=90)
    assert parse_duration("24h") == timedelta(hours=24)
    assert parse_duration("2d") == timedelta(days=2)
    assert parse_duration("1d12h") == timedelta(hours=36)
    assert parse_duration("30d") == timedelta(days=30)
    for bad in ("", "12", "h", "1h1d", "soon", "-5m", "31d", "0m", "1.5h"):
        try:
            parse_duration(bad)
        except Exception as exc:
            assert type(exc).__name__ == "InvalidValue", bad
        else:
            raise AssertionError(f"{bad!r} was accepted")


def test_manual_clock_moves_only_when_told() -> None:
    clock = ManualClock(T0)
    assert clock.now() == T0
    clock.advance(90)
    assert clock.now() == T0 + timedelta(seconds=90)


async def test_a_failing_job_in_a_batch_delays_none_of_the_others(db: Database) -> None:
    await _schedule(db, 120, T0)
    async with transaction(db) as session:
        await scheduler.schedule_in(session, "test.boom", T0, {}, guild_id=None)
    await _schedule(db, 5, T0)  # after the failing one, in the same batch
    ran = await scheduler.run_due(db, T0, random.Random(1))
    assert len(ran) == 125 and len({r.job.id for r in ran}) == 125
    assert await _count(db, "ran:") == 125 and await _count(db, "boom:") == 0
    async with transaction(db) as session:
        boom = (
            await session.execute(
                select(scheduled_jobs).where(scheduled_jobs.c.kind == "test.boom")
            )
        ).one()
    assert boom.state == "pending" and boom.attempts == 1 and boom.due_at > T0


async def test_a_retry_never_overwrites_a_due_time_moved_meanwhile(db: Database) -> None:
    # A handler failed; before its retry is recorded, the GM extends the deadline (the job
    # moves a day on). The retry must not put it back to "in a minute".
    async with transaction(db) as session:
        await scheduler.schedule_in(session, "test.boom", T0, {}, guild_id=None, key="b")
        row = (await session.execute(select(scheduled_jobs))).one()
    job = scheduler.Job(row.id, row.kind, row.key, {}, None, row.due_at, row.attempts)
    async with transaction(db) as session:
        assert await scheduler.move_in(session, "b", T0 + timedelta(days=1)) == 1
    await scheduler._record_failure(db, job, T0, Boom("handler failed"))
    assert await scheduler.pending(db, "b") == [T0 + timedelta(days=1)]


async def test_a_job_waits_for_its_owner_row_then_runs(db: Database) -> None:
    # Lock order: the owner row (request, turn order), then its jobs, everywhere. A GM's
    # /extend holds the request and then moves its deadline job; a runner that claimed the
    # job first and then waited for the request deadlocked with it on PostgreSQL, and the
    # job's attempt failed. Now the runner waits for the owner, then runs the job.
    OWNED_ATTEMPTS.clear()
    async with transaction(db) as session:
        await session.execute(bot_state.insert().values(key="owner:1", value="x", updated_at=T0))
        await scheduler.schedule_in(
            session, "test.owned", T0, {"owner": "owner:1"}, guild_id=None, key="o:1"
        )
    async with transaction(db) as session:
        stmt = select(bot_state.c.key).where(bot_state.c.key == "owner:1").with_for_update()
        await session.execute(stmt)
        runner = asyncio.create_task(scheduler.run_due(db, T0, random.Random(1)))
        await asyncio.sleep(0.5)  # the runner is polling now, waiting for the owner row
        # Still due after the move: the runner must run it once the owner is free.
        assert await scheduler.move_in(session, "o:1", T0 - timedelta(minutes=1)) == 1
    assert [r.notice for r in await runner] == ["owned"]
    assert len(OWNED_ATTEMPTS) == 1  # one attempt: none broken by a deadlock and rerun
    async with transaction(db) as session:
        row = (await session.execute(select(scheduled_jobs))).one()
    assert row.state == "done" and row.attempts == 1 and row.last_error is None
    assert await _count(db, "ran:") == 1
