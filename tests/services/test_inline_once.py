"""The context menu rolls a message's dice once, even when two clicks race."""

from __future__ import annotations

import asyncio
import random

from bot.db.engine import Database
from bot.services.kit.context import Caller
from bot.services.rolling import inline
from bot.services.rolling.inline import InlineRollError
from bot.services.store.characters import CharacterView
from tests.services.helpers import ALICE, CHANNEL, GUILD

BOUND = "message https://discord.com/channels/1/2/3"


async def test_two_racing_context_menu_rolls_record_the_dice_once(
    db: Database, hero: CharacterView
) -> None:
    async def click(interaction_id: int) -> bool:
        caller = Caller(
            user_id=ALICE, channel_id=CHANNEL, guild_id=GUILD, interaction_id=interaction_id
        )
        await asyncio.sleep(0)
        try:
            await inline.roll_text(
                db,
                caller,
                "I swing [[1d20]]",
                random.Random(interaction_id),
                bound_to=BOUND,
                message_id=3,
            )
        except InlineRollError:
            return False
        return True

    done = await asyncio.gather(*(click(9_100_000_000_000_000 + i) for i in range(4)))
    assert sum(done) == 1
