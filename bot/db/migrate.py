"""Apply Alembic migrations programmatically: the bot upgrades to head at start-up."""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.db.engine import create_database


def _migrations_dir() -> Path:
    """Alembic's script directory: the package ``bot.migrations``.

    In the checkout that is the top-level ``migrations/`` (setup.py maps it into the package,
    also for an editable install); in an installed wheel it is inside the package, so
    ``pbp-dice migrate`` works from any directory.
    """
    found = resources.files("bot.migrations")
    if not isinstance(found, Path):  # a zipped install: Alembic needs real files
        raise RuntimeError(f"pbp-dice's migrations are not on the file system ({found})")
    return found


MIGRATIONS_DIR = _migrations_dir()


def alembic_config(url: str | None = None) -> Config:
    """An Alembic config pointing at ``migrations/``, for ``url`` if given."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url is not None:
        config.attributes["sqlalchemy.url"] = url
    return config


def _run(connection: Connection, revision: str, downgrade: bool) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    if downgrade:
        command.downgrade(config, revision)
    else:
        command.upgrade(config, revision)


def _set_sqlite_foreign_keys(connection: Connection, on: bool) -> None:
    """``PRAGMA foreign_keys`` straight on the driver: it only takes effect between
    transactions, and SQLAlchemy's execute would open one first."""
    driver = connection.connection.dbapi_connection
    if driver is None:  # a connection that was closed under us: nothing to set
        raise RuntimeError("the migration's database connection is closed")
    cursor = driver.cursor()
    try:
        cursor.execute(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")
    finally:
        cursor.close()


def _check_sqlite_foreign_keys(connection: Connection) -> None:
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
    if broken:
        raise RuntimeError(f"the migration left rows whose foreign keys point nowhere: {broken}")


async def run_in_one_transaction(
    connection: AsyncConnection, fn: Callable[..., None], *args: Any
) -> None:
    """Run ``fn(sync_connection, *args)`` (migrations) in one transaction on ``connection``.

    SQLite: with foreign keys off, checked before the commit. A batch-mode rebuild drops the
    old table, and with foreign keys on that first deletes its rows, firing every ON DELETE
    CASCADE / SET NULL that refers to it (rebuilding ``campaigns`` would delete every
    character); SQLite and Alembic's batch docs say to turn them off around such changes.
    """
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        await connection.run_sync(_set_sqlite_foreign_keys, False)
    try:
        async with connection.begin():
            await connection.run_sync(fn, *args)
            if sqlite:
                await connection.run_sync(_check_sqlite_foreign_keys)
    finally:
        if sqlite:
            await connection.run_sync(_set_sqlite_foreign_keys, True)


async def _migrate(url_or_engine: str | AsyncEngine, revision: str, downgrade: bool) -> None:
    if isinstance(url_or_engine, AsyncEngine):
        async with url_or_engine.connect() as connection:
            await run_in_one_transaction(connection, _run, revision, downgrade)
        return
    database = create_database(url_or_engine)
    try:
        async with database.engine.connect() as connection:
            await run_in_one_transaction(connection, _run, revision, downgrade)
    finally:
        await database.dispose()


async def upgrade_to(url_or_engine: str | AsyncEngine, revision: str) -> None:
    """Apply migrations up to ``revision`` (tests and operators only)."""
    await _migrate(url_or_engine, revision, downgrade=False)


async def upgrade_to_head(url_or_engine: str | AsyncEngine) -> None:
    """Apply every pending migration, in one transaction, inside the running event loop."""
    await _migrate(url_or_engine, "head", downgrade=False)


async def downgrade_to(url_or_engine: str | AsyncEngine, revision: str = "base") -> None:
    """Revert migrations down to ``revision`` (tests and operators only)."""
    await _migrate(url_or_engine, revision, downgrade=True)
