"""Alembic environment: async engine, batch mode on SQLite, the models' naming convention.

The database URL comes from, in order: a connection handed over by :mod:`bot.db.migrate`
(``config.attributes["connection"]``), ``-x url=...`` on the command line, the
``sqlalchemy.url`` attribute or option set programmatically, and finally the bot's settings
(``DATABASE_URL``).
"""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import Connection

from bot.db.engine import create_database
from bot.db.migrate import run_in_one_transaction
from bot.db.schema import metadata

config = context.config
target_metadata = metadata


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


def _run_on(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
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
        asyncio.run(_run_async(_url()))


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
