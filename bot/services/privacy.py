"""What the bot stores about a person, and erasing it without breaking the game log (issue 22).

``/privacy show`` lists a user's data per server; ``/privacy delete`` (and the operator's
``python -m bot erase-user``) deletes what only they own (their characters, with scores,
proficiencies, fortune and carry-overs) and tombstones their identity everywhere else it is
kept: in the ledger (roller id, character names, typed command text, labels, notes and any other
text naming them), in roll requests, fortune choices, score generations and the known-GM lists.

The ledger stays verifiable: format 3 rows bind each personal field by its own salted digest
(bot/services/commitments.py), so a tombstoned field keeps its digest in ``ledger_salts`` and
loses its salt; the chain, the commitments and ``who`` still check. Older rows (formats 1 and
2) bound some of that text in clear: they are tombstoned too, and report "erased, no longer
checkable" (docs/privacy.md says why that is the best available). Campaigns and the rolls of
everyone else stay, as a GM's ``/campaign delete`` leaves the rolls for the group.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, Result, Table, delete, func, select, true, update

from bot.db.dialect_models import dice_dialects
from bot.db.engine import Database
from bot.db.fortune_models import fortune_choices
from bot.db.macro_models import macros
from bot.db.models import (
    campaigns,
    character_scores,
    characters,
    ledger,
    ledger_salts,
    notify_settings,
    turn_orders,
)
from bot.db.party_models import ability_generations, roll_request_targets, roll_requests
from bot.db.post_models import post_versions, posts
from bot.db.round_models import round_declarations, rounds
from bot.services import commitments as cm
from bot.services._sql import Executor, transaction
from bot.services.store.ledger import RollView, salts_of, tombstone_in, view_of
from bot.words import Visibility

#: Where /privacy points for the whole story: the note shipped with the bot's source (no
#: published address is known to the code; an operator hosting the bot can show it).
DOC_URL = "docs/privacy.md"
#: Keys of a roll's dice or outcome whose text is the roller's own words (a label, a note, the
#: dice expression with its comment): tombstoned in the erased person's own rolls.
FREE_TEXT_KEYS = frozenset(
    {"label", "labels", "note", "comment", "expression", "declaration"}  # + a sealed action
)
#: Names shorter than this are matched only as a whole field, never inside longer text: a
#: one- or two-letter name would otherwise erase every "a" in other people's commands.
MIN_NAME_IN_TEXT = 3
#: Ledger rows read per query (and transaction) while erasing. A page's Python work holds the
#: event loop: ~175 ms at 500 rows was measured (bench/privacy.py), so 50 keeps each slice
#: under the ~20 ms issue 22 allows; the other players' commands run between pages.
_PAGE = 50


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


@dataclass(frozen=True, slots=True)
class StoredData:
    """Everything, per server, and the one setting kept for every server: how reminders and
    turn pings reach the user (``/me notify``; None: never set)."""

    user_id: int
    servers: tuple[ServerData, ...]
    notify: str | None = None

    @property
    def empty(self) -> bool:
        return not self.servers and self.notify is None


async def _rows(session: Executor, stmt: Any) -> list[Any]:
    return list(await session.execute(stmt))


def _changed(result: Result[Any]) -> int:
    """Rows an UPDATE or DELETE changed (its result is a CursorResult, which counts them)."""
    return cast(CursorResult[Any], result).rowcount or 0


def _in_scope(table: Table, guild_id: int | None) -> Any:
    return true() if guild_id is None else table.c.guild_id == guild_id


async def stored_data(db: Database, user_id: int, guild_id: int | None = None) -> StoredData:
    """``/privacy show``: what is stored about ``user_id``, per server (only ``guild_id``'s
    when given)."""
    servers: dict[int | None, dict[str, Any]] = {}

    def server(guild: int | None) -> dict[str, Any]:
        return servers.setdefault(guild, {"guild_id": guild})

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
                _in_scope(campaigns, guild_id)
            )
        ):
            if user_id in row.gm_user_ids:
                server(row.guild_id).setdefault("known_gm_in", []).append(row.channel_id)
        rolls = (
            select(
                ledger.c.guild_id,
                func.count(),
                func.min(ledger.c.created_at),
                func.max(ledger.c.created_at),
            )
            .where(ledger.c.user_id == user_id, _in_scope(ledger, guild_id))
            .group_by(ledger.c.guild_id)
        )
        for guild, count, first, last in await _rows(session, rolls):
            entry = server(guild)
            entry["rolls"] = int(count)
            entry["first_roll"], entry["last_roll"] = first, last
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
            _in_scope(turn_orders, guild_id)
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
    out = []
    for guild in sorted(servers, key=lambda g: (g is None, g or 0)):
        values = servers[guild]
        values["characters"] = tuple(values.get("characters", ()))
        values["known_gm_in"] = tuple(sorted(values.get("known_gm_in", ())))
        out.append(ServerData(**values))
    return StoredData(user_id, tuple(out), notify)


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
#: words, modes): never erased, so a character named "Dex" or "Pass" does not wipe every
#: roll's "DEX" or "Pass" in the server.
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
    """Whether text names the person: one of their names or their id."""

    def __init__(self, user_id: int, names: Iterable[str]) -> None:
        self.exact = {n.casefold() for n in names if n.strip()}
        words = sorted((n for n in self.exact if len(n) >= MIN_NAME_IN_TEXT), key=len)
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
    """The personal columns of one ledger row as the erasure leaves them (only changed ones)."""
    own = row.user_id == user_id
    changed: dict[str, Any] = {}
    if own:
        changed["user_id"] = cm.TOMBSTONE_ID
    name = row.character_name
    if name is not None and name != cm.TOMBSTONE and names(name):
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


@dataclass
class _Names:
    """The person's names, and where each may be looked for.

    A character's name only in its own campaign's rows (for a deleted campaign's rows, which
    lost their campaign: only in rows of the same place, ``scope_id``, where the person's own
    rows carry that name), and a display name only in the person's own rows and the score
    generations they took part in: otherwise a player could name a character, or set a
    nickname, after someone else's character and erase it from everyone's log.
    """

    user_id: int
    by_campaign: dict[int | None, set[str]]
    #: Names on the person's own rows that lost their campaign, by the rows' place.
    by_scope: dict[int, set[str]]
    display: set[str]
    #: Ledger ids of the score generations the person took part in (as player or GM).
    generations: set[int]
    _cache: dict[tuple[int | None, int | None, bool], _Matcher] = field(default_factory=dict)

    def __call__(
        self, campaign_id: int | None, *, display: bool, scope_id: int | None = None
    ) -> _Matcher:
        scope = scope_id if campaign_id is None else None
        key = (campaign_id, scope, display)
        found = self._cache.get(key)
        if found is None:
            if campaign_id is None:
                names = set(self.by_scope.get(scope, set())) if scope is not None else set()
            else:
                names = set(self.by_campaign.get(campaign_id, set()))
            if display:
                names |= self.display
            found = self._cache[key] = _Matcher(self.user_id, names)
        return found

    def all(self) -> set[str]:
        return set().union(self.display, *self.by_campaign.values(), *self.by_scope.values())


async def _names_of(
    session: Executor, user_id: int, guild_id: int | None, extra: Iterable[str]
) -> _Names:
    """The person's names: their characters' (kept, or on their rolls and requests), by
    campaign, and the display names given (the cog passes the caller's)."""
    by_campaign: dict[int | None, set[str]] = {}
    stmt: Any = (
        select(characters.c.campaign_id, characters.c.name)
        .join(campaigns, campaigns.c.id == characters.c.campaign_id)
        .where(characters.c.user_id == user_id, _in_scope(campaigns, guild_id))
    )
    found = await _rows(session, stmt)
    # A character deleted since: the names their own rolls were made with (by place, for
    # rows whose campaign is gone).
    by_scope: dict[int, set[str]] = {}
    stmt = select(ledger.c.campaign_id, ledger.c.scope_id, ledger.c.character_name).where(
        ledger.c.user_id == user_id,
        ledger.c.character_name.is_not(None),
        ledger.c.character_id.is_(None),
        _in_scope(ledger, guild_id),
    )
    for campaign_id, scope_id, name in await _rows(session, stmt):
        if campaign_id is None:
            if name != cm.TOMBSTONE and scope_id is not None:
                by_scope.setdefault(int(scope_id), set()).add(name)
        else:
            found.append((campaign_id, name))
    stmt = (
        select(roll_requests.c.campaign_id, roll_request_targets.c.character_name)
        .join(roll_requests, roll_requests.c.id == roll_request_targets.c.request_id)
        .where(roll_request_targets.c.user_id == user_id, _in_scope(roll_requests, guild_id))
    )
    found += await _rows(session, stmt)
    for campaign_id, name in found:
        if name and name != cm.TOMBSTONE:
            by_campaign.setdefault(campaign_id, set()).add(name)
    generations: set[int] = set()
    stmt = select(
        ability_generations.c.roll_id,
        ability_generations.c.gm_user_id,
        ability_generations.c.player_ids,
    ).where(
        ability_generations.c.campaign_id.in_(
            select(campaigns.c.id).where(_in_scope(campaigns, guild_id))
        )
    )
    for roll_id, gm_id, players in await _rows(session, stmt):
        if roll_id is not None and (gm_id == user_id or user_id in players):
            generations.add(int(roll_id))
    display = {n for n in extra if n and n.strip() and n != cm.TOMBSTONE}
    return _Names(user_id, by_campaign, by_scope, display, generations)


async def _erase_ledger(
    db: Database, user_id: int, guild_id: int | None, names: _Names
) -> tuple[int, int]:
    """Tombstone the person in every ledger row in scope, a page per transaction (so rolls
    elsewhere wait for one page, not the whole erasure; a page done stays done, and running
    the erasure again finishes one cut short). Returns (rows changed, older rows)."""
    changed_rows = older = 0
    after = 0
    while True:
        async with transaction(db) as session:
            stmt = select(ledger).where(ledger.c.id > after, _in_scope(ledger, guild_id))
            page = [
                view_of(r) for r in await _rows(session, stmt.order_by(ledger.c.id).limit(_PAGE))
            ]
            if not page:
                return changed_rows, older
            after = page[-1].id
            todo = []
            for row in page:
                display = row.user_id == user_id or row.id in names.generations
                match = names(row.campaign_id, display=display, scope_id=row.scope_id)
                changes = _changes(row, user_id, match)
                if changes:
                    todo.append((row, changes))
            if not todo:
                continue
            found: dict[int, dict[str, tuple[str | None, str | None]]] = {}
            ids = [row.id for row, _ in todo]
            for salt in await _rows(
                session, select(ledger_salts).where(ledger_salts.c.ledger_id.in_(ids))
            ):
                found.setdefault(int(salt.ledger_id), {})[salt.field] = (salt.salt, salt.digest)
            salt_rows: list[dict[str, Any]] = []
            for row, changes in todo:
                salted = RollView(**{**_fields(row), "salts": salts_of(found.get(row.id, {}))})
                salt_rows += _salt_rows_after(salted, changes)
                older += row.format < cm.FORMAT
            await session.execute(delete(ledger_salts).where(ledger_salts.c.ledger_id.in_(ids)))
            await session.execute(ledger_salts.insert(), salt_rows)
            await tombstone_in(session, [(row.id, changes) for row, changes in todo])
            changed_rows += len(todo)


async def _erase_rounds_in(
    session: Executor, user_id: int, guild_id: int | None, known: _Names
) -> int:
    """Sealed declarations (issue 18): the declarer's id and shown name in their declarations,
    a GM's id in the rounds they opened. (The text is in the ledger row, erased with it.)"""
    changed = 0
    here = select(rounds.c.id).where(_in_scope(rounds, guild_id))
    declared = select(
        round_declarations.c.id,
        round_declarations.c.user_id,
        round_declarations.c.name,
        rounds.c.campaign_id,
    ).join(rounds, rounds.c.id == round_declarations.c.round_id)
    for row in await _rows(session, declared.where(round_declarations.c.round_id.in_(here))):
        match = known(row.campaign_id, display=row.user_id == user_id)
        values: dict[str, Any] = {}
        if row.user_id == user_id:
            values["user_id"] = cm.TOMBSTONE_ID
        if row.name != cm.TOMBSTONE and (row.user_id == user_id or match(row.name)):
            values["name"] = cm.TOMBSTONE
        if values:
            await session.execute(
                update(round_declarations)
                .where(round_declarations.c.id == row.id)
                .values(**values)
            )
            changed += 1
    result = await session.execute(
        update(rounds)
        .where(rounds.c.opened_by == user_id, _in_scope(rounds, guild_id))
        .values(opened_by=cm.TOMBSTONE_ID)
    )
    return changed + _changed(result)


async def _rewrite(
    session: Executor, table: Table, selected: Any, change: Callable[[Any], dict[str, Any]]
) -> int:
    """Update each selected row (its ``id`` among the columns) with what ``change`` returns
    for it, skipping rows it leaves alone; returns how many changed. The shape every stored
    text or list that may name the person is erased with."""
    changed = 0
    for row in await _rows(session, selected):
        values = change(row)
        if values:
            await session.execute(update(table).where(table.c.id == row.id).values(**values))
            changed += 1
    return changed


async def _erase_characters_in(session: Executor, user_id: int, guild_id: int | None) -> int:
    """Their characters, and what only a character holds; returns how many."""
    mine = select(characters.c.id).where(
        characters.c.user_id == user_id,
        characters.c.campaign_id.in_(select(campaigns.c.id).where(_in_scope(campaigns, guild_id))),
    )
    character_ids: list[int] = list(await session.scalars(mine))
    if character_ids:
        # Their saved rolls first, explicitly (issue 18); scores, proficiencies, saves,
        # carry-overs and sealed pre-rolls go with them (ON DELETE CASCADE); the ledger's
        # and requests' references become NULL.
        await session.execute(delete(macros).where(macros.c.character_id.in_(character_ids)))
        await session.execute(delete(characters).where(characters.c.id.in_(character_ids)))
    return len(character_ids)


async def _erase_fortune_choices_in(
    session: Executor, user_id: int, guild_id: int | None, known: _Names
) -> int:
    """Who chose to spend or keep a fortune die on a roll in scope."""
    in_ledger_scope = fortune_choices.c.roll_id.in_(
        select(ledger.c.id).where(_in_scope(ledger, guild_id))
    )
    result = await session.execute(
        update(fortune_choices)
        .where(fortune_choices.c.user_id == user_id, in_ledger_scope)
        .values(user_id=cm.TOMBSTONE_ID)
    )
    return _changed(result)


async def _erase_requests_in(
    session: Executor, user_id: int, guild_id: int | None, known: _Names
) -> int:
    """GM roll requests: their place among the targets, their names in others' answers, the
    requests they made as GM, and their names in the typed request."""
    requests_here = select(roll_requests.c.id).where(_in_scope(roll_requests, guild_id))
    result = await session.execute(
        update(roll_request_targets)
        .where(
            roll_request_targets.c.user_id == user_id,
            roll_request_targets.c.request_id.in_(requests_here),
        )
        .values(user_id=cm.TOMBSTONE_ID, character_name=cm.TOMBSTONE)
    )
    changed = _changed(result)

    def target(row: Any) -> dict[str, Any]:
        match = known(row.campaign_id, display=False)
        values: dict[str, Any] = {}
        if row.character_name != cm.TOMBSTONE and match(row.character_name):
            values["character_name"] = cm.TOMBSTONE
        result_after = _tombstoned(row.result, None, False, match)
        if result_after != row.result:
            values["result"] = result_after
        return values

    targets = (
        select(
            roll_request_targets.c.id,
            roll_request_targets.c.character_name,
            roll_request_targets.c.result,
            roll_requests.c.campaign_id,
        )
        .join(roll_requests, roll_requests.c.id == roll_request_targets.c.request_id)
        .where(_in_scope(roll_requests, guild_id))
    )
    changed += await _rewrite(session, roll_request_targets, targets, target)
    result = await session.execute(
        update(roll_requests)
        .where(roll_requests.c.gm_user_id == user_id, _in_scope(roll_requests, guild_id))
        .values(gm_user_id=cm.TOMBSTONE_ID)
    )
    changed += _changed(result)

    def typed(row: Any) -> dict[str, Any]:
        match = known(row.campaign_id, display=False)
        if row.request != cm.TOMBSTONE and match(row.request, command=True):
            return {"request": cm.TOMBSTONE}
        return {}

    requests = select(
        roll_requests.c.id, roll_requests.c.request, roll_requests.c.campaign_id
    ).where(_in_scope(roll_requests, guild_id))
    return changed + await _rewrite(session, roll_requests, requests, typed)


async def _erase_generations_in(
    session: Executor, user_id: int, guild_id: int | None, known: _Names
) -> int:
    """Score generations: their seat as player or GM, and their names in the scores."""

    def generation(row: Any) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if user_id in row.player_ids:
            values["player_ids"] = [p for p in row.player_ids if p != user_id]
        if row.gm_user_id == user_id:
            values["gm_user_id"] = cm.TOMBSTONE_ID
        involved = row.roll_id in known.generations
        match = known(row.campaign_id, display=involved)
        scores = _tombstoned(row.scores, None, False, match)
        if scores != row.scores:
            values["scores"] = scores
        return values

    campaigns_here = select(campaigns.c.id).where(_in_scope(campaigns, guild_id))
    selected = select(ability_generations).where(
        ability_generations.c.campaign_id.in_(campaigns_here)
    )
    return await _rewrite(session, ability_generations, selected, generation)


async def _erase_gm_seats_in(
    session: Executor, user_id: int, guild_id: int | None, known: _Names
) -> int:
    """Their place among a campaign's GMs."""

    def seat(row: Any) -> dict[str, Any]:
        if user_id in row.gm_user_ids:
            return {"gm_user_ids": [g for g in row.gm_user_ids if g != user_id]}
        return {}

    selected = select(campaigns.c.id, campaigns.c.gm_user_ids).where(
        _in_scope(campaigns, guild_id)
    )
    return await _rewrite(session, campaigns, selected, seat)


async def _erase_turn_orders_in(
    session: Executor, user_id: int, guild_id: int | None, known: _Names
) -> int:
    """Turn orders name each entry's character and player: theirs become the tombstone (the
    order keeps its place, so the others' turns go on)."""

    def order(row: Any) -> dict[str, Any]:
        match = known(row.campaign_id, display=False)
        entries = [
            {**entry, "user_id": cm.TOMBSTONE_ID, "name": cm.TOMBSTONE}
            if _listed(entry, user_id)
            or (isinstance(entry, dict) and match(str(entry.get("name", ""))))
            else entry
            for entry in row.entries or ()
        ]
        return {"entries": entries} if entries != list(row.entries or ()) else {}

    selected = select(turn_orders.c.id, turn_orders.c.campaign_id, turn_orders.c.entries).where(
        _in_scope(turn_orders, guild_id)
    )
    return await _rewrite(session, turn_orders, selected, order)


async def _erase_posts_in(
    session: Executor, user_id: int, guild_id: int | None, known: _Names
) -> int:
    """Their posts are their own words: deleted, every version and bound roll with them (the
    rolls stay in the log like any other, tombstoned there). Another player's post keeps its
    words, but a mention of them is erased."""
    result = await session.execute(
        delete(posts).where(posts.c.user_id == user_id, _in_scope(posts, guild_id))
    )
    mention = re.compile(rf"<@!?{user_id}>")

    def version(row: Any) -> dict[str, Any]:
        text = mention.sub(cm.TOMBSTONE, row.text)
        return {"text": text} if text != row.text else {}

    selected = select(post_versions.c.id, post_versions.c.text).where(
        post_versions.c.post_id.in_(select(posts.c.id).where(_in_scope(posts, guild_id))),
        post_versions.c.text.contains(str(user_id)),
    )
    return _changed(result) + await _rewrite(session, post_versions, selected, version)


async def _erase_settings_in(
    session: Executor, user_id: int, guild_id: int | None, known: _Names
) -> int:
    """The one setting kept for every server goes with an erasure everywhere."""
    if guild_id is not None:
        return 0
    result = await session.execute(
        delete(notify_settings).where(notify_settings.c.user_id == user_id)
    )
    dialect = await session.execute(
        delete(dice_dialects).where(dice_dialects.c.user_id == user_id)
    )
    return _changed(result) + _changed(dialect)


def _fields(row: RollView) -> dict[str, Any]:
    return {name: getattr(row, name) for name in RollView.__slots__}


#: What erase_user does after the log, in order, in the transaction that deletes the characters.
_ERASE_STEPS: tuple[Callable[[Executor, int, int | None, _Names], Awaitable[int]], ...] = (
    _erase_fortune_choices_in,
    _erase_requests_in,
    _erase_generations_in,
    _erase_gm_seats_in,
    _erase_turn_orders_in,
    _erase_posts_in,
    _erase_rounds_in,
    _erase_settings_in,
)


async def erase_user(
    db: Database, user_id: int, guild_id: int | None = None, names: Sequence[str] = ()
) -> Erased:
    """Delete what only ``user_id`` owns and tombstone them everywhere else: in one server
    (``guild_id``), or everywhere (None: ``/privacy delete`` in a direct message, and
    ``python -m bot erase-user``). ``names``: display names to find in stored text besides
    their characters' names. The log is rewritten a page per transaction, the rest in one;
    running it again after an interruption finishes the job."""
    async with transaction(db) as session:
        known = await _names_of(session, user_id, guild_id, names)
    # The log first, a page at a time; their characters last, so a run cut short still finds
    # their names when run again.
    rolls, older = await _erase_ledger(db, user_id, guild_id, known)
    async with transaction(db) as session:
        erased_characters = await _erase_characters_in(session, user_id, guild_id)
        other = 0
        for step in _ERASE_STEPS:
            other += await step(session, user_id, guild_id, known)
    return Erased(erased_characters, rolls, other, older, tuple(sorted(known.all())))


__all__ = [
    "DOC_URL",
    "Erased",
    "ServerData",
    "StoredCharacter",
    "StoredData",
    "erase_user",
    "stored_data",
]
