"""Alembic environment: async engine, batch mode on SQLite, the models' naming convention.

The database URL comes from, in order: a connection handed over by :mod:`bot.db.migrate`
(``config.attributes["connection"]``), ``-x url=...`` on the command line, the
``sqlalchemy.url`` attribute or option set programmatically, and finally the bot's settings
(``DATABASE_URL``).

On PostgreSQL the migrations run under an advisory lock held to the end of their transaction:
shards or replicas started together on one database take turns, and the later ones find the
schema already at head instead of racing to create the same tables. (SQLite needs nothing: its
write lock, taken by ``BEGIN IMMEDIATE``, already serialises them.) Run from the ``alembic``
command, it logs each step as ``pbp-dice migrate`` does.
"""

from __future__ import annotations

import asyncio
import logging

from alembic import context
from sqlalchemy import Connection, text

from bot.db.engine import create_database
from bot.db.migrate import run_in_one_transaction
from bot.db.schema import metadata

config = context.config
target_metadata = metadata
log = logging.getLogger("alembic.env")

#: The advisory lock every pbp-dice process takes around its migrations ("pbp-dice" in ASCII).
MIGRATION_LOCK = 0x7062702D64696365


def _url() -> str:
    url = context.get_x_argument(as_dictionary=True).get("url")
    url = url or config.attributes.get("sqlalchemy.url") or config.get_main_option("sqlalchemy.url")
    if url:
        return str(url)
    from bot.config import load_settings

    return load_settings().database_url


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        compare_server_default=False,
    )


def _take_turn(connection: Connection) -> None:
    """Wait for any other process's migrations on this PostgreSQL database to commit."""
    if connection.dialect.name != "postgresql":
        return
    lock = {"key": MIGRATION_LOCK}
    if not connection.execute(text("SELECT pg_try_advisory_xact_lock(:key)"), lock).scalar():
        log.info("another process is migrating this database; waiting for it to finish")
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), lock)


def _run_on(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        _take_turn(connection)  # before Alembic reads the version: then it sees the winner's
        context.run_migrations()


async def _run_async(url: str) -> None:
    database = create_database(url)
    try:
        async with database.engine.connect() as connection:
            await run_in_one_transaction(connection, _run_on)
    finally:
        await database.dispose()


def run_migrations_offline() -> None:
    """Emit SQL to stdout (``alembic upgrade head --sql``)."""
    url = _url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run against a live database: a handed-over connection, or a fresh async engine."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _run_on(connection)
    else:
        _log_when_run_alone()
        asyncio.run(_run_async(_url()))


def _log_when_run_alone() -> None:
    """The ``alembic`` command has no logging set up: log as the bot does, step by step."""
    if not logging.getLogger().handlers:
        from bot.logs import setup_logging

        setup_logging("INFO")


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
