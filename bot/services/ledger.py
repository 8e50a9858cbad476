"""The roll ledger: one append-only row per roll of any kind.

There is no update or delete here except :func:`stamp_revealed`, which sets ``revealed_at``
once. Rows survive the deletion of their campaign or character (the foreign keys become NULL;
``character_name``, guild, channel and user stay). ``interaction_id`` is unique: recording the
same Discord interaction twice stores one row, and the second caller learns it was a duplicate.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, insert, select, text, update

from bot.db.engine import Database
from bot.db.models import Visibility, ledger
from bot.db.types import utcnow
from bot.services._sql import Executor, dialect_name, insert_for, transaction
from bot.services.errors import AlreadyRevealed, InvalidValue, NotFound

_L = ledger
MAX_REQUEST = 4000
_KIND = re.compile(r"^[a-z][a-z0-9-]{0,23}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class Kind:
    """Ledger kinds in use; any short lowercase word (``[a-z][a-z0-9-]{0,23}``) is accepted."""

    ROLL = "roll"
    ATTEMPT = "attempt"
    LUCK = "luck"
    CHECK = "check"
    SAVE = "save"
    ATTACK = "attack"
    CONTEST = "contest"
    GROUP = "group"
    REROLL = "reroll"
    GENERATE = "generate"
    FORTUNE = "fortune"


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a ledger row comes from: the Discord channel, user and interaction."""

    channel_id: int
    user_id: int
    guild_id: int | None = None
    #: None for rows not tied to an interaction (they are never deduplicated).
    interaction_id: int | None = None


@dataclass(frozen=True, slots=True)
class NewRoll:
    """A roll to record. ``dice`` and ``outcome`` must be JSON-serialisable."""

    origin: Origin
    kind: str
    request: str
    dice: Any
    outcome: Any
    visibility: Visibility = Visibility.PUBLIC
    campaign_id: int | None = None
    character_id: int | None = None
    character_name: str | None = None
    #: Commit-and-reveal of hidden rolls: sha256 hex of the result and the salt.
    commitment: str | None = None
    salt: str | None = None
    #: An id allocated in advance in this transaction (a hidden roll's commitment covers it);
    #: None lets the database choose.
    roll_id: int | None = None


@dataclass(frozen=True, slots=True)
class Recorded:
    """The ledger row id; ``duplicate`` when the interaction had been recorded already."""

    id: int
    duplicate: bool


@dataclass(frozen=True, slots=True)
class RollView:
    """A stored ledger row."""

    id: int
    campaign_id: int | None
    character_id: int | None
    character_name: str | None
    guild_id: int | None
    channel_id: int
    user_id: int
    interaction_id: int | None
    kind: str
    request: str
    dice: Any
    outcome: Any
    visibility: Visibility
    created_at: datetime
    commitment: str | None
    salt: str | None
    revealed_at: datetime | None


def _view(row: Row[Any]) -> RollView:
    m = dict(row._mapping)
    m["visibility"] = Visibility(m["visibility"])
    return RollView(**m)


def _values(roll: NewRoll) -> dict[str, Any]:
    if not _KIND.match(roll.kind):
        raise ValueError(f"ledger kind {roll.kind!r} is not a short lowercase word")
    if len(roll.request) > MAX_REQUEST:
        raise InvalidValue(
            f"That request is too long to record ({MAX_REQUEST} characters at most)."
        )
    if roll.commitment is not None and not _HEX64.match(roll.commitment):
        raise ValueError("commitment must be 64 lowercase hex characters")
    return {
        "campaign_id": roll.campaign_id,
        "character_id": roll.character_id,
        "character_name": roll.character_name,
        "guild_id": roll.origin.guild_id,
        "channel_id": roll.origin.channel_id,
        "user_id": roll.origin.user_id,
        "interaction_id": roll.origin.interaction_id,
        "kind": roll.kind,
        "request": roll.request,
        "dice": roll.dice,
        "outcome": roll.outcome,
        "visibility": Visibility(roll.visibility).value,
        "created_at": utcnow(),
        "commitment": roll.commitment,
        "salt": roll.salt,
    } | ({"id": roll.roll_id} if roll.roll_id is not None else {})


_INSERTS: dict[str, Any] = {}


async def record_roll_in(session: Executor, roll: NewRoll) -> Recorded:
    """In a caller's transaction: append ``roll`` (INSERT ... ON CONFLICT DO NOTHING).

    On a duplicate interaction nothing is written and the existing row's id comes back with
    ``duplicate=True``; a caller that already changed counters in this transaction should
    raise :class:`~bot.services.errors.DuplicateInteraction` to roll them back.
    """
    dialect = dialect_name(session)
    stmt = _INSERTS.get(dialect)
    if stmt is None:
        stmt = _INSERTS[dialect] = (
            insert_for(session, _L)
            .on_conflict_do_nothing(index_elements=["interaction_id"])
            .returning(_L.c.id)
        )
    new_id = (await session.execute(stmt, _values(roll))).scalar_one_or_none()
    if new_id is not None:
        return Recorded(id=new_id, duplicate=False)
    existing = await session.execute(
        select(_L.c.id).where(_L.c.interaction_id == roll.origin.interaction_id)
    )
    return Recorded(id=existing.scalar_one(), duplicate=True)


#: PostgreSQL: SQLAlchemy's "insertmanyvalues" sends ONE INSERT ... SELECT FROM (VALUES ...)
#: ORDER BY a sentinel, and gives the ids back in parameter order.
_INSERT_MANY = insert(_L).returning(_L.c.id, sort_by_parameter_order=True)


@functools.lru_cache(maxsize=32)
def _sqlite_insert_rows(count: int, names: tuple[str, ...]) -> Any:
    """``INSERT INTO ledger (names) VALUES (...), ... RETURNING id`` for ``count`` rows, as
    text with typed parameters (JSON and timestamps still go through the columns' types): an
    ``insert().values([...])`` of many rows is compiled anew on every execution."""
    rows = ", ".join(
        "(" + ", ".join(f":{name}_{i}" for name in names) + ")" for i in range(count)
    )
    params = [
        bindparam(f"{name}_{i}", type_=_L.c[name].type) for i in range(count) for name in names
    ]
    sql = f"INSERT INTO ledger ({', '.join(names)}) VALUES {rows} RETURNING id"
    return text(sql).bindparams(*params).columns(_L.c.id)


async def record_rolls_in(session: Executor, rolls: Sequence[NewRoll]) -> list[int]:
    """In a caller's transaction: append public rows not tied to an interaction in ONE
    statement (a multi-row INSERT ... RETURNING); their ids, in the order given.

    For the members' rows of a group roll. Rows with an interaction id (deduplicated), a
    hidden visibility (salt and commitment) or a reserved id go through
    :func:`record_roll_in` / :func:`bot.services.secrecy.record_roll_in` instead.
    """
    if not rolls:
        return []
    for roll in rolls:
        if (
            roll.origin.interaction_id is not None
            or roll.visibility != Visibility.PUBLIC
            or roll.roll_id is not None
        ):
            raise ValueError("record_rolls_in takes public rows without an interaction id")
    values = [_values(roll) for roll in rolls]
    if dialect_name(session) == "sqlite":
        # SQLAlchemy has no sentinel to order SQLite's RETURNING by, and with
        # sort_by_parameter_order it falls back to one INSERT per row. One multi-row INSERT
        # instead: SQLite inserts VALUES rows in order, each getting a rowid above every
        # earlier one, and this transaction holds the write lock (BEGIN IMMEDIATE,
        # bot/db/engine.py); only RETURNING's row order is unspecified, hence sorted.
        params = {f"{key}_{i}": value for i, row in enumerate(values) for key, value in row.items()}
        stmt = _sqlite_insert_rows(len(values), tuple(values[0]))
        found: Sequence[Any] = (await session.execute(stmt, params)).scalars().all()
        return sorted(int(row_id) for row_id in found)
    ordered = await session.execute(_INSERT_MANY, values)
    return [int(new_id) for new_id in ordered.scalars().all()]


async def record_roll(db: Database, roll: NewRoll) -> Recorded:
    """Append ``roll`` in its own transaction; see :func:`record_roll_in`."""
    async with transaction(db) as session:
        return await record_roll_in(session, roll)


async def get_roll_in(session: Executor, roll_id: int) -> RollView:
    """In a caller's transaction: a ledger row by id."""
    row = (await session.execute(select(_L).where(_L.c.id == roll_id))).first()
    if row is None:
        raise NotFound("No such roll.")
    return _view(row)


async def get_roll(db: Database, roll_id: int) -> RollView:
    """A ledger row by id, or :class:`NotFound`."""
    async with transaction(db) as session:
        return await get_roll_in(session, roll_id)


async def roll_for_interaction(db: Database, interaction_id: int) -> RollView | None:
    """The row recorded for a Discord interaction, if any."""
    async with transaction(db) as session:
        row = (
            await session.execute(select(_L).where(_L.c.interaction_id == interaction_id))
        ).first()
    return None if row is None else _view(row)


async def latest_rolls_in(
    session: Executor,
    campaign_id: int,
    *,
    limit: int = 20,
    character_id: int | None = None,
    user_id: int | None = None,
    kinds: Iterable[str] | None = None,
    visibilities: Iterable[Visibility] | None = None,
    before_id: int | None = None,
) -> list[RollView]:
    """In a caller's transaction: the campaign's newest rows first, optionally filtered.

    ``before_id`` pages backwards (rows with a smaller id). Uses the (campaign_id, id) index.
    """
    stmt = select(_L).where(_L.c.campaign_id == campaign_id)
    if character_id is not None:
        stmt = stmt.where(_L.c.character_id == character_id)
    if user_id is not None:
        stmt = stmt.where(_L.c.user_id == user_id)
    if kinds is not None:
        stmt = stmt.where(_L.c.kind.in_(list(kinds)))
    if visibilities is not None:
        stmt = stmt.where(_L.c.visibility.in_([Visibility(v).value for v in visibilities]))
    if before_id is not None:
        stmt = stmt.where(_L.c.id < before_id)
    stmt = stmt.order_by(_L.c.id.desc()).limit(max(1, min(limit, 100)))
    return [_view(row) for row in await session.execute(stmt)]


async def latest_rolls(
    db: Database,
    campaign_id: int,
    *,
    limit: int = 20,
    character_id: int | None = None,
    user_id: int | None = None,
    kinds: Iterable[str] | None = None,
    visibilities: Iterable[Visibility] | None = None,
    before_id: int | None = None,
) -> list[RollView]:
    """The campaign's newest rows first (at most 100); see :func:`latest_rolls_in`."""
    async with transaction(db) as session:
        return await latest_rolls_in(
            session,
            campaign_id,
            limit=limit,
            character_id=character_id,
            user_id=user_id,
            kinds=kinds,
            visibilities=visibilities,
            before_id=before_id,
        )


async def stamp_revealed_in(
    session: Executor, roll_id: int, at: datetime | None = None
) -> RollView:
    """In a caller's transaction: mark a hidden roll revealed, once (the only change a
    ledger row ever gets), so a reveal touching several rows is all or nothing."""
    stmt = (
        update(_L)
        .where(_L.c.id == roll_id, _L.c.revealed_at.is_(None))
        .values(revealed_at=at or utcnow())
        .returning(*_L.c)
    )
    row = (await session.execute(stmt)).first()
    if row is None:
        await get_roll_in(session, roll_id)  # NotFound if it does not exist
        raise AlreadyRevealed()
    return _view(row)


async def stamp_revealed(db: Database, roll_id: int, at: datetime | None = None) -> RollView:
    """Mark a hidden roll revealed, once; see :func:`stamp_revealed_in`."""
    async with transaction(db) as session:
        return await stamp_revealed_in(session, roll_id, at)
