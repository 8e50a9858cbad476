"""The durable scheduler: jobs in the database, run exactly once by whichever process claims
them first.

A job (due time, kind, JSON payload, state) is created with :func:`schedule_in` inside the
transaction of what it belongs to, so a roll request and its deadline exist together or not
at all. :func:`run_due` claims one due job at a time with ``SELECT ... FOR UPDATE SKIP
LOCKED`` (PostgreSQL: another process polling the same moment skips the locked row and takes
the next) and runs its handler in that same transaction, which also stamps the job ``done``:
the job's effects and its ``done`` commit together or not at all, so a crash mid-job leaves
it pending for the next poll, and no two processes ever both run it. SQLite has one writer at
a time (every transaction here is ``BEGIN IMMEDIATE``), which serialises the claims the same
way.

A job due while the bot was down is simply due at start-up: the first poll runs it, once.
A job carries its guild, and a shard process claims only jobs of guilds Discord places on its
own shards (``(guild_id >> 22) % shard_count``), so what it posts goes through a gateway that
has the guild. Handlers return plain notices (what to post); the cog layer delivers them after
the commit (bot/cogs/clock).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Table, and_, literal_column, or_, select, true, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import scheduled_jobs
from bot.db.types import utcnow
from bot.services.kit.personal import PersonalData, declare
from bot.services.kit.sql import transaction
from bot.words import JobState

log = logging.getLogger(__name__)

_J = scheduled_jobs

#: Attempts before a job whose handler keeps raising is given up (state ``failed``).
MAX_ATTEMPTS = 5
#: How long a failed attempt waits before the next one, times the attempt number.
RETRY_AFTER = timedelta(minutes=1)


@dataclass(frozen=True, slots=True)
class Job:
    """A claimed job, as its handler sees it."""

    id: int
    kind: str
    key: str | None
    payload: dict[str, Any]
    guild_id: int | None
    due_at: datetime
    attempts: int


@dataclass(frozen=True, slots=True)
class JobContext:
    """What a handler may use besides its transaction: the time it runs at, the dice."""

    now: datetime
    rng: random.Random


#: A handler runs inside the claiming transaction; what it returns is delivered after commit.
Handler = Callable[[AsyncSession, Job, JobContext], Awaitable[object | None]]

_HANDLERS: dict[str, Handler] = {}

#: The row a job belongs to (a roll request, a turn order): its table and primary key.
Owner = Callable[[dict[str, Any]], tuple[Table, Any] | None]
_OWNERS: dict[str, Owner] = {}


def owned_by(table: Table, field: str) -> Owner:
    """The :data:`Owner` of jobs whose payload's ``field`` is the id of their row in ``table``."""
    return lambda payload: (table, int(payload[field]))


def register(kind: str, handler: Handler, *, owner: Owner | None = None) -> None:
    """Make ``handler`` run the jobs of ``kind`` (services register theirs at import).

    ``owner``: the row the handler locks. The runner locks it BEFORE the job row, the order
    every other writer uses (lock the request or turn order, then move or cancel its jobs);
    the reverse order would deadlock a job run against an /extend on PostgreSQL.
    """
    _HANDLERS[kind] = handler
    if owner is not None:
        _OWNERS[kind] = owner


@dataclass(frozen=True, slots=True)
class Shards:
    """The shards this process serves; ``ids`` None: all of them."""

    count: int = 1
    ids: tuple[int, ...] | None = None

    def clause(self) -> ColumnElement[bool]:
        """Jobs this process may claim: its guilds' (by Discord's formula) and guildless ones."""
        if self.ids is None or self.count <= 1:
            return true()
        # Constants inlined: PostgreSQL has ``bigint >> integer``, not ``>> bigint``.
        shard = _J.c.guild_id.op(">>")(literal_column("22")).op("%")(
            literal_column(str(int(self.count)))
        )
        return or_(_J.c.guild_id.is_(None), shard.in_(self.ids))

    def owns(self, guild_id: int | None) -> bool:
        """Whether a guild's jobs are this process's to run."""
        if guild_id is None or self.ids is None or self.count <= 1:
            return True
        return (guild_id >> 22) % self.count in self.ids


async def schedule_in(
    session: AsyncSession,
    kind: str,
    due_at: datetime,
    payload: dict[str, Any],
    *,
    guild_id: int | None,
    key: str | None = None,
) -> int:
    """In the caller's transaction: add a pending job; returns its id."""
    job_id = (
        await session.execute(
            _J.insert()
            .values(
                kind=kind,
                key=key,
                payload=payload,
                guild_id=guild_id,
                due_at=due_at,
                state=JobState.PENDING,
                attempts=0,
                created_at=utcnow(),
            )
            .returning(_J.c.id)
        )
    ).scalar_one()
    return int(job_id)


async def move_in(session: AsyncSession, key: str, due_at: datetime) -> int:
    """In the caller's transaction: move the pending jobs named ``key``; how many moved."""
    moved = await session.execute(
        update(_J)
        .where(_J.c.key == key, _J.c.state == JobState.PENDING)
        .values(due_at=due_at)
        .returning(_J.c.id)
    )
    return len(moved.all())


async def move_or_schedule_in(
    session: AsyncSession,
    kind: str,
    due_at: datetime,
    payload: dict[str, Any],
    *,
    guild_id: int | None,
    key: str,
) -> None:
    """In the caller's transaction: move the pending job named ``key`` to ``due_at``, or add
    one if none is pending (it already ran, or was never made)."""
    if not await move_in(session, key, due_at):
        await schedule_in(session, kind, due_at, payload, guild_id=guild_id, key=key)


async def cancel_in(session: AsyncSession, key: str, now: datetime) -> int:
    """In the caller's transaction: cancel the pending jobs named ``key``; how many."""
    gone = await session.execute(
        update(_J)
        .where(_J.c.key == key, _J.c.state == JobState.PENDING)
        .values(state=JobState.CANCELLED, done_at=now)
        .returning(_J.c.id)
    )
    return len(gone.all())


def _due(now: datetime, shards: Shards) -> ColumnElement[bool]:
    return and_(_J.c.state == JobState.PENDING, _J.c.due_at <= now, shards.clause())


async def _lock_owners_in(session: AsyncSession, candidates: Sequence[Any]) -> None:
    """Lock the owner rows of the jobs about to be claimed: by table name, then key, so two
    runners lock them in the same order too. (SQLite: no FOR UPDATE; BEGIN IMMEDIATE already
    serialises.)"""
    wanted: dict[str, tuple[Table, set[Any]]] = {}
    for candidate in candidates:
        owner = _OWNERS.get(candidate.kind)
        found = owner(dict(candidate.payload or {})) if owner is not None else None
        if found is not None:
            table, key = found
            wanted.setdefault(table.name, (table, set()))[1].add(key)
    for name in sorted(wanted):
        table, keys = wanted[name]
        pk = next(iter(table.primary_key.columns))
        await session.execute(select(pk).where(pk.in_(sorted(keys))).order_by(pk).with_for_update())


async def _claim_in(session: AsyncSession, now: datetime, shards: Shards, count: int) -> list[Job]:
    """Lock the next due jobs of ours that nobody else holds (PostgreSQL: others skip them),
    each after its owner row (see :func:`register`)."""
    candidates = (
        await session.execute(
            select(_J.c.id, _J.c.kind, _J.c.payload)
            .where(_due(now, shards))
            .order_by(_J.c.due_at, _J.c.id)
            .limit(count)
        )
    ).all()
    if not candidates:
        return []
    await _lock_owners_in(session, candidates)
    # Read again under the owner locks: a job moved or cancelled meanwhile is no longer due.
    rows = (
        await session.execute(
            select(_J)
            .where(_J.c.id.in_([c.id for c in candidates]), _due(now, shards))
            .order_by(_J.c.due_at, _J.c.id)
            .limit(count)
            .with_for_update(skip_locked=True)
        )
    ).all()
    return [
        Job(
            id=m["id"],
            kind=m["kind"],
            key=m["key"],
            payload=dict(m["payload"] or {}),
            guild_id=m["guild_id"],
            due_at=m["due_at"],
            attempts=m["attempts"],
        )
        for m in (row._mapping for row in rows)
    ]


async def _finish_in(session: AsyncSession, jobs: list[Job], now: datetime) -> bool:
    """Stamp the claimed jobs done; False if any was no longer pending."""
    done = await session.execute(
        update(_J)
        .where(_J.c.id.in_([j.id for j in jobs]), _J.c.state == JobState.PENDING)
        .values(state=JobState.DONE, done_at=now, attempts=_J.c.attempts + 1)
        .returning(_J.c.id)
    )
    return len(done.all()) == len(jobs)


async def _record_failure(db: Database, job: Job, now: datetime, error: BaseException) -> None:
    """A handler raised: its effects rolled back; count the attempt, retry later or give up."""
    attempts = job.attempts + 1
    values: dict[str, Any] = {"attempts": attempts, "last_error": type(error).__name__[:120]}
    if attempts >= MAX_ATTEMPTS:
        values.update(state=JobState.FAILED, done_at=now)
    else:
        values["due_at"] = now + RETRY_AFTER * attempts
    async with transaction(db) as session:
        # Only if nobody moved it meanwhile (an /extend between the rollback and now): the
        # retry time must not overwrite a due time someone chose.
        await session.execute(
            update(_J)
            .where(_J.c.id == job.id, _J.c.state == JobState.PENDING, _J.c.due_at == job.due_at)
            .values(**values)
        )


class _LostClaim(Exception):
    """Rolls back a job whose ``done`` stamp another process set first."""


@dataclass(frozen=True, slots=True)
class Ran:
    """One job run: what it was and what its handler asks the bot to post."""

    job: Job
    notice: object | None


#: Jobs claimed and run per transaction: one commit for many small jobs. A failing job rolls
#: back its batch, whose jobs then run one per transaction, so it delays nobody else for long.
BATCH = 50


class _JobFailed(Exception):
    def __init__(self, job: Job, error: Exception) -> None:
        super().__init__(str(error))
        self.job = job
        self.error = error


async def run_due(
    db: Database,
    now: datetime,
    rng: random.Random,
    *,
    shards: Shards | None = None,
    limit: int = 500,
) -> list[Ran]:
    """Run up to ``limit`` due jobs; the ones that ran, in order.

    Jobs are claimed and run :data:`BATCH` per transaction: their effects and their ``done``
    stamps commit together. A job whose kind has no handler, or whose handler raises, rolls
    back its batch; those jobs are then run one per transaction, and the failing one is retried
    later and given up after :data:`MAX_ATTEMPTS`.
    """
    shards = shards or Shards()
    context = JobContext(now=now, rng=rng)
    ran: list[Ran] = []
    singles = 0  # after a failed batch: how many claims to make one at a time
    while len(ran) < limit:
        count = 1 if singles else min(BATCH, limit - len(ran))
        done: list[Ran] = []
        try:
            async with transaction(db) as session:
                jobs = await _claim_in(session, now, shards, count)
                if not jobs:
                    break
                # Stamped first, in the same transaction: a handler sees its own job as
                # done (one that schedules the next job under the same key makes a new one),
                # and a failing handler rolls the stamps back with every effect.
                if not await _finish_in(session, jobs, now):
                    raise _LostClaim()  # someone else finished one (not under the row locks)
                for job in jobs:
                    try:
                        handler = _HANDLERS[job.kind]
                        done.append(Ran(job, await handler(session, job, context)))
                    except Exception as exc:
                        raise _JobFailed(job, exc) from exc
        except _LostClaim:
            singles = max(singles, count)
            continue
        except _JobFailed as failed:
            if count > 1:
                singles = count  # run this batch's jobs one by one to find the failing one
                continue
            log.warning(
                "scheduled job %s (%s) failed: %s",
                failed.job.id,
                failed.job.kind,
                type(failed.error).__name__,
            )
            await _record_failure(db, failed.job, now, failed.error)
            singles = max(0, singles - 1)
            continue
        ran.extend(done)
        singles = max(0, singles - len(done))
    return ran


async def next_due(db: Database, shards: Shards | None = None) -> datetime | None:
    """When the next pending job of ours is due (None: none pending)."""
    shards = shards or Shards()
    async with transaction(db) as session:
        stmt = select(_J.c.due_at).where(_J.c.state == JobState.PENDING, shards.clause())
        return (await session.execute(stmt.order_by(_J.c.due_at).limit(1))).scalar_one_or_none()


async def pending(db: Database, key: str) -> Sequence[datetime]:
    """The due times of the pending jobs named ``key`` (for status lines and tests)."""
    async with transaction(db) as session:
        stmt = select(_J.c.due_at).where(_J.c.key == key, _J.c.state == JobState.PENDING)
        return list((await session.execute(stmt.order_by(_J.c.due_at))).scalars())


PERSONAL_DATA = declare(
    PersonalData(
        "game clock",
        not_personal={
            "scheduled_jobs": "a job's payload names a request, turn order or round, never a person"
        },
    )
)
