"""Small key/value facts the bot keeps in the database, shared by every shard process."""

from __future__ import annotations

from sqlalchemy import select

from bot.db.engine import Database
from bot.db.models import bot_state
from bot.db.types import utcnow
from bot.services.kit.personal import PersonalData, declare
from bot.services.kit.sql import insert_for, transaction


async def get_value(db: Database, key: str) -> str | None:
    """The stored value of ``key``, or None."""
    async with transaction(db) as session:
        stmt = select(bot_state.c.value).where(bot_state.c.key == key)
        return (await session.execute(stmt)).scalar_one_or_none()


async def set_value(db: Database, key: str, value: str) -> None:
    """Store ``value`` under ``key`` (insert or replace)."""
    async with transaction(db) as session:
        now = utcnow()
        stmt = (
            insert_for(session, bot_state)
            .values(key=key, value=value, updated_at=now)
            .on_conflict_do_update(index_elements=["key"], set_={"value": value, "updated_at": now})
        )
        await session.execute(stmt)


PERSONAL_DATA = declare(
    PersonalData(
        "bot state",
        not_personal={"bot_state": "the bot's own facts (the digest of its synced commands)"},
    )
)
