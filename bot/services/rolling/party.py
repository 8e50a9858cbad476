"""The party: the characters a GM's group rolls and roll requests include by default."""

from __future__ import annotations

from bot.db.engine import Database
from bot.services.kit.context import Caller
from bot.services.kit.sql import Executor
from bot.services.store import characters
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView
from bot.services.trust import access
from bot.services.trust.access import require_gm


async def party_members_in(session: Executor, campaign_id: int) -> list[CharacterView]:
    """In a caller's transaction: the party, oldest member first, with their scores."""
    return await characters.party_in(session, campaign_id)


async def add(db: Database, caller: Caller, name: str) -> tuple[CharacterView, bool]:
    """Put a character in the party (the GM any, a player their own); False if already in."""
    _, character = await access.target_character(db, caller, name, "add it to the party")
    if character.in_party:
        return character, False
    return await characters.party_add(db, character.id), True


async def remove(db: Database, caller: Caller, name: str) -> tuple[CharacterView, bool]:
    """Take a character out of the party; False if it was not in it."""
    _, character = await access.target_character(db, caller, name, "take it out of the party")
    if not character.in_party:
        return character, False
    return await characters.party_remove(db, character.id), True


async def add_everyone(db: Database, caller: Caller) -> tuple[CampaignView, list[str]]:
    """GM: every character of the campaign joins the party in one step; who joined now."""
    campaign = await access.campaign_here(db, caller)
    require_gm(campaign, caller, "add every character to the party")
    return campaign, await characters.party_add_all(db, campaign.id)


async def show(db: Database, caller: Caller) -> tuple[CampaignView, list[CharacterView]]:
    """The campaign and its party members, for anyone at the table."""
    campaign = await access.campaign_here(db, caller)
    return campaign, await characters.party_list(db, campaign.id)
