"""Characters: owned by one user in one campaign, one of them active per user and campaign.

Names are unique per campaign, case-insensitively. Ability scores (or attribute modifiers, for
the threshold system) are keyed by the campaign's spelling of the ability name; proficiencies
by their name, case-insensitively.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Select,
    SmallInteger,
    String,
    and_,
    bindparam,
    case,
    delete,
    exists,
    func,
    literal_column,
    null,
    or_,
    select,
    union_all,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from bot.db.engine import Database
from bot.db.models import (
    PD_RANKS,
    campaigns,
    character_proficiencies,
    character_saves,
    character_scores,
    characters,
    pending_modifiers,
)
from bot.db.types import utcnow
from bot.quoting import escape, quote
from bot.rules.pen_and_dagger.abilities import FIRST_LEVEL_MAX_SCORE
from bot.rules.systems import Feature
from bot.rules.systems.commands import require as require_rule
from bot.services.kit import personal
from bot.services.kit.errors import AlreadyExists, InvalidValue, NoCampaign, NotAllowed, NotFound
from bot.services.kit.names import check_name, skeleton
from bot.services.kit.personal import DELETED, Person, PersonalData, Shown, declare, in_scope
from bot.services.kit.sql import (
    Executor,
    insert_for,
    result_processors,
    run_hot,
    runs_hot,
    transaction,
)
from bot.services.store.campaigns import CampaignView, campaign_at_revision_in, get_campaign_in
from bot.words import fortune_maximum

_C = characters

MAX_LEVEL = 20
MAX_NAME = 64


@dataclass(frozen=True, slots=True)
class Proficiency:
    """A proficiency: a Pen & Dagger rank, or a d20-check degree (1 proficient, 2 expert, -1
    half: stored as degree 1, ``halved``)."""

    name: str
    rank: str | None = None
    degree: int | None = None


def _frozen(mapping: dict[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(mapping)


@dataclass(frozen=True, slots=True)
class CharacterView:
    """A character with everything a roll needs."""

    id: int
    campaign_id: int
    user_id: int
    name: str
    level: int
    fortune: int
    double_fortune: bool
    in_party: bool
    is_active: bool
    created_at: datetime
    #: Ability name (the campaign's spelling) to score, or to modifier for threshold.
    scores: Mapping[str, int] = field(default_factory=lambda: _frozen({}))
    #: ``name.casefold()`` to proficiency.
    proficiencies: Mapping[str, Proficiency] = field(default_factory=lambda: _frozen({}))
    save_proficiencies: frozenset[str] = frozenset()
    #: Ability name to the pending carry-over modifier (threshold ruling 4).
    pending: Mapping[str, int] = field(default_factory=lambda: _frozen({}))
    #: d20 check "Null Saves": a Null's bonus to Mana saves; None for everyone else.
    null_bonus: int | None = None
    #: d20 check: AC taken away by critical hits ("Critical Hits & Fumbles").
    ac_loss: int = 0
    #: The portrait posts show (docs/posting.md): an https image URL, or None.
    avatar_url: str | None = None
    #: d20 check: the character's own Armour Class and armour (``/character armour``), which
    #: another player's attack on it uses; None until set.
    ac: int | None = None
    armour_quality: str | None = None
    armour_magic: int | None = None

    @property
    def fortune_max(self) -> int:
        """The most fortune dice this character can hold."""
        return fortune_maximum(self.double_fortune)

    def proficiency(self, name: str) -> Proficiency | None:
        """The proficiency called ``name`` (case-insensitive), if the character has it."""
        return self.proficiencies.get(name.strip().casefold())


_Parts = tuple[dict[str, int], dict[str, Proficiency], set[str], dict[str, int]]


def _characters_stmt(*where: ColumnElement[bool]) -> Any:
    """The characters matching ``where`` and all their children, in ONE statement.

    Each character comes once as a ``part = 'c'`` row with its columns, then once per score,
    proficiency, save and pending modifier, a row carrying only the character's id (the other
    character columns NULL: a party of six has ~50 child rows, and decoding each one's
    timestamp and flags again was most of the load). One index lookup per branch; one
    statement instead of two, as the check path pays per statement.
    """
    s, p, v, m = character_scores, character_proficiencies, character_saves, pending_modifiers
    no_text = null().cast(String(64))
    no_number = null().cast(SmallInteger)
    columns = [c if c.name == "id" else null().cast(c.type).label(c.name) for c in _C.c]
    return union_all(
        select(
            *_C.c,
            literal_column("'c'").label("part"),
            no_text.label("child_name"),
            no_number.label("number"),
            null().cast(String(12)).label("rank"),
        ).where(*where),
        select(*columns, literal_column("'s'"), s.c.ability, s.c.value, no_text)
        .join_from(_C, s, s.c.character_id == _C.c.id)
        .where(*where),
        select(
            *columns,
            literal_column("'p'"),
            p.c.name,
            case((p.c.halved, literal_column("-1")), else_=p.c.degree),
            p.c.rank,
        )
        .join_from(_C, p, p.c.character_id == _C.c.id)
        .where(*where),
        select(*columns, literal_column("'v'"), v.c.ability, no_number, no_text)
        .join_from(_C, v, v.c.character_id == _C.c.id)
        .where(*where),
        select(*columns, literal_column("'m'"), m.c.ability, m.c.value, no_text)
        .join_from(_C, m, m.c.character_id == _C.c.id)
        .where(*where),
    )


def _assemble(rows: Sequence[Sequence[Any]]) -> list[CharacterView]:
    """Views from :func:`_characters_stmt` rows, oldest character first."""
    found: dict[int, tuple[Sequence[Any], _Parts]] = {}
    children: list[tuple[str, int, str, int | None, str | None]] = []
    for row in rows:
        # By position (Row attribute access by name costs a lookup per field per row):
        # id, then the four columns the union appends after the character's.
        part = row[_PART]
        if part == "c":
            found[row[_ID]] = (row, ({}, {}, set(), {}))
        else:
            children.append((part, row[_ID], row[_PART + 1], row[_PART + 2], row[_PART + 3]))
    for child in children:
        _fill(found[child[1]][1], [child])
    return [_view(row, parts) for _, (row, parts) in sorted(found.items())]


_ID = list(_C.c.keys()).index("id")
_PART = len(_C.c)  # then child_name, number, rank


_NAMES = tuple(_C.c.keys())


@functools.lru_cache(maxsize=4)
def _conversions(dialect: Any) -> tuple[tuple[int, Any], ...]:
    return result_processors(list(_C.c), dialect)


async def _rows_in(session: Executor, stmt: Any, params: dict[str, Any]) -> list[Any]:
    """A :func:`_characters_stmt`'s rows; on SQLite as the driver gives them (through
    ``run_hot``: SQLAlchemy's result would convert every column of every row, a party's ~70
    rows mostly NULLs, which cost twice the query), each character's own row converted here."""
    rows: list[Any] = list((await run_hot(session, stmt, params)).all())
    if not isinstance(session, AsyncConnection) or not runs_hot(session):
        return rows
    conversions = _conversions(session.dialect)
    for index, row in enumerate(rows):
        if row[_PART] == "c":
            values = list(row)
            for position, convert in conversions:
                values[position] = convert(values[position])
            rows[index] = values
    return rows


async def _load_prebuilt(
    session: Executor, stmt: Any, params: dict[str, Any]
) -> list[CharacterView]:
    return _assemble(await _rows_in(session, stmt, params))


def _fill(
    parts: _Parts,
    children: list[tuple[str, int, str, int | None, str | None]],
) -> None:
    scores, profs, saves, pending = parts
    for part, _character_id, name, number, rank in children:
        if part == "s":
            scores[name] = int(number or 0)
        elif part == "p":
            profs[name.casefold()] = Proficiency(name=name, rank=rank, degree=number)
        elif part == "v":
            saves.add(name)
        else:
            pending[name] = int(number or 0)


def _view(row: Sequence[Any], parts: _Parts) -> CharacterView:
    m = dict(zip(_NAMES, row, strict=False))  # the character's columns come first
    scores, profs, saves, pending = parts
    return CharacterView(
        id=m["id"],
        campaign_id=m["campaign_id"],
        user_id=m["user_id"],
        name=m["name"],
        level=m["level"],
        fortune=m["fortune"],
        double_fortune=m["double_fortune"],
        in_party=m["in_party"],
        is_active=m["is_active"],
        created_at=m["created_at"],
        scores=_frozen(scores),
        proficiencies=_frozen(profs),
        save_proficiencies=frozenset(saves),
        pending=_frozen(pending),
        null_bonus=m["null_bonus"],
        ac_loss=m["ac_loss"] or 0,
        avatar_url=m["avatar_url"],
        ac=m["ac"],
        armour_quality=m["armour_quality"],
        armour_magic=m["armour_magic"],
    )


#: The project's own name: reserved whatever the bot is called in a server.
PROJECT_NAME = "pbp-dice"


def _clean_name(name: str, reserved: tuple[str, ...] = ()) -> str:
    cleaned = " ".join(name.split())
    if not cleaned:
        raise InvalidValue("A character needs a name.")
    if len(cleaned) > MAX_NAME:
        raise InvalidValue(f"Character names are at most {MAX_NAME} characters long.")
    return check_name(cleaned, "character name", reserved=(PROJECT_NAME, *reserved))


# --- reading, inside a caller's transaction -------------------------------------------------


# Prebuilt: these are on the path of every check and group roll; only the parameters change.
# A statement built once also keeps its SQLAlchemy cache key (memoised on the object), which
# for this five-branch union costs more to compute than the query takes to run.
_BY_ID = _characters_stmt(_C.c.id == bindparam("cid"))
_BY_NAME = _characters_stmt(
    _C.c.campaign_id == bindparam("campaign"), _C.c.name_key == bindparam("key")
)
_ACTIVE = _characters_stmt(
    _C.c.campaign_id == bindparam("campaign"), _C.c.user_id == bindparam("user"), _C.c.is_active
)
_PARTY = _characters_stmt(_C.c.campaign_id == bindparam("campaign"), _C.c.in_party)
_OF_CAMPAIGN = _characters_stmt(_C.c.campaign_id == bindparam("campaign"))
_OF_USER = _characters_stmt(
    _C.c.campaign_id == bindparam("campaign"), _C.c.user_id == bindparam("user")
)


# A character and the campaign it is read in, found by the caller's place, in ONE statement:
# the campaign's id and revision come as a ``part = 'h'`` row (its id in the id column, its
# revision in the number column), so a command that reads its place's campaign and a
# character of it pays one statement, and the campaign comes from memory while its revision
# is one this process read (bot/services/store/campaigns.py ``campaign_at_revision_in``).
# The place is found once (a materialised CTE), not once per branch of the union.
_HERE = (
    select(campaigns.c.id.label("campaign_id"), campaigns.c.revision)
    .where(
        campaigns.c.guild_id == bindparam("guild"),
        campaigns.c.channel_id.in_([bindparam("channel"), bindparam("parent")]),
    )
    .order_by(case((campaigns.c.channel_id == bindparam("channel"), 0), else_=1))
    .limit(1)
    .cte("here")
    .prefix_with("MATERIALIZED")
)


def _placed_stmt(*where: ColumnElement[bool]) -> Any:
    """:func:`_characters_stmt` of the place's campaign (``where`` besides), and its 'h' row."""
    found = _characters_stmt(
        _C.c.campaign_id == select(_HERE.c.campaign_id).scalar_subquery(), *where
    )
    place = select(
        *(
            _HERE.c.campaign_id.label("id") if c.name == "id" else null().cast(c.type).label(c.name)
            for c in _C.c
        ),
        literal_column("'h'"),
        null().cast(String(64)),
        _HERE.c.revision,
        null().cast(String(12)),
    )
    return union_all(*found.selects, place)


_PLACED_ACTIVE = _placed_stmt(_C.c.user_id == bindparam("user"), _C.c.is_active)
_PLACED_BY_NAME = _placed_stmt(_C.c.name_key == bindparam("key"))
_PLACED_PARTY = _placed_stmt(_C.c.in_party)


async def _placed_in(
    session: Executor, stmt: Any, place: dict[str, Any], **params: Any
) -> tuple[CampaignView, list[CharacterView]]:
    rows = await _rows_in(session, stmt, place | params)
    here = next((row for row in rows if row[_PART] == "h"), None)
    if here is None:
        raise NoCampaign()
    campaign = await campaign_at_revision_in(session, int(here[_ID]), int(here[_PART + 2]))
    return campaign, _assemble([row for row in rows if row[_PART] != "h"])


async def placed_character_in(
    session: Executor, place: dict[str, Any], user_id: int, name: str | None = None
) -> tuple[CampaignView, CharacterView | None]:
    """In a caller's transaction: the campaign of the place (``place``: as
    ``campaigns.place_params`` gives it; :class:`NoCampaign` if none), and the character
    called ``name`` in it, else ``user_id``'s active one, or None (not found: reading it
    again with :func:`resolve_character_in` says why)."""
    if name is None:
        campaign, found = await _placed_in(session, _PLACED_ACTIVE, place, user=user_id)
    else:
        key = " ".join(name.split()).casefold()
        campaign, found = await _placed_in(session, _PLACED_BY_NAME, place, key=key)
    return campaign, found[0] if found else None


async def placed_party_in(
    session: Executor, place: dict[str, Any]
) -> tuple[CampaignView, list[CharacterView]]:
    """In a caller's transaction: the campaign of the place (``place``: as
    ``campaigns.place_params`` gives it; :class:`NoCampaign` if none) and its party, oldest
    member first, in one statement."""
    return await _placed_in(session, _PLACED_PARTY, place)


async def load_character_in(session: Executor, character_id: int) -> CharacterView:
    """In a caller's transaction: a character by id, with scores and the rest (1 query)."""
    found = await _load_prebuilt(session, _BY_ID, {"cid": character_id})
    if not found:
        raise NotFound("That character no longer exists.")
    return found[0]


async def character_by_name_in(session: Executor, campaign_id: int, name: str) -> CharacterView:
    """In a caller's transaction: the campaign's character called ``name`` (any case)."""
    key = " ".join(name.split()).casefold()
    found = await _load_prebuilt(session, _BY_NAME, {"campaign": campaign_id, "key": key})
    if not found:
        raise NotFound(f"No character named {quote(name)} in this campaign.")
    return found[0]


async def active_character_in(session: Executor, campaign_id: int, user_id: int) -> CharacterView:
    """In a caller's transaction: the user's active character in the campaign."""
    found = await _load_prebuilt(session, _ACTIVE, {"campaign": campaign_id, "user": user_id})
    if not found:
        raise NotFound(
            "You have no active character in this campaign: create one with /character create "
            "or pick one with /character use."
        )
    return found[0]


async def resolve_character_in(
    session: Executor,
    campaign_id: int,
    user_id: int,
    name: str | None = None,
    *,
    any_owner: bool = False,
) -> CharacterView:
    """The character a command means: ``name`` if given, else the user's active one.

    A named character must belong to ``user_id`` unless ``any_owner`` (a GM acting).
    """
    if name is None:
        return await active_character_in(session, campaign_id, user_id)
    character = await character_by_name_in(session, campaign_id, name)
    if not any_owner and character.user_id != user_id:
        raise NotAllowed(f"{escape(character.name)} belongs to another player.")
    return character


# --- use cases ------------------------------------------------------------------------------


async def create_character(
    db: Database,
    campaign_id: int,
    user_id: int,
    name: str,
    *,
    level: int = 1,
    reserved: tuple[str, ...] = (),
) -> CharacterView:
    """Create a character; a user's first in the campaign becomes their active one.

    New characters get the campaign's fortune-boon default and no fortune dice, and join the
    party when the campaign says so (``party_auto_join``). The name may not read as another
    character's of the campaign, nor as ``reserved`` (the bot's names): see
    bot/services/kit/names.py.
    """
    name = _clean_name(name, reserved)
    name_skeleton = skeleton(name)
    _check_level(level)
    async with transaction(db) as session:
        campaign = await get_campaign_in(session, campaign_id)
        no_active = ~exists().where(
            _C.c.campaign_id == campaign_id, _C.c.user_id == user_id, _C.c.is_active
        )
        values = {
            "campaign_id": campaign_id,
            "user_id": user_id,
            "name": name,
            "name_key": name.casefold(),
            "name_skeleton": name_skeleton,
            "level": level,
            "fortune": 0,
            "double_fortune": campaign.fortune_boon_default,
            "in_party": campaign.party_auto_join,
            "created_at": utcnow(),
        }
        # No conflict target: a name clash and a concurrent "first character" race both land
        # here; the second attempt tells them apart.
        for is_active in (no_active, False):
            stmt = (
                insert_for(session, _C)
                .values(is_active=is_active, **values)
                .on_conflict_do_nothing()
                .returning(_C.c.id)
            )
            new_id = (await session.execute(stmt)).scalar_one_or_none()
            if new_id is not None:
                return await load_character_in(session, new_id)
            taken = (
                await session.execute(
                    select(_C.c.name).where(
                        _C.c.campaign_id == campaign_id,
                        or_(_C.c.name_key == name.casefold(), _C.c.name_skeleton == name_skeleton),
                    )
                )
            ).first()
            if taken is not None:
                break
    if taken is not None and taken.name.casefold() != name.casefold():
        raise AlreadyExists(
            f"{quote(name)} reads the same as {quote(taken.name)}, a character of this "
            "campaign: names that look alike could pass for each other. Choose another name."
        )
    raise AlreadyExists(f"This campaign already has a character named {quote(name)}.")


async def get_character(db: Database, campaign_id: int, name: str) -> CharacterView:
    """The campaign's character called ``name`` (any case), or :class:`NotFound`."""
    async with transaction(db) as session:
        return await character_by_name_in(session, campaign_id, name)


async def get_character_by_id(db: Database, character_id: int) -> CharacterView:
    """A character by id, or :class:`NotFound`."""
    async with transaction(db) as session:
        return await load_character_in(session, character_id)


async def active_character(db: Database, campaign_id: int, user_id: int) -> CharacterView:
    """The user's active character in the campaign, or :class:`NotFound` saying what to do."""
    async with transaction(db) as session:
        return await active_character_in(session, campaign_id, user_id)


async def resolve_character(
    db: Database,
    campaign_id: int,
    user_id: int,
    name: str | None = None,
    *,
    any_owner: bool = False,
) -> CharacterView:
    """See :func:`resolve_character_in`."""
    async with transaction(db) as session:
        return await resolve_character_in(session, campaign_id, user_id, name, any_owner=any_owner)


async def list_characters(db: Database, campaign_id: int) -> list[CharacterView]:
    """Every character of the campaign, oldest first."""
    async with transaction(db) as session:
        return await _load_prebuilt(session, _OF_CAMPAIGN, {"campaign": campaign_id})


async def list_user_characters(db: Database, campaign_id: int, user_id: int) -> list[CharacterView]:
    """The user's characters in the campaign, oldest first."""
    async with transaction(db) as session:
        return await _load_prebuilt(session, _OF_USER, {"campaign": campaign_id, "user": user_id})


async def use_character(db: Database, campaign_id: int, user_id: int, name: str) -> CharacterView:
    """Make the user's character called ``name`` their active one in the campaign."""
    async with transaction(db) as session:
        character = await resolve_character_in(session, campaign_id, user_id, name)
        mine = and_(_C.c.campaign_id == campaign_id, _C.c.user_id == user_id)
        # Two statements: a unique index is checked row by row, so clear first, then set.
        await session.execute(
            update(_C).where(mine, _C.c.is_active, _C.c.id != character.id).values(is_active=False)
        )
        await session.execute(update(_C).where(_C.c.id == character.id).values(is_active=True))
        return await load_character_in(session, character.id)


async def _campaign_of_in(session: AsyncSession, character_id: int) -> CampaignView:
    campaign_id = (
        await session.execute(select(_C.c.campaign_id).where(_C.c.id == character_id))
    ).scalar_one_or_none()
    if campaign_id is None:
        raise NotFound("That character no longer exists.")
    return await get_campaign_in(session, campaign_id)


async def set_score(db: Database, character_id: int, ability: str, value: int) -> CharacterView:
    """Set one ability score (attribute modifier for threshold), validated for the system."""
    async with transaction(db) as session:
        campaign = await _campaign_of_in(session, character_id)
        canonical = campaign.ability(ability)
        low, high = campaign.rules.score_range
        if not low <= value <= high:
            what = campaign.rules.score_word
            raise InvalidValue(f"{canonical} {what} must be between {low} and {high}.")
        if Feature.FIRST_LEVEL_CAP in campaign.rules.features and value > FIRST_LEVEL_MAX_SCORE:
            # The character row's lock, held until the score is written: a concurrent
            # /character level 1 waits and then sees this score (see set_level).
            level: int = (
                await session.execute(
                    select(_C.c.level).where(_C.c.id == character_id).with_for_update()
                )
            ).scalar_one()
            if level == 1:
                raise InvalidValue(
                    f"{canonical} {value} is too high for a 1st-level character: at 1st level no "
                    f"ability score can exceed {FIRST_LEVEL_MAX_SCORE}, racial adjustments "
                    "included. Set the level first (/character level) if the character is "
                    "higher. Nothing changed."
                )
        t = character_scores
        stmt = (
            insert_for(session, t)
            .values(character_id=character_id, ability=canonical, value=value)
            .on_conflict_do_update(
                index_elements=["character_id", "ability"], set_={"value": value}
            )
        )
        await session.execute(stmt)
        return await load_character_in(session, character_id)


async def set_proficiency(
    db: Database,
    character_id: int,
    name: str,
    *,
    rank: str | None = None,
    degree: int | None = None,
) -> CharacterView:
    """Add or change a proficiency: a rank (Pen & Dagger) or a degree (d20 check): 1, 2, or
    -1 for a halved bonus."""
    name = " ".join(name.split())
    if not name or len(name) > MAX_NAME:
        raise InvalidValue(f"Proficiency names are 1 to {MAX_NAME} characters long.")
    async with transaction(db) as session:
        campaign = await _campaign_of_in(session, character_id)
        if Feature.RANKS in campaign.rules.features:
            by_key = {r.casefold(): r for r in PD_RANKS}
            if rank is None or degree is not None or rank.strip().casefold() not in by_key:
                raise InvalidValue(f"Choose a rank: {', '.join(PD_RANKS)}.")
            rank, degree = by_key[rank.strip().casefold()], None
        elif Feature.DEGREES in campaign.rules.features:
            if degree not in (-1, 1, 2) or rank is not None:
                raise InvalidValue("Choose a degree: half, 1 (proficient) or 2 (expert).")
        else:
            raise InvalidValue(f"Characters in {campaign.rules.key} have no proficiencies.")
        t = character_proficiencies
        stmt = (
            insert_for(session, t)
            .values(
                character_id=character_id,
                name_key=name.casefold(),
                name=name,
                rank=rank,
                degree=None if degree is None else abs(degree),
                halved=degree == -1,
            )
            .on_conflict_do_update(
                index_elements=["character_id", "name_key"],
                set_={
                    "name": name,
                    "rank": rank,
                    "degree": None if degree is None else abs(degree),
                    "halved": degree == -1,
                },
            )
        )
        await session.execute(stmt)
        return await load_character_in(session, character_id)


async def remove_proficiency(db: Database, character_id: int, name: str) -> CharacterView:
    """Remove a proficiency, or :class:`NotFound` if the character does not have it."""
    key = " ".join(name.split()).casefold()
    t = character_proficiencies
    async with transaction(db) as session:
        result = await session.execute(
            delete(t)
            .where(t.c.character_id == character_id, t.c.name_key == key)
            .returning(t.c.name)
        )
        if result.first() is None:
            raise NotFound(f"No proficiency named {quote(name)}.")
        return await load_character_in(session, character_id)


def _check_level(level: int) -> None:
    if not 1 <= level <= MAX_LEVEL:
        raise InvalidValue(f"Level must be between 1 and {MAX_LEVEL}.")


async def set_level(db: Database, character_id: int, level: int) -> CharacterView:
    """Set the character's level (1-20); Pen & Dagger refuses level 1 above the cap of 19."""
    _check_level(level)
    async with transaction(db) as session:
        # The cap's check and the level's write in one transaction, under the character
        # row's lock (PostgreSQL FOR UPDATE; SQLite's write lock), which set_score takes too:
        # a score over the cap written meanwhile is seen here, or sees level 1 and is refused.
        locked = await session.execute(
            select(_C.c.id).where(_C.c.id == character_id).with_for_update()
        )
        if locked.first() is None:
            raise NotFound("That character no longer exists.")
        if level == 1:
            campaign = await _campaign_of_in(session, character_id)
            if Feature.FIRST_LEVEL_CAP in campaign.rules.features:
                character = await load_character_in(session, character_id)
                over = [
                    f"{a} {v}" for a, v in character.scores.items() if v > FIRST_LEVEL_MAX_SCORE
                ]
                if over:
                    raise InvalidValue(
                        f"At 1st level no ability score can exceed {FIRST_LEVEL_MAX_SCORE}, and "
                        f"{character.name} has {', '.join(over)}. Nothing changed."
                    )
        await session.execute(update(_C).where(_C.c.id == character_id).values(level=level))
        return await load_character_in(session, character_id)


#: The largest Null bonus a character can have (a typo's 50 is refused).
MAX_NULL_BONUS = 10


async def set_null_bonus(db: Database, character_id: int, bonus: int | None) -> CharacterView:
    """Mark the character a Null with ``bonus`` (d20 check "Null Saves"), or None: not a Null."""
    if bonus is not None and not 0 <= bonus <= MAX_NULL_BONUS:
        raise InvalidValue(f"A Null bonus is 0 to {MAX_NULL_BONUS}.")
    async with transaction(db) as session:
        campaign = await _campaign_of_in(session, character_id)
        require_rule(campaign.rules, "nulls")
    return await _update(db, character_id, null_bonus=bonus)


#: The most AC critical hits can take from one character (the column's sane range).
MAX_AC_LOSS = 100


async def lower_ac_in(session: Executor, character_id: int, amount: int) -> None:
    """Add ``amount`` to the character's AC loss, atomically (never past the column's range).

    A negative ``amount`` gives AC back: a reroll whose critical took less than the roll it
    replaced (bot/services/rolling/rerolls.py); the loss never goes below 0."""
    added = _C.c.ac_loss + amount
    await session.execute(
        update(_C)
        .where(_C.c.id == character_id)
        .values(ac_loss=case((added > MAX_AC_LOSS, MAX_AC_LOSS), (added < 0, 0), else_=added))
    )


async def set_armour(
    db: Database,
    character_id: int,
    ac: int | None,
    quality: str | None,
    magic: int | None,
) -> CharacterView:
    """Set (or, all None, clear) a d20 check character's own AC and armour."""
    async with transaction(db) as session:
        campaign = await _campaign_of_in(session, character_id)
        require_rule(campaign.rules, "attacks")
    return await _update(db, character_id, ac=ac, armour_quality=quality, armour_magic=magic)


async def restore_ac(db: Database, character_id: int) -> CharacterView:
    """Forget the AC critical hits took (the armour is mended, the wound healed)."""
    return await _update(db, character_id, ac_loss=0)


async def set_save_proficiency(
    db: Database, character_id: int, ability: str, proficient: bool = True
) -> CharacterView:
    """Mark or unmark a saving-throw proficiency (d20 check ruling 5)."""
    t = character_saves
    async with transaction(db) as session:
        campaign = await _campaign_of_in(session, character_id)
        require_rule(campaign.rules, "save-proficiencies")
        canonical = campaign.ability(ability)
        if proficient:
            await session.execute(
                insert_for(session, t)
                .values(character_id=character_id, ability=canonical)
                .on_conflict_do_nothing()
            )
        else:
            await session.execute(
                delete(t).where(t.c.character_id == character_id, t.c.ability == canonical)
            )
        return await load_character_in(session, character_id)


async def party_add(db: Database, character_id: int) -> CharacterView:
    """Put the character in the campaign's party."""
    return await _update(db, character_id, in_party=True)


async def party_remove(db: Database, character_id: int) -> CharacterView:
    """Take the character out of the campaign's party."""
    return await _update(db, character_id, in_party=False)


async def party_in(session: Executor, campaign_id: int) -> list[CharacterView]:
    """In a caller's transaction: the campaign's party, oldest member first (one query)."""
    return await _load_prebuilt(session, _PARTY, {"campaign": campaign_id})


async def party_list(db: Database, campaign_id: int) -> list[CharacterView]:
    """The campaign's party, oldest member first."""
    async with transaction(db) as session:
        return await party_in(session, campaign_id)


async def _update(db: Database, character_id: int, **values: Any) -> CharacterView:
    async with transaction(db) as session:
        result = await session.execute(
            update(_C).where(_C.c.id == character_id).values(**values).returning(_C.c.id)
        )
        if result.first() is None:
            raise NotFound("That character no longer exists.")
        return await load_character_in(session, character_id)


async def delete_character(db: Database, character_id: int) -> None:
    """Delete a character; its rolls stay in the ledger (by name, character_id NULL).

    If it was the user's active character, their oldest remaining one becomes active.
    """
    async with transaction(db) as session:
        row = (
            await session.execute(
                delete(_C)
                .where(_C.c.id == character_id)
                .returning(_C.c.campaign_id, _C.c.user_id, _C.c.is_active)
            )
        ).first()
        if row is None:
            raise NotFound("That character no longer exists.")
        campaign_id, user_id, was_active = row
        if was_active:
            oldest = (
                select(_C.c.id)
                .where(_C.c.campaign_id == campaign_id, _C.c.user_id == user_id)
                .order_by(_C.c.id)
                .limit(1)
                .scalar_subquery()
            )
            await session.execute(update(_C).where(_C.c.id == oldest).values(is_active=True))


async def party_add_all(db: Database, campaign_id: int) -> list[str]:
    """Every character of the campaign not yet in the party joins it (one statement); their
    names, oldest first."""
    async with transaction(db) as session:
        joined = await session.execute(
            update(_C)
            .where(_C.c.campaign_id == campaign_id, _C.c.in_party.is_(False))
            .values(in_party=True)
            .returning(_C.c.id, _C.c.name)
        )
        return [str(r.name) for r in sorted(joined, key=lambda r: r.id)]


# --- what a character keeps about its player (bot/services/kit/personal.py) ---------------------


@dataclass(frozen=True, slots=True)
class StoredCharacter:
    """A character of the user, as stored (``/privacy show``)."""

    campaign_channel_id: int
    name: str
    level: int
    fortune: int
    double_fortune: bool
    scores: tuple[tuple[str, int], ...]


async def owned_in(session: Executor, user_id: int, guild_id: int | None) -> dict[int, str]:
    """The user's characters in a server (every server: None), id → name, through
    ``ix_characters_user_id``."""
    stmt = (
        select(characters.c.id, characters.c.name)
        .join(campaigns, campaigns.c.id == characters.c.campaign_id)
        .where(characters.c.user_id == user_id, in_scope(campaigns, guild_id))
    )
    return {int(cid): str(name) for cid, name in await personal.rows(session, stmt)}


def counted_per_server_of_theirs(
    character_id: Any, user_id: int, guild_id: int | None
) -> Select[Any]:
    """Another table's rows (its ``character_id`` column) of the user's characters, counted per
    server (only ``guild_id``'s when given): ``/privacy show``'s counts."""
    return (
        select(campaigns.c.guild_id, func.count())
        .select_from(
            character_id.table.join(characters, characters.c.id == character_id).join(
                campaigns, campaigns.c.id == characters.c.campaign_id
            )
        )
        .where(characters.c.user_id == user_id, in_scope(campaigns, guild_id))
        .group_by(campaigns.c.guild_id)
    )


async def _show_in(session: Executor, shown: Shown) -> None:
    stmt = (
        select(characters, campaigns.c.guild_id, campaigns.c.channel_id)
        .join(campaigns, campaigns.c.id == characters.c.campaign_id)
        .where(characters.c.user_id == shown.user_id, in_scope(campaigns, shown.guild_id))
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
        shown.server(row.guild_id).setdefault("characters", []).append(
            StoredCharacter(
                row.channel_id,
                row.name,
                row.level,
                row.fortune,
                row.double_fortune,
                tuple(scores.get(row.id, [])),
            )
        )


async def _erase(db: Database, person: Person) -> int:
    """Their characters, last (a run cut short still finds their names when run again):
    scores, proficiencies, saves, carry-overs go with them (ON DELETE CASCADE), as do the
    features' rows that hang off a character; the log's references become NULL."""
    ids = sorted(person.character_ids)
    if ids:
        async with person.transaction(db) as session:
            await session.execute(delete(characters).where(characters.c.id.in_(ids)))
    person.characters_deleted += len(ids)
    return 0


_THEIRS = "their character's (deleted with it)"
PERSONAL_DATA = declare(
    PersonalData(
        "characters",
        holdings=(
            personal.Holding("characters", "user_id", DELETED),
            personal.Holding("character_scores", _THEIRS, DELETED),
            personal.Holding("character_proficiencies", _THEIRS, DELETED),
            personal.Holding("character_saves", _THEIRS, DELETED),
            personal.Holding("pending_modifiers", _THEIRS, DELETED),
        ),
        show_in=_show_in,
        erase=_erase,
        order=100,
    )
)
