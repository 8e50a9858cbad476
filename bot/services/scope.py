"""Scope: answers about rolls only cover the places the caller can read (issue 15, point 2).

A roll made in a channel or thread the caller cannot read does not exist for them: /verify,
/reveal, /gm reveal and the fortune buttons answer exactly as for an id that was never used,
and /history, /gm log and /stats leave it out (not even counted as hidden).

The cog decides readability from Discord (:attr:`Caller.can_read`); these helpers only apply
it. A channel the server no longer has (deleted, or the campaign was imported from another
server) counts as the campaign's own channel for the campaign's rows: whoever can read the
campaign channel can read what was rolled in its deleted threads. A roll outside any
campaign in such a channel is readable by nobody.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.services.campaigns import CampaignView
from bot.services.context import Caller
from bot.services.ledger import RollView


async def may_read(caller: Caller, channel_id: int, home_channel_id: int | None) -> bool:
    """The caller can read ``channel_id``; a channel gone from the server stands for
    ``home_channel_id`` (the campaign's channel), or for nothing outside a campaign."""
    if caller.can_read is None:
        return True
    readable = await caller.can_read(channel_id)
    if readable is None and home_channel_id is not None and home_channel_id != channel_id:
        readable = await caller.can_read(home_channel_id)
    return bool(readable)


async def readable_channels(
    caller: Caller, channel_ids: Iterable[int], home_channel_id: int | None
) -> set[int]:
    """Those of ``channel_ids`` the caller can read (each asked once)."""
    return {c for c in set(channel_ids) if await may_read(caller, c, home_channel_id)}


def home_of(campaign: CampaignView | None, caller: Caller) -> int | None:
    """The campaign channel a deleted channel's rows count as: only in the campaign's server."""
    if campaign is None or campaign.guild_id != caller.guild_id:
        return None
    return campaign.channel_id


async def readable_row(caller: Caller, row: RollView, campaign: CampaignView | None) -> bool:
    """The caller's server holds the row and the caller can read where it was rolled. When
    not, the caller gets exactly the answer for a number that names nothing."""
    if row.guild_id is not None and row.guild_id != caller.guild_id:
        return False
    return await may_read(caller, row.channel_id, home_of(campaign, caller))
