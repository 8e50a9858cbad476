"""The ledger you can ask: a campaign's rolls, newest first, as far as the viewer may see
(hidden results as stubs) and only from channels and threads the viewer can read."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.services.kit import budgets
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NoCampaign
from bot.services.kit.sql import transaction
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView, campaign_for_channel_in, get_campaign_in
from bot.services.store.characters import character_by_name_in
from bot.services.trust.scope import readable_channels
from bot.services.trust.secrecy import can_see, require_campaign_gm, viewer_is_gm

MAX_PAGE = 25


@dataclass(frozen=True, slots=True)
class Entry:
    """A ledger row and whether this viewer may see its result (else: a stub)."""

    row: ledger.RollView
    visible: bool


@dataclass(frozen=True, slots=True)
class HistoryFilter:
    """What the viewer asked for; ``character_id`` is resolved from the name once."""

    campaign_id: int
    user_id: int | None = None
    character_id: int | None = None
    kind: str | None = None
    limit: int = 10


@dataclass(frozen=True, slots=True)
class HistoryPage:
    """One page, newest first; ``older`` is the ``before_id`` of the next page, if any."""

    campaign: CampaignView
    entries: list[Entry]
    older: int | None
    viewer_is_gm: bool


async def make_filter(
    db: Database,
    caller: Caller,
    *,
    player_id: int | None = None,
    character_name: str | None = None,
    kind: str | None = None,
    limit: int = 10,
    gm_log: bool = False,
) -> HistoryFilter:
    """Resolve the options of /history (or /gm log, GM only) into a filter."""
    if caller.guild_id is None:
        raise NoCampaign()
    if not 1 <= limit <= MAX_PAGE:
        raise InvalidValue(f"The limit is a number of rolls per page, 1 to {MAX_PAGE}.")
    async with transaction(db) as session:
        campaign = await campaign_for_channel_in(
            session, caller.guild_id, caller.channel_id, caller.parent_channel_id
        )
        if gm_log:
            require_campaign_gm(campaign, caller, "read the full roll log")
        character_id = None
        if character_name:
            character_id = (await character_by_name_in(session, campaign.id, character_name)).id
    return HistoryFilter(campaign.id, player_id, character_id, kind, limit)


async def _rows_in(
    session: AsyncSession, query: HistoryFilter, before_id: int | None, unreadable: set[int]
) -> list[ledger.RollView]:
    return await ledger.latest_rolls_in(
        session,
        query.campaign_id,
        limit=query.limit + 1,
        character_id=query.character_id,
        user_id=query.user_id,
        kinds=[query.kind] if query.kind else None,
        before_id=before_id,
        exclude_channels=unreadable,
    )


async def page(
    db: Database, caller: Caller, query: HistoryFilter, before_id: int | None = None
) -> HistoryPage:
    """A page of the campaign's rolls, each marked visible or not for this caller; rolls made
    where the caller cannot read are left out (docs/secret-rolls.md, "Who sees a roll later")."""
    budgets.charge(caller, budgets.HISTORY_ROW * (query.limit + 1))
    checked: set[int] = set()
    unreadable: set[int] = set()
    async with transaction(db) as session:
        campaign = await get_campaign_in(session, query.campaign_id)
        rows = await _rows_in(session, query, before_id, unreadable)
    while True:
        # Only the channels this page meets are asked about (an old campaign has many archived
        # threads, and asking about one can cost a request to Discord, so never inside a
        # transaction). Each round leaves out the unreadable ones found so far and reads
        # again, so the page is full and ``older`` stays a correct cursor. It ends: every
        # repeat has found another unreadable channel.
        new = {row.channel_id for row in rows} - checked
        readable = await readable_channels(
            caller, (row for row in rows if row.channel_id in new), campaign
        )
        checked |= new
        if readable == new:
            break
        unreadable |= new - readable
        async with transaction(db) as session:
            rows = await _rows_in(session, query, before_id, unreadable)
    gm = viewer_is_gm(campaign, caller)
    shown = rows[: query.limit]
    older = shown[-1].id if len(rows) > query.limit else None
    entries = [Entry(row, can_see(row, caller.user_id, gm)) for row in shown]
    return HistoryPage(campaign, entries, older, gm)
