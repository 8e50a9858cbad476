"""Configurations that show hidden results to non-GMs, checked as the bot starts.

``/campaign setup`` and ``/campaign set gm-channel`` already warn or refuse when they are used;
this catches what changed afterwards, in Discord, where the bot hears nothing of it (a GM
channel opened to @everyone, a campaign imported from elsewhere). The cog side gathers plain
facts about each server (which channels every member can read, which roles every member
holds); this module says which campaigns those facts expose.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import campaigns
from bot.services.kit.sql import transaction

_CHUNK = 500


@dataclass(frozen=True, slots=True)
class GmSetup:
    """Who sees a campaign's hidden results: its GM roles and its GM channel."""

    campaign_id: int
    guild_id: int
    channel_id: int
    gm_role_ids: tuple[int, ...]
    gm_channel_id: int | None


@dataclass(frozen=True, slots=True)
class Finding:
    """One exposure: what it is (``kind``: "gm-channel" or "gm-role") and what to do."""

    campaign_id: int
    guild_id: int
    kind: str
    text: str


async def gm_setups(db: Database, guild_ids: Iterable[int]) -> list[GmSetup]:
    """The GM set-up of every campaign in these servers."""
    ids = sorted(set(guild_ids))
    found: list[GmSetup] = []
    c = campaigns.c
    async with transaction(db) as session:
        for start in range(0, len(ids), _CHUNK):
            stmt = (
                select(c.id, c.guild_id, c.channel_id, c.gm_role_ids, c.gm_channel_id)
                .where(c.guild_id.in_(ids[start : start + _CHUNK]))
                .order_by(c.id)
            )
            for row in await session.execute(stmt):
                found.append(
                    GmSetup(
                        row.id,
                        row.guild_id,
                        row.channel_id,
                        tuple(row.gm_role_ids or ()),
                        row.gm_channel_id,
                    )
                )
    return found


def findings(
    setup: GmSetup, *, open_channels: frozenset[int], roles_all_hold: frozenset[int]
) -> list[Finding]:
    """What of ``setup`` shows hidden results to every member: a GM channel in
    ``open_channels`` (every member can read it), a GM role in ``roles_all_hold``."""
    found: list[Finding] = []
    where = f"campaign {setup.campaign_id} (server {setup.guild_id}, channel {setup.channel_id})"
    if setup.gm_channel_id is not None and setup.gm_channel_id in open_channels:
        found.append(
            Finding(
                setup.campaign_id,
                setup.guild_id,
                "gm-channel",
                f"{where}: every member can read its GM channel {setup.gm_channel_id}, where "
                "hidden rolls are posted in full. Deny View Channel to @everyone there and "
                "allow it to the GM role and the bot.",
            )
        )
    held = sorted(set(setup.gm_role_ids) & roles_all_hold)
    if held:
        found.append(
            Finding(
                setup.campaign_id,
                setup.guild_id,
                "gm-role",
                f"{where}: every member holds its GM role {held[0]}, so everyone is a GM and "
                "sees hidden results. Remove it with /campaign set gm-role remove:True.",
            )
        )
    return found
