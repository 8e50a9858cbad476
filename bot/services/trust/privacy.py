"""What the bot stores about a person, and erasing it without breaking the game log.

``/privacy show`` lists a user's data per server; ``/privacy delete`` (and the operator's
``python -m bot erase-user``) deletes what only they own (their characters, with scores,
proficiencies, fortune, carry-overs, saved rolls and sealed pre-rolls, and their posts) and
tombstones their identity everywhere else it is kept.

Each feature declares what it keeps about a person beside its own code (a
:class:`~bot.services.kit.personal.PersonalData` in its service module,
bot/services/kit/personal.py):
this module walks the game log itself and then every declaration, in order, and imports no
feature's tables. :data:`HOLDINGS` gathers the declarations' holdings, table by table: whose
rows an erasure changes and which columns; tests/services/test_privacy_property.py holds the
erasure to it, and tests/services/test_personal_data.py fails on a column holding an id or
free text that no declaration covers.

**By identity, never by text.** An erasure changes only rows the person wrote (their id in the
row's author column) and rows that name them by id: a ledger row that ``ledger_names`` says
names them (the character a GM rolled for, a helper, an attack's target, a group's members, a
turn order's players, a score generation's players), a row rolled for one of their characters,
their place in a request, a turn order, a generation, a campaign's known GMs, a mention
``<@id>`` of them. In a row that names them, only the fields holding the name it names them by
change. Nobody else's words are searched for their names: a character called "Dex" erases no
one's ``/check ability:DEX``.

The ledger stays verifiable: format 3 rows bind each personal field by its own salted digest
(bot/services/kit/commitments.py), so a tombstoned field keeps its digest in ``ledger_salts`` and
loses its salt; the chain, the commitments and ``who`` still check. Older rows (formats 1 and
2) bound some of that text in clear: they are tombstoned too, and report "erased, no longer
checkable" (docs/privacy.md says why that is the best available). The log's own erasure lives
here, not in bot/services/store/ledger.py, which never deletes (tests/services/test_ledger.py).

Every walk reads a page of that person's rows per short transaction, through an index on
their id, and gives the event loop a turn between pages, so a big server or a long game never
holds the other players' rolls; its cost grows with that person's rows, not the server's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select

from bot.db.engine import Database, truncate_wal
from bot.db.models import ledger, ledger_names, ledger_salts
from bot.services.kit import commitments as cm
from bot.services.kit import personal
from bot.services.kit.personal import (
    DELETED,
    FREE_TEXT_KEYS,
    MIN_NAME_IN_TEXT,
    STRUCTURAL_KEYS,
    Holding,
    Person,
    PersonalData,
    Shown,
    declare,
    in_scope,
)
from bot.services.kit.personal import Matcher as _Matcher
from bot.services.kit.personal import tombstoned as _tombstoned
from bot.services.kit.sql import Executor, transaction
from bot.services.store.characters import StoredCharacter, owned_in
from bot.services.store.ledger import RollView, salts_of, tombstone_in, view_of
from bot.words import LedgerKind, Visibility

#: Where /privacy points for the whole story: the note shipped with the bot's source (no
#: published address is known to the code; an operator hosting the bot can show it).
DOC_URL = "docs/privacy.md"
#: Rows read per query (and transaction) while erasing. A page's Python work holds the event
#: loop (its salts are recomputed: ~0.5-1 ms a row on a busy 2-core machine, bench/privacy.py),
#: so 20 keeps each slice well under 50 ms; the other players' commands run between pages.
PAGE = 20
#: Rows of a person's own log read per page by ``/privacy show`` (three columns each).
SHOW_PAGE = 2000


def __getattr__(name: str) -> Any:
    """``HOLDINGS``: every declaration's holdings; ``NOTHING_PERSONAL``: the tables they say
    keep nothing about a person, and why (gathered when first asked: every service module
    declares its own on import)."""
    if name == "HOLDINGS":
        return tuple(h for data in personal.declarations() for h in data.holdings)
    if name == "NOTHING_PERSONAL":
        return {
            table: why
            for data in personal.declarations()
            for table, why in data.not_personal.items()
            if "." not in table
        }
    raise AttributeError(name)


# --- /privacy show ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ServerData:
    """What the bot keeps about one user in one server (``guild_id`` None: direct messages)."""

    guild_id: int | None
    characters: tuple[StoredCharacter, ...] = ()
    #: Campaign channels where the user is remembered as a GM (to send them hidden rolls).
    known_gm_in: tuple[int, ...] = ()
    rolls: int = 0
    first_roll: datetime | None = None
    last_roll: datetime | None = None
    fortune_choices: int = 0
    requests_made: int = 0
    requests_received: int = 0
    #: Turn orders (``/turns``) that list one of the user's characters.
    turn_orders: int = 0
    #: Posts written as a character (``/post``), every version of their text kept.
    posts: int = 0
    #: Saved rolls (``/macro``) of the user's characters.
    macros: int = 0
    #: Other people's rolls that name the user by id (a GM's roll for their character, a
    #: helper, a target, a group roll): an erasure erases the name there.
    named_in: int = 0


@dataclass(frozen=True, slots=True)
class StoredData:
    """Everything, per server, and the settings kept for every server: how reminders and
    turn pings reach the user (``/me notify``) and the dice dialect they chose (``/me dice``);
    None: never set."""

    user_id: int
    servers: tuple[ServerData, ...]
    notify: str | None = None
    dialect: str | None = None
    #: Their dice seed's text (``/me seed``, docs/fair-dice.md) and how many changes are logged.
    seed: str | None = None
    seed_changes: int = 0

    @property
    def empty(self) -> bool:
        return (
            not self.servers
            and self.notify is None
            and self.dialect is None
            and self.seed is None
            and not self.seed_changes
        )


_rows = personal.rows
_turn = personal.turn


async def _own_rolls(
    db: Database, user_id: int, guild_id: int | None
) -> dict[int | None, list[Any]]:
    """Per server: how many rolls of theirs, the first and the last; counted by the database
    a page of their rows (through ``ix_ledger_user_id_id``) per transaction."""
    found: dict[int | None, list[Any]] = {}
    after = 0
    while True:
        theirs = [ledger.c.user_id == user_id, ledger.c.id > after, in_scope(ledger, guild_id)]
        async with transaction(db) as session:
            # The page's last row, then the page counted by server.
            last = await session.scalar(
                select(ledger.c.id)
                .where(*theirs)
                .order_by(ledger.c.id)
                .offset(SHOW_PAGE - 1)
                .limit(1)
            )
            if last is not None:
                theirs.append(ledger.c.id <= last)
            stmt = (
                select(
                    ledger.c.guild_id,
                    func.count(),
                    func.min(ledger.c.created_at),
                    func.max(ledger.c.created_at),
                )
                .where(*theirs)
                .group_by(ledger.c.guild_id)
            )
            for guild, count, first, newest in await _rows(session, stmt):
                entry = found.setdefault(guild, [0, first, newest])
                entry[0] += int(count)
                entry[1], entry[2] = min(entry[1], first), max(entry[2], newest)
        if last is None:
            return found
        after = int(last)
        await _turn()


async def stored_data(db: Database, user_id: int, guild_id: int | None = None) -> StoredData:
    """``/privacy show``: what is stored about ``user_id``, per server (only ``guild_id``'s
    when given): their own rolls a page at a time, then what every feature declares. Reads
    that person's rows through indexes on their id, never the server's."""
    shown = Shown(user_id, guild_id)
    for guild, (count, first, last) in (await _own_rolls(db, user_id, guild_id)).items():
        entry = shown.server(guild)
        entry["rolls"], entry["first_roll"], entry["last_roll"] = count, first, last
    await _turn()
    async with transaction(db) as session:
        for data in personal.declarations():
            if data.show_in is not None:
                await data.show_in(session, shown)
    out = []
    for guild in sorted(shown.servers, key=lambda g: (g is None, g or 0)):
        values = shown.servers[guild]
        values["characters"] = tuple(values.get("characters", ()))
        values["known_gm_in"] = tuple(sorted(values.get("known_gm_in", ())))
        out.append(ServerData(**values))
    settings = shown.settings
    return StoredData(
        user_id,
        tuple(out),
        settings.get("notify"),
        settings.get("dialect"),
        settings.get("seed"),
        int(settings.get("seed_changes", 0)),
    )


# --- /privacy delete -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Erased:
    """What an erasure did."""

    characters_deleted: int = 0
    rolls_erased: int = 0
    other_rows_changed: int = 0
    #: Rows recorded before format 3 (migration 0008) whose commitment or result can no longer be
    #: checked.
    older_rows: int = 0
    names: tuple[str, ...] = field(default=(), repr=False)


def _changes(row: RollView, user_id: int, names: _Matcher) -> dict[str, Any]:
    """The personal columns of one ledger row as the erasure leaves them (only changed ones):
    all of them in the person's own row; in a row naming them, the fields holding a name it
    names them by (``names``)."""
    own = row.user_id == user_id
    changed: dict[str, Any] = {}
    if own:
        changed["user_id"] = cm.TOMBSTONE_ID
    name = row.character_name
    if name is not None and name != cm.TOMBSTONE and (own or names(name)):
        changed["character_name"] = cm.TOMBSTONE
    if row.request != cm.TOMBSTONE and (own or names(row.request, command=True)):
        changed["request"] = cm.TOMBSTONE
    for column in ("dice", "outcome"):
        value = getattr(row, column)
        after = _tombstoned(value, None, own, names)
        if after != value:
            changed[column] = after
    return changed


def _salt_rows_after(row: RollView, changed: dict[str, Any]) -> list[dict[str, Any]]:
    """``ledger_salts`` rows for a row once erased (replacing all of its current ones)."""
    salts = row.salts or cm.Salts()
    marker = {"ledger_id": row.id, "field": cm.ERASED, "salt": None, "digest": row.who}
    if row.format < cm.FORMAT:
        out = [marker]
        entry_before = salts.entry_before
        bound_in_clear = row.visibility is Visibility.PUBLIC and (
            "dice" in changed or "outcome" in changed
        )
        if entry_before is None and bound_in_clear:
            # The entry bound this text in clear: keep the digest it had, so the chain still
            # links; its result can no longer be checked against it.
            entry_before = cm.sha256_hex(row.entry())
        if entry_before is not None:
            out.append(
                {
                    "ledger_id": row.id,
                    "field": cm.ENTRY_BEFORE_ERASURE,
                    "salt": None,
                    "digest": entry_before,
                }
            )
        return out
    before = cm.personal_fields(row.user_id, row.character_name, row.request, row.dice, row.outcome)
    after = cm.personal_fields(
        changed.get("user_id", row.user_id),
        changed.get("character_name", row.character_name),
        changed.get("request", row.request),
        changed.get("dice", row.dice),
        changed.get("outcome", row.outcome),
    )
    out = [marker]
    for path, value in before.items():
        if path in salts.erased:
            digest: str | None = salts.erased[path]
            out.append({"ledger_id": row.id, "field": path, "salt": None, "digest": digest})
            continue
        if after[path] != value:
            digest = salts.digest_of(path, value)
            if digest is None:
                raise cm.Unsalted(path)
            out.append({"ledger_id": row.id, "field": path, "salt": None, "digest": digest})
            continue
        salt = salts.field_salts.get(path)
        if salt is None and salts.row_salt is not None:
            salt = cm.field_salt(salts.row_salt, path)
        if salt is not None:
            out.append({"ledger_id": row.id, "field": path, "salt": salt, "digest": None})
    return out


def _fields(row: RollView) -> dict[str, Any]:
    return {name: getattr(row, name) for name in RollView.__slots__}


async def _apply_in(session: Executor, todo: list[tuple[RollView, dict[str, Any]]]) -> int:
    """Tombstone ledger rows (row → changed columns), their salts rewritten so each erased
    field keeps only its digest; returns how many of them are older rows (formats 1, 2)."""
    if not todo:
        return 0
    found: dict[int, dict[str, tuple[str | None, str | None]]] = {}
    ids = [row.id for row, _ in todo]
    for salt in await _rows(session, select(ledger_salts).where(ledger_salts.c.ledger_id.in_(ids))):
        found.setdefault(int(salt.ledger_id), {})[salt.field] = (salt.salt, salt.digest)
    salt_rows: list[dict[str, Any]] = []
    older = 0
    for row, changes in todo:
        salted = RollView(**{**_fields(row), "salts": salts_of(found.get(row.id, {}))})
        salt_rows += _salt_rows_after(salted, changes)
        older += row.format < cm.FORMAT
    await session.execute(delete(ledger_salts).where(ledger_salts.c.ledger_id.in_(ids)))
    await session.execute(ledger_salts.insert(), salt_rows)
    await tombstone_in(session, [(row.id, changes) for row, changes in todo])
    return older


async def _person_in(
    session: Executor, user_id: int, guild_id: int | None, extra: Iterable[str]
) -> Person:
    """Their characters in scope (``ix_characters_user_id``) and the names their own rows may
    hold: their characters', those their own rows were rolled with, the display names given."""
    mine = await owned_in(session, user_id, guild_id)
    stmt = (
        select(ledger.c.character_name)
        .where(
            ledger.c.user_id == user_id,
            ledger.c.character_name.is_not(None),
            in_scope(ledger, guild_id),
        )
        .distinct()
    )
    names = {str(n) for (n,) in await _rows(session, stmt)} | set(mine.values())
    names |= {n for n in extra if n and n.strip()}
    names.discard(cm.TOMBSTONE)
    # This module's transaction and page, looked up now: a test slows or counts them.
    return Person(user_id, guild_id, names, mine, transaction=transaction, page=PAGE)


async def _erase_own_rows(db: Database, person: Person) -> None:
    """Every row of theirs (``ix_ledger_user_id_id``), a page per transaction: erased rows
    lose their id, so the next page starts after them and a run cut short resumes."""
    match = person.own()
    after = 0
    while True:
        async with person.transaction(db) as session:
            stmt = (
                select(ledger)
                .where(
                    ledger.c.user_id == person.user_id,
                    ledger.c.id > after,
                    in_scope(ledger, person.guild_id),
                )
                .order_by(ledger.c.id)
                .limit(person.page)
            )
            page = [view_of(r) for r in await _rows(session, stmt)]
            if not page:
                return
            after = page[-1].id
            todo = [(row, _changes(row, person.user_id, match)) for row in page]
            todo = [(row, changes) for row, changes in todo if changes]
            person.older += await _apply_in(session, todo)
            person.rolls += len(todo)
        await _turn()


async def _erase_named_rows(db: Database, person: Person) -> None:
    """Other people's rows that name them: by ``ledger_names`` (then their rows there go), and
    rows rolled for one of their characters (``ix_ledger_character_id_id``); in each, only the
    fields holding the name it names them by. A post whose bound roll is such a row loses the
    copies of it (its ``[[...]]``, the result line) and its text's digest."""
    after = 0
    while True:
        async with person.transaction(db) as session:
            stmt = (
                select(ledger_names.c.ledger_id, ledger_names.c.name)
                .join(ledger, ledger.c.id == ledger_names.c.ledger_id)
                .where(
                    ledger_names.c.user_id == person.user_id,
                    ledger_names.c.ledger_id > after,
                    in_scope(ledger, person.guild_id),
                )
                .order_by(ledger_names.c.ledger_id)
                .limit(person.page)
            )
            found: dict[int, set[str]] = {}
            for ledger_id, name in await _rows(session, stmt):
                found.setdefault(int(ledger_id), set()).add(str(name))
            if not found:
                break
            after = max(found)
            await _erase_named_in(session, person, found)
            await session.execute(
                delete(ledger_names).where(
                    ledger_names.c.user_id == person.user_id,
                    ledger_names.c.ledger_id.in_(sorted(found)),
                )
            )
        await _turn()
    for character_id, name in person.character_ids.items():
        after = 0
        while True:
            async with person.transaction(db) as session:
                stmt = (
                    select(ledger.c.id)
                    .where(
                        ledger.c.character_id == character_id,
                        ledger.c.id > after,
                        # Not theirs (done above) nor erased before (0: nothing personal left).
                        ledger.c.user_id.not_in([person.user_id, cm.TOMBSTONE_ID]),
                    )
                    .order_by(ledger.c.id)
                    .limit(person.page)
                )
                ids = [int(i) for (i,) in await _rows(session, stmt)]
                if not ids:
                    break
                after = ids[-1]
                await _erase_named_in(session, person, {i: {name} for i in ids})
            await _turn()


async def _erase_named_in(session: Executor, person: Person, found: dict[int, set[str]]) -> None:
    rows = [
        view_of(r)
        for r in await _rows(session, select(ledger).where(ledger.c.id.in_(sorted(found))))
    ]
    todo = []
    for row in rows:
        changes = _changes(row, person.user_id, person.named_as(frozenset(found[row.id])))
        if changes:
            todo.append((row, changes))
    person.older += await _apply_in(session, todo)
    person.other += len(todo)
    await _erase_copies_in(session, person, [row.id for row in rows])


async def _erase_copies_in(session: Executor, person: Person, ledger_ids: list[int]) -> None:
    """What the features copied of rows that name them (a post's ``[[...]]`` and result line),
    and then the digest of their own text the features' ledger rows keep (a post's
    ``sha256``), which would confirm a guess of what was erased."""
    digest_rows: list[int] = []
    for data in personal.declarations():
        if data.copies_in is not None:
            digest_rows += await data.copies_in(session, person, ledger_ids)
    if not digest_rows:
        return
    rows = [
        view_of(r)
        for r in await _rows(
            session,
            select(ledger).where(
                ledger.c.id.in_(digest_rows),
                ledger.c.kind.in_([LedgerKind.POST, LedgerKind.POST_EDIT]),
            ),
        )
    ]
    todo = []
    for row in rows:
        outcome = row.outcome
        if isinstance(outcome, dict) and outcome.get("sha256") not in (None, cm.TOMBSTONE):
            todo.append((row, {"outcome": {**outcome, "sha256": cm.TOMBSTONE}}))
    person.older += await _apply_in(session, todo)
    person.other += len(todo)


async def _erase_log(db: Database, person: Person) -> int:
    """The log first, a page at a time: their rows, then the rows that name them."""
    await _erase_own_rows(db, person)
    await _erase_named_rows(db, person)
    return 0


async def _show_named_in(session: Executor, shown: Shown) -> None:
    """Other people's rolls that name them by id (an erasure erases the name there)."""
    named = (
        select(ledger.c.guild_id, func.count(func.distinct(ledger.c.id)))
        .select_from(ledger_names.join(ledger, ledger.c.id == ledger_names.c.ledger_id))
        .where(ledger_names.c.user_id == shown.user_id, in_scope(ledger, shown.guild_id))
        .group_by(ledger.c.guild_id)
    )
    for guild, count in await _rows(session, named):
        shown.server(guild)["named_in"] = int(count)


#: The game log's declaration: its erasure is this module's own (above).
PERSONAL_DATA = declare(
    PersonalData(
        "game log",
        holdings=(
            personal.holding(
                "ledger",
                "user_id (theirs: every personal field); or named in ledger_names, or rolled "
                "for their character (only the fields holding that name); or the row of a post "
                "whose bound roll names them (its text's digest)",
                "user_id",
                "character_name",
                "request",
                "dice",
                "outcome",
                "character_id",  # NULL once their character is deleted, as any deletion does
            ),
            personal.holding(
                "ledger_salts", "a changed ledger row's salts (replaced)", "*", "salt", "digest"
            ),
            Holding("ledger_names", "user_id", DELETED),
        ),
        not_personal={
            "ledger_chains": "chain heads and counters",
            "ledger.commitment": "a digest binding the row (docs/privacy.md, why the log checks)",
            "ledger.salt": "the row's salt, a random number",
            "ledger.who": "a salted digest of the roller's fields",
            "ledger.chain": "the chain's link, a digest",
            "ledger_salts.field": "a field's path (``outcome/label``), written by the bot",
        },
        show_in=_show_named_in,
        erase=_erase_log,
        order=0,
        exported="every row of the campaign's log; a ``self`` roll not yet revealed without "
        "its result, command and salts, and without whom it names",
    )
)


async def erase_user(
    db: Database, user_id: int, guild_id: int | None = None, names: Sequence[str] = ()
) -> Erased:
    """Delete what only ``user_id`` owns and tombstone them where a row names them by id: in
    one server (``guild_id``), or everywhere (None: ``/privacy delete`` in a direct message,
    and ``pbp-dice erase-user``). ``names``: display names their own rows may hold
    besides their characters' names. The log first, then every feature's declaration in its
    order, their characters last, so a run cut short still finds their names and characters
    when run again; each step reads a page of their rows per transaction."""
    async with transaction(db) as session:
        person = await _person_in(session, user_id, guild_id, names)
    for data in personal.declarations():
        if data.erase is not None:
            person.other += await data.erase(db, person)
    # SQLite: what the erasure freed is zeroed (secure_delete, bot/db/engine.py), and the old
    # versions of its pages leave the write-ahead log. PostgreSQL: docs/privacy.md.
    await truncate_wal(db)
    return Erased(
        person.characters_deleted,
        person.rolls,
        person.other,
        person.older,
        tuple(sorted(person.own_names)),
    )


__all__ = [
    "DELETED",
    "DOC_URL",
    "FREE_TEXT_KEYS",
    "MIN_NAME_IN_TEXT",
    "STRUCTURAL_KEYS",
    "Erased",
    "Holding",
    "ServerData",
    "StoredCharacter",
    "StoredData",
    "erase_user",
    "stored_data",
]
