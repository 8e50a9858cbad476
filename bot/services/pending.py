"""Pending carry-over modifiers (threshold ruling 4): stored, shown, used once, GM-clearable.

Consuming is one ``DELETE ... RETURNING``, so two concurrent tests can never both use it.
"""

from __future__ import annotations

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import pending_modifiers
from bot.db.types import utcnow
from bot.services._sql import insert_for, transaction
from bot.services.errors import InvalidValue

_P = pending_modifiers

#: Threshold ruling 4: +2 after a critical success, -2 after a critical failure.
CRIT_SUCCESS_BONUS = 2
CRIT_FAILURE_PENALTY = -2


async def set_pending_in(
    session: AsyncSession,
    character_id: int,
    ability: str,
    value: int,
    source_roll_id: int | None = None,
) -> None:
    """In a caller's transaction: set (replace) the pending modifier for ``ability``.

    ``ability`` must already be the campaign's spelling (``CampaignView.ability``).
    """
    if value == 0 or not -20 <= value <= 20:
        raise InvalidValue("A pending modifier is a non-zero number between -20 and 20.")
    stmt = (
        insert_for(session, _P)
        .values(
            character_id=character_id,
            ability=ability,
            value=value,
            source_roll_id=source_roll_id,
            created_at=utcnow(),
        )
        .on_conflict_do_update(
            index_elements=["character_id", "ability"],
            set_={"value": value, "source_roll_id": source_roll_id, "created_at": utcnow()},
        )
    )
    await session.execute(stmt)


async def consume_pending_in(session: AsyncSession, character_id: int, ability: str) -> int:
    """In a caller's transaction: take the pending modifier (0 when there is none), once."""
    stmt = (
        delete(_P)
        .where(_P.c.character_id == character_id, _P.c.ability == ability)
        .returning(_P.c.value)
    )
    value = (await session.execute(stmt)).scalar_one_or_none()
    return 0 if value is None else int(value)


async def set_pending(
    db: Database,
    character_id: int,
    ability: str,
    value: int,
    source_roll_id: int | None = None,
) -> None:
    """Set the pending modifier for ``ability`` in its own transaction."""
    async with transaction(db) as session:
        await set_pending_in(session, character_id, ability, value, source_roll_id)


async def consume_pending(db: Database, character_id: int, ability: str) -> int:
    """Take the pending modifier for ``ability`` in its own transaction (0 if none)."""
    async with transaction(db) as session:
        return await consume_pending_in(session, character_id, ability)


async def clear_pending(db: Database, character_id: int, ability: str | None = None) -> int:
    """The GM clears one pending modifier, or all of the character's; returns how many."""
    async with transaction(db) as session:
        stmt = delete(_P).where(_P.c.character_id == character_id)
        if ability is not None:
            stmt = stmt.where(_P.c.ability == ability)
        result = await session.execute(stmt.returning(_P.c.ability))
        return len(result.all())
