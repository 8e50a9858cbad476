"""The roll ledger: one append-only row per roll of any kind, numbered and hash-chained.

There is no update or delete here except :func:`stamp_revealed`, which sets ``revealed_at``
once, and :func:`tombstone_in`, which erases a person's data (docs/privacy.md); the database's own
triggers refuse anything else (migrations 0007 and 0008). Rows survive the
deletion of their campaign or character (the foreign keys become NULL; ``character_name``,
guild, channel and user stay). ``interaction_id`` is unique: recording the same Discord
interaction twice stores one row, and the second caller gets
:class:`DuplicateInteraction`, which rolls its transaction back.

Every roll is recorded through :func:`record_in` (one row: any visibility, deduplicated by its
interaction) or its batch form :func:`record_rolls_in` (a group roll's public member rows);
both give each row the next public number of its scope, seal a hidden row with its
salt and commitment, and link it into its campaign's (or channel's) hash chain; the byte
formats are in :mod:`bot.services.kit.commitments`. There is no other way to append a row.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import re
import secrets
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import (
    ColumnElement,
    Row,
    Select,
    String,
    and_,
    bindparam,
    exists,
    func,
    insert,
    literal,
    null,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.orm import Session

from bot.db.engine import Database
from bot.db.models import ledger, ledger_chains, ledger_names, ledger_salts
from bot.db.types import utcnow
from bot.services.kit import commitments as cm
from bot.services.kit import walks
from bot.services.kit.errors import AlreadyRevealed, InvalidValue, NotFound
from bot.services.kit.sql import Executor, dialect_name, run_hot_sync, transaction
from bot.words import LedgerKind, Visibility

if TYPE_CHECKING:
    from bot.services.kit.context import Caller

_L = ledger


def rolled_in(ledger_id: Any, guild_id: int) -> ColumnElement[bool]:
    """Another table's ``ledger_id`` column names a roll made in that server (a sub-select
    through the ledger's primary key): a feature scopes its rows without reading the log."""
    return cast(
        ColumnElement[bool],
        ledger_id.in_(select(_L.c.id).where(_L.c.id == ledger_id, _L.c.guild_id == guild_id)),
    )


def counted_per_server(ledger_id: Any, *where: Any, guild_id: int | None) -> Select[Any]:
    """Another table's rows (``where``) counted per server of the roll their ``ledger_id``
    column names (only ``guild_id``'s when given): ``/privacy show``'s counts."""
    scoped = [] if guild_id is None else [_L.c.guild_id == guild_id]
    return (
        select(_L.c.guild_id, func.count())
        .select_from(ledger_id.table.join(_L, _L.c.id == ledger_id))
        .where(*where, *scoped)
        .group_by(_L.c.guild_id)
    )


MAX_REQUEST = 4000
_KIND = re.compile(r"^[a-z][a-z0-9-]{0,23}$")


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a ledger row comes from: the Discord channel, user and interaction."""

    channel_id: int
    user_id: int
    guild_id: int | None = None
    #: None for rows not tied to an interaction (they are never deduplicated).
    interaction_id: int | None = None
    #: The parent channel of a thread or forum post: a roll outside any campaign is numbered
    #: under it, as the campaign of that channel would be.
    parent_channel_id: int | None = None

    @classmethod
    def of(cls, caller: Caller, *, with_interaction: bool = True) -> Origin:
        """Where the caller is. Only one row per interaction may carry its id (it is unique):
        the other rows of a command that records several (a group roll's members) go
        ``with_interaction=False``."""
        return cls(
            channel_id=caller.channel_id,
            user_id=caller.user_id,
            guild_id=caller.guild_id,
            interaction_id=caller.interaction_id if with_interaction else None,
            parent_channel_id=caller.parent_channel_id,
        )


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
    #: Who else the row names, by Discord id, and the name it names them by: the player of a
    #: character rolled for by a GM, a helper's, a target's, a group's members' (the roller
    #: is left out). Kept in ``ledger_names``, so an erasure finds the row by the person's id,
    #: never by searching text (docs/privacy.md).
    named: tuple[tuple[int, str], ...] = ()


def naming(*people: tuple[int, str] | None) -> tuple[tuple[int, str], ...]:
    """``NewRoll.named`` from (user id, name) pairs, None and repeats left out."""
    return tuple(dict.fromkeys(p for p in people if p is not None))


@dataclass(frozen=True, slots=True)
class Recorded:
    """A row as appended: its id (internal: buttons and foreign keys), its public ``number``
    (what stubs and results print), its chain link, and a hidden row's commitment.

    ``duplicate`` only on the existing row a :class:`DuplicateInteraction`
    carries (the interaction had been recorded already).
    """

    id: int
    duplicate: bool
    number: int = 0
    chain: str = ""
    commitment: str | None = None


class DuplicateInteraction(Exception):
    """The interaction was already recorded (another shard or a retry got there first).

    :func:`record_in` raises it inside the caller's transaction, so the
    transaction's side effects roll back; the player is pointed to the roll (bot/tree.py).
    ``roll_id`` is the public number the existing row printed, ``existing`` that row.
    """

    def __init__(self, roll_id: int, existing: Recorded | None = None) -> None:
        super().__init__(f"interaction already recorded as ledger row {roll_id}")
        self.roll_id = roll_id
        self.existing = existing


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
    scope_id: int
    number: int
    who: str
    chain: str
    format: int
    legacy_campaign_id: int | None
    #: The row's salts (``ledger_salts``), when read for a check (:func:`with_salts_in`).
    salts: cm.Salts | None = None

    @property
    def identity(self) -> cm.Identity:
        """What names this row forever (bot/services/kit/commitments.py)."""
        return cm.Identity(
            self.number, self.scope_id, self.guild_id, self.channel_id, self.created_at
        )

    def entry(self) -> bytes:
        """This row as its chain binds it (format 3: with its field digests, so its salts must
        have been read; :class:`~bot.services.kit.commitments.Unsalted` otherwise)."""
        hidden = self.visibility is not Visibility.PUBLIC
        if self.format < cm.FORMAT:
            return cm.entry_encoding(
                self.identity,
                kind=self.kind,
                visibility=self.visibility.value,
                who=self.who,
                commitment=self.commitment if hidden else None,
                dice=self.dice,
                outcome=self.outcome,
            )
        digest_of = (self.salts or cm.Salts()).digest_of
        return cm.entry_encoding(
            self.identity,
            kind=self.kind,
            visibility=self.visibility.value,
            who=self.who,
            commitment=self.commitment if hidden else None,
            # A hidden row binds its commitment, never its result.
            dice=None if hidden else cm.masked(self.dice, "dice", digest_of),
            outcome=None if hidden else cm.masked(self.outcome, "outcome", digest_of),
            version=cm.ENTRY_V2,
        )

    def link_from(self, previous: str) -> str:
        """This row's chain link after ``previous``. An older row whose bound text an erasure
        changed links by the digest its entry had before (``~entry``)."""
        if self.salts is not None and self.salts.entry_before is not None:
            return cm.link_digest(previous, self.salts.entry_before)
        return cm.link(previous, self.entry())


def view_of(row: Row[Any]) -> RollView:
    m = dict(row._mapping)
    m["visibility"] = Visibility(m["visibility"])
    return RollView(**m)


def _check(roll: NewRoll) -> None:
    if not _KIND.match(roll.kind):
        raise ValueError(f"ledger kind {roll.kind!r} is not a short lowercase word")
    if len(roll.request) > MAX_REQUEST:
        raise InvalidValue(
            f"That request is too long to record ({MAX_REQUEST} characters at most)."
        )


def _chain_key(roll: NewRoll) -> str:
    """A campaign's rolls form one chain; rolls outside any campaign, one per channel."""
    if roll.campaign_id is not None:
        return f"campaign:{roll.campaign_id}"
    return f"channel:{roll.origin.parent_channel_id or roll.origin.channel_id}"


# Numbers and links are handed out under the chain row's lock (PostgreSQL: the UPDATE's row
# lock until commit; SQLite: BEGIN IMMEDIATE holds the database's write lock), so two rolls
# never get the same number or link to the same previous row. A number also stays above every
# number of its scope: two chains can share one (a campaign moved away from a channel, and the
# rolls made there since), and a number printed in a place names one roll there. (On
# PostgreSQL, two such chains appending at the very same moment could still meet; a campaign
# and the place it moved from rarely roll in the same millisecond.)
_SCOPE_MAX = (
    "COALESCE((SELECT MAX(l.number) FROM ledger l WHERE l.scope_id = ledger_chains.scope_id), 0)"
)
# SQLite: the bump also leaves the row's salt, which the INSERT's trigger files in
# ledger_salts as it moves the head (migration 0024): one statement for the three.
_BUMPS = {
    dialect: text(
        f"UPDATE ledger_chains SET last_number = {greatest}(last_number, {_SCOPE_MAX}) + :n"
        f"{pending} WHERE key = :key RETURNING last_number, head, scope_id"
    )
    for dialect, greatest, pending in (
        ("sqlite", "MAX", ", pending_salt = :salt"),
        ("postgresql", "GREATEST", ""),
    )
}
# A new chain continues the numbers of its scope, so a campaign set up again in a channel
# never prints a number that an older, deleted campaign's stub already printed there.
_NEW_CAMPAIGN_CHAIN = text(
    "INSERT INTO ledger_chains (key, scope_id, last_number, head) "
    "SELECT :key, c.ledger_scope, "
    "COALESCE((SELECT MAX(l.number) FROM ledger l WHERE l.scope_id = c.ledger_scope), 0), "
    ":genesis FROM campaigns c WHERE c.id = :campaign "
    "ON CONFLICT (key) DO NOTHING"
)
_NEW_CHANNEL_CHAIN = text(
    "INSERT INTO ledger_chains (key, scope_id, last_number, head) "
    "SELECT :key, :scope, COALESCE(MAX(l.number), 0), :genesis "
    "FROM ledger l WHERE l.scope_id = :scope "
    "ON CONFLICT (key) DO NOTHING"
)
_SET_HEAD = text("UPDATE ledger_chains SET head = :head WHERE key = :key")


async def _allocate(
    session: Executor, roll: NewRoll, count: int, salt: str | None = None
) -> tuple[int, str, int, str]:
    """Reserve ``count`` numbers: (the first, the chain's head before them, scope, key).
    ``salt``: SQLite, one row's salt for its INSERT's trigger to file (a batch files its own)."""
    return await session.run_sync(_allocate_sync, roll, count, salt)


def _dialect_of(sync: Connection | Session) -> str:
    if isinstance(sync, Connection):
        return sync.dialect.name
    return sync.get_bind().dialect.name


def _allocate_sync(
    sync: Connection | Session, roll: NewRoll, count: int, salt: str | None = None
) -> tuple[int, str, int, str]:
    """:func:`_allocate` in ``run_sync``."""
    key = _chain_key(roll)
    dialect = _dialect_of(sync)
    params: dict[str, Any] = {"n": count, "key": key}
    if dialect == "sqlite":
        params["salt"] = salt
    bump = _BUMPS[dialect]
    found = run_hot_sync(sync, bump, params).first()
    if found is None:
        if roll.campaign_id is not None:
            create = {"key": key, "campaign": roll.campaign_id, "genesis": cm.GENESIS}
            sync.execute(_NEW_CAMPAIGN_CHAIN, create)
        else:
            scope = roll.origin.parent_channel_id or roll.origin.channel_id
            create = {"key": key, "scope": scope, "genesis": cm.GENESIS}
            sync.execute(_NEW_CHANNEL_CHAIN, create)
        found = run_hot_sync(sync, bump, params).first()
        if found is None:
            raise NotFound("That campaign no longer exists.")
    last, head, scope = int(found[0]), str(found[1]), int(found[2])
    return last - count + 1, head, scope, key


def _sealed(
    roll: NewRoll, number: int, scope: int, previous: str, row_salt: str | None = None
) -> tuple[dict[str, Any], str, str | None, str]:
    """The row's values, its chain link, (hidden rows) its commitment, and its row salt
    (``row_salt``, or a fresh one)."""
    created_at = utcnow()
    origin = roll.origin
    visibility = Visibility(roll.visibility)
    identity = cm.Identity(number, scope, origin.guild_id, origin.channel_id, created_at)
    # Format 3 (migration 0008): one random row salt, kept in ledger_salts; every personal field is
    # hashed with a salt derived from it, so an erasure can drop one field and keep the rest.
    row_salt = row_salt or secrets.token_hex(cm.SALT_BYTES)
    digest_of = cm.row_digests(row_salt)
    # As the JSON column gives them back, so /verify and /verify log recompute the same bytes
    # (one round trip for both).
    dice, outcome = cm.normalised([roll.dice, roll.outcome])
    who = cm.who_v2(
        {
            cm.ROLLER: digest_of(cm.ROLLER, origin.user_id),
            cm.CHARACTER: None
            if roll.character_name is None
            else digest_of(cm.CHARACTER, roll.character_name),
            cm.REQUEST: digest_of(cm.REQUEST, roll.request),
        }
    )
    bound_dice = cm.masked(dice, "dice", digest_of)
    bound_outcome = cm.masked(outcome, "outcome", digest_of)
    commitment = salt = None
    if visibility is not Visibility.PUBLIC:
        salt = secrets.token_hex(cm.SALT_BYTES)
        commitment = cm.sha256_hex(
            cm.commitment_encoding(
                identity,
                kind=roll.kind,
                who=who,
                dice=bound_dice,
                outcome=bound_outcome,
                salt=salt,
                version=cm.COMMITMENT_V3,
            )
        )
    hidden = commitment is not None
    entry = cm.entry_encoding(
        identity,
        kind=roll.kind,
        visibility=visibility.value,
        who=who,
        commitment=commitment,
        dice=None if hidden else bound_dice,
        outcome=None if hidden else bound_outcome,
        version=cm.ENTRY_V2,
    )
    chain = cm.link(previous, entry)
    values = {
        "campaign_id": roll.campaign_id,
        "character_id": roll.character_id,
        "character_name": roll.character_name,
        "guild_id": origin.guild_id,
        "channel_id": origin.channel_id,
        "user_id": origin.user_id,
        "interaction_id": origin.interaction_id,
        "kind": roll.kind,
        "request": roll.request,
        "dice": dice,
        "outcome": outcome,
        "visibility": visibility.value,
        "created_at": created_at,
        "commitment": commitment,
        "salt": salt,
        "scope_id": scope,
        "number": number,
        "who": who,
        "chain": chain,
        "format": cm.FORMAT,
    }
    return values, chain, commitment, row_salt


def _salt_rows(ids: Sequence[int], row_salts: Sequence[str]) -> list[dict[str, Any]]:
    return [
        {"ledger_id": row_id, "field": cm.ROW_SALT, "salt": salt, "digest": None}
        for row_id, salt in zip(ids, row_salts, strict=True)
    ]


_INSERT_SALTS = insert(ledger_salts)
_INSERT_NAMES = insert(ledger_names)


def _name_rows(roll: NewRoll, row_id: int) -> list[dict[str, Any]]:
    """``ledger_names`` rows of a new row: whom it names besides its roller."""
    return [
        {"ledger_id": row_id, "user_id": user_id, "name": name}
        for user_id, name in dict.fromkeys(roll.named)
        if user_id != roll.origin.user_id and name and name != cm.TOMBSTONE
    ]


_INSERTS: dict[str, Any] = {}


@functools.lru_cache(maxsize=4)
def _pg_insert_and_head(names: tuple[str, ...]) -> Any:
    """PostgreSQL: the row's INSERT (of the columns ``names``), its row salt and its chain's
    new head in ONE statement (one round trip instead of three). Salt and head follow only if
    the row was inserted (not a duplicate): they read the INSERT's RETURNING, and PostgreSQL runs a
    data-modifying WITH to completion whether or not the outer SELECT reads it."""
    values = {name: bindparam(f"v_{name}", type_=_L.c[name].type) for name in names}
    inserted = (
        postgresql.insert(_L)
        .values(values)
        .on_conflict_do_nothing(index_elements=["interaction_id"])
        .returning(_L.c.id)
        .cte("inserted")
    )
    head = (
        update(ledger_chains)
        # Not named like the columns: an UPDATE would take "key" as a value to SET.
        .where(ledger_chains.c.key == bindparam("chain_key"), exists(select(inserted.c.id)))
        .values(head=bindparam("new_head"))
        .cte("head")
    )
    salts = (
        insert(ledger_salts)
        .from_select(
            ["ledger_id", "field", "salt", "digest"],
            select(
                inserted.c.id,
                literal(cm.ROW_SALT, String),
                bindparam("row_salt", type_=String),
                null(),
            ),
        )
        .cte("salts")
    )
    return select(inserted.c.id).add_cte(head).add_cte(salts)


async def record_in(session: Executor, roll: NewRoll) -> Recorded:
    """In a caller's transaction: record ``roll``, the one way to append a ledger row.

    The row gets the next number of its scope and its chain link; a hidden row (gm, blind,
    self) is sealed with a fresh salt and its commitment, in this one INSERT (the row is never
    updated afterwards but for the reveal stamp).

    A duplicate interaction (INSERT ... ON CONFLICT DO NOTHING wrote nothing) raises
    :class:`DuplicateInteraction` with the existing row, so everything
    the caller's transaction changed rolls back with it (a number reserved for it stays
    unused: a gap, never a reuse).
    """
    recorded = await _append_in(session, roll)
    if recorded.duplicate:
        raise DuplicateInteraction(recorded.number, recorded)
    return recorded


async def _append_in(session: Executor, roll: NewRoll) -> Recorded:
    """:func:`record_in`'s INSERT; a duplicate comes back as the existing row. Its statements
    (the chain's bump, the INSERT) and the sealing between them run in one ``run_sync``: one
    switch into SQLAlchemy's greenlet instead of one a statement."""
    _check(roll)
    return await session.run_sync(_append_sync, roll)


def _append_sync(sync: Connection | Session, roll: NewRoll) -> Recorded:
    dialect = _dialect_of(sync)
    stmt = _INSERTS.get(dialect)
    if stmt is None:
        stmt = _INSERTS[dialect] = (
            (postgresql.insert(_L) if dialect == "postgresql" else sqlite.insert(_L))
            .on_conflict_do_nothing(index_elements=["interaction_id"])
            .returning(_L.c.id)
        )
    row_salt = secrets.token_hex(cm.SALT_BYTES)
    number, previous, scope, key = _allocate_sync(sync, roll, 1, row_salt)
    values, chain, commitment, _ = _sealed(roll, number, scope, previous, row_salt)
    if dialect == "postgresql":
        # The row, its salt and its chain's new head in one statement.
        params = {f"v_{name}": value for name, value in values.items()}
        params |= {"new_head": chain, "chain_key": key, "row_salt": row_salt}
        both = _pg_insert_and_head(tuple(values))
        new_id = sync.execute(both, params).scalar_one_or_none()
    else:
        # Its trigger files the salt the bump left and moves the head (migration 0024).
        new_id = run_hot_sync(sync, stmt, values, columns=tuple(values)).scalar_one_or_none()
    if new_id is not None:
        names = _name_rows(roll, new_id) if roll.named else []
        if len(names) > 1 and dialect == "sqlite":
            # One multi-row INSERT: an executemany is one statement a name on SQLite (a
            # group's row names every member).
            connection = sync if isinstance(sync, Connection) else sync.connection()
            columns = tuple(names[0])
            flat = _flat_values(ledger_names, columns, names, connection.dialect)
            sql = _sqlite_values(ledger_names, len(names), columns, False)
            connection.exec_driver_sql(sql, flat)
        elif names:
            sync.execute(_INSERT_NAMES, names)
        return Recorded(new_id, False, number, chain, commitment)
    existing = sync.execute(
        select(_L.c.id, _L.c.number, _L.c.chain, _L.c.commitment).where(
            _L.c.interaction_id == roll.origin.interaction_id
        )
    ).one()
    return Recorded(int(existing[0]), True, int(existing[1]), str(existing[2]), existing[3])


#: PostgreSQL: SQLAlchemy's "insertmanyvalues" sends ONE INSERT ... VALUES (...), (...);
#: each id comes back with its row's number (a row whose interaction was recorded already is
#: skipped: record_rolls_in's ``last``).
_INSERT_MANY = (
    postgresql.insert(_L)
    .on_conflict_do_nothing(index_elements=["interaction_id"])
    .returning(_L.c.id, _L.c.number)
)


@functools.lru_cache(maxsize=64)
def _sqlite_values(table: Any, count: int, names: tuple[str, ...], returning: bool) -> str:
    """``INSERT INTO table (names) VALUES (?, ...), ...`` for ``count`` rows, in the driver's
    own placeholders; ``returning``: the ledger's, each new row's id and number, a row whose
    interaction was recorded already skipped."""
    row = "(" + ", ".join("?" * len(names)) + ")"
    tail = " ON CONFLICT (interaction_id) DO NOTHING RETURNING id, number" if returning else ""
    return f"INSERT INTO {table.name} ({', '.join(names)}) VALUES {', '.join([row] * count)}{tail}"


@functools.lru_cache(maxsize=64)
def _bind_processors(table: Any, names: tuple[str, ...], dialect: Any) -> tuple[Any, ...]:
    """Each column's conversion of a value for the driver (JSON, timestamps), as a statement
    compiled by SQLAlchemy would apply it."""
    return tuple(table.c[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names)


@functools.lru_cache(maxsize=64)
def _row_reader(
    table: Any, names: tuple[str, ...], dialect: Any
) -> tuple[Callable[[Any], tuple[Any, ...]], tuple[tuple[int, Any], ...]]:
    """A row's values in the order of ``names`` (one C call), and the positions that need a
    conversion for the driver with it."""
    processors = _bind_processors(table, names, dialect)
    read = operator.itemgetter(*names) if len(names) > 1 else lambda row: (row[names[0]],)
    return read, tuple((i, p) for i, p in enumerate(processors) if p is not None)


def _flat_values(
    table: Any, names: tuple[str, ...], rows: Sequence[dict[str, Any]], dialect: Any
) -> tuple[Any, ...]:
    """Every row's values for a multi-row INSERT of ``names``, each through its column's
    conversion: one flat tuple for the driver's placeholders."""
    read, converted = _row_reader(table, names, dialect)
    if not converted:
        return tuple(value for row in rows for value in read(row))
    flat: list[Any] = []
    for row in rows:
        values = list(read(row))
        for i, convert in converted:
            values[i] = convert(values[i])
        flat += values
    return tuple(flat)


async def _sqlite_insert_in(
    session: Executor, table: Any, rows: Sequence[dict[str, Any]], *, returning: bool = False
) -> Sequence[Any]:
    """SQLite: ``rows`` in ONE multi-row INSERT (an executemany is one statement per row
    there); with ``returning`` (the ledger's rows), each new row's id and number, in no
    particular order.

    Sent as the driver's SQL, each value through its column's type: SQLAlchemy compiles a
    statement of a size it has not seen anew, which for a party of 100 (2,000 parameters)
    held the event loop for tens of milliseconds."""
    connection = session if isinstance(session, AsyncConnection) else await session.connection()
    names = tuple(rows[0])
    flat = _flat_values(table, names, rows, connection.dialect)
    sql = _sqlite_values(table, len(rows), names, returning)
    found = await connection.exec_driver_sql(sql, flat)
    return found.all() if returning else ()


async def record_rolls_in(
    session: Executor,
    rolls: Sequence[NewRoll],
    *,
    last: Callable[[Sequence[int]], NewRoll] | None = None,
) -> list[Recorded]:
    """In a caller's transaction: append public rows not tied to an interaction in ONE
    statement (a multi-row INSERT ... RETURNING), numbered and chained in the order given.

    For the members' rows of a group roll: they all belong to one chain (one campaign). Rows
    with an interaction id (deduplicated) or a hidden visibility go through :func:`record_in`
    instead, but for ``last``: one more public row of the same chain after them, built from
    their public numbers (a group roll's own row, which lists them), appended in the same
    statements and deduplicated by its interaction id as :func:`record_in` does
    (:class:`DuplicateInteraction`, the caller's transaction rolled back with it).
    """
    if not rolls:
        return []
    key = _chain_key(rolls[0])
    for roll in rolls:
        _check(roll)
        if (
            roll.origin.interaction_id is not None
            or roll.visibility != Visibility.PUBLIC
            or _chain_key(roll) != key
        ):
            raise ValueError("record_rolls_in takes public rows of one chain, no interaction id")
    count = len(rolls) + (last is not None)
    first, previous, scope, key = await _allocate(session, rolls[0], count)
    values: list[dict[str, Any]] = []
    links: list[str] = []
    row_salts: list[str] = []
    for offset, roll in enumerate(rolls):
        # Sealing a row is pure hashing (~0.5 ms): a big party's gives the loop turns.
        await walks.turn_every(offset)
        row, previous, _, row_salt = _sealed(roll, first + offset, scope, previous)
        values.append(row)
        links.append(previous)
        row_salts.append(row_salt)
    rows = list(rolls)
    final = None
    if last is not None:
        final = last([first + offset for offset in range(len(rolls))])
        _check(final)
        # The last row counts as one more sealed: after a full batch, a turn first.
        await walks.turn_every(len(rolls))
        if final.visibility != Visibility.PUBLIC or _chain_key(final) != key:
            raise ValueError("record_rolls_in's last row is public, of the same chain")
        row, previous, _, row_salt = _sealed(final, first + len(rolls), scope, previous)
        values.append(row)
        links.append(previous)
        row_salts.append(row_salt)
        rows.append(final)
    big = len(rolls) > walks.MEMBERS_PER_TURN
    if big:
        # Each statement of a new size is compiled once (tens of ms for a party of 100): a
        # turn of the loop before each keeps one callback from paying for them all.
        await walks.turn()
    if dialect_name(session) == "sqlite":
        # SQLAlchemy has no sentinel to order SQLite's RETURNING by, and with
        # sort_by_parameter_order it falls back to one INSERT per row. One multi-row INSERT
        # instead: SQLite inserts VALUES rows in order, each getting a rowid above every
        # earlier one, and this transaction holds the write lock (BEGIN IMMEDIATE,
        # bot/db/engine.py); RETURNING's row order is unspecified, hence each id by number.
        found = await _sqlite_insert_in(session, _L, values, returning=True)
    else:
        found = (await session.execute(_INSERT_MANY, values)).all()
    by_number = {int(number): int(row_id) for row_id, number in found}
    if len(by_number) < len(values):
        # Only ``last`` carries an interaction id: it was recorded already.
        assert final is not None
        existing = await _existing_in(session, final.origin.interaction_id)
        raise DuplicateInteraction(existing.number, existing)
    ids = [by_number[first + offset] for offset in range(len(values))]
    if big:
        await walks.turn()
    await _insert_many_in(session, ledger_salts, _salt_rows(ids, row_salts))
    named = [n for roll, row_id in zip(rows, ids, strict=True) for n in _name_rows(roll, row_id)]
    if big:
        await walks.turn()
    await _insert_many_in(session, ledger_names, named)
    if dialect_name(session) != "sqlite":  # SQLite: the last row's trigger moved it
        await session.execute(_SET_HEAD, {"head": previous, "key": key})
    return [
        Recorded(row_id, False, first + offset, links[offset]) for offset, row_id in enumerate(ids)
    ]


async def _existing_in(session: Executor, interaction_id: int | None) -> Recorded:
    """The row an interaction was recorded as (a duplicate's first recording)."""
    existing = (
        await session.execute(
            select(_L.c.id, _L.c.number, _L.c.chain, _L.c.commitment).where(
                _L.c.interaction_id == interaction_id
            )
        )
    ).one()
    return Recorded(int(existing[0]), True, int(existing[1]), str(existing[2]), existing[3])


async def _record_names_in(session: Executor, rows: list[dict[str, Any]]) -> None:
    if len(rows) > 1:
        await _insert_many_in(session, ledger_names, rows)
    elif rows:
        await session.execute(_INSERT_NAMES, rows)


async def _insert_many_in(session: Executor, table: Any, rows: list[dict[str, Any]]) -> None:
    """Rows of ``ledger_salts`` or ``ledger_names`` for a batch: on SQLite ONE multi-row
    INSERT (an executemany is one statement per row there), elsewhere an executemany."""
    if not rows:
        return
    if dialect_name(session) != "sqlite":
        await session.execute(insert(table), rows)
        return
    await _sqlite_insert_in(session, table, rows)


async def record(db: Database, roll: NewRoll) -> Recorded:
    """:func:`record_in` in its own transaction."""
    async with transaction(db) as session:
        return await record_in(session, roll)


async def get_roll_in(session: Executor, roll_id: int) -> RollView:
    """In a caller's transaction: a ledger row by id."""
    row = (await session.execute(select(_L).where(_L.c.id == roll_id))).first()
    if row is None:
        raise NotFound("No such roll.")
    return view_of(row)


async def find_number_in(
    session: Executor,
    number: int,
    *,
    campaign_id: int | None = None,
    scope_ids: tuple[int, ...] = (),
    channel_ids: tuple[int, ...] = (),
    guild_id: int | None = None,
) -> RollView | None:
    """The row printed as ``#number``: in a campaign, or (``scope_ids``) among the rows of no
    campaign (made outside one, or whose campaign was deleted) numbered under those scopes in
    this server. Two such rows can only come from importing one campaign twice: the newest."""
    stmt = select(_L).where(_L.c.number == number)
    if campaign_id is not None:
        stmt = stmt.where(_L.c.campaign_id == campaign_id)
    else:
        stmt = stmt.where(
            _L.c.campaign_id.is_(None),
            or_(_L.c.scope_id.in_(scope_ids), _L.c.channel_id.in_(channel_ids)),
            _L.c.guild_id.is_(None) if guild_id is None else _L.c.guild_id == guild_id,
        )
    row = (await session.execute(stmt.order_by(_L.c.id.desc()).limit(1))).first()
    return None if row is None else view_of(row)


async def numbers_in(session: Executor, roll_ids: Sequence[int]) -> dict[int, int]:
    """The public numbers of rows given by id."""
    if not roll_ids:
        return {}
    found = await session.execute(select(_L.c.id, _L.c.number).where(_L.c.id.in_(roll_ids)))
    return {int(row[0]): int(row[1]) for row in found}


async def rows_in(session: Executor, roll_ids: Sequence[int]) -> dict[int, RollView]:
    """Rows given by id (a few: the sealed pre-rolls of a campaign)."""
    if not roll_ids:
        return {}
    found = await session.execute(select(_L).where(_L.c.id.in_(sorted(set(roll_ids)))))
    return {int(row.id): view_of(row) for row in found}


#: Rows read per query while walking a long chain.
_CHAIN_PAGE = 500


async def chain_rows_in(session: Executor, campaign_id: int) -> list[RollView]:
    """Every row of a campaign in number order (its chain), read a page at a time."""
    rows: list[RollView] = []
    after = 0
    while True:
        stmt = (
            select(_L)
            .where(_L.c.campaign_id == campaign_id, _L.c.number > after)
            .order_by(_L.c.number)
            .limit(_CHAIN_PAGE)
        )
        page = [view_of(row) for row in await session.execute(stmt)]
        rows.extend(page)
        if len(page) < _CHAIN_PAGE:
            return rows
        after = page[-1].number


async def chain_page_in(
    session: Executor, campaign_id: int, after: int, upto: int, limit: int
) -> list[RollView]:
    """One page of a campaign's chain: the rows numbered after ``after``, up to ``upto``."""
    stmt = (
        select(_L)
        .where(_L.c.campaign_id == campaign_id, _L.c.number > after, _L.c.number <= upto)
        .order_by(_L.c.number)
        .limit(limit)
    )
    return [view_of(row) for row in await session.execute(stmt)]


async def salts_in(session: Executor, roll_ids: Sequence[int]) -> dict[int, cm.Salts]:
    """The salts ``ledger_salts`` keeps for rows given by id."""
    found: dict[int, dict[str, tuple[str | None, str | None]]] = {}
    ids = sorted(set(roll_ids))
    for start in range(0, len(ids), _CHAIN_PAGE):
        chunk = ids[start : start + _CHAIN_PAGE]
        stmt = select(
            ledger_salts.c.ledger_id,
            ledger_salts.c.field,
            ledger_salts.c.salt,
            ledger_salts.c.digest,
        ).where(ledger_salts.c.ledger_id.in_(chunk))
        for row in await session.execute(stmt):
            found.setdefault(int(row.ledger_id), {})[str(row.field)] = (row.salt, row.digest)
    return {row_id: salts_of(fields) for row_id, fields in found.items()}


def salts_of(fields: dict[str, tuple[str | None, str | None]]) -> cm.Salts:
    """One row's ``ledger_salts`` rows (field → (salt, digest)) as :class:`~cm.Salts`."""
    row_salt = fields.get(cm.ROW_SALT, (None, None))[0]
    entry = fields.get(cm.ENTRY_BEFORE_ERASURE, (None, None))[1]
    special = (cm.ROW_SALT, cm.ENTRY_BEFORE_ERASURE, cm.ERASED)
    kept = {f: s for f, (s, _) in fields.items() if s is not None and f not in special}
    erased = {f: d for f, (_, d) in fields.items() if d is not None and f not in special}
    return cm.Salts(row_salt, kept, erased, entry, cm.ERASED in fields)


async def with_salts_in(session: Executor, rows: Sequence[RollView]) -> list[RollView]:
    """The rows with their salts read, for checking them."""
    found = await salts_in(session, [row.id for row in rows])
    return [dataclasses.replace(row, salts=found.get(row.id, cm.Salts())) for row in rows]


async def chain_head_in(session: Executor, key: str) -> str | None:
    """The stored head of a chain (``campaign:<id>`` or ``channel:<snowflake>``)."""
    stmt = select(ledger_chains.c.head).where(ledger_chains.c.key == key)
    found = (await session.execute(stmt)).scalar_one_or_none()
    return None if found is None else str(found)


async def lock_campaign_chain_in(session: Executor, campaign_id: int) -> None:
    """Hold the campaign chain's row lock until commit (PostgreSQL ``FOR UPDATE``; SQLite's
    BEGIN IMMEDIATE already holds the write lock): for a decision that reads the latest rows
    and then appends, so no other append to the campaign lands between the read and the
    write. No-op if the campaign has no roll yet (then there is nothing to read either)."""
    stmt = select(ledger_chains.c.key).where(ledger_chains.c.key == f"campaign:{campaign_id}")
    await session.execute(stmt.with_for_update())


async def chain_state_in(session: Executor, key: str) -> tuple[int, str | None]:
    """A chain's last number and head, read together (0 and None if it has no row yet)."""
    stmt = select(ledger_chains.c.last_number, ledger_chains.c.head).where(
        ledger_chains.c.key == key
    )
    found = (await session.execute(stmt)).first()
    return (0, None) if found is None else (int(found[0]), str(found[1]))


async def chain_size_in(session: Executor, key: str) -> int:
    """How many rows a chain holds (its last number; 0 if none): the size of a walk of it."""
    stmt = select(ledger_chains.c.last_number).where(ledger_chains.c.key == key)
    found = (await session.execute(stmt)).scalar_one_or_none()
    return 0 if found is None else int(found)


async def get_roll(db: Database, roll_id: int, *, salts: bool = False) -> RollView:
    """A ledger row by id, or :class:`NotFound`; with its salts read when asked (to check
    it: :func:`with_salts_in`)."""
    async with transaction(db) as session:
        row = await get_roll_in(session, roll_id)
        if salts:
            (row,) = await with_salts_in(session, [row])
        return row


async def roll_for_interaction(db: Database, interaction_id: int) -> RollView | None:
    """The row recorded for a Discord interaction, if any."""
    async with transaction(db) as session:
        row = (
            await session.execute(select(_L).where(_L.c.interaction_id == interaction_id))
        ).first()
    return None if row is None else view_of(row)


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
    exclude_channels: Collection[int] = (),
) -> list[RollView]:
    """In a caller's transaction: the campaign's newest rows first, optionally filtered.

    ``before_id`` pages backwards (rows with a smaller id). Uses the (campaign_id, id) index.
    ``exclude_channels`` leaves out rows rolled there (places the viewer cannot read).
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
    if exclude_channels:
        stmt = stmt.where(_L.c.channel_id.not_in(sorted(exclude_channels)))
    stmt = stmt.order_by(_L.c.id.desc()).limit(max(1, min(limit, 100)))
    return [view_of(row) for row in await session.execute(stmt)]


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


async def names_of_in(session: Executor, row_id: int) -> tuple[tuple[int, str], ...]:
    """In a caller's transaction: whom a row names besides its roller (``NewRoll.named``), so
    a row that repeats its names (a reroll) names the same people by id."""
    stmt = (
        select(ledger_names.c.user_id, ledger_names.c.name)
        .where(ledger_names.c.ledger_id == row_id)
        .order_by(ledger_names.c.user_id, ledger_names.c.name)
    )
    return tuple((int(r.user_id), str(r.name)) for r in await session.execute(stmt))


async def reroll_of_in(session: Executor, row: RollView) -> RollView | None:
    """In a caller's transaction: the d20-check reroll of ``row`` (``/reroll``), if any.

    ``/reroll`` takes only its roller's latest check, save or attack, and a roll is rerolled
    once, so a roll's reroll is the first reroll its roller made after it in the campaign:
    one read of the (campaign_id, id) index.
    """
    if row.campaign_id is None:
        return None
    stmt = (
        select(_L)
        .where(
            _L.c.campaign_id == row.campaign_id,
            _L.c.user_id == row.user_id,
            _L.c.kind == LedgerKind.D20_REROLL,
            _L.c.id > row.id,
        )
        .order_by(_L.c.id)
        .limit(1)
    )
    found = (await session.execute(stmt)).first()
    if found is None:
        return None
    reroll = view_of(found)
    data = reroll.outcome
    return reroll if isinstance(data, dict) and data.get("original_id") == row.id else None


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
    return view_of(row)


#: What an erasure may change (docs/privacy.md; the triggers of migration 0008 accept only the
#: tombstone in them, and only strings inside the JSON ones).
ERASABLE = frozenset({"user_id", "character_name", "request", "dice", "outcome"})


async def tombstone_in(session: Executor, changes: Sequence[tuple[int, dict[str, Any]]]) -> None:
    """In a caller's transaction: replace rows' personal data with the tombstone (row id →
    new values), the second and last kind of change a ledger row can get
    (bot/services/trust/privacy.py decides what). One executemany per set of columns changed."""
    by_columns: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for roll_id, values in changes:
        if not values or not set(values) <= ERASABLE:
            raise ValueError(f"only {sorted(ERASABLE)} can be erased, not {sorted(values)}")
        row = {"row_id": roll_id} | {f"new_{k}": v for k, v in values.items()}
        by_columns.setdefault(tuple(sorted(values)), []).append(row)
    for columns, rows in by_columns.items():
        stmt = (
            update(_L)
            .where(_L.c.id == bindparam("row_id"))
            .values({c: bindparam(f"new_{c}", type_=_L.c[c].type) for c in columns})
        )
        await session.execute(stmt, rows)


async def stamp_revealed(db: Database, roll_id: int, at: datetime | None = None) -> RollView:
    """Mark a hidden roll revealed, once; see :func:`stamp_revealed_in`."""
    async with transaction(db) as session:
        return await stamp_revealed_in(session, roll_id, at)


async def hidden_unrevealed_since_in(
    session: Executor, *, campaign_id: int | None, scope_id: int | None, since: datetime
) -> bool:
    """Whether a hidden roll made since ``since`` in a campaign (or, ``scope_id``, outside
    campaigns in that place) is still unrevealed: the dice seed's hidden-roll key must stay
    secret then (bot/services/trust/fairness.py)."""
    place = (
        _L.c.campaign_id == campaign_id
        if campaign_id is not None
        else (_L.c.campaign_id.is_(None) & (_L.c.scope_id == scope_id))
    )
    found = await session.scalar(
        select(_L.c.id)
        .where(
            place,
            _L.c.visibility != Visibility.PUBLIC.value,
            _L.c.revealed_at.is_(None),
            _L.c.created_at >= since,
        )
        .limit(1)
    )
    return found is not None


# --- reads for checking fair dice (bot/services/trust/fairness.py) --------------------------------


async def outcomes_of_rollers_in(
    session: Executor,
    campaign_id: int | None,
    scope_id: int,
    users: Collection[int],
    owned: Any,
    since: datetime,
    until: datetime,
) -> list[tuple[int, Any]]:
    """(number, outcome) of the rows of one chain (a campaign's, else a channel's) made
    between ``since`` and ``until`` by ``users`` or for a character in ``owned`` (a select
    of character ids): whose fair-dice records share a seed and key with a roll checked."""
    chain = (
        _L.c.campaign_id == campaign_id
        if campaign_id is not None
        else and_(_L.c.campaign_id.is_(None), _L.c.scope_id == scope_id)
    )
    rows = await session.execute(
        select(_L.c.number, _L.c.outcome).where(
            chain,
            _L.c.created_at >= since,
            _L.c.created_at <= until,
            or_(_L.c.user_id.in_(users), _L.c.character_id.in_(owned)),
        )
    )
    return [(int(r.number), r.outcome) for r in rows]


def rollers_of(campaign_id: int) -> Any:
    """A select of the user ids that made rows in the campaign's chain."""
    return select(_L.c.user_id).where(_L.c.campaign_id == campaign_id)


def shown_exists(roll_id: Any) -> Any:
    """A clause: the roll whose id is ``roll_id`` (a column of another table) is public or
    revealed (pending.py takes a group's carry-overs in one statement with it)."""
    return exists().where(
        _L.c.id == roll_id,
        or_(_L.c.visibility == Visibility.PUBLIC.value, _L.c.revealed_at.is_not(None)),
    )
