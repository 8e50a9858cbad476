"""The engine factory: SQLite pragmas, the data directory, timestamps and CHECK constraints."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, insert, select, text, update
from sqlalchemy.exc import IntegrityError, StatementError
from sqlalchemy.exc import TimeoutError as PoolTimeout

import bot.db.engine as engine_module
from bot.db.engine import READ_ONLY, Database, create_database
from bot.db.models import campaigns, characters, ledger
from bot.services.kit.errors import StorageUnavailable
from bot.services.kit.sql import core_transaction, transaction

_CAMPAIGN = {
    "guild_id": 1,
    "channel_id": 2,
    "system": "pen-and-dagger",
    "gm_role_ids": [],
    "gm_user_ids": [],
    "ability_names": ["STR"],
}


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
            # In place (holding the write lock) nothing may wait: no busy timeout there...
            assert (await conn.exec_driver_sql("PRAGMA busy_timeout")).scalar() == 0
            # Checkpoints run in aiosqlite's thread, not inside a COMMIT (see the next tests).
            assert (await conn.exec_driver_sql("PRAGMA wal_autocheckpoint")).scalar() == 0
        # ...while what runs in aiosqlite's thread (a read, a contended BEGIN) waits its turn.
        async with db.engine.connect() as conn:
            reader = await conn.execution_options(**{READ_ONLY: True})
            assert (await reader.exec_driver_sql("PRAGMA busy_timeout")).scalar() == 30_000
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


# --- SQLite: one pooled connection, transactions that queue, the one-trip adapter ----------


def _sqlite_path(url: str) -> str:
    return url.removeprefix("sqlite+aiosqlite:///")


async def test_sqlite_file_gets_one_pooled_connection(database_url: str) -> None:
    # The default the bot runs with (bench/db.py measures the same): a second checkout waits.
    db = create_database(database_url, pool_timeout=0.2)
    try:
        async with db.engine.connect():
            with pytest.raises(PoolTimeout):
                async with db.engine.connect():
                    pass
    finally:
        await db.dispose()


async def test_engine_options_override_the_sqlite_pool_default(database_url: str) -> None:
    db = create_database(database_url, pool_size=2, pool_timeout=0.2)
    try:
        async with db.engine.connect(), db.engine.connect() as second:  # two checked out
            assert (await second.execute(text("SELECT 2"))).scalar() == 2
    finally:
        await db.dispose()


async def test_concurrent_sqlite_transactions_take_turns(database_url: str) -> None:
    db = create_database(database_url)
    character_id = await _campaign_and_character(db)
    order: list[str] = []

    async def bump(name: str) -> None:
        async with db.engine.begin() as conn:
            order.append(f"{name} in")
            level = (
                await conn.execute(
                    select(characters.c.level).where(characters.c.id == character_id)
                )
            ).scalar_one()
            await asyncio.sleep(0.01)  # let the other task try to get in
            await conn.execute(
                update(characters).where(characters.c.id == character_id).values(level=level + 1)
            )
            order.append(f"{name} out")

    try:
        await asyncio.gather(*(bump(str(i)) for i in range(5)))
        async with db.engine.connect() as conn:
            level = (await conn.execute(select(characters.c.level))).scalar_one()
    finally:
        await db.dispose()
    assert level == 6  # no lost update: each read-modify-write saw the previous commit
    assert all(order[i].endswith("in") and order[i + 1].endswith("out") for i in range(0, 10, 2))


@pytest.mark.parametrize("begin", [transaction, core_transaction])
async def test_a_transaction_waiting_too_long_is_storage_unavailable(
    database_url: str, begin: Callable[[Database], AbstractAsyncContextManager[Any]]
) -> None:
    # E.g. a use case that opened a second transaction inside its own: a clear error, no hang.
    db = create_database(database_url, pool_timeout=0.2)
    try:
        async with begin(db) as outer:
            await outer.execute(text("SELECT 1"))  # holds the one connection
            with pytest.raises(StorageUnavailable):
                async with begin(db) as inner:
                    await inner.execute(text("SELECT 2"))
    finally:
        await db.dispose()


async def test_core_transaction_commits_or_rolls_back_as_a_whole(db: Database) -> None:
    with pytest.raises(RuntimeError):
        async with core_transaction(db) as conn:
            await conn.execute(insert(campaigns).values(**_CAMPAIGN))
            raise RuntimeError("the use case fails after its first write")
    async with core_transaction(db) as conn:
        await conn.execute(insert(campaigns).values(**{**_CAMPAIGN, "channel_id": 3}))
    async with core_transaction(db) as conn:
        channels = (await conn.execute(select(campaigns.c.channel_id))).scalars().all()
    assert channels == [3]


async def test_first_statement_takes_the_sqlite_write_lock(database_url: str) -> None:
    # BEGIN IMMEDIATE rides along with the first statement, even a read: a writer elsewhere
    # must wait (here it gives up at once), so read-then-write never fails half-way.
    db = create_database(database_url)
    other = sqlite3.connect(_sqlite_path(database_url), timeout=0.05, isolation_level=None)
    try:
        async with db.engine.begin() as conn:
            await conn.execute(select(campaigns.c.id))
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        other.execute("BEGIN IMMEDIATE")  # free again after COMMIT
        other.execute("ROLLBACK")
    finally:
        other.close()
        await db.dispose()


async def test_empty_transaction_then_rollback_discards_writes(db: Database) -> None:
    async with db.engine.begin():
        pass  # nothing executed: nothing opened, nothing to commit
    async with db.engine.connect() as conn:
        await conn.execute(insert(campaigns).values(**_CAMPAIGN))
        await conn.rollback()
    async with db.engine.connect() as conn:
        assert (await conn.execute(select(func.count()).select_from(campaigns))).scalar() == 0


async def test_failed_statement_rolls_back_the_whole_transaction(db: Database) -> None:
    with pytest.raises(IntegrityError):
        async with db.engine.begin() as conn:
            await conn.execute(insert(campaigns).values(**_CAMPAIGN))
            await conn.execute(insert(campaigns).values(**_CAMPAIGN))  # same channel: refused
    async with db.engine.connect() as conn:
        assert (await conn.execute(select(func.count()).select_from(campaigns))).scalar() == 0


async def test_rowcount_executemany_and_streaming(db: Database) -> None:
    rows = [{**_CAMPAIGN, "channel_id": channel} for channel in range(10, 15)]
    async with db.engine.begin() as conn:
        await conn.execute(insert(campaigns), rows)
        changed = await conn.execute(
            update(campaigns).where(campaigns.c.channel_id >= 12).values(crit_rules=True)
        )
        assert changed.rowcount == 3
    async with db.engine.connect() as conn:
        streamed = [row.channel_id async for row in await conn.stream(select(campaigns))]
    assert sorted(streamed) == [10, 11, 12, 13, 14]


async def test_a_transaction_waits_for_another_processs_write_lock(database_url: str) -> None:
    # Another process holds the write lock: the transaction waits its turn (in aiosqlite's
    # thread, with the busy timeout) instead of failing, while the event loop keeps running --
    # here it is the loop that releases the lock.
    db = create_database(database_url)
    other = sqlite3.connect(_sqlite_path(database_url), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    loop = asyncio.get_running_loop()
    loop.call_later(0.3, other.execute, "COMMIT")
    try:
        async with db.engine.begin() as conn:
            await conn.execute(insert(campaigns).values(**_CAMPAIGN))
        async with db.engine.connect() as conn:
            assert (await conn.execute(select(func.count()).select_from(campaigns))).scalar() == 1
    finally:
        other.close()
        await db.dispose()


async def test_sqlite_checkpoints_the_wal_after_enough_write_transactions(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite's automatic checkpoint is off for the bot's connection (it would fsync inside a
    # COMMIT); the bot checkpoints every CHECKPOINT_EVERY writes instead, and the commits go on.
    monkeypatch.setattr(engine_module, "CHECKPOINT_EVERY", 3)
    db = create_database(database_url)
    path = _sqlite_path(database_url)

    def in_database_file() -> int:
        # immutable=1 reads the database file alone, ignoring the WAL.
        probe = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
        try:
            return int(probe.execute("SELECT count(*) FROM campaigns").fetchone()[0])
        finally:
            probe.close()

    try:
        for channel in range(1, 8):
            async with db.engine.begin() as conn:
                await conn.execute(insert(campaigns).values(**{**_CAMPAIGN, "channel_id": channel}))
            if channel in (2, 3):
                # Only in the WAL until the 3rd write transaction, then checkpointed.
                assert in_database_file() == (0 if channel == 2 else 3)
        async with db.engine.connect() as conn:
            assert (await conn.execute(select(func.count()).select_from(campaigns))).scalar() == 7
    finally:
        await db.dispose()


@pytest.mark.parametrize("released", ["while it waits", "after its wait gives up"])
async def test_cancelled_while_waiting_for_the_lock_leaves_no_transaction_open(
    database_url: str, monkeypatch: pytest.MonkeyPatch, released: str
) -> None:
    # A /check whose task is cancelled while its BEGIN waits for another process's lock: the
    # waiting BEGIN still runs in aiosqlite's thread, and the task ends only when it does.
    # Either it gets the lock (the other process finished meanwhile) and must be rolled back,
    # not left holding the write lock on the pooled connection, or it gives up at the busy
    # timeout (shortened here from the bot's 30 s) and must leave nothing open either.
    monkeypatch.setattr(engine_module, "SQLITE_BUSY_TIMEOUT_MS", 500)
    db = create_database(database_url)
    other = sqlite3.connect(_sqlite_path(database_url), isolation_level=None, timeout=5)
    other.execute("BEGIN IMMEDIATE")

    async def write(channel: int) -> None:
        async with db.engine.begin() as conn:
            await conn.execute(insert(campaigns).values(**{**_CAMPAIGN, "channel_id": channel}))

    try:
        waiting = asyncio.create_task(write(1))
        await asyncio.sleep(0.2)  # its BEGIN is now waiting in the thread
        waiting.cancel()
        if released == "while it waits":
            asyncio.get_running_loop().call_later(0.1, other.execute, "COMMIT")
        with pytest.raises(asyncio.CancelledError):
            await waiting
        if released == "after its wait gives up":
            other.execute("COMMIT")
        await write(2)
        other.execute("BEGIN IMMEDIATE")  # nobody holds the lock any more
        other.execute("ROLLBACK")
        async with db.engine.connect() as conn:
            channels = (await conn.execute(select(campaigns.c.channel_id))).scalars().all()
        assert channels == [2]
    finally:
        other.close()
        await db.dispose()
