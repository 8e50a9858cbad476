"""A choice stored as one row per key, stamped when it changed: a player's own (``/me dice``,
``/me notify``, a fair-dice seed; keyed by ``user_id``) or a campaign's (its dice dialect).

A player's choice is the same in every server, so what it keeps about a person is declared
alike everywhere (bot/services/kit/personal.py): shown among their settings, deleted by an
erasure everywhere only.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Column, Table, delete, select

from bot.services.kit.personal import (
    DELETED,
    Holding,
    Person,
    PersonalData,
    Shown,
    changed,
    each_in_its_transaction,
)
from bot.services.kit.sql import Executor, insert_for


async def store_in(
    session: Executor,
    table: Table,
    key: Mapping[str, Any],
    values: Mapping[str, Any],
    now: datetime,
) -> None:
    """In the caller's transaction: the row of ``key`` (its columns, the table's unique key)
    holds ``values`` from ``now`` on, made if there is none."""
    await session.execute(
        insert_for(session, table)
        .values(**key, **values, updated_at=now)
        .on_conflict_do_update(index_elements=list(key), set_={**values, "updated_at": now})
    )


async def player_value_in(session: Executor, column: Column[Any], user_id: int) -> Any:
    """In the caller's transaction: the player's choice in ``column`` (None: they made none)."""
    return await session.scalar(select(column).where(column.table.c.user_id == user_id))


def player_holding(table: Table) -> Holding:
    """A table of players' choices as personal data: a player's row, deleted by an erasure
    everywhere."""
    return Holding(table.name, "user_id (an erasure everywhere)", DELETED)


async def erase_player_in(session: Executor, person: Person, *tables: Table) -> int:
    """The person's rows of ``tables``, deleted by an erasure everywhere (a choice is the same
    in every server: one server's erasure leaves it); the rows deleted."""
    if person.guild_id is not None:
        return 0
    count = 0
    for table in tables:
        mine = table.c.user_id == person.user_id
        count += changed(await session.execute(delete(table).where(mine)))
    return count


def player_choice(
    feature: str,
    column: Column[Any],
    setting: str,
    *,
    exported: str,
    not_personal: Mapping[str, str] | None = None,
) -> PersonalData:
    """The declaration of a feature that keeps one choice per player, ``column`` of its one
    table: shown as the setting ``setting``, deleted by an erasure everywhere."""
    table = column.table
    assert isinstance(table, Table)

    async def show_in(session: Executor, shown: Shown) -> None:
        shown.settings[setting] = await player_value_in(session, column, shown.user_id)

    async def erase_in(session: Executor, person: Person) -> int:
        return await erase_player_in(session, person, table)

    return PersonalData(
        feature,
        holdings=(player_holding(table),),
        not_personal=not_personal or {},
        show_in=show_in,
        erase=each_in_its_transaction(erase_in),
        exported=exported,
    )
