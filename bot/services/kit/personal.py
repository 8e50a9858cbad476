"""What each feature keeps about a person, declared once beside the feature's own code.

A feature's service module registers one :class:`PersonalData` with :func:`declare`: the
tables it keeps, which rows are a person's or name them by id and what an erasure may change
in them (:class:`Holding`), the columns it keeps that are deliberately not personal and why,
and how ``/privacy show`` lists and ``/privacy delete`` erases a person's data there (as
Red-DiscordBot's cogs implement ``red_delete_data_for_user`` and its core calls each one).
bot/services/trust/privacy.py iterates :func:`declarations` and imports no feature's tables;
tests/services/test_personal_data.py reads the schema and fails on a column holding a user id
or free text that no declaration covers. docs/privacy.md, "Declaring a feature's data".

The erasure's vocabulary lives here too, so every feature erases alike: :class:`Person` (whom,
where, their names and characters), :class:`Matcher` and :func:`tombstoned` (by identity,
never by text), and the scoped, paged SQL helpers.
"""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, cast

from sqlalchemy import CursorResult, Result, Table, Text, true, update
from sqlalchemy import cast as sql_cast

from bot.db.engine import Database
from bot.services.kit import commitments as cm
from bot.services.kit.sql import Executor, transaction

# --- the declaration -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Holding:
    """What one table keeps about a person, how a row is theirs or names them by id, and what
    an erasure may change in such a row (``DELETED``: it deletes the row). Every other row of
    the table stays as it was, byte for byte."""

    table: str
    #: How a row is the person's, or names them, by id (never by matching their names).
    whose: str
    #: The columns an erasure may change in such a row, or :data:`DELETED`.
    changes: frozenset[str]


DELETED = frozenset({"*"})


def holding(table: str, whose: str, *changes: str) -> Holding:
    return Holding(table, whose, frozenset(changes))


#: ``/privacy show``: add this feature's counts to :class:`Shown`, in the caller's transaction.
ShowIn = Callable[[Executor, "Shown"], Awaitable[None]]
#: ``/privacy delete``: erase this feature's rows of :class:`Person`, each short transaction
#: through ``person.transaction`` followed by :func:`turn`; returns the rows changed.
Erase = Callable[[Database, "Person"], Awaitable[int]]
#: One step of an erasure inside a transaction; returns the rows changed.
EraseIn = Callable[[Executor, "Person"], Awaitable[int]]
#: After the log erased rows that name the person (``ledger_ids``): erase this feature's copies
#: of those rows; returns the ledger rows whose digest of their own text must go too.
CopiesIn = Callable[[Executor, "Person", list[int]], Awaitable[list[int]]]


@dataclass(frozen=True, slots=True)
class PersonalData:
    """One feature's declaration of what it stores about a person."""

    feature: str
    #: The tables whose rows are a person's or name them, and what an erasure changes there.
    holdings: tuple[Holding, ...] = ()
    #: ``table`` or ``table.column`` → why it is not personal (a digest, a bot-written word).
    not_personal: Mapping[str, str] = field(default_factory=dict)
    show_in: ShowIn | None = None
    erase: Erase | None = None
    copies_in: CopiesIn | None = None
    #: Erasures run in this order (then by feature): the log first, characters last, so a run
    #: cut short still finds the person's names and characters when run again.
    order: int = 50
    #: What ``/campaign export`` carries of it (export.py walks the schema: every table that
    #: hangs off a campaign travels with it; docs/privacy.md "Who can see it").
    exported: str = "with its campaign"


_REGISTRY: dict[str, PersonalData] = {}


def declare(data: PersonalData) -> PersonalData:
    """Register a feature's declaration (once per feature, from its own service module)."""
    known = _REGISTRY.setdefault(data.feature, data)
    if known is not data and known != data:
        raise ValueError(f"feature {data.feature!r} declared twice")
    return known


_WALKED: list[bool] = []  # the service modules were all imported (once per process)


def declarations() -> tuple[PersonalData, ...]:
    """Every feature's declaration, in erasure order; imports every service module first,
    so a feature declares its data by existing, never by being named here. The walk runs
    once per process (the bot does it at start-up): listing the package's folders and
    importing what is missing are disk work, which a /privacy show must not do on the event
    loop."""
    if not _WALKED:
        package = importlib.import_module("bot.services")
        for module in pkgutil.walk_packages(package.__path__, "bot.services."):
            importlib.import_module(module.name)
        _WALKED.append(True)
    return tuple(sorted(_REGISTRY.values(), key=lambda d: (d.order, d.feature)))


# --- whom an erasure or a show is for --------------------------------------------------------


@dataclass
class Shown:
    """``/privacy show`` as it is gathered: per server (None: direct messages) the fields of
    ``privacy.ServerData``, and the settings kept for every server."""

    user_id: int
    guild_id: int | None
    servers: dict[int | None, dict[str, Any]] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)

    def server(self, guild: int | None) -> dict[str, Any]:
        return self.servers.setdefault(guild, {"guild_id": guild})

    def add(self, guild: int | None, key: str, count: int) -> None:
        entry = self.server(guild)
        entry[key] = entry.get(key, 0) + count


@dataclass
class Person:
    """Whom an erasure is for, and where: their id, the server (None: everywhere), the names
    their own rows may hold (their characters', the display names given), and their
    characters in scope; how it opens a transaction and how many rows it reads per page."""

    user_id: int
    guild_id: int | None
    own_names: set[str]
    character_ids: dict[int, str]
    transaction: Callable[[Database], AbstractAsyncContextManager[Executor]] = transaction
    page: int = 20
    rolls: int = 0
    older: int = 0
    other: int = 0
    characters_deleted: int = 0
    _matchers: dict[frozenset[str], Matcher] = field(default_factory=dict)

    def own(self) -> Matcher:
        return Matcher(self.user_id, self.own_names)

    def named_as(self, names: frozenset[str]) -> Matcher:
        # In a row that names them by id, a name of any length is looked for as a word: the
        # row is known to be about them, and a two-letter name must go too.
        found = self._matchers.get(names)
        if found is None:
            found = self._matchers[names] = Matcher(self.user_id, names, shortest=1)
        return found


def each_in_its_transaction(*steps: EraseIn) -> Erase:
    """An erasure made of steps, each in its own short transaction and a turn after it."""

    async def erase(db: Database, person: Person) -> int:
        changed = 0
        for step in steps:
            async with person.transaction(db) as session:
                changed += await step(session, person)
            await turn()
        return changed

    return erase


# --- by identity, never by text --------------------------------------------------------------

#: Keys of a roll's dice or outcome whose text is the roller's own words (a label, a note, the
#: dice expression with its comment, a sealed declaration) or a digest of them (a post's
#: ``sha256``: unsalted, it would confirm a guess of the deleted text): tombstoned in the
#: erased person's own rows.
FREE_TEXT_KEYS = frozenset(
    {"label", "labels", "note", "comment", "expression", "declaration", "sha256"}
)
#: In the person's own rows, names shorter than this are matched only as a whole field, never
#: inside longer text (a one- or two-letter name would take every "a" of their labels).
MIN_NAME_IN_TEXT = 3
#: Keys whose strings the bot writes itself from a fixed vocabulary (ability names, result
#: words, modes): never erased, so a character named "Dex" or "Pass" does not wipe "DEX" or
#: "Pass" even in a row that names them.
STRUCTURAL_KEYS = frozenset(
    {
        "ability",
        "action",
        "advantage",
        "attribute",
        "choice",
        "contest_of",
        "degree",
        "difficulty",
        "flags",
        "kind",
        "level",
        "modifiers",
        "notation",
        "purpose",
        "rank",
        "result",
        "scheme",
        "system",
    }
)
#: What the bot appends to a display name it stores ("Sam (2)", "Gemma (GM)").
_SUFFIX = re.compile(r"(?:\s*\((?:GM|\d+)\)|\*)+$")


def _option_values(command: str) -> str:
    """A typed command without its command, subcommand and option names (``/roll dice:1d20
    label:x`` → ``1d20 x``), so a name like "Roll" is not found in every command."""
    words = command.split()
    while words and ":" not in words[0]:
        words.pop(0)
    return " ".join(re.sub(r"^[a-z_-]+:", "", w) for w in words)


class Matcher:
    """Whether text (in a row that is theirs or names them by id) holds one of the person's
    names or their id. ``shortest``: shorter names only match a whole field."""

    def __init__(self, user_id: int, names: Iterable[str], shortest: int = MIN_NAME_IN_TEXT):
        self.exact = {n.casefold() for n in names if n.strip()}
        words = sorted((n for n in self.exact if len(n) >= shortest), key=len)
        parts = [rf"(?<!\w){re.escape(n)}(?!\w)" for n in reversed(words)]
        parts.append(rf"(?<!\d){user_id}(?!\d)")
        self.pattern = re.compile("|".join(parts), re.IGNORECASE)

    def __call__(self, text: str, *, command: bool = False) -> bool:
        whole = _SUFFIX.sub("", text.strip()).casefold()
        if whole in self.exact:
            return True
        return bool(self.pattern.search(_option_values(text) if command else text))


def tombstoned(value: Any, key: str | None, own: bool, names: Matcher) -> Any:
    """``value`` with every string naming the person (and, in their own rows, their free
    text) replaced by the tombstone; same shape, numbers untouched."""
    if isinstance(value, str):
        if key in STRUCTURAL_KEYS:
            return value
        if (own and key in FREE_TEXT_KEYS) or names(value):
            return cm.TOMBSTONE
        return value
    if isinstance(value, dict):
        return {k: tombstoned(v, k, own, names) for k, v in value.items()}
    if isinstance(value, list):
        return [tombstoned(v, key, own, names) for v in value]
    return value


# --- SQL helpers every declaration uses ------------------------------------------------------


async def rows(session: Executor, stmt: Any) -> list[Any]:
    return list(await session.execute(stmt))


def changed(result: Result[Any]) -> int:
    """Rows an UPDATE or DELETE changed (its result is a CursorResult, which counts them)."""
    return cast(CursorResult[Any], result).rowcount or 0


def in_scope(table: Table, guild_id: int | None) -> Any:
    """A server's rows of a table with a ``guild_id`` (every server's: None)."""
    return true() if guild_id is None else table.c.guild_id == guild_id


def holds_id(column: Any, user_id: int) -> Any:
    """A JSON column whose text holds the id's digits: a cheap filter in the database, every
    row it lets through checked exactly in Python (``in gm_user_ids``, a turn order's entry)."""
    return sql_cast(column, Text).like(f"%{user_id}%")


async def turn() -> None:
    """Give the event loop a turn between pages: the other players' commands run here."""
    await asyncio.sleep(0)


async def rewrite(
    session: Executor, table: Table, selected: Any, change: Callable[[Any], dict[str, Any]]
) -> int:
    """Update each selected row (its ``id`` among the columns) with what ``change`` returns
    for it, skipping rows it leaves alone; returns how many changed."""
    count = 0
    for row in await rows(session, selected):
        values = change(row)
        if values:
            await session.execute(update(table).where(table.c.id == row.id).values(**values))
            count += 1
    return count


__all__ = [
    "DELETED",
    "FREE_TEXT_KEYS",
    "MIN_NAME_IN_TEXT",
    "STRUCTURAL_KEYS",
    "Holding",
    "Matcher",
    "Person",
    "PersonalData",
    "Shown",
    "changed",
    "declarations",
    "declare",
    "each_in_its_transaction",
    "holding",
    "holds_id",
    "in_scope",
    "rewrite",
    "rows",
    "tombstoned",
    "turn",
]
