"""The engine factory: SQLite pragmas, the data directory, timestamps and CHECK constraints."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import insert, select, text, update
from sqlalchemy.exc import IntegrityError, StatementError

from bot.db.engine import Database, create_database
from bot.db.models import campaigns, characters, ledger


async def _campaign_and_character(db: Database) -> int:
    async with db.engine.begin() as conn:
        campaign_id = (
            await conn.execute(
                insert(campaigns)
                .values(
                    guild_id=1,
                    channel_id=2,
                    system="pen-and-dagger",
                    gm_role_ids=[],
                    gm_user_ids=[],
                    ability_names=["STR"],
                )
                .returning(campaigns.c.id)
            )
        ).scalar_one()
        return (
            await conn.execute(
                insert(characters)
                .values(campaign_id=campaign_id, user_id=3, name="A", name_key="a")
                .returning(characters.c.id)
            )
        ).scalar_one()


async def test_sqlite_pragmas(database_url: str) -> None:
    db = create_database(database_url)
    try:
        async with db.engine.connect() as conn:
            assert (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar() == "wal"
            assert (await conn.exec_driver_sql("PRAGMA synchronous")).scalar() == 1  # NORMAL
            assert (await conn.exec_driver_sql("PRAGMA foreign_keys")).scalar() == 1
            assert (await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar() == 30_000
    finally:
        await db.dispose()


async def test_default_sqlite_directory_is_created(tmp_path: Path) -> None:
    path = tmp_path / "data" / "nested" / "bot.sqlite3"
    db = create_database(f"sqlite+aiosqlite:///{path}")
    try:
        async with db.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
        assert path.exists()
    finally:
        await db.dispose()


async def test_no_engine_at_import() -> None:
    import bot.db.engine as engine_module

    assert not any(
        type(value).__name__ in {"AsyncEngine", "Engine"} for value in vars(engine_module).values()
    )


async def test_timestamps_are_utc_aware(db: Database) -> None:
    character_id = await _campaign_and_character(db)
    plus_two = timezone(timedelta(hours=2))
    async with db.engine.begin() as conn:
        await conn.execute(
            update(characters)
            .where(characters.c.id == character_id)
            .values(created_at=datetime(2030, 1, 1, 14, 0, tzinfo=plus_two))
        )
        stored = (await conn.execute(select(characters.c.created_at))).scalar_one()
    assert stored == datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
    assert stored.tzinfo is UTC


async def test_naive_datetime_refused(db: Database) -> None:
    character_id = await _campaign_and_character(db)
    with pytest.raises(StatementError, match="naive datetime refused"):
        async with db.engine.begin() as conn:
            await conn.execute(
                update(characters)
                .where(characters.c.id == character_id)
                .values(created_at=datetime(2030, 1, 1))
            )


@pytest.mark.parametrize(
    "values",
    [
        {"fortune": -1},
        {"fortune": 3},  # above 2 without the boon
        {"double_fortune": True, "fortune": 5},
        {"level": 0},
        {"level": 21},
    ],
)
async def test_check_constraints_refuse_out_of_range_updates(
    db: Database, values: dict[str, object]
) -> None:
    character_id = await _campaign_and_character(db)
    with pytest.raises(IntegrityError):
        async with db.engine.begin() as conn:
            await conn.execute(
                update(characters).where(characters.c.id == character_id).values(**values)
            )


async def test_check_allows_four_with_the_boon(db: Database) -> None:
    character_id = await _campaign_and_character(db)
    async with db.engine.begin() as conn:
        await conn.execute(
            update(characters)
            .where(characters.c.id == character_id)
            .values(double_fortune=True, fortune=4)
        )


async def test_stored_settings_are_validated(db: Database) -> None:
    with pytest.raises(StatementError):
        async with db.engine.begin() as conn:
            await conn.execute(
                insert(campaigns).values(
                    guild_id=1,
                    channel_id=2,
                    system="pen-and-dagger",
                    gm_role_ids=[-5],
                    gm_user_ids=[],
                    ability_names=["STR"],
                )
            )


async def test_ledger_visibility_and_commitment_checked(db: Database) -> None:
    row = {
        "channel_id": 1,
        "user_id": 2,
        "kind": "roll",
        "request": "1d20",
        "dice": [1],
        "outcome": {},
        "visibility": "public",
    }
    for bad in ({"visibility": "everyone"}, {"commitment": "abc"}):
        with pytest.raises(IntegrityError):
            async with db.engine.begin() as conn:
                await conn.execute(insert(ledger).values(**{**row, **bad}))
