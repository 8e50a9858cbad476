"""Apply Alembic migrations programmatically: the bot upgrades to head at start-up."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db.engine import create_database


def _migrations_dir() -> Path:
    """``migrations/`` at the root of the checkout.

    Beside the package when it runs from the checkout (editable install), else in the working
    directory (a regular install run from the checkout, as the deployment docs do).
    """
    beside = Path(__file__).resolve().parents[2] / "migrations"
    return beside if beside.is_dir() else Path.cwd() / "migrations"


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


async def _migrate(url_or_engine: str | AsyncEngine, revision: str, downgrade: bool) -> None:
    if isinstance(url_or_engine, AsyncEngine):
        async with url_or_engine.begin() as connection:
            await connection.run_sync(_run, revision, downgrade)
        return
    database = create_database(url_or_engine)
    try:
        async with database.engine.begin() as connection:
            await connection.run_sync(_run, revision, downgrade)
    finally:
        await database.dispose()


async def upgrade_to_head(url_or_engine: str | AsyncEngine) -> None:
    """Apply every pending migration, in one transaction, inside the running event loop."""
    await _migrate(url_or_engine, "head", downgrade=False)


async def downgrade_to(url_or_engine: str | AsyncEngine, revision: str = "base") -> None:
    """Revert migrations down to ``revision`` (tests and operators only)."""
    await _migrate(url_or_engine, revision, downgrade=True)
