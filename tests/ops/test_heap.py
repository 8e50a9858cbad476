"""The start-up heap frozen for the garbage collector, by the served bot only.

Tests bot/ops/heap.py.
"""

from __future__ import annotations

import gc
import random

from simcord import Env

from bot.app import create_bot
from bot.config import Settings
from tests.fixtures.table import SEED


async def test_a_bot_with_freeze_heap_freezes_its_start_up_heap_and_tests_do_not(
    settings: Settings,
) -> None:
    """Once set up, full collections skip the start-up objects; the tests' own bots never
    freeze (they would leak)."""
    assert gc.get_freeze_count() == 0
    bot = create_bot(settings, rng=random.Random(SEED), freeze_heap=True)
    env = Env(bot)
    try:
        await env.start()
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # modules, the tree, the cogs
        guild = env.create_guild("Table")
        alice = guild.add_member(env.create_user("alice"))
        result = await alice.slash(guild.create_text_channel("t"), "roll", dice="1d20")
        assert result.response is not None and not result.ephemeral
        assert gc.get_freeze_count() <= frozen  # once, at start-up, not again per command
    finally:
        gc.unfreeze()
        await env.shutdown()
        await bot.close_database()  # SimCord detaches the bot without closing it
