"""Who may do what in a campaign, and the campaign and character a command acts on.

The GM of a campaign is anyone holding one of its GM roles, or Discord's Manage Server
permission. This is checked here on every GM action, not left to Discord's command
permissions, which server admins can override.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from bot.db.engine import Database
from bot.quoting import escape
from bot.services.kit.context import Caller
from bot.services.kit.errors import NoCampaign, NotAllowed, StorageUnavailable
from bot.services.store import campaigns, characters
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView

log = logging.getLogger(__name__)


def gm_standing(gm_role_ids: Iterable[int], role_ids: AbstractSet[int], manage_guild: bool) -> bool:
    """The GM rule from plain facts about a member, as they are now: Manage Server, or one of
    the campaign's GM roles. Used for callers and for members fetched when a GM copy is sent."""
    return manage_guild or not role_ids.isdisjoint(gm_role_ids)


def is_gm(campaign: CampaignView, caller: Caller) -> bool:
    """True for Manage Server holders and members with one of the campaign's GM roles."""
    return gm_standing(campaign.gm_role_ids, caller.role_ids, caller.manage_guild)


def require_gm(campaign: CampaignView, caller: Caller, action: str) -> None:
    """Refuse ``action`` (e.g. "change campaign settings") unless the caller is the GM."""
    if not is_gm(campaign, caller):
        raise NotAllowed(f"Only the campaign's GM can {action}.")


def require_manage_guild(caller: Caller, action: str) -> None:
    """Refuse unless the caller has Manage Server (needed before a campaign has GM roles)."""
    if not caller.manage_guild:
        raise NotAllowed(f"You need the Manage Server permission to {action}.")


def require_owner_or_gm(
    campaign: CampaignView, caller: Caller, character: CharacterView, action: str
) -> None:
    """Players edit only their own characters; the GM may edit any in the campaign."""
    if character.user_id != caller.user_id and not is_gm(campaign, caller):
        raise NotAllowed(
            f"{escape(character.name)} belongs to another player: only they or the GM can {action}."
        )


async def campaign_here(db: Database, caller: Caller) -> CampaignView:
    """The campaign of the caller's channel (a thread uses its parent's).

    A caller with GM standing who is not a known GM yet becomes one: a candidate for DM
    copies of hidden rolls, re-checked at each send. Known GMs cost no query.
    """
    if caller.guild_id is None:
        raise NoCampaign()
    campaign = await campaigns.campaign_for_channel(
        db, caller.guild_id, caller.channel_id, caller.parent_channel_id
    )
    if caller.user_id not in campaign.gm_user_ids and is_gm(campaign, caller):
        try:
            await campaigns.remember_gm(db, campaign.id, caller.user_id)
        except StorageUnavailable:  # bookkeeping: never fail the command for it; next time
            log.warning("campaign %s: GM %s not noted (storage)", campaign.id, caller.user_id)
    return campaign


async def target_character(
    db: Database, caller: Caller, name: str | None, action: str
) -> tuple[CampaignView, CharacterView]:
    """The named character (or the caller's active one), if the caller may ``action`` it."""
    campaign = await campaign_here(db, caller)
    if name is None:
        character = await characters.active_character(db, campaign.id, caller.user_id)
    else:
        character = await characters.get_character(db, campaign.id, name)
    require_owner_or_gm(campaign, caller, character, action)
    return campaign, character
