"""Migrations build the schema from empty, agree with the models, and go down and up again."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, inspect

from bot.db.engine import create_database
from bot.db.migrate import downgrade_to, upgrade_to_head
from bot.db.schema import metadata

ROOT = Path(__file__).resolve().parents[2]
TABLES = {table.name for table in metadata.sorted_tables}


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database URL; on PostgreSQL the shared test database, at head afterwards."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    url = str(request.getfixturevalue("pg_migrated"))
    asyncio.run(downgrade_to(url, "base"))
    yield url
    asyncio.run(upgrade_to_head(url))


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, metadata))


def _tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


async def test_models_and_migrations_agree(empty_url: str) -> None:
    await upgrade_to_head(empty_url)
    database = create_database(empty_url)
    try:
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_diff) == []
    finally:
        await database.dispose()


async def test_upgrade_downgrade_upgrade(empty_url: str) -> None:
    database = create_database(empty_url)
    try:
        await upgrade_to_head(database.engine)
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_tables) >= TABLES
        await downgrade_to(database.engine, "base")
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_tables) <= {"alembic_version"}
        await upgrade_to_head(database.engine)
        await upgrade_to_head(database.engine)  # nothing pending: a no-op
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_tables) >= TABLES
    finally:
        await database.dispose()


def test_alembic_command_line_upgrades_from_the_repo_root(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cli.sqlite3'}"
    alembic = Path(sys.executable).with_name("alembic")
    for args in (["upgrade", "head"], ["check"]):
        done = subprocess.run(
            [str(alembic), "-x", f"url={url}", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
