"""The bot's own small facts, kept in the database so every shard process reads the same: none
until stored, then the last value stored.

Tests bot/services/store/bot_state.py.
"""

from __future__ import annotations

from bot.db.engine import Database
from bot.services.store.bot_state import get_value, set_value


async def test_a_value_is_none_until_stored_then_the_last_one_stored(db: Database) -> None:
    assert await get_value(db, "commands_digest") is None
    await set_value(db, "commands_digest", "abc")
    await set_value(db, "commands_digest", "def")
    await set_value(db, "other", "x")
    assert await get_value(db, "commands_digest") == "def"
    assert await get_value(db, "other") == "x"
