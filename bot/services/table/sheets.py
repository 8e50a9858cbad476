"""Campaign and character use cases as Discord users meet them, with their permissions.

Each function takes the :class:`Caller`, finds the channel's campaign, checks who may do
it (players edit their own characters; the GM edits any and changes settings), then calls
the storage tier (bot/services/store/).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any

from bot.db.engine import Database
from bot.quoting import escape
from bot.rules import d20_check
from bot.rules import pen_and_dagger as pd
from bot.rules.errors import RulesError
from bot.rules.systems import Feature, system_for
from bot.rules.systems.commands import require as require_rule
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NoCampaign, NotFound
from bot.services.store import campaigns, characters, pending
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView
from bot.services.trust import fairness, secrecy
from bot.services.trust.access import (
    campaign_here,
    gm_standing,
    is_gm,
    require_gm,
    require_manage_guild,
    require_owner_or_gm,
    target_character,
)
from bot.words import Visibility

log = logging.getLogger(__name__)


async def setup(
    db: Database,
    caller: Caller,
    system: str,
    *,
    gm_role_id: int | None = None,
    gm_channel_id: int | None = None,
    in_forum: bool = False,
) -> CampaignView:
    """Bind the caller's channel to a new campaign (needs Manage Server: no GM role exists yet);
    ``in_forum``: the caller is in a forum post, and the forum is bound.

    The caller becomes the campaign's first known GM (a DM candidate, never authority).
    """
    if caller.guild_id is None:
        raise InvalidValue("Campaigns live in server channels, not direct messages.")
    channel_id = caller.channel_id
    if caller.parent_channel_id is not None:
        if not in_forum:
            raise InvalidValue(
                "Run /campaign setup in the channel itself: its threads and posts then share it."
            )
        # A forum channel takes no messages of its own: set up from one of its posts, the
        # campaign is the forum's, and every post of it shares it.
        channel_id = caller.parent_channel_id
    require_manage_guild(caller, "set up a campaign")
    campaign = await campaigns.setup_campaign(
        db,
        caller.guild_id,
        channel_id,
        system,
        gm_role_ids=[gm_role_id] if gm_role_id else [],
        gm_user_ids=[caller.user_id],
        gm_channel_id=gm_channel_id,
    )
    # Its dice seed is fixed now, its hash published with the set-up's answer
    # (docs/fair-dice.md), so no roll of the campaign draws from a seed nobody was shown.
    await fairness.show(db, caller, campaign)
    return campaign


#: Settings of one system's optional rule (``bot.rules.systems.commands.RULES``): a campaign
#: of another system refuses them, saying so, rather than saving a setting that does nothing.
SETTING_RULES: Mapping[str, str] = {
    "fortune_boon_default": "fortune",
    "crit_rules": "attacks",
    "crit_double_dice": "attacks",
    "carry_over": "carry-over",
    "luck_trade": "luck",
    "rerolls": "rerolls",
    **{f"tier_{tier}": "tiers" for tier in ("very_easy", "easy", "moderate", "hard", "very_hard")},
}


async def change_settings(db: Database, caller: Caller, **changes: Any) -> CampaignView:
    """GM only: change campaign settings, validated as a whole."""
    campaign = await campaign_here(db, caller)
    require_gm(campaign, caller, "change campaign settings")
    for setting in changes:
        if setting in SETTING_RULES:
            require_rule(campaign.rules, SETTING_RULES[setting])
    return await campaigns.update_settings(db, campaign.id, **changes)


# --- the GM channel's guard rail (docs/secret-rolls.md, "Where the GM copy goes") ----------


@dataclass(frozen=True, slots=True)
class ChannelMember:
    """A member given View Channel by a permission overwrite of their own, as they are now
    (fetched when the command runs); unknown standing is passed as no roles."""

    user_id: int
    role_ids: frozenset[int] = frozenset()
    manage_guild: bool = False


@dataclass(frozen=True, slots=True)
class ChannelAudience:
    """Who can read a channel, worked out by the cog from its permission overwrites.

    "Can read" means Discord gives View Channel there (whoever can view a channel sees every
    message posted while they can). A role can read when a member with only @everyone and
    that role would: the server's permissions of both, then the channel's overwrites for
    @everyone and for the role. A member can read through an overwrite of their own that
    allows View Channel. Roles with Manage Server or Administrator are left out (their
    holders are GMs anyway), and so is the bot. ``role_ids`` holds the server's id when
    @everyone can read.
    """

    role_ids: frozenset[int]
    members: tuple[ChannelMember, ...] = ()


@dataclass(frozen=True, slots=True)
class Exposure:
    """The non-GMs who can read a channel meant for GMs only."""

    everyone: bool = False
    role_ids: tuple[int, ...] = ()
    user_ids: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return self.everyone or bool(self.role_ids) or bool(self.user_ids)

    def describe(self) -> str:
        """Who they are, in plain words with mentions."""
        if self.everyone:
            return "everyone in the server (@everyone)"
        parts = []
        if self.role_ids:
            parts.append("members of " + ", ".join(f"<@&{r}>" for r in self.role_ids))
        if self.user_ids:
            parts.append(", ".join(f"<@{u}>" for u in self.user_ids))
        return " and ".join(parts)


def exposure(campaign: CampaignView, audience: ChannelAudience) -> Exposure:
    """Who of ``audience`` is not a GM of ``campaign``: @everyone, roles other than its GM
    roles, members holding neither a GM role nor Manage Server."""
    if campaign.guild_id in audience.role_ids:
        return Exposure(everyone=True)
    roles = sorted(audience.role_ids - set(campaign.gm_role_ids))
    users = sorted(
        {
            m.user_id
            for m in audience.members
            if not gm_standing(campaign.gm_role_ids, m.role_ids, m.manage_guild)
        }
    )
    return Exposure(False, tuple(roles), tuple(users))


def _exposed_message(channel_id: int, exposed: Exposure) -> str:
    return (
        f"{exposed.describe()} can read <#{channel_id}>, and hidden rolls are posted there "
        "in full. Make it private to the GMs (deny View Channel to @everyone, allow it to the "
        "GM role and the bot)"
    )


@dataclass(frozen=True, slots=True)
class GmChannelSet:
    """A GM channel set (or unset); ``exposed`` is not empty only when forced."""

    campaign: CampaignView
    exposed: Exposure

    def warning(self) -> str | None:
        """What the GM must be told after forcing a channel non-GMs can read."""
        if not self.exposed or self.campaign.gm_channel_id is None:
            return None
        return f"Warning: {_exposed_message(self.campaign.gm_channel_id, self.exposed)}."


def setup_warning(campaign: CampaignView, audience: ChannelAudience | None) -> str | None:
    """/campaign setup accepts any GM channel (it has no force option); it warns instead."""
    if campaign.gm_channel_id is None or audience is None:
        return None
    return GmChannelSet(campaign, exposure(campaign, audience)).warning()


async def set_gm_channel(
    db: Database,
    caller: Caller,
    channel_id: int | None,
    audience: ChannelAudience | None,
    *,
    force: bool = False,
) -> GmChannelSet:
    """GM only: set (or with ``None`` unset) the GM channel.

    A channel non-GMs can read (see :class:`ChannelAudience`) is refused, unless ``force``:
    then it is set and the result carries the warning.
    """
    campaign = await campaign_here(db, caller)
    require_gm(campaign, caller, "change campaign settings")
    exposed = Exposure()
    if channel_id is not None:
        if audience is None:
            raise ValueError("a GM channel needs its audience checked")
        exposed = exposure(campaign, audience)
        if exposed and not force:
            raise InvalidValue(
                f"Not set: {_exposed_message(channel_id, exposed)}; or add `force:True` to "
                "set it anyway. Nothing changed."
            )
    updated = await campaigns.update_settings(db, campaign.id, gm_channel_id=channel_id)
    return GmChannelSet(updated, exposed)


async def set_gm_role(db: Database, caller: Caller, role_id: int, *, add: bool) -> CampaignView:
    """GM only: add or remove a GM role (a GM cannot remove the role they rely on alone)."""
    campaign = await campaign_here(db, caller)
    require_gm(campaign, caller, "change the GM roles")
    roles = [r for r in campaign.gm_role_ids if r != role_id]
    if add:
        roles.append(role_id)
    elif role_id not in campaign.gm_role_ids:
        raise InvalidValue("That role is not a GM role of this campaign.")
    return await campaigns.update_settings(db, campaign.id, gm_role_ids=roles)


async def confirm_delete_campaign(db: Database, caller: Caller) -> CampaignView:
    """GM only: check a delete may go ahead (the cog asks for confirmation next)."""
    campaign = await campaign_here(db, caller)
    require_gm(campaign, caller, "delete the campaign")
    return campaign


async def delete_campaign(db: Database, caller: Caller, campaign_id: int) -> None:
    """GM only: delete the campaign and its characters; the ledger keeps every roll."""
    campaign = await campaigns.get_campaign(db, campaign_id)
    require_gm(campaign, caller, "delete the campaign")
    await campaigns.delete_campaign(db, campaign.id)


# --- characters -----------------------------------------------------------------------------


async def create_character(db: Database, caller: Caller, name: str) -> CharacterView:
    """A new character for the caller; their first becomes active."""
    campaign = await campaign_here(db, caller)
    return await characters.create_character(
        db, campaign.id, caller.user_id, name, reserved=caller.bot_names
    )


@dataclass(frozen=True, slots=True)
class CharacterSheet(CharacterView):
    """A character as one viewer may see it (:func:`show_character`).

    ``pending`` holds only the active carry-overs (threshold ruling 4); ``waiting`` the ones
    earned on a hidden roll not yet revealed that this viewer may see (a hidden result
    appears nowhere a non-entitled user can see; see :mod:`bot.services.store.pending`).
    """

    waiting: tuple[pending.CarryOver, ...] = ()


def sheet_for(
    character: CharacterView,
    found: Iterable[pending.CarryOver],
    viewer_id: int,
    viewer_is_gm: bool,
) -> CharacterSheet:
    """``character`` with the carry-overs ``viewer_id`` may see, active and waiting."""
    active: dict[str, int] = {}
    waiting: list[pending.CarryOver] = []
    for carry in found:
        if carry.active:
            active[carry.ability] = carry.value
        elif carry.source_visibility is not None and secrecy.may_see(
            carry.source_visibility,
            carry.source_roller_id or 0,
            False,
            viewer_id,
            viewer_is_gm,
        ):
            waiting.append(carry)
    values = {f.name: getattr(character, f.name) for f in fields(CharacterView)}
    values["pending"] = MappingProxyType(active)
    return CharacterSheet(**values, waiting=tuple(waiting))


async def show_character(
    db: Database, caller: Caller, name: str | None = None, player_id: int | None = None
) -> tuple[CampaignView, CharacterSheet]:
    """A sheet: by name, a player's active character, or the caller's own active one.

    Sheets are visible to everyone at the table (as on paper); hidden rolls are not on them:
    a carry-over from a hidden roll (threshold ruling 4) shows only to viewers who may see
    that roll, as waiting, until the roll is revealed.
    """
    campaign = await campaign_here(db, caller)
    if name is not None:
        character = await characters.get_character(db, campaign.id, name)
    else:
        character = await characters.active_character(
            db, campaign.id, player_id if player_id is not None else caller.user_id
        )
    found = await pending.carry_overs(db, character.id) if character.pending else []
    return campaign, sheet_for(
        character, found, caller.user_id, secrecy.viewer_is_gm(campaign, caller)
    )


@dataclass(frozen=True, slots=True)
class ClearedCarryOver:
    """Carry-overs the GM cleared; ``secret`` when one came from a hidden, unrevealed roll."""

    name: str
    cleared: dict[str, int]
    secret: bool


async def clear_modifier(
    db: Database, caller: Caller, name: str, ability: str | None = None
) -> ClearedCarryOver:
    """GM: clear a character's pending carry-over (one ability, or all); returns what went.

    Only what the GM may see: a hidden roll stores no carry-over before its reveal,
    and one stored before that rule from another player's unrevealed self roll is neither
    cleared nor reported (the answer would tell the GM that roll was a critical). A waiting one
    the GM may see (see :mod:`bot.services.store.pending`) is marked ``secret``, so the answer
    goes to the GM only.
    """
    campaign = await campaign_here(db, caller)
    require_gm(campaign, caller, "clear carry-over modifiers")
    require_rule(campaign.rules, "carry-over")
    character = await characters.get_character(db, campaign.id, name)
    canonical = campaign.ability(ability) if ability else None
    gm = secrecy.viewer_is_gm(campaign, caller)
    found = [
        c
        for c in await pending.carry_overs(db, character.id)
        if (canonical is None or c.ability == canonical)
        and (
            c.active
            or secrecy.may_see(
                c.source_visibility or Visibility.PUBLIC,
                c.source_roller_id or 0,
                False,
                caller.user_id,
                gm,
            )
        )
    ]
    cleared = await pending.clear_abilities(db, character.id, [c.ability for c in found])
    if not cleared:
        on = f" on {canonical}" if canonical else ""
        raise InvalidValue(f"{escape(character.name)} has no carry-over modifier{on} to clear.")
    return ClearedCarryOver(
        character.name,
        {c.ability: c.value for c in found},
        any(not c.active for c in found),
    )


async def list_characters(db: Database, caller: Caller) -> tuple[CampaignView, list[CharacterView]]:
    """Every character in the campaign, with their owners."""
    campaign = await campaign_here(db, caller)
    return campaign, await characters.list_characters(db, campaign.id)


async def use_character(db: Database, caller: Caller, name: str) -> CharacterView:
    """Make one of the caller's characters their active one."""
    campaign = await campaign_here(db, caller)
    return await characters.use_character(db, campaign.id, caller.user_id, name)


async def set_score(
    db: Database, caller: Caller, ability: str, value: int, name: str | None = None
) -> CharacterView:
    """Set an ability score (a modifier in the threshold system)."""
    _, character = await target_character(db, caller, name, "change its scores")
    return await characters.set_score(db, character.id, ability, value)


def _proficiency_value(system: str, value: str) -> tuple[str | None, int | None] | None:
    """Rank (Pen & Dagger) or degree (d20 check) from what was typed; None removes it."""
    if value.strip().casefold() in {"none", "remove", "-"}:
        return None
    features = system_for(system).features
    if Feature.RANKS in features:
        return pd.Rank.parse(value).display_name, None
    if Feature.DEGREES in features:
        degree = d20_check.ProficiencyDegree.parse(value)
        if degree is d20_check.ProficiencyDegree.NONE:
            return None
        return None, degree.value
    raise InvalidValue(f"Characters in {system} have no proficiencies.")


async def set_proficiency(
    db: Database, caller: Caller, proficiency: str, value: str, name: str | None = None
) -> CharacterView:
    """Add, change or (value `none`) remove a named proficiency."""
    campaign, character = await target_character(db, caller, name, "change its proficiencies")
    parsed = _proficiency_value(campaign.system, value)
    if parsed is None:
        return await characters.remove_proficiency(db, character.id, proficiency)
    rank, degree = parsed
    return await characters.set_proficiency(db, character.id, proficiency, rank=rank, degree=degree)


async def set_level(
    db: Database, caller: Caller, level: int, name: str | None = None
) -> CharacterView:
    """Set the character's level (1-20)."""
    _, character = await target_character(db, caller, name, "change its level")
    return await characters.set_level(db, character.id, level)


async def set_save(
    db: Database, caller: Caller, ability: str, proficient: bool, name: str | None = None
) -> CharacterView:
    """Mark a saving-throw proficiency (d20 check ruling 5)."""
    campaign, character = await target_character(db, caller, name, "change its saves")
    require_rule(campaign.rules, "save-proficiencies")
    return await characters.set_save_proficiency(
        db, character.id, campaign.ability(ability), proficient
    )


async def set_null(
    db: Database, caller: Caller, bonus: int | None, name: str | None = None
) -> CharacterView:
    """Mark a character a Null with its Null bonus, or unmark it (d20 check "Null Saves")."""
    _, character = await target_character(db, caller, name, "change whether it is a Null")
    return await characters.set_null_bonus(db, character.id, bonus)


#: The Armour Class a sheet may hold (as an attack may target).
MIN_AC, MAX_AC = 1, d20_check.MAX_TARGET
#: A magic armour's bonus (the text's "+1" armour and up).
MAX_ARMOUR_MAGIC = 9


async def set_armour(
    db: Database,
    caller: Caller,
    ac: int,
    quality: str | None = None,
    magic: int | None = None,
    name: str | None = None,
) -> CharacterView:
    """Set a character's own AC and armour (its player or the GM). Another player's attack on
    the character uses these, never what the attacker says."""
    if not MIN_AC <= ac <= MAX_AC:
        raise InvalidValue(f"An Armour Class is {MIN_AC} to {MAX_AC}. Nothing changed.")
    if magic is not None and not 0 <= magic <= MAX_ARMOUR_MAGIC:
        raise InvalidValue(f"A magic armour's bonus is 0 to {MAX_ARMOUR_MAGIC}. Nothing changed.")
    stored_quality = None
    if quality:
        try:
            stored_quality = d20_check.ItemQuality.parse(quality).display
        except RulesError as exc:
            raise InvalidValue(str(exc)) from None
    _, character = await target_character(db, caller, name, "change its armour")
    return await characters.set_armour(db, character.id, ac, stored_quality, magic or None)


async def restore_ac(db: Database, caller: Caller, name: str) -> CharacterView:
    """GM: give a character back the AC critical hits took."""
    campaign, character = await target_character(db, caller, name, "restore its AC")
    require_gm(campaign, caller, "restore a character's AC")
    require_rule(campaign.rules, "attacks")
    return await characters.restore_ac(db, character.id)


async def confirm_delete_character(db: Database, caller: Caller, name: str) -> CharacterView:
    """Check the caller may delete ``name`` (the cog asks for confirmation next)."""
    _, character = await target_character(db, caller, name, "delete it")
    return character


async def delete_character(db: Database, caller: Caller, character_id: int) -> None:
    """Delete a character after confirmation; its rolls stay in the ledger."""
    character = await characters.get_character_by_id(db, character_id)
    campaign = await campaigns.get_campaign(db, character.campaign_id)
    require_owner_or_gm(campaign, caller, character, "delete it")
    await characters.delete_character(db, character.id)


async def character_names(db: Database, caller: Caller, typed: str, *, own_only: bool) -> list[str]:
    """Autocomplete: character names in the campaign starting with (or containing) ``typed``.

    ``own_only`` limits a player to their own characters; the GM sees all. Only names are
    returned, never anything about rolls.
    """
    try:
        campaign = await campaign_here(db, caller)
    except NoCampaign:
        return []
    found = await characters.list_characters(db, campaign.id)
    if own_only and not is_gm(campaign, caller):
        found = [c for c in found if c.user_id == caller.user_id]
    return _matching((c.name for c in found), typed)


async def ability_names(db: Database, caller: Caller, typed: str) -> list[str]:
    """Autocomplete: the campaign's ability names."""
    try:
        campaign = await campaign_here(db, caller)
    except NoCampaign:
        return []
    return _matching(campaign.ability_names, typed)


async def proficiency_names(db: Database, caller: Caller, typed: str) -> list[str]:
    """Autocomplete: the proficiencies on the caller's active character."""
    try:
        campaign = await campaign_here(db, caller)
        character = await characters.active_character(db, campaign.id, caller.user_id)
    except (NoCampaign, NotFound):  # no campaign here, or no active character yet
        return []
    return _matching((p.name for p in character.proficiencies.values()), typed)


async def proficiency_values(db: Database, caller: Caller, typed: str) -> list[str]:
    """Autocomplete: ranks (Pen & Dagger) or degrees (d20 check), plus `none` to remove."""
    try:
        campaign = await campaign_here(db, caller)
    except NoCampaign:
        return []
    if Feature.RANKS in campaign.rules.features:
        values = [r.display_name for r in reversed(pd.Rank)]
    elif Feature.DEGREES in campaign.rules.features:
        values = ["Half", "Proficient", "Expert"]
    else:
        return []
    return _matching([*values, "none"], typed)


def _matching(names: Iterable[str], typed: str, limit: int = 25) -> list[str]:
    key = typed.strip().casefold()
    names = list(names)
    starts = [n for n in names if n.casefold().startswith(key)]
    contains = [n for n in names if key in n.casefold() and n not in starts]
    return (starts + contains)[:limit]
