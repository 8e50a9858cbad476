"""What the bot could not post on its own, kept for /catchup and /gm log, and told to the GM
once per place and problem (docs/deploying.md, "Permissions").

The Discord side (bot/cogs/_places.py, bot/cogs/_notices.py) tries the post; this module
records the outcome: a job's ``delivery`` (``delivered`` or ``undelivered``: nothing is
recorded as shown that was not shown), each undelivered notice with its place and problem,
and which problems the GM has already been told of. A post that gets through in a place
resolves that place's problems, so a gap that comes back is told again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, select, update

from bot.db.delivery_models import undelivered_notices
from bot.db.engine import Database
from bot.db.models import scheduled_jobs
from bot.db.types import utcnow
from bot.services.kit.personal import PersonalData, declare
from bot.services.kit.sql import Executor, transaction

_U = undelivered_notices
DELIVERED = "delivered"
UNDELIVERED = "undelivered"


#: Each problem in a few words (for /catchup; bot/render/places.py says the whole of it).
_SHORT = {
    "gone": "the place was deleted",
    "message-gone": "its message was deleted",
    "locked": "the thread is locked",
    "private-thread": "the bot is not in that private thread",
    "unanswered": "Discord did not answer",
    "not-messageable": "nothing can be posted there",
    "archived": "the thread is archived",
}


def short_reason(problem: str) -> str:
    """Why, in a few words: ``the bot lacks Send Messages in Threads there``."""
    if problem.startswith("permission:"):
        name = problem.removeprefix("permission:").replace("_", " ").title()
        return f"the bot lacks {name.replace(' In ', ' in ')} there"
    return _SHORT.get(problem, "Discord refused it")


@dataclass(frozen=True, slots=True)
class Undelivered:
    """One message that did not get through, as /catchup and /gm log list it."""

    id: int
    channel_id: int
    what: str
    problem: str
    gm_only: bool
    created_at: datetime

    @property
    def line(self) -> str:
        """One line for /catchup and /gm log."""
        head = "Posted as plain text" if self.problem == "permission:embed_links" else "Not posted"
        return f"{head}: {self.what} in <#{self.channel_id}> ({short_reason(self.problem)})"


@dataclass(frozen=True, slots=True)
class Recorded:
    """The notice kept; ``tell_gm``: the first of its place and problem since it last worked."""

    id: int
    tell_gm: bool


async def record(
    db: Database,
    *,
    campaign_id: int,
    guild_id: int,
    channel_id: int,
    what: str,
    problem: str,
    job_id: int | None = None,
    gm_only: bool = False,
    attempts: int = 1,
) -> Recorded:
    """Keep a notice that did not get through; whether the GM is to be told now (claimed in
    the same transaction: of two at once, both may claim, never none)."""
    now = utcnow()
    async with transaction(db) as session:
        told = (
            await session.execute(
                select(_U.c.id)
                .where(
                    _U.c.campaign_id == campaign_id,
                    _U.c.channel_id == channel_id,
                    _U.c.problem == problem,
                    _U.c.resolved_at.is_(None),
                    _U.c.gm_told_at.is_not(None),
                )
                .limit(1)
            )
        ).first()
        notice_id = (
            await session.execute(
                _U.insert()
                .values(
                    campaign_id=campaign_id,
                    guild_id=guild_id,
                    channel_id=channel_id,
                    job_id=job_id,
                    what=what[:200],
                    problem=problem[:64],
                    gm_only=gm_only,
                    created_at=now,
                    gm_told_at=None if told is not None else now,
                    attempts=attempts,
                )
                .returning(_U.c.id)
            )
        ).scalar_one()
    return Recorded(int(notice_id), told is None)


async def untold(db: Database, notice_id: int) -> None:
    """The GM could not be told after all (no GM channel, no DM): the next failure tries."""
    async with transaction(db) as session:
        await session.execute(update(_U).where(_U.c.id == notice_id).values(gm_told_at=None))


async def worked_in(db: Database, campaign_id: int, channel_ids: Iterable[int]) -> None:
    """Posts got through in these places: their known problems are fixed."""
    places = list(dict.fromkeys(channel_ids))
    if not places:
        return
    async with transaction(db) as session:
        await session.execute(
            update(_U)
            .where(
                _U.c.campaign_id == campaign_id,
                _U.c.channel_id.in_(places),
                _U.c.resolved_at.is_(None),
            )
            .values(resolved_at=utcnow())
        )


async def mark_job(db: Database, job_id: int, delivered: bool) -> None:
    """Whether what a clock job posts got through."""
    async with transaction(db) as session:
        await session.execute(
            update(scheduled_jobs)
            .where(scheduled_jobs.c.id == job_id)
            .values(delivery=DELIVERED if delivered else UNDELIVERED)
        )


async def undelivered_in(
    session: Executor,
    campaign_id: int,
    *,
    gm: bool,
    since: datetime | None = None,
    limit: int = 10,
) -> list[Undelivered]:
    """The newest notices of a campaign that did not get through (GM copies for a GM only)."""
    stmt = select(_U).where(_U.c.campaign_id == campaign_id)
    if not gm:
        stmt = stmt.where(_U.c.gm_only.is_(False))
    if since is not None:
        stmt = stmt.where(_U.c.created_at > since)
    rows = await session.execute(stmt.order_by(_U.c.id.desc()).limit(limit))
    return [
        Undelivered(
            int(m["id"]),
            int(m["channel_id"]),
            str(m["what"]),
            str(m["problem"]),
            bool(m["gm_only"]),
            m["created_at"],
        )
        for m in (r._mapping for r in rows)
    ]


async def undelivered(
    db: Database, campaign_id: int, *, gm: bool, limit: int = 10
) -> list[Undelivered]:
    """:func:`undelivered_in` in a transaction of its own."""
    async with transaction(db) as session:
        return await undelivered_in(session, campaign_id, gm=gm, limit=limit)


async def open_problems(db: Database, campaign_id: int) -> list[tuple[int, str]]:
    """(place, problem) pairs not yet resolved, oldest first, each once."""
    async with transaction(db) as session:
        rows = await session.execute(
            select(_U.c.channel_id, _U.c.problem)
            .where(and_(_U.c.campaign_id == campaign_id, _U.c.resolved_at.is_(None)))
            .order_by(_U.c.id)
        )
        return list(dict.fromkeys((int(r.channel_id), str(r.problem)) for r in rows))


async def places_with_problems(db: Database) -> set[int]:
    """Every place with a problem not yet resolved (read once at start-up)."""
    async with transaction(db) as session:
        rows = await session.execute(
            select(_U.c.channel_id).where(_U.c.resolved_at.is_(None)).distinct()
        )
        found: list[int] = list(rows.scalars().all())
        return {int(place) for place in found}


PERSONAL_DATA = declare(
    PersonalData(
        "undelivered notices",
        not_personal={
            "undelivered_notices": "what the bot could not post, named by roll or request "
            "number, and why"
        },
    )
)
