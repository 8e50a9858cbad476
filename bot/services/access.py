"""Who may do what in a campaign.

The GM of a campaign is anyone holding one of its GM roles, or Discord's Manage Server
permission. This is checked here on every GM action, not left to Discord's command
permissions, which server admins can override.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet

from bot.quoting import escape
from bot.services.context import Caller
from bot.services.errors import NotAllowed
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView


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
