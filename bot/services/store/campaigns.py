"""Campaigns: one per Discord channel (threads and forum posts use their parent's)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import Row, Select, bindparam, delete, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import campaigns
from bot.db.types import AbilityName, IdListModel, NameListModel, Snowflake, utcnow
from bot.log_context import note_campaign
from bot.quoting import quote
from bot.rules.systems import System, UnknownSystem, system_for
from bot.rules.systems.base import per_system
from bot.rules.systems.d20 import SIX_ABILITIES as SIX_ABILITIES
from bot.services.kit import personal
from bot.services.kit.errors import AlreadyExists, InvalidValue, NoCampaign, NotFound
from bot.services.kit.personal import Person, PersonalData, Shown, declare, holds_id, in_scope
from bot.services.kit.sql import Executor, core_transaction, insert_for, run_hot, transaction
from bot.words import RuleSystem, SecrecyCommand, Visibility

#: Ability names each system starts with (the registry's, by key).
DEFAULT_ABILITIES: Mapping[str, tuple[str, ...]] = per_system(lambda s: s.abilities)


def system_key(value: str) -> str:
    """A stored system key: the :class:`RuleSystem` member for a built-in one (so comparisons
    with it keep working), the registered key itself for any other (a test's toy system)."""
    try:
        return RuleSystem(value)
    except ValueError:
        return system_for(value).key


_T = campaigns

#: How many known GMs a campaign keeps (the id list column's limit); a GM seen when the list
#: is full is not added (each send prunes those who are no longer GMs).
MAX_KNOWN_GMS = 25
#: Why @everyone cannot be a GM role (its id is the server's id).
EVERYONE_GM_ROLE = (
    "@everyone cannot be a GM role: every member would be a GM and see every hidden roll. "
    "Choose a role only the GMs hold. Nothing changed."
)


@dataclass(frozen=True, slots=True)
class Tiers:
    """Threshold difficulty tier defaults (threshold ruling 2)."""

    very_easy: int = 3
    easy: int = 7
    moderate: int = 12
    hard: int = 17
    very_hard: int = 20


@dataclass(frozen=True, slots=True)
class CampaignView:
    """A campaign and its typed settings."""

    id: int
    guild_id: int
    channel_id: int
    #: The rule system's key (a :class:`RuleSystem` for the built-in ones); see :attr:`rules`.
    system: str
    gm_role_ids: tuple[int, ...]
    #: Known GMs: users seen acting with GM standing here (the one who set the campaign up,
    #: GMs who ran a command in it). Only candidates for DM copies of hidden rolls, re-checked
    #: when each copy is sent; never authority. At most :data:`MAX_KNOWN_GMS`.
    gm_user_ids: tuple[int, ...]
    gm_channel_id: int | None
    fortune_boon_default: bool
    crit_rules: bool
    tiers: Tiers
    ability_names: tuple[str, ...]
    created_at: datetime
    #: Default visibility per rolling command (only those a GM set; see services/trust/secrecy.py).
    secrecy_defaults: Mapping[str, str] = field(default_factory=dict)
    #: The snowflake its rolls are numbered under (its first channel; bot/db/models.py).
    ledger_scope: int = 0
    #: GM options for optional rules (bot/db/models.py): threshold carry-over, Pen & Dagger
    #: natural-20 trade, d20-check rerolls of one die.
    carry_over: bool = True
    luck_trade: bool = True
    rerolls: bool = False
    #: d20 check: a Critical Hit rolls every damage die twice (the project's addition; the
    #: text rolls the damage as normal).
    crit_double_dice: bool = False
    #: New characters join the party as they are created (a GM option).
    party_auto_join: bool = False

    @property
    def rules(self) -> System:
        """The campaign's rule system, from the registry."""
        return system_for(self.system)

    def ability(self, name: str) -> str:
        """The campaign's spelling of ``name`` (case-insensitive), or :class:`InvalidValue`."""
        key = name.strip().casefold()
        for ability in self.ability_names:
            if ability.casefold() == key:
                return ability
        known = ", ".join(self.ability_names)
        raise InvalidValue(f"Unknown ability {quote(name)}: this campaign uses {known}.")


def _view(row: Row[Any]) -> CampaignView:
    m = row._mapping
    note_campaign(m["id"])  # the command's log lines name it, at no extra query
    return CampaignView(
        id=m["id"],
        guild_id=m["guild_id"],
        channel_id=m["channel_id"],
        system=system_key(m["system"]),
        gm_role_ids=tuple(m["gm_role_ids"]),
        gm_user_ids=tuple(m["gm_user_ids"]),
        gm_channel_id=m["gm_channel_id"],
        fortune_boon_default=m["fortune_boon_default"],
        crit_rules=m["crit_rules"],
        tiers=Tiers(
            very_easy=m["tier_very_easy"],
            easy=m["tier_easy"],
            moderate=m["tier_moderate"],
            hard=m["tier_hard"],
            very_hard=m["tier_very_hard"],
        ),
        ability_names=tuple(m["ability_names"]),
        created_at=m["created_at"],
        secrecy_defaults=dict(m["secrecy_defaults"] or {}),
        ledger_scope=m["ledger_scope"],
        carry_over=m["carry_over"],
        luck_trade=m["luck_trade"],
        rerolls=m["rerolls"],
        crit_double_dice=m["crit_double_dice"],
        party_auto_join=m["party_auto_join"],
    )


class SettingsChange(BaseModel):
    """The settings a GM can change; only the fields passed are changed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    gm_role_ids: IdListModel | None = None
    gm_user_ids: IdListModel | None = None
    gm_channel_id: Snowflake | None = None
    fortune_boon_default: bool | None = None
    crit_rules: bool | None = None
    carry_over: bool | None = None
    luck_trade: bool | None = None
    rerolls: bool | None = None
    crit_double_dice: bool | None = None
    party_auto_join: bool | None = None
    tier_very_easy: int | None = Field(default=None, ge=1, le=40)
    tier_easy: int | None = Field(default=None, ge=1, le=40)
    tier_moderate: int | None = Field(default=None, ge=1, le=40)
    tier_hard: int | None = Field(default=None, ge=1, le=40)
    tier_very_hard: int | None = Field(default=None, ge=1, le=40)
    ability_names: NameListModel | None = None
    secrecy_defaults: dict[SecrecyCommand, Visibility] | None = None


#: Each system's name in messages (a refusal names the system the campaign plays).
SYSTEM_NAMES: Mapping[str, str] = per_system(lambda s: s.name)
_TIER_NAMES = ("very_easy", "easy", "moderate", "hard", "very_hard")
#: The settings as a GM knows them (in messages: never a field name or the validator's words).
_SETTING_WORDS = {
    "gm_role_ids": "GM roles",
    "gm_user_ids": "GM users",
    "gm_channel_id": "GM channel",
    "fortune_boon_default": "double fortune dice",
    "crit_rules": "critical hits and fumbles",
    "party_auto_join": "new characters join the party",
    "ability_names": "ability names",
    "secrecy_defaults": "who sees rolls",
    **{f"tier_{t}": f"the {t.replace('_', ' ')} threshold" for t in _TIER_NAMES},
}


def _duplicate(names: Any) -> str | None:
    seen: set[str] = set()
    for name in names if isinstance(names, list) else []:
        key = str(name).casefold()
        if key in seen:
            return str(name)
        seen.add(key)
    return None


def _validation_message(exc: ValidationError) -> str:
    """The first problem, in the GM's words: pydantic's own text never reaches a player."""
    first = exc.errors()[0]
    loc, kind, given = first["loc"], first["type"], first.get("input")
    limit = (first.get("ctx") or {}).get("max_length")  # the validator's own limit
    field = str(loc[0]) if loc else ""
    words = _SETTING_WORDS.get(field, field.replace("_", " ") or "this setting")
    if kind == "extra_forbidden":
        return f"There is no setting called {quote(field)}."
    if field.startswith("tier_"):
        return f"Thresholds are 1 to 40: {words} cannot be {given}."
    if field == "ability_names":
        if len(loc) == 1 and kind == "too_short":
            return "Name at least one ability, comma-separated, e.g. names:STR, DEX, CON."
        if len(loc) == 1 and kind == "too_long":
            return f"A campaign has at most {limit} abilities; that is {len(given)}."
        if len(loc) == 1 and (twice := _duplicate(given)) is not None:
            return f"{quote(twice)} appears twice in the ability names (case does not count)."
        if kind == "string_too_long":
            return f"Ability names are at most {limit} characters: {quote(str(given))}."
        return (
            "Ability names are words without @, #, : or ` (single spaces between words): "
            f"{quote(str(given))} is not one."
        )
    if field in ("gm_role_ids", "gm_user_ids") and kind == "too_long":
        return f"A campaign has at most {limit} {words}."
    if field in ("gm_role_ids", "gm_user_ids", "gm_channel_id"):
        return f"That is not a Discord id, so it cannot be one of the {words}."
    if field == "secrecy_defaults":
        return (
            f"Who sees rolls is set per rolling command ({', '.join(SecrecyCommand)}) to "
            f"{', '.join(list(Visibility)[:-1])} or {list(Visibility)[-1]}."
        )
    return f"That value does not fit the setting {words}."


def _validate_change(changes: Mapping[str, Any]) -> dict[str, Any]:
    try:
        model = SettingsChange.model_validate(dict(changes))
    except ValidationError as exc:
        raise InvalidValue(_validation_message(exc)) from exc
    values = {name: getattr(model, name) for name in model.model_fields_set}
    for name, value in values.items():
        if value is None and name != "gm_channel_id":
            words = _SETTING_WORDS.get(name, name.replace("_", " "))
            raise InvalidValue(f"Say a value for {words}: a value is required.")
    return values


def _check_gm_roles(guild_id: int, role_ids: Iterable[int]) -> None:
    """A server's @everyone role has the server's id; it must never make everyone a GM."""
    if guild_id in role_ids:
        raise InvalidValue(EVERYONE_GM_ROLE)


async def setup_campaign(
    db: Database,
    guild_id: int,
    channel_id: int,
    system: str,
    *,
    gm_role_ids: Iterable[int] = (),
    gm_user_ids: Iterable[int] = (),
    gm_channel_id: int | None = None,
    fortune_boon_default: bool = False,
    crit_rules: bool = False,
    ability_names: Iterable[AbilityName] | None = None,
) -> CampaignView:
    """Create the campaign of ``channel_id`` (pass a thread's parent); one per channel."""
    try:
        rule_system = system_for(system)
    except UnknownSystem as exc:
        raise InvalidValue(exc.message) from None
    settings = _validate_change(
        {
            "gm_role_ids": list(gm_role_ids),
            "gm_user_ids": list(gm_user_ids),
            "gm_channel_id": gm_channel_id,
            "fortune_boon_default": fortune_boon_default,
            "crit_rules": crit_rules,
            "ability_names": list(ability_names or rule_system.abilities),
        }
    )
    _check_gm_roles(guild_id, settings["gm_role_ids"])
    if ability_names is not None and not rule_system.abilities_configurable:
        if [n.casefold() for n in settings["ability_names"]] != [
            n.casefold() for n in rule_system.abilities
        ]:
            raise InvalidValue(f"The ability names of {rule_system.key} are fixed.")
        settings["ability_names"] = list(rule_system.abilities)
    tiers = Tiers()
    async with transaction(db) as session:
        stmt = (
            insert_for(session, _T)
            .values(
                guild_id=guild_id,
                channel_id=channel_id,
                ledger_scope=channel_id,
                system=rule_system.key,
                tier_very_easy=tiers.very_easy,
                tier_easy=tiers.easy,
                tier_moderate=tiers.moderate,
                tier_hard=tiers.hard,
                tier_very_hard=tiers.very_hard,
                created_at=utcnow(),
                **settings,
            )
            .on_conflict_do_nothing(index_elements=["channel_id"])
            .returning(*_T.c)
        )
        row = (await session.execute(stmt)).first()
    if row is None:
        raise AlreadyExists("This channel already has a campaign.")
    return _view(row)


# Built once: the channel's own campaign first, else its parent's (a thread or forum post).
# Only its id and revision: the campaign itself comes from memory when this process read that
# revision already (:func:`campaign_at_revision_in`), so the statement reads two integers
# where the whole row cost a JSON decode and a validation per list column.
PLACE_SQL = (
    "SELECT c.id AS campaign_id, c.revision AS revision FROM campaigns c "
    "WHERE c.guild_id = :guild AND c.channel_id IN (:channel, :parent) "
    "ORDER BY CASE WHEN c.channel_id = :channel THEN 0 ELSE 1 END LIMIT 1"
)
_FOR_CHANNEL = text(PLACE_SQL)


def place_params(guild_id: int, channel_id: int, parent_channel_id: int | None) -> dict[str, Any]:
    """The parameters of a statement that finds a channel's campaign (``:guild``,
    ``:channel``, ``:parent``)."""
    parent = channel_id if parent_channel_id is None else parent_channel_id
    return {"guild": guild_id, "channel": channel_id, "parent": parent}


async def campaign_for_channel_in(
    session: Executor, guild_id: int, channel_id: int, parent_channel_id: int | None = None
) -> CampaignView:
    """In a caller's transaction: the campaign of a channel, or of a thread's parent channel."""
    params = place_params(guild_id, channel_id, parent_channel_id)
    found = (await run_hot(session, _FOR_CHANNEL, params)).first()
    if found is None:
        raise NoCampaign()
    return await campaign_at_revision_in(session, int(found[0]), int(found[1]))


#: Campaigns this process read, by id: (revision, view). A roll checks the revision inside a
#: statement it runs anyway (bot/services/trust/fairness.py ``here_in``), so a change made by any
#: process (settings, GMs, a move, an end) is seen at once: every UPDATE of a campaign's row
#: moves its revision (a trigger, migration 0024), and a new row starts at a random one.
_REMEMBERED: dict[int, tuple[int, CampaignView]] = {}
_REMEMBER_AT_MOST = 4096
_BY_ID = select(_T).where(_T.c.id == bindparam("campaign"))


async def campaign_at_revision_in(
    session: Executor, campaign_id: int, revision: int
) -> CampaignView:
    """In a caller's transaction: campaign ``campaign_id`` as of ``revision`` (read by the
    caller in this transaction), from memory if this process read that revision already."""
    found = _REMEMBERED.get(campaign_id)
    if found is not None and found[0] == revision:
        note_campaign(campaign_id)
        return found[1]
    row = (await session.execute(_BY_ID, {"campaign": campaign_id})).first()
    if row is None:
        raise NotFound("That campaign no longer exists.")
    view = _view(row)
    if len(_REMEMBERED) >= _REMEMBER_AT_MOST:
        _REMEMBERED.clear()
    _REMEMBERED[campaign_id] = (int(row._mapping["revision"]), view)
    return view


async def campaign_for_channel(
    db: Database, guild_id: int, channel_id: int, parent_channel_id: int | None = None
) -> CampaignView:
    """The campaign of a channel, or of a thread's parent; :class:`NoCampaign` otherwise."""
    async with transaction(db) as session:
        return await campaign_for_channel_in(session, guild_id, channel_id, parent_channel_id)


async def get_campaign_in(session: AsyncSession, campaign_id: int) -> CampaignView:
    """In a caller's transaction: a campaign by id."""
    row = (await session.execute(select(_T).where(_T.c.id == campaign_id))).first()
    if row is None:
        raise NotFound("That campaign no longer exists.")
    return _view(row)


async def get_campaign(db: Database, campaign_id: int) -> CampaignView:
    """A campaign by id, or :class:`NotFound`."""
    async with transaction(db) as session:
        return await get_campaign_in(session, campaign_id)


async def update_settings(db: Database, campaign_id: int, **changes: Any) -> CampaignView:
    """Change some settings (names as in :class:`SettingsChange`), validated as a whole."""
    values = _validate_change(changes)
    async with transaction(db) as session:
        current = await get_campaign_in(session, campaign_id)
        _check_gm_roles(current.guild_id, values.get("gm_role_ids", ()))
        if "ability_names" in values and not current.rules.abilities_configurable:
            raise InvalidValue(f"The ability names of {current.rules.key} are fixed.")
        tiers = [
            values.get(f"tier_{name}", getattr(current.tiers, name))
            for name in ("very_easy", "easy", "moderate", "hard", "very_hard")
        ]
        if tiers != sorted(tiers):
            raise InvalidValue(
                "Difficulty tiers must not decrease from Very Easy to Very Hard "
                f"(got {', '.join(map(str, tiers))})."
            )
        if not values:
            return current
        stmt = update(_T).where(_T.c.id == campaign_id).values(**values).returning(*_T.c)
        row = (await session.execute(stmt)).one()
    return _view(row)


async def _edit_known_gms(
    db: Database, campaign_id: int, *, add: int | None = None, drop: Iterable[int] = ()
) -> None:
    """Add one known GM and/or drop some, atomically: the row is locked (PostgreSQL; SQLite's
    BEGIN IMMEDIATE already holds the write lock) so concurrent edits do not lose each other."""
    dropped = set(drop)
    async with core_transaction(db) as session:
        stmt = select(_T.c.gm_user_ids).where(_T.c.id == campaign_id).with_for_update()
        current = (await session.execute(stmt)).scalar_one_or_none()
        if current is None:
            return  # the campaign was deleted meanwhile: nothing to remember
        known = [user for user in current if user not in dropped]
        if add is not None and add not in known and len(known) < MAX_KNOWN_GMS:
            known.append(add)
        if sorted(known) != sorted(current):
            await session.execute(
                update(_T).where(_T.c.id == campaign_id).values(gm_user_ids=known)
            )


async def remember_gm(db: Database, campaign_id: int, user_id: int) -> None:
    """Note ``user_id`` as a known GM; the caller checked they act with GM standing now, and
    that they are not known yet (``CampaignView.gm_user_ids``), so a known GM costs no query.

    Knowing someone grants nothing: GM copies re-check each known GM when sent.
    """
    await _edit_known_gms(db, campaign_id, add=user_id)


async def forget_gms(db: Database, campaign_id: int, user_ids: Iterable[int]) -> None:
    """Drop known GMs found to be GMs no longer (or gone from the server)."""
    drop = set(user_ids)
    if drop:
        await _edit_known_gms(db, campaign_id, drop=drop)


async def delete_campaign(db: Database, campaign_id: int) -> None:
    """Delete a campaign and its characters; its ledger rows stay (campaign_id becomes NULL)."""
    async with transaction(db) as session:
        result = await session.execute(delete(_T).where(_T.c.id == campaign_id).returning(_T.c.id))
        if result.first() is None:
            raise NotFound("That campaign no longer exists.")


# --- what a campaign keeps about a person (bot/services/kit/personal.py) ------------------------


def campaign_ids_in(guild_id: int | None) -> Select[Any]:
    """The ids of a server's campaigns (every server's: None), through
    ``ix_campaigns_guild_id``: a feature scopes its rows by them."""
    return select(campaigns.c.id).where(in_scope(campaigns, guild_id))


async def _show_in(session: Executor, shown: Shown) -> None:
    """The campaigns where they are remembered as a GM (to send them hidden rolls)."""
    user_id = shown.user_id
    for row in await session.execute(
        select(campaigns.c.guild_id, campaigns.c.channel_id, campaigns.c.gm_user_ids).where(
            in_scope(campaigns, shown.guild_id), holds_id(campaigns.c.gm_user_ids, user_id)
        )
    ):
        if user_id in row.gm_user_ids:
            shown.server(row.guild_id).setdefault("known_gm_in", []).append(row.channel_id)


async def _erase_gm_seats_in(session: Executor, person: Person) -> int:
    """Their place among a campaign's known GMs."""
    user_id = person.user_id

    def seat(row: Any) -> dict[str, Any]:
        if user_id in row.gm_user_ids:
            return {"gm_user_ids": [g for g in row.gm_user_ids if g != user_id]}
        return {}

    selected = select(campaigns.c.id, campaigns.c.gm_user_ids).where(
        in_scope(campaigns, person.guild_id), holds_id(campaigns.c.gm_user_ids, user_id)
    )
    return await personal.rewrite(session, campaigns, selected, seat)


PERSONAL_DATA = declare(
    PersonalData(
        "campaigns",
        holdings=(personal.holding("campaigns", "gm_user_ids", "gm_user_ids"),),
        not_personal={
            "campaigns.gm_role_ids": "Discord role ids, never a person's",
            "campaigns.ability_names": "the campaign's names for its abilities, set by its GM",
            "campaigns.secrecy_defaults": "the campaign's secrecy options",
        },
        show_in=_show_in,
        erase=personal.each_in_its_transaction(_erase_gm_seats_in),
    )
)
