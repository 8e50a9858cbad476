"""A roll remembers the campaign of its place between commands, and still sees at once what
another process changed: settings, the campaign moved away, the campaign ended."""

from __future__ import annotations

import random

from sqlalchemy import text

from bot.db.engine import Database, create_database
from bot.services.kit.context import Caller
from bot.services.rolling.rolls import roll_dice
from bot.services.store.campaigns import CampaignView
from bot.words import Visibility
from tests.services.helpers import ALICE, CHANNEL, GUILD

ALICE_HERE = Caller(user_id=ALICE, channel_id=CHANNEL, guild_id=GUILD)


async def _in_another_process(db: Database, sql: str, **params: object) -> None:
    """A change made through another engine, as another shard's process would."""
    other = create_database(db.engine.url)
    try:
        async with other.engine.begin() as connection:
            await connection.execute(text(sql), params)
    finally:
        await other.dispose()


async def test_a_remembered_campaign_follows_changes_made_elsewhere(
    db: Database, pd_campaign: CampaignView
) -> None:
    first = await roll_dice(db, random.Random(1), ALICE_HERE, "1d6", request="1d6")
    assert first.campaign is not None and first.visibility is Visibility.PUBLIC
    await _in_another_process(
        db,
        "UPDATE campaigns SET secrecy_defaults = :defaults WHERE id = :id",
        defaults='{"roll": "gm"}',
        id=pd_campaign.id,
    )
    hidden = await roll_dice(
        db, random.Random(1), ALICE_HERE, "1d6", request="1d6", visibility=None
    )
    assert hidden.campaign is not None and hidden.visibility is Visibility.GM
    await _in_another_process(
        db,
        "UPDATE campaigns SET channel_id = :away WHERE id = :id",
        away=CHANNEL + 99,
        id=pd_campaign.id,
    )
    moved = await roll_dice(db, random.Random(1), ALICE_HERE, "1d6", request="1d6")
    assert moved.campaign is None
    there = Caller(user_id=ALICE, channel_id=CHANNEL + 99, guild_id=GUILD)
    followed = await roll_dice(db, random.Random(1), there, "1d6", request="1d6")
    assert followed.campaign is not None and followed.campaign.id == pd_campaign.id
    await _in_another_process(db, "DELETE FROM campaigns WHERE id = :id", id=pd_campaign.id)
    ended = await roll_dice(db, random.Random(1), there, "1d6", request="1d6")
    assert ended.campaign is None
