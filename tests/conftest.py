"""Shared fixtures: real, migrated databases, clean for every test.

- ``db``: a migrated, empty :class:`~bot.db.engine.Database`, parametrized: ``sqlite`` (a
  fresh temp file per test, copied from a template migrated once per session) and
  ``postgresql`` (``TEST_DATABASE_URL``, migrated once per session, every table truncated
  before each test; skipped with a reason when the variable is unset).
- ``db_url``: the same, as a URL (for tests that build their own engine).
- ``database_url``: a migrated, empty SQLite file URL per test, for building the bot.
- ``pg_url``: ``TEST_DATABASE_URL`` itself (a database of its own per xdist worker), or skip.
"""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
from simcord.env import Env
from sqlalchemy import text
from sqlalchemy.engine import make_url

from bot.db.engine import Database, create_database
from bot.db.migrate import upgrade_to_head
from bot.db.schema import metadata
from tests.ledger_triggers import drop_statements, trigger_statements

PG_SKIP = "PostgreSQL half: set TEST_DATABASE_URL=postgresql+asyncpg://... to run it"

# SimCord (3.2) looks again at a settling bot every `idle` seconds, 50 ms by default. When all
# that is left is the done-callbacks of a task that just finished, while other tasks wait
# parked (the game clock's loop, a view's expiry), it sits out the whole interval: a few
# thousand times a run, a third of the time of a test that plays hundreds of commands. Looking
# every 2 ms keeps every rule of settling and its deadline, and costs no measurable CPU.
Env._settle_internal.__kwdefaults__["idle"] = 0.002


def sqlite_url(path: Path) -> str:
    """The async SQLite URL of a file."""
    return f"sqlite+aiosqlite:///{path}"


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated to head once per session; tests get copies."""
    path = tmp_path_factory.mktemp("template") / "template.sqlite3"
    asyncio.run(upgrade_to_head(sqlite_url(path)))
    return path


@pytest.fixture
def database_url(sqlite_template: Path, tmp_path: Path) -> str:
    """A migrated, empty SQLite database of this test, as a URL."""
    path = tmp_path / "pbp-dice.sqlite3"
    shutil.copyfile(sqlite_template, path)
    return sqlite_url(path)


async def _create_database_if_missing(url: str) -> None:
    """Create the database ``url`` names, from the server's ``postgres`` maintenance database."""
    target = make_url(url)
    admin = target.set(drivername="postgresql", database="postgres")
    conn = await asyncpg.connect(admin.render_as_string(hide_password=False))
    try:
        found = await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", target.database)
        if not found:
            await conn.execute(f'CREATE DATABASE "{target.database}"')
    finally:
        await conn.close()


@pytest.fixture(scope="session")
def pg_url() -> str:
    """``TEST_DATABASE_URL``, or skip the test.

    Under pytest-xdist (``make test`` runs one worker per core) each worker gets a database of its
    own, named after the one given plus the worker (``test_gw0``, ``test_gw1``), created on
    the same server when missing: the tests empty their database's tables, so workers cannot
    share one.
    """
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        pytest.skip(PG_SKIP)
    worker_id = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker_id:
        return url
    parsed = make_url(url)
    url = parsed.set(database=f"{parsed.database}_{worker_id}").render_as_string(False)
    asyncio.run(_create_database_if_missing(url))
    return url


async def reset_schema(url: str) -> None:
    """Drop everything in the throwaway database's public schema, Alembic's version included.

    The test database outlives a run (CI reuses the machine's server), and may hold tables of
    another branch's migrations that this checkout cannot downgrade; starting from an empty
    schema makes every run independent of the last.
    """
    database = create_database(url)
    try:
        async with database.engine.begin() as connection:
            await connection.execute(text("DROP SCHEMA public CASCADE"))
            await connection.execute(text("CREATE SCHEMA public"))
    finally:
        await database.dispose()


@pytest.fixture(scope="session")
def pg_migrated(pg_url: str) -> str:
    """``TEST_DATABASE_URL`` emptied, then migrated to head, once per session."""
    asyncio.run(reset_schema(pg_url))
    asyncio.run(upgrade_to_head(pg_url))
    return pg_url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest) -> str:
    """A migrated database URL on each dialect (PostgreSQL is cleaned by ``db``)."""
    if request.param == "sqlite":
        return str(request.getfixturevalue("database_url"))
    return str(request.getfixturevalue("pg_migrated"))


async def _emptied(url: str) -> None:
    """:func:`truncate_all` on a plain connection: the bot builds its own engine anyway."""
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute(_reset_script())
    finally:
        await connection.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def clean_db_url(request: pytest.FixtureRequest) -> str:
    """A migrated, empty database URL on each dialect: for building the whole bot on both."""
    if request.param == "sqlite":
        return str(request.getfixturevalue("database_url"))
    url = str(request.getfixturevalue("pg_migrated"))
    asyncio.run(_emptied(url))
    return url


#: Sequences a test advanced, set back to their start (what ``RESTART IDENTITY`` did).
_RESTART_SEQUENCES = (
    "SELECT setval(format('%I.%I', schemaname, sequencename), start_value, false) "
    "FROM pg_sequences WHERE schemaname = current_schema() AND last_value IS NOT NULL"
)


async def truncate_all(database: Database) -> None:
    """Empty every table of the models and restart their identities (PostgreSQL).

    Also puts back the ledger's append-only triggers, which a test may have dropped to play
    an operator with database access (tests/ledger_triggers.py).

    DELETE, children first, not TRUNCATE: a test leaves a few rows in a few tables, and
    TRUNCATE replaces every table's and index's files whether empty or not (0.7-1 s a test on
    the shared two-core machine, against a few hundredths of a second for this). The
    append-only trigger is dropped first so the ledger can be emptied, then created again;
    nothing here needs to survive a crash, so the commit does not wait for the disk. All of it
    is one script, sent at once: a round trip per statement cost more than the statements.
    """
    async with database.engine.connect() as connection:
        raw = await connection.get_raw_connection()
        await raw.driver_connection.execute(_reset_script())  # type: ignore[union-attr]


@functools.cache
def _reset_script() -> str:
    """:func:`truncate_all`'s statements, in one transaction."""
    statements = [
        "SET LOCAL synchronous_commit = off",
        *drop_statements("postgresql"),
        *(f'DELETE FROM "{table.name}"' for table in reversed(metadata.sorted_tables)),
        _RESTART_SEQUENCES,
        *trigger_statements("postgresql"),
    ]
    return "BEGIN;\n" + ";\n".join(statements) + ";\nCOMMIT;"


@pytest.fixture
async def db(db_url: str) -> AsyncIterator[Database]:
    """A migrated, empty database on SQLite, then on PostgreSQL."""
    database = create_database(db_url)
    if database.dialect == "postgresql":
        await truncate_all(database)
    try:
        yield database
    finally:
        await database.dispose()
