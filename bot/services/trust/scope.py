"""Scope: answers about rolls only cover the places the caller can read.

A roll made in a channel or thread the caller cannot read does not exist for them: /verify,
/reveal, /gm reveal and the fortune buttons answer exactly as for an id that was never used,
and /history, /gm log and /stats leave it out (not even counted as hidden).

The cog decides readability from Discord (:attr:`Caller.can_read`); these helpers only apply
it. A channel the server no longer has was perhaps private, and that can no longer be asked:
its rolls are the campaign's GMs' alone (outside a campaign, nobody's). A campaign imported
from another server: what was rolled in its first channel reads as its channel does now;
what was rolled elsewhere on the old server, only its GMs.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.services.kit.context import Caller
from bot.services.store.campaigns import CampaignView
from bot.services.store.ledger import RollView
from bot.services.trust.access import is_gm


def home_of(campaign: CampaignView | None, caller: Caller) -> int | None:
    """The campaign's own channel, when it is in the caller's server; outside a campaign,
    none."""
    if campaign is None or campaign.guild_id != caller.guild_id:
        return None
    return campaign.channel_id


def _gm_here(campaign: CampaignView | None, caller: Caller) -> bool:
    return campaign is not None and campaign.guild_id == caller.guild_id and is_gm(campaign, caller)


async def _place_readable(
    caller: Caller, row: RollView, campaign: CampaignView | None, home: int | None
) -> bool:
    if caller.can_read is None:
        return True
    if row.guild_id is not None and row.guild_id != caller.guild_id:
        # Rolled in another server: a campaign moved here keeps where its rolls were made
        # (export/import). What was rolled in its first channel reads as its channel now;
        # what was rolled elsewhere there (threads, perhaps private) is the GM's alone.
        if campaign is not None and row.channel_id == campaign.ledger_scope:
            return home is not None and bool(await caller.can_read(home))
        return _gm_here(campaign, caller)
    readable = await caller.can_read(row.channel_id)
    if readable is None:
        # The channel or thread is gone: whether it was private cannot be asked any more, so
        # its rolls are the campaign's GMs' alone.
        return _gm_here(campaign, caller)
    return readable


async def readable_row(caller: Caller, row: RollView, campaign: CampaignView | None) -> bool:
    """The caller can read where ``row`` was rolled (``campaign``: the row's, or None). When
    not, the caller gets exactly the answer for a number that names nothing."""
    return await _place_readable(caller, row, campaign, home_of(campaign, caller))


async def readable_channels(
    caller: Caller, rows: Iterable[RollView], campaign: CampaignView | None
) -> set[int]:
    """The channels, among those ``rows`` (of ``campaign``) were rolled in, the caller can
    read; each is asked about once."""
    home = home_of(campaign, caller)
    places = {row.channel_id: row for row in rows}
    return {c for c, row in places.items() if await _place_readable(caller, row, campaign, home)}
