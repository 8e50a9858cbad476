"""What the bot stores about a person, and erasing it without breaking the game log.

``/privacy show`` lists a user's data per server; ``/privacy delete`` (and the operator's
``python -m bot erase-user``) deletes what only they own (their characters, with scores,
proficiencies, fortune, carry-overs, saved rolls and sealed pre-rolls, and their posts) and
tombstones their identity everywhere else it is kept.

**By identity, never by text.** An erasure changes only rows the person wrote (their id in the
row's author column) and rows that name them by id: a ledger row that ``ledger_names`` says
names them (the character a GM rolled for, a helper, an attack's target, a group's members, a
turn order's players, a score generation's players), a row rolled for one of their characters,
their place in a request, a turn order, a generation, a campaign's known GMs, a mention
``<@id>`` of them. In a row that names them, only the fields holding the name it names them by
change. Nobody else's words are searched for their names: a character called "Dex" erases no
one's ``/check ability:DEX``. :data:`HOLDINGS` declares, table by table, whose rows an erasure
changes and which columns; tests/services/test_privacy_property.py holds the erasure to it
and fails on a table that is not declared.

The ledger stays verifiable: format 3 rows bind each personal field by its own salted digest
(bot/services/commitments.py), so a tombstoned field keeps its digest in ``ledger_salts`` and
loses its salt; the chain, the commitments and ``who`` still check. Older rows (formats 1 and
2) bound some of that text in clear: they are tombstoned too, and report "erased, no longer
checkable" (docs/privacy.md says why that is the best available).

Every walk reads a page of that person's rows per short transaction, through an index on
their id, and gives the event loop a turn between pages, so a big server or a long game never
holds the other players' rolls; its cost grows with that person's rows, not the server's.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    CursorResult,
    Result,
    Table,
    Text,
    delete,
    func,
    or_,
    select,
    true,
    update,
)
from sqlalchemy import (
    cast as sql_cast,
)

from bot.db.dialect_models import dice_dialects
from bot.db.engine import Database, truncate_wal
from bot.db.fair_models import player_seed_changes, player_seeds
from bot.db.fortune_models import fortune_choices
from bot.db.inline_models import rolled_messages
from bot.db.macro_models import macros
from bot.db.models import (
    campaigns,
    character_scores,
    characters,
    ledger,
    ledger_names,
    ledger_salts,
    notify_settings,
    turn_orders,
)
from bot.db.party_models import ability_generations, roll_request_targets, roll_requests
from bot.db.post_models import post_rolls, post_versions, posts
from bot.db.round_models import round_declarations, rounds
from bot.services import commitments as cm
from bot.services._sql import Executor, transaction
from bot.services.inline import find_rolls
from bot.services.store.ledger import RollView, salts_of, tombstone_in, view_of
from bot.words import LedgerKind, Visibility

#: Where /privacy points for the whole story: the note shipped with the bot's source (no
#: published address is known to the code; an operator hosting the bot can show it).
DOC_URL = "docs/privacy.md"
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
#: Rows read per query (and transaction) while erasing. A page's Python work holds the event
#: loop (its salts are recomputed: ~0.5-1 ms a row on a busy 2-core machine, bench/privacy.py),
#: so 20 keeps each slice well under 50 ms; the other players' commands run between pages.
PAGE = 20
#: Rows of a person's own log read per page by ``/privacy show`` (three columns each).
SHOW_PAGE = 2000


# --- what each table keeps about a person ---------------------------------------------------


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


def _holding(table: str, whose: str, *changes: str) -> Holding:
    return Holding(table, whose, frozenset(changes))


#: The declaration: every table holding a user id, a name or free text is here or in
#: :data:`NOTHING_PERSONAL`. tests/services/test_privacy_property.py checks an erasure against
#: it, and that no table is missing.
HOLDINGS: tuple[Holding, ...] = (
    _holding("characters", "user_id", "*"),
    _holding("character_scores", "their character's (deleted with it)", "*"),
    _holding("character_proficiencies", "their character's (deleted with it)", "*"),
    _holding("character_saves", "their character's (deleted with it)", "*"),
    _holding("pending_modifiers", "their character's (deleted with it)", "*"),
    _holding("macros", "their character's (deleted with it)", "*"),
    _holding("prerolls", "their character's (deleted with it)", "*"),
    _holding(
        "ledger",
        "user_id (theirs: every personal field); or named in ledger_names, or rolled for their "
        "character (only the fields holding that name); or the row of a post whose bound roll "
        "names them (its text's digest)",
        "user_id",
        "character_name",
        "request",
        "dice",
        "outcome",
        "character_id",  # NULL once their character is deleted, as any deletion does
    ),
    _holding("ledger_salts", "a changed ledger row's salts (replaced)", "*", "salt", "digest"),
    _holding("ledger_names", "user_id", "*"),
    _holding("fortune_choices", "user_id", "user_id"),
    # The message's claim stays, so its dice still roll once; only whose message it was goes.
    _holding("rolled_messages", "user_id", "user_id"),
    _holding("roll_requests", "gm_user_id, or a target is theirs", "gm_user_id", "request"),
    _holding(
        "roll_request_targets",
        "user_id",
        "user_id",
        "character_name",
        "result",
        "character_id",  # NULL once their character is deleted
    ),
    _holding("ability_generations", "gm_user_id or player_ids", "gm_user_id", "player_ids"),
    _holding("campaigns", "gm_user_ids", "gm_user_ids"),
    _holding("turn_orders", "an entry's user_id", "entries"),
    _holding("posts", "user_id", "*"),
    _holding(
        "post_versions",
        "of their post (deleted); of another's post: a mention <@id>, or a bound roll that "
        "names them (its [[...]] becomes [[[erased]]])",
        "*",
        "text",
    ),
    _holding(
        "post_rolls",
        "of their post (deleted); of another's post: its roll names them",
        "*",
        "source",
        "detail",
    ),
    _holding("rounds", "opened_by", "opened_by"),
    _holding("round_declarations", "user_id", "user_id", "name"),
    _holding("notify_settings", "user_id (an erasure everywhere)", "*"),
    _holding("dice_dialects", "user_id (an erasure everywhere)", "*"),
    # The seed's text is theirs; each roll keeps only the key derived from it (in its outcome),
    # so the rolls stay recomputable after the text is gone (docs/fair-dice.md).
    _holding("player_seeds", "user_id (an erasure everywhere)", "*"),
    _holding("player_seed_changes", "user_id (an erasure everywhere)", "*"),
)

#: Tables that keep nothing about a person, and why.
NOTHING_PERSONAL: dict[str, str] = {
    "bot_state": "the bot's own facts (the digest of its synced commands)",
    "ledger_chains": "chain heads and counters",
    "ledger_stubs": "where a hidden roll's stub was posted",
    "log_checkpoints": "where /verify log last found a campaign's chain intact (number, head, "
    "message)",
    "scheduled_jobs": "a job's payload names a request, turn order or round, never a person",
    "post_settings": "a campaign's posting options",
    "campaign_dice_dialects": "a campaign's dice dialect, set by its GM",
    "fair_seeds": "server seeds of the dice, their hashes and counters (docs/fair-dice.md)",
    "fair_draws": "how many draws a player key took from a seed (the key every fair roll "
    "records; never the seed's text)",
    "undelivered_notices": "what the bot could not post, named by roll or request number, and why",
    "post_channels": "when a channel was told how to allow webhooks",
}


# --- /privacy show ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredCharacter:
    """A character of the user, as stored."""

    campaign_channel_id: int
    name: str
    level: int
    fortune: int
    double_fortune: bool
    scores: tuple[tuple[str, int], ...]


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


async def _rows(session: Executor, stmt: Any) -> list[Any]:
    return list(await session.execute(stmt))


def _changed(result: Result[Any]) -> int:
    """Rows an UPDATE or DELETE changed (its result is a CursorResult, which counts them)."""
    return cast(CursorResult[Any], result).rowcount or 0


def _in_scope(table: Table, guild_id: int | None) -> Any:
    return true() if guild_id is None else table.c.guild_id == guild_id


def _holds_id(column: Any, user_id: int) -> Any:
    """A JSON column whose text holds the id's digits: a cheap filter in the database, every
    row it lets through checked exactly in Python (:func:`_listed`, ``in gm_user_ids``)."""
    return sql_cast(column, Text).like(f"%{user_id}%")


async def _turn() -> None:
    """Give the event loop a turn between pages: the other players' commands run here."""
    await asyncio.sleep(0)


async def _own_rolls(
    db: Database, user_id: int, guild_id: int | None
) -> dict[int | None, list[Any]]:
    """Per server: how many rolls of theirs, the first and the last; counted by the database
    a page of their rows (through ``ix_ledger_user_id_id``) per transaction."""
    found: dict[int | None, list[Any]] = {}
    after = 0
    while True:
        theirs = [ledger.c.user_id == user_id, ledger.c.id > after, _in_scope(ledger, guild_id)]
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
    when given). Reads that person's rows through indexes on their id, never the server's."""
    servers: dict[int | None, dict[str, Any]] = {}

    def server(guild: int | None) -> dict[str, Any]:
        return servers.setdefault(guild, {"guild_id": guild})

    for guild, (count, first, last) in (await _own_rolls(db, user_id, guild_id)).items():
        entry = server(guild)
        entry["rolls"], entry["first_roll"], entry["last_roll"] = count, first, last
    await _turn()
    async with transaction(db) as session:
        stmt = (
            select(characters, campaigns.c.guild_id, campaigns.c.channel_id)
            .join(campaigns, campaigns.c.id == characters.c.campaign_id)
            .where(characters.c.user_id == user_id, _in_scope(campaigns, guild_id))
            .order_by(characters.c.id)
        )
        found = list(await session.execute(stmt))
        scores: dict[int, list[tuple[str, int]]] = {}
        if found:
            ids = [row.id for row in found]
            rows = await session.execute(
                select(character_scores)
                .where(character_scores.c.character_id.in_(ids))
                .order_by(character_scores.c.ability)
            )
            for score in rows:
                scores.setdefault(score.character_id, []).append((score.ability, score.value))
        for row in found:
            entry = server(row.guild_id)
            entry.setdefault("characters", []).append(
                StoredCharacter(
                    row.channel_id,
                    row.name,
                    row.level,
                    row.fortune,
                    row.double_fortune,
                    tuple(scores.get(row.id, [])),
                )
            )
        for row in await session.execute(
            select(campaigns.c.guild_id, campaigns.c.channel_id, campaigns.c.gm_user_ids).where(
                _in_scope(campaigns, guild_id), _holds_id(campaigns.c.gm_user_ids, user_id)
            )
        ):
            if user_id in row.gm_user_ids:
                server(row.guild_id).setdefault("known_gm_in", []).append(row.channel_id)
        named = (
            select(ledger.c.guild_id, func.count(func.distinct(ledger.c.id)))
            .select_from(ledger_names.join(ledger, ledger.c.id == ledger_names.c.ledger_id))
            .where(ledger_names.c.user_id == user_id, _in_scope(ledger, guild_id))
            .group_by(ledger.c.guild_id)
        )
        for guild, count in await _rows(session, named):
            server(guild)["named_in"] = int(count)
        choices = (
            select(ledger.c.guild_id, func.count())
            .select_from(fortune_choices.join(ledger, ledger.c.id == fortune_choices.c.roll_id))
            .where(fortune_choices.c.user_id == user_id, _in_scope(ledger, guild_id))
            .group_by(ledger.c.guild_id)
        )
        for guild, count in await _rows(session, choices):
            server(guild)["fortune_choices"] = int(count)
        made = (
            select(roll_requests.c.guild_id, func.count())
            .where(roll_requests.c.gm_user_id == user_id, _in_scope(roll_requests, guild_id))
            .group_by(roll_requests.c.guild_id)
        )
        for guild, count in await _rows(session, made):
            server(guild)["requests_made"] = int(count)
        received = (
            select(roll_requests.c.guild_id, func.count())
            .select_from(
                roll_request_targets.join(
                    roll_requests, roll_requests.c.id == roll_request_targets.c.request_id
                )
            )
            .where(roll_request_targets.c.user_id == user_id, _in_scope(roll_requests, guild_id))
            .group_by(roll_requests.c.guild_id)
        )
        for guild, count in await _rows(session, received):
            server(guild)["requests_received"] = int(count)
        orders = select(turn_orders.c.guild_id, turn_orders.c.entries).where(
            _in_scope(turn_orders, guild_id), _holds_id(turn_orders.c.entries, user_id)
        )
        for guild, entries in await _rows(session, orders):
            if any(_listed(entry, user_id) for entry in entries or ()):
                entry = server(guild)
                entry["turn_orders"] = entry.get("turn_orders", 0) + 1
        written = (
            select(posts.c.guild_id, func.count())
            .where(posts.c.user_id == user_id, _in_scope(posts, guild_id))
            .group_by(posts.c.guild_id)
        )
        for guild, count in await _rows(session, written):
            server(guild)["posts"] = int(count)
        saved = (
            select(campaigns.c.guild_id, func.count())
            .select_from(
                macros.join(characters, characters.c.id == macros.c.character_id).join(
                    campaigns, campaigns.c.id == characters.c.campaign_id
                )
            )
            .where(characters.c.user_id == user_id, _in_scope(campaigns, guild_id))
            .group_by(campaigns.c.guild_id)
        )
        for guild, count in await _rows(session, saved):
            server(guild)["macros"] = int(count)
        notify = await session.scalar(
            select(notify_settings.c.mode).where(notify_settings.c.user_id == user_id)
        )
        dialect = await session.scalar(
            select(dice_dialects.c.dialect).where(dice_dialects.c.user_id == user_id)
        )
        seed = await session.scalar(
            select(player_seeds.c.text).where(player_seeds.c.user_id == user_id)
        )
        seed_changes = await session.scalar(
            select(func.count()).where(player_seed_changes.c.user_id == user_id)
        )
    out = []
    for guild in sorted(servers, key=lambda g: (g is None, g or 0)):
        values = servers[guild]
        values["characters"] = tuple(values.get("characters", ()))
        values["known_gm_in"] = tuple(sorted(values.get("known_gm_in", ())))
        out.append(ServerData(**values))
    return StoredData(user_id, tuple(out), notify, dialect, seed, int(seed_changes or 0))


def _listed(entry: Any, user_id: int) -> bool:
    """Whether a turn order's entry is the user's character."""
    return isinstance(entry, dict) and entry.get("user_id") == user_id


# --- /privacy delete -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Erased:
    """What an erasure did."""

    characters_deleted: int = 0
    rolls_erased: int = 0
    other_rows_changed: int = 0
    #: Rows recorded before issue 22 whose commitment or result can no longer be checked.
    older_rows: int = 0
    names: tuple[str, ...] = field(default=(), repr=False)


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


class _Matcher:
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


def _tombstoned(value: Any, key: str | None, own: bool, names: _Matcher) -> Any:
    """``value`` with every string naming the person (and, in their own rows, their free
    text) replaced by the tombstone; same shape, numbers untouched."""
    if isinstance(value, str):
        if key in STRUCTURAL_KEYS:
            return value
        if (own and key in FREE_TEXT_KEYS) or names(value):
            return cm.TOMBSTONE
        return value
    if isinstance(value, dict):
        return {k: _tombstoned(v, k, own, names) for k, v in value.items()}
    if isinstance(value, list):
        return [_tombstoned(v, key, own, names) for v in value]
    return value


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


@dataclass
class _Person:
    """Whom an erasure is for, and where: their id, the server (None: everywhere), the names
    their own rows may hold (their characters', the display names given), and their
    characters in scope."""

    user_id: int
    guild_id: int | None
    own_names: set[str]
    character_ids: dict[int, str]
    rolls: int = 0
    older: int = 0
    other: int = 0
    _matchers: dict[frozenset[str], _Matcher] = field(default_factory=dict)

    def own(self) -> _Matcher:
        return _Matcher(self.user_id, self.own_names)

    def named_as(self, names: frozenset[str]) -> _Matcher:
        # In a row that names them by id, a name of any length is looked for as a word: the
        # row is known to be about them, and a two-letter name must go too.
        found = self._matchers.get(names)
        if found is None:
            found = self._matchers[names] = _Matcher(self.user_id, names, shortest=1)
        return found


async def _person_in(
    session: Executor, user_id: int, guild_id: int | None, extra: Iterable[str]
) -> _Person:
    """Their characters in scope (``ix_characters_user_id``) and the names their own rows may
    hold: their characters', those their own rows were rolled with, the display names given."""
    stmt = (
        select(characters.c.id, characters.c.name)
        .join(campaigns, campaigns.c.id == characters.c.campaign_id)
        .where(characters.c.user_id == user_id, _in_scope(campaigns, guild_id))
    )
    mine = {int(cid): str(name) for cid, name in await _rows(session, stmt)}
    stmt = (
        select(ledger.c.character_name)
        .where(
            ledger.c.user_id == user_id,
            ledger.c.character_name.is_not(None),
            _in_scope(ledger, guild_id),
        )
        .distinct()
    )
    names = {str(n) for (n,) in await _rows(session, stmt)} | set(mine.values())
    names |= {n for n in extra if n and n.strip()}
    names.discard(cm.TOMBSTONE)
    return _Person(user_id, guild_id, names, mine)


async def _erase_own_rows(db: Database, person: _Person) -> None:
    """Every row of theirs (``ix_ledger_user_id_id``), a page per transaction: erased rows
    lose their id, so the next page starts after them and a run cut short resumes."""
    match = person.own()
    after = 0
    while True:
        async with transaction(db) as session:
            stmt = (
                select(ledger)
                .where(
                    ledger.c.user_id == person.user_id,
                    ledger.c.id > after,
                    _in_scope(ledger, person.guild_id),
                )
                .order_by(ledger.c.id)
                .limit(PAGE)
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


async def _erase_named_rows(db: Database, person: _Person) -> None:
    """Other people's rows that name them: by ``ledger_names`` (then their rows there go), and
    rows rolled for one of their characters (``ix_ledger_character_id_id``); in each, only the
    fields holding the name it names them by. A post whose bound roll is such a row loses the
    copies of it (its ``[[...]]``, the result line) and its text's digest."""
    after = 0
    while True:
        async with transaction(db) as session:
            stmt = (
                select(ledger_names.c.ledger_id, ledger_names.c.name)
                .join(ledger, ledger.c.id == ledger_names.c.ledger_id)
                .where(
                    ledger_names.c.user_id == person.user_id,
                    ledger_names.c.ledger_id > after,
                    _in_scope(ledger, person.guild_id),
                )
                .order_by(ledger_names.c.ledger_id)
                .limit(PAGE)
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
            async with transaction(db) as session:
                stmt = (
                    select(ledger.c.id)
                    .where(
                        ledger.c.character_id == character_id,
                        ledger.c.id > after,
                        # Not theirs (done above) nor erased before (0: nothing personal left).
                        ledger.c.user_id.not_in([person.user_id, cm.TOMBSTONE_ID]),
                    )
                    .order_by(ledger.c.id)
                    .limit(PAGE)
                )
                ids = [int(i) for (i,) in await _rows(session, stmt)]
                if not ids:
                    break
                after = ids[-1]
                await _erase_named_in(session, person, {i: {name} for i in ids})
            await _turn()


async def _erase_named_in(session: Executor, person: _Person, found: dict[int, set[str]]) -> None:
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
    await _erase_bound_copies_in(session, person, [row.id for row in rows])


async def _erase_bound_copies_in(session: Executor, person: _Person, ledger_ids: list[int]) -> None:
    """Another player's post bound to a roll that names them: the post's copy of the roll (its
    ``[[...]]`` in every version, the result line) and the post's ledger rows' digest of its
    text, which would confirm a guess of what was erased. The roll's number and total stay."""
    stmt = (
        select(post_rolls.c.post_id, post_rolls.c.position, post_rolls.c.source)
        .join(posts, posts.c.id == post_rolls.c.post_id)
        .where(post_rolls.c.ledger_id.in_(ledger_ids), posts.c.user_id != person.user_id)
    )
    bound = await _rows(session, stmt)
    if not bound:
        return
    by_post: dict[int, set[int]] = {}
    for post_id, position, source in bound:
        by_post.setdefault(int(post_id), set()).add(int(position))
        if source != cm.TOMBSTONE:
            await session.execute(
                update(post_rolls)
                .where(post_rolls.c.post_id == post_id, post_rolls.c.position == position)
                .values(source=cm.TOMBSTONE, detail=cm.TOMBSTONE)
            )
            person.other += 1
    digest_rows: list[int] = []
    for post_id, positions in by_post.items():
        versions = await _rows(
            session,
            select(post_versions.c.id, post_versions.c.text, post_versions.c.ledger_id).where(
                post_versions.c.post_id == post_id
            ),
        )
        for version_id, text, ledger_id in versions:
            if ledger_id is not None:
                digest_rows.append(int(ledger_id))
            spans = find_rolls(text)
            new = text
            for position in sorted(positions, reverse=True):
                if position < len(spans) and spans[position].source != cm.TOMBSTONE:
                    span = spans[position]
                    new = f"{new[: span.start]}[[{cm.TOMBSTONE}]]{new[span.end :]}"
            if new != text:
                await session.execute(
                    update(post_versions).where(post_versions.c.id == version_id).values(text=new)
                )
                person.other += 1
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


# --- the rest: each a short transaction, through indexes on the person's id ------------------


async def _erase_characters_in(session: Executor, person: _Person) -> int:
    """Their characters, and what only a character holds; returns how many."""
    ids = sorted(person.character_ids)
    if ids:
        # Their saved rolls first, explicitly; scores, proficiencies, saves, carry-overs and
        # sealed pre-rolls go with them (ON DELETE CASCADE); the ledger's and requests'
        # references become NULL.
        await session.execute(delete(macros).where(macros.c.character_id.in_(ids)))
        await session.execute(delete(characters).where(characters.c.id.in_(ids)))
    return len(ids)


async def _erase_fortune_choices_in(session: Executor, person: _Person) -> int:
    """Who chose to spend or keep a fortune die on a roll in scope."""
    stmt = update(fortune_choices).where(fortune_choices.c.user_id == person.user_id)
    if person.guild_id is not None:
        stmt = stmt.where(
            fortune_choices.c.roll_id.in_(
                select(ledger.c.id).where(
                    ledger.c.id == fortune_choices.c.roll_id, ledger.c.guild_id == person.guild_id
                )
            )
        )
    return _changed(await session.execute(stmt.values(user_id=cm.TOMBSTONE_ID)))


async def _erase_rolled_messages_in(session: Executor, person: _Person) -> int:
    """Whose message's dice the context menu rolled: the id goes, the message's claim stays,
    so its dice still roll once."""
    stmt = update(rolled_messages).where(rolled_messages.c.user_id == person.user_id)
    if person.guild_id is not None:
        stmt = stmt.where(
            rolled_messages.c.ledger_id.in_(
                select(ledger.c.id).where(
                    ledger.c.id == rolled_messages.c.ledger_id,
                    ledger.c.guild_id == person.guild_id,
                )
            )
        )
    return _changed(await session.execute(stmt.values(user_id=cm.TOMBSTONE_ID)))


async def _erase_requests_in(session: Executor, person: _Person) -> int:
    """GM roll requests: the typed request of one they made or that names one of their
    characters (by its target's id), their id as GM, and their place among the targets."""
    user_id = person.user_id
    made = select(roll_requests.c.id).where(
        roll_requests.c.gm_user_id == user_id, _in_scope(roll_requests, person.guild_id)
    )
    for_them = (
        select(roll_requests.c.id)
        .join(roll_request_targets, roll_requests.c.id == roll_request_targets.c.request_id)
        .where(roll_request_targets.c.user_id == user_id, _in_scope(roll_requests, person.guild_id))
    )
    ids = {int(i) for (i,) in await _rows(session, made)}
    ids |= {int(i) for (i,) in await _rows(session, for_them)}
    changed = 0
    if ids:
        result = await session.execute(
            update(roll_requests)
            .where(roll_requests.c.id.in_(sorted(ids)), roll_requests.c.request != cm.TOMBSTONE)
            .values(request=cm.TOMBSTONE)
        )
        changed = _changed(result)
    result = await session.execute(
        update(roll_requests)
        .where(roll_requests.c.gm_user_id == user_id, _in_scope(roll_requests, person.guild_id))
        .values(gm_user_id=cm.TOMBSTONE_ID)
    )
    changed += _changed(result)
    match = person.own()
    stmt = (
        select(roll_request_targets.c.id, roll_request_targets.c.result)
        .join(roll_requests, roll_requests.c.id == roll_request_targets.c.request_id)
        .where(roll_request_targets.c.user_id == user_id, _in_scope(roll_requests, person.guild_id))
    )
    for target_id, summary in await _rows(session, stmt):
        await session.execute(
            update(roll_request_targets)
            .where(roll_request_targets.c.id == target_id)
            .values(
                user_id=cm.TOMBSTONE_ID,
                character_name=cm.TOMBSTONE,
                result=_tombstoned(summary, None, True, match),
            )
        )
        changed += 1
    return changed


async def _rewrite(
    session: Executor, table: Table, selected: Any, change: Callable[[Any], dict[str, Any]]
) -> int:
    """Update each selected row (its ``id`` among the columns) with what ``change`` returns
    for it, skipping rows it leaves alone; returns how many changed."""
    changed = 0
    for row in await _rows(session, selected):
        values = change(row)
        if values:
            await session.execute(update(table).where(table.c.id == row.id).values(**values))
            changed += 1
    return changed


async def _erase_generations_in(session: Executor, person: _Person) -> int:
    """Score generations: their seat as player or GM (the display names in the generation's
    ledger row are erased with the log: it names its players in ``ledger_names``)."""
    user_id = person.user_id

    def generation(row: Any) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if user_id in row.player_ids:
            values["player_ids"] = [p for p in row.player_ids if p != user_id]
        if row.gm_user_id == user_id:
            values["gm_user_id"] = cm.TOMBSTONE_ID
        return values

    campaigns_here = select(campaigns.c.id).where(_in_scope(campaigns, person.guild_id))
    selected = select(
        ability_generations.c.id, ability_generations.c.gm_user_id, ability_generations.c.player_ids
    ).where(
        ability_generations.c.campaign_id.in_(campaigns_here),
        or_(
            ability_generations.c.gm_user_id == user_id,
            _holds_id(ability_generations.c.player_ids, user_id),
        ),
    )
    return await _rewrite(session, ability_generations, selected, generation)


async def _erase_gm_seats_in(session: Executor, person: _Person) -> int:
    """Their place among a campaign's known GMs."""
    user_id = person.user_id

    def seat(row: Any) -> dict[str, Any]:
        if user_id in row.gm_user_ids:
            return {"gm_user_ids": [g for g in row.gm_user_ids if g != user_id]}
        return {}

    selected = select(campaigns.c.id, campaigns.c.gm_user_ids).where(
        _in_scope(campaigns, person.guild_id), _holds_id(campaigns.c.gm_user_ids, user_id)
    )
    return await _rewrite(session, campaigns, selected, seat)


async def _erase_turn_orders_in(session: Executor, person: _Person) -> int:
    """Turn orders list each entry's character and player: theirs become the tombstone (the
    order keeps its place, so the others' turns go on)."""
    user_id = person.user_id

    def order(row: Any) -> dict[str, Any]:
        entries = [
            {**entry, "user_id": cm.TOMBSTONE_ID, "name": cm.TOMBSTONE}
            if _listed(entry, user_id)
            else entry
            for entry in row.entries or ()
        ]
        return {"entries": entries} if entries != list(row.entries or ()) else {}

    selected = select(turn_orders.c.id, turn_orders.c.entries).where(
        _in_scope(turn_orders, person.guild_id), _holds_id(turn_orders.c.entries, user_id)
    )
    return await _rewrite(session, turn_orders, selected, order)


async def _erase_mentions_in(session: Executor, person: _Person) -> int:
    """A mention of them (``<@id>``, their id itself) in another player's post."""
    mention = re.compile(rf"<@!?{person.user_id}>")

    def version(row: Any) -> dict[str, Any]:
        text = mention.sub(cm.TOMBSTONE, row.text)
        return {"text": text} if text != row.text else {}

    selected = (
        select(post_versions.c.id, post_versions.c.text)
        .join(posts, posts.c.id == post_versions.c.post_id)
        .where(
            post_versions.c.text.contains(f"<@{person.user_id}>")
            | post_versions.c.text.contains(f"<@!{person.user_id}>"),
            _in_scope(posts, person.guild_id),
        )
    )
    return await _rewrite(session, post_versions, selected, version)


async def _erase_rounds_in(session: Executor, person: _Person) -> int:
    """Sealed declarations: the declarer's id and shown name in theirs, a GM's id in the
    rounds they opened. (The text is in the ledger row, erased with it.)"""
    stmt = (
        select(round_declarations.c.id)
        .join(rounds, rounds.c.id == round_declarations.c.round_id)
        .where(round_declarations.c.user_id == person.user_id, _in_scope(rounds, person.guild_id))
    )
    ids = [int(i) for (i,) in await _rows(session, stmt)]
    changed = 0
    if ids:
        result = await session.execute(
            update(round_declarations)
            .where(round_declarations.c.id.in_(ids))
            .values(user_id=cm.TOMBSTONE_ID, name=cm.TOMBSTONE)
        )
        changed = _changed(result)
    result = await session.execute(
        update(rounds)
        .where(rounds.c.opened_by == person.user_id, _in_scope(rounds, person.guild_id))
        .values(opened_by=cm.TOMBSTONE_ID)
    )
    return changed + _changed(result)


async def _erase_settings_in(session: Executor, person: _Person) -> int:
    """The settings kept for every server go with an erasure everywhere."""
    if person.guild_id is not None:
        return 0
    result = await session.execute(
        delete(notify_settings).where(notify_settings.c.user_id == person.user_id)
    )
    dialect = await session.execute(
        delete(dice_dialects).where(dice_dialects.c.user_id == person.user_id)
    )
    seeds = await session.execute(
        delete(player_seeds).where(player_seeds.c.user_id == person.user_id)
    )
    changes = await session.execute(
        delete(player_seed_changes).where(player_seed_changes.c.user_id == person.user_id)
    )
    return _changed(result) + _changed(dialect) + _changed(seeds) + _changed(changes)


async def _erase_posts(db: Database, person: _Person) -> int:
    """Their posts are their own words: deleted, every version and bound copy with them (the
    rolls stay in the log like any other, tombstoned there), a page per transaction."""
    deleted = 0
    while True:
        async with transaction(db) as session:
            page = select(posts.c.id).where(
                posts.c.user_id == person.user_id, _in_scope(posts, person.guild_id)
            )
            ids = [int(i) for (i,) in await _rows(session, page.limit(PAGE))]
            if not ids:
                return deleted
            await session.execute(delete(posts).where(posts.c.id.in_(ids)))
            deleted += len(ids)
        await _turn()


#: What erase_user does after the log, in order, each in its own short transaction.
_ERASE_STEPS: tuple[Callable[[Executor, _Person], Awaitable[int]], ...] = (
    _erase_fortune_choices_in,
    _erase_rolled_messages_in,
    _erase_requests_in,
    _erase_generations_in,
    _erase_gm_seats_in,
    _erase_turn_orders_in,
    _erase_mentions_in,
    _erase_rounds_in,
    _erase_settings_in,
)


async def erase_user(
    db: Database, user_id: int, guild_id: int | None = None, names: Sequence[str] = ()
) -> Erased:
    """Delete what only ``user_id`` owns and tombstone them where a row names them by id: in
    one server (``guild_id``), or everywhere (None: ``/privacy delete`` in a direct message,
    and ``pbp-dice erase-user``). ``names``: display names their own rows may hold
    besides their characters' names. Each step reads a page of their rows per transaction;
    running it again after an interruption finishes the job."""
    async with transaction(db) as session:
        person = await _person_in(session, user_id, guild_id, names)
    # The log first, a page at a time; their characters last, so a run cut short still finds
    # their names and characters when run again.
    await _erase_own_rows(db, person)
    await _erase_named_rows(db, person)
    person.other += await _erase_posts(db, person)
    for step in _ERASE_STEPS:
        async with transaction(db) as session:
            person.other += await step(session, person)
        await _turn()
    async with transaction(db) as session:
        erased_characters = await _erase_characters_in(session, person)
    # SQLite: what the erasure freed is zeroed (secure_delete, bot/db/engine.py), and the old
    # versions of its pages leave the write-ahead log. PostgreSQL: docs/privacy.md.
    await truncate_wal(db)
    return Erased(
        erased_characters,
        person.rolls,
        person.other,
        person.older,
        tuple(sorted(person.own_names)),
    )


__all__ = [
    "DELETED",
    "DOC_URL",
    "HOLDINGS",
    "NOTHING_PERSONAL",
    "Erased",
    "Holding",
    "ServerData",
    "StoredCharacter",
    "StoredData",
    "erase_user",
    "stored_data",
]
