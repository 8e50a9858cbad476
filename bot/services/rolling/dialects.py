"""Which dice dialect reads a player's rolls (docs/dice.md, "Dialects"): their own ``/me dice``
choice, else the campaign's default set by its GM, else ``pbp``.

The same dialect reads ``/roll``, the ``[[…]]`` inline rolls of a post and the rolls saved in
macros, so a player's habits hold everywhere they type dice.
"""

from __future__ import annotations

import contextlib

from sqlalchemy import delete, select

from bot.db.dialect_models import campaign_dice_dialects, dice_dialects
from bot.db.engine import Database
from bot.db.types import utcnow
from bot.dice.dialects import DEFAULT_DIALECT, DIALECTS
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NoCampaign
from bot.services.kit.personal import declare
from bot.services.kit.sql import Executor, transaction
from bot.services.store import choices
from bot.services.store.campaigns import campaign_for_channel_in
from bot.services.trust.access import require_gm

#: ``/me dice dialect:campaign`` forgets the player's own choice.
CAMPAIGN = "campaign"


def _checked(dialect: str) -> str:
    if dialect not in DIALECTS:
        raise InvalidValue(f"Choose a dialect: {', '.join(DIALECTS)}.")
    return dialect


async def set_player(db: Database, caller: Caller, dialect: str) -> str | None:
    """Store the caller's dialect (``campaign``: none of their own); returns it or None."""
    async with transaction(db) as session:
        if dialect == CAMPAIGN:
            await session.execute(
                delete(dice_dialects).where(dice_dialects.c.user_id == caller.user_id)
            )
            return None
        mine = {"user_id": caller.user_id}
        await choices.store_in(
            session, dice_dialects, mine, {"dialect": _checked(dialect)}, utcnow()
        )
    return dialect


async def set_campaign(db: Database, caller: Caller, dialect: str) -> str:
    """GM only: the default dialect of the campaign of the caller's channel."""
    _checked(dialect)
    if caller.guild_id is None:
        raise NoCampaign()
    async with transaction(db) as session:
        campaign = await campaign_for_channel_in(
            session, caller.guild_id, caller.channel_id, caller.parent_channel_id
        )
        require_gm(campaign, caller, "choose the campaign's dice dialect")
        theirs = {"campaign_id": campaign.id}
        await choices.store_in(
            session, campaign_dice_dialects, theirs, {"dialect": dialect}, utcnow()
        )
    return dialect


async def resolve_in(session: Executor, caller: Caller) -> str:
    """In a caller's transaction: the dialect the caller's dice are read in here."""
    own = (
        await session.execute(
            select(dice_dialects.c.dialect).where(dice_dialects.c.user_id == caller.user_id)
        )
    ).scalar()
    if own is not None:
        return str(own)
    if caller.guild_id is None:
        return DEFAULT_DIALECT
    with contextlib.suppress(NoCampaign):
        campaign = await campaign_for_channel_in(
            session, caller.guild_id, caller.channel_id, caller.parent_channel_id
        )
        chosen = (
            await session.execute(
                select(campaign_dice_dialects.c.dialect).where(
                    campaign_dice_dialects.c.campaign_id == campaign.id
                )
            )
        ).scalar()
        if chosen is not None:
            return str(chosen)
    return DEFAULT_DIALECT


async def resolve(db: Database, caller: Caller) -> str:
    """:func:`resolve_in` in a transaction of its own."""
    async with transaction(db) as session:
        return await resolve_in(session, caller)


# --- what /me dice keeps about a person (bot/services/kit/personal.py) --------------------------


#: The dialect is the same in every server: it goes with an erasure everywhere only.
PERSONAL_DATA = declare(
    choices.player_choice(
        "dice dialects",
        dice_dialects.c.dialect,
        "dialect",
        not_personal={"campaign_dice_dialects": "a campaign's dice dialect, set by its GM"},
        exported="a campaign's dialect only; a player's is not a campaign's",
    )
)
