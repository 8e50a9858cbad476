"""The one place that builds the engine and session factory from a database URL.

Nothing is created at import time: the bot calls :func:`create_database` at start-up and
:meth:`Database.dispose` at shutdown; tests build one per database.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import ConnectionPoolEntry

#: How long a SQLite connection waits for the write lock before giving up, in milliseconds.
SQLITE_BUSY_TIMEOUT_MS = 30_000


@dataclass(frozen=True, slots=True)
class Database:
    """An engine and its session factory; the services take this as their first argument."""

    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self.engine.dialect.name

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()


def _ensure_sqlite_directory(url: URL) -> None:
    """Create the directory of a file-backed SQLite database (e.g. ``./data/``)."""
    database = url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return
    Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)


def _install_sqlite_pragmas(engine: AsyncEngine) -> None:
    """WAL, ``synchronous=NORMAL``, foreign keys, a busy timeout, and ``BEGIN IMMEDIATE``.

    Every transaction takes the write lock at BEGIN: a deferred transaction that reads and then
    writes fails at once with SQLITE_BUSY when another writer committed in between (the busy
    timeout cannot help there), while an immediate one simply waits its turn.
    """

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        # Let SQLAlchemy's "begin" event below emit BEGIN instead of the driver.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        finally:
            cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def create_database(url: str | URL, **engine_options: Any) -> Database:
    """Build the engine and session factory for ``url`` (``Settings.database_url``).

    ``engine_options`` go to :func:`~sqlalchemy.ext.asyncio.create_async_engine` (e.g.
    ``pool_size``). SQLite gets the pragmas above; PostgreSQL uses asyncpg's prepared
    statement cache as it comes.
    """
    parsed = make_url(url)
    options: dict[str, Any] = {"pool_pre_ping": False}
    if parsed.get_backend_name() == "sqlite":
        _ensure_sqlite_directory(parsed)
        options["connect_args"] = {"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}
    options.update(engine_options)
    engine = create_async_engine(parsed, **options)
    if engine.dialect.name == "sqlite":
        _install_sqlite_pragmas(engine)
    return Database(engine=engine, sessionmaker=async_sessionmaker(engine, expire_on_commit=False))
