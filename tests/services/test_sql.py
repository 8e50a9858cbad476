"""The services' transactions: all or nothing, an INSERT that takes a conflict in either
dialect, and a database that is away told to the player as "nothing was recorded" (and to the
operator once), while a bug stays a bug.

Tests bot/services/kit/sql.py.
"""

from __future__ import annotations

import logging

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from bot.db.engine import Database
from bot.db.models import bot_state
from bot.db.types import utcnow
from bot.services.kit import sql
from bot.services.kit.errors import StorageUnavailable
from bot.services.kit.sql import dialect_name, insert_for, transaction


async def _values(db: Database) -> list[str]:
    async with db.engine.connect() as connection:
        return list((await connection.execute(select(bot_state.c.value))).scalars())


async def test_a_transaction_keeps_everything_or_nothing(db: Database) -> None:
    async with transaction(db) as session:
        assert dialect_name(session) == db.dialect
        await session.execute(
            insert_for(session, bot_state).values(key="a", value="1", updated_at=utcnow())
        )
    with pytest.raises(ValueError, match="halfway"):
        async with transaction(db) as session:
            await session.execute(
                insert_for(session, bot_state).values(key="b", value="2", updated_at=utcnow())
            )
            raise ValueError("halfway")
    assert await _values(db) == ["1"]


async def test_an_insert_that_meets_its_conflict_does_nothing_in_either_dialect(
    db: Database,
) -> None:
    for value in ("first", "second"):
        async with transaction(db) as session:
            await session.execute(
                insert_for(session, bot_state)
                .values(key="k", value=value, updated_at=utcnow())
                .on_conflict_do_nothing(index_elements=["key"])
            )
    assert await _values(db) == ["first"]


async def test_a_database_that_is_away_is_nothing_recorded_and_one_warning(
    db: Database, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sql, "_warned", {})  # no warning of an earlier test in this process
    with caplog.at_level(logging.WARNING):
        for _ in range(2):
            with pytest.raises(StorageUnavailable, match="nothing was recorded"):
                async with transaction(db):
                    raise ConnectionRefusedError(111, "refused")
    warned = [r.getMessage() for r in caplog.records if "refused a transaction" in r.getMessage()]
    assert warned == [
        "the database refused a transaction (ConnectionRefusedError): nothing was recorded"
    ]


async def test_a_bug_is_not_passed_off_as_the_database_being_away(db: Database) -> None:
    with pytest.raises(DBAPIError) as raised:
        async with transaction(db) as session:
            await session.execute(text("SELECT * FROM no_such_table"))
    assert not isinstance(raised.value, StorageUnavailable)
