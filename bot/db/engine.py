"""The one place that builds the engine and session factory from a database URL.

Nothing is created at import time: the bot calls :func:`create_database` at start-up and
:meth:`Database.dispose` at shutdown; tests build one per database.
"""

from __future__ import annotations

import collections
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite
from sqlalchemy import event
from sqlalchemy.connectors.asyncio import AsyncAdapt_dbapi_connection, AsyncIODBAPIConnection
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.engine import URL, Connection, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import ConnectionPoolEntry, QueuePool
from sqlalchemy.util.concurrency import await_

#: How long a SQLite connection waits for the write lock before giving up, in milliseconds.
SQLITE_BUSY_TIMEOUT_MS = 30_000
#: Write transactions between two WAL checkpoints (~3-5 pages each; SQLite's own default is to
#: checkpoint at 1000 pages).
CHECKPOINT_EVERY = 200


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


# --- SQLite: what cannot wait runs in place; what may wait goes to aiosqlite's thread ---------
#
# aiosqlite runs every call in its connection's worker thread and hands the result back to the
# event loop: two thread wake-ups per call, 50-100 us on an idle machine and whole scheduler
# slices on a loaded one. SQLAlchemy's adapter makes four such trips per SELECT (cursor(),
# execute(), fetchall(), close()) and three per write: ~25 per check transaction.
#
# The adapter below keeps aiosqlite's thread for what may wait: BEGIN IMMEDIATE while another
# connection holds the write lock (the busy timeout sleeps) and WAL checkpoints (fsync), which
# SQLite would run inside a COMMIT now and then and which this connection instead runs in the
# thread every CHECKPOINT_EVERY write transactions. Everything else of a transaction that holds
# the write lock runs on the event loop's thread, in place: in WAL mode (synchronous=NORMAL)
# its statements, COMMIT and ROLLBACK never wait for another connection nor for the disk, so
# they block the loop only for their own work (microseconds for the small reads and writes the
# services do; keep bulk scans out of transactions). BEGIN IMMEDIATE is tried in place without
# waiting and rides along with the first statement. Net: no trip at all for an uncontended
# transaction, instead of ~25. Same sqlite3 connection (check_same_thread=False; the adapter
# never uses it from both threads at once), same statements, same transactions.


#: Execution option of a connection that only reads (bot/services/kit/sql.py ``reading``): on
#: SQLite it opens no write transaction, so its statements run in aiosqlite's thread.
READ_ONLY = "pbp_read_only"


def _run_pragma(connection: sqlite3.Connection, pragma: str) -> None:
    """Run a PRAGMA and finish its statement (a pending one would block the next COMMIT)."""
    cursor = connection.execute(pragma)
    try:
        cursor.fetchall()
    finally:
        cursor.close()


def _patient() -> str:
    """The pragma giving a connection its busy timeout back (read when used: an operator's
    or a test's setting of :data:`SQLITE_BUSY_TIMEOUT_MS` counts)."""
    return f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}"


def _run_statement(
    connection: sqlite3.Connection,
    begin: bool,
    operation: str,
    parameters: Any,
    many: bool,
    patient: bool = False,
) -> tuple[Any, list[Any], int, int | None]:
    """In aiosqlite's thread: run one statement and collect everything a DBAPI cursor exposes.

    ``begin``: open the transaction first (``BEGIN IMMEDIATE``, deferred to this trip).
    ``patient``: first give the connection its busy timeout back (it may wait here).
    """
    if patient:
        _run_pragma(connection, _patient())
    if begin:
        connection.execute("BEGIN IMMEDIATE")
    cursor = connection.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        else:
            cursor.execute(operation, () if parameters is None else parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return description, rows, cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


async def _done() -> None:
    """An awaitable that completes at once (see :meth:`_OneTripConnection.run`)."""


class _OneTripCursor(AsyncAdapt_aiosqlite_cursor):
    """A buffered DBAPI cursor; :class:`_OneTripConnection` decides where statements run."""

    __slots__ = ("_arraysize", "_description", "_lastrowid", "_rowcount")

    def __init__(self, adapt_connection: AsyncAdapt_dbapi_connection) -> None:
        # No aiosqlite cursor: each execute opens and closes a sqlite3 cursor where it runs.
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._rows = collections.deque()
        self._description: Any = None
        self._rowcount = -1
        self._lastrowid: int | None = None
        self._arraysize = 1

    @property
    def description(self) -> Any:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> int:
        return self._lastrowid  # type: ignore[return-value]

    @property
    def arraysize(self) -> int:
        return self._arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._arraysize = value

    def _run(self, operation: Any, parameters: Any, many: bool) -> None:
        adapted = self._adapt_connection
        assert isinstance(adapted, _OneTripConnection)
        try:
            found = adapted.run(operation, parameters, many)
        except Exception as error:
            adapted._handle_exception(error)
        self._description, rows, self._rowcount, self._lastrowid = found
        self._rows = collections.deque(rows)

    def execute(self, operation: Any, parameters: Any = None) -> None:
        self._run(operation, parameters, many=False)

    def executemany(self, operation: Any, seq_of_parameters: Sequence[Any]) -> None:
        self._run(operation, seq_of_parameters, many=True)

    async def _async_soft_close(self) -> None:
        return None  # results are buffered and the sqlite3 cursor is already closed

    def close(self) -> None:
        self._rows.clear()

    def nextset(self) -> None:
        return None

    def setinputsizes(self, *inputsizes: Any) -> None:
        return None


def _is_busy(error: sqlite3.OperationalError) -> bool:
    return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_BUSY


class _OneTripConnection(AsyncAdapt_aiosqlite_connection):
    """aiosqlite's adapter with :class:`_OneTripCursor`: see the comment above."""

    __slots__ = ("_changes_seen", "_locked", "_patient", "_pending_begin", "_writes")
    _cursor_cls = _OneTripCursor

    def __init__(self, dbapi: Any, connection: AsyncIODBAPIConnection) -> None:
        super().__init__(dbapi, connection)
        self._pending_begin = False
        #: We opened the current transaction with BEGIN IMMEDIATE: it holds the write lock.
        self._locked = False
        self._changes_seen = 0
        #: Committed write transactions since the last checkpoint.
        self._writes = 0
        #: The connection's busy timeout is SQLITE_BUSY_TIMEOUT_MS (set at connect), not 0.
        #: In place it must not wait (0); in the thread it may. Switched only when the side
        #: changes, so a run of in-place transactions sets no pragma at all.
        self._patient = True

    def begin_immediate(self) -> None:
        """Open the transaction with ``BEGIN IMMEDIATE`` together with the next statement."""
        self._pending_begin = True

    def _in_thread(self, begin: bool, operation: Any, parameters: Any, many: bool) -> Any:
        raw = self._connection._conn
        patient, self._patient = not self._patient, True
        try:
            return await_(
                self._connection._execute(
                    _run_statement, raw, begin, operation, parameters, many, patient
                )
            )
        finally:
            self._locked = begin and raw.in_transaction

    def make_patient(self) -> None:
        """Mark the busy timeout as given back (a caller ran the pragma on the driver)."""
        self._patient = True

    def _begin_in_place(self, raw: sqlite3.Connection) -> bool:
        """BEGIN IMMEDIATE without waiting; False if another connection holds the lock."""
        if self._patient:
            _run_pragma(raw, "PRAGMA busy_timeout=0")
            self._patient = False
        try:
            raw.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if _is_busy(error):
                return False
            raise
        self._locked = True
        return True

    def run(self, operation: Any, parameters: Any, many: bool) -> Any:
        """One statement: (description, rows, rowcount, lastrowid)."""
        raw = self._connection._conn
        if self._pending_begin:
            self._pending_begin = False
            if not self._begin_in_place(raw):
                return self._in_thread(True, operation, parameters, many)  # waits its turn
        if self._locked and raw.in_transaction:
            found = _run_statement(raw, False, operation, parameters, many)
            # SQLAlchemy's async API wants each statement awaited; awaiting a finished
            # coroutine satisfies it without a trip round the event loop (one per statement
            # was a measurable share of a roll). The transaction holds the write lock and
            # the one pooled connection, so nothing else could use the database meanwhile.
            await_(_done())
            return found
        return self._in_thread(False, operation, parameters, many)

    def commit(self) -> None:
        if self._pending_begin:
            self._pending_begin = False
            return  # a transaction without statements: nothing was opened
        raw = self._connection._conn
        if not (self._locked and raw.in_transaction):
            super().commit()
            return
        # In place: in WAL mode with synchronous=NORMAL a COMMIT appends to the WAL, no fsync,
        # no wait. The checkpoint (fsync) that SQLite would otherwise run inside some COMMIT is
        # turned off for this connection (see _on_connect) and run in the thread instead.
        self._locked = False
        raw.execute("COMMIT")
        if raw.total_changes != self._changes_seen:
            self._changes_seen = raw.total_changes
            self._writes += 1
            if self._writes >= CHECKPOINT_EVERY:
                self._writes = 0
                checkpoint = "PRAGMA wal_checkpoint(PASSIVE)"
                await_(self._connection._execute(_run_pragma, raw, checkpoint))

    def rollback(self) -> None:
        self._pending_begin = False
        raw = self._connection._connection
        # ``in_transaction`` only reads sqlite3_get_autocommit(); with the driver in autocommit
        # mode (isolation_level None) nothing else could have opened a transaction.
        if raw is not None and not raw.in_transaction:
            self._locked = False
            return
        if self._locked and raw is not None:
            self._locked = False
            raw.execute("ROLLBACK")  # in place: drops the transaction's pages, no I/O wait
            return
        super().rollback()


class _OneTripDbapi(AsyncAdapt_aiosqlite_dbapi):
    """The aiosqlite DBAPI shim that SQLAlchemy gets for SQLite (``module=``)."""

    def connect(self, *arg: Any, **kw: Any) -> _OneTripConnection:
        adapted = super().connect(*arg, **kw)
        return _OneTripConnection(self, adapted._connection)


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
            # What a DELETE or UPDATE frees is overwritten with zeros, so erased text is not
            # left readable in the file (docs/privacy.md), whatever the build's default.
            cursor.execute("PRAGMA secure_delete=ON")
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            if isinstance(dbapi_connection, _OneTripConnection):
                cursor.execute("PRAGMA wal_autocheckpoint=0")  # it checkpoints in the thread
        finally:
            cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        if connection.get_execution_options().get(READ_ONLY):
            # A walk's page: a deferred (read) transaction, one snapshot for the page without
            # the write lock (WAL readers block no writer); without the lock every statement
            # runs in aiosqlite's thread rather than on the event loop.
            connection.exec_driver_sql("BEGIN")
            return
        dbapi_connection = connection.connection.dbapi_connection
        if isinstance(dbapi_connection, _OneTripConnection):
            dbapi_connection.begin_immediate()
        else:
            connection.exec_driver_sql("BEGIN IMMEDIATE")


async def truncate_wal(database: Database) -> None:
    """SQLite: copy the write-ahead log into the file and truncate it, so older versions of
    pages (an erased row as it was) are not left in the log file (docs/privacy.md). Waits for
    readers like any checkpoint; a no-op elsewhere."""
    if database.dialect != "sqlite":
        return
    async with database.engine.connect() as connection:
        raw = await connection.get_raw_connection()
        driver: Any = raw.driver_connection
        async with driver.execute(_patient()) as cursor:  # the checkpoint waits for readers
            await cursor.fetchall()
        if isinstance(raw.dbapi_connection, _OneTripConnection):
            raw.dbapi_connection.make_patient()
        async with driver.execute("PRAGMA wal_checkpoint(TRUNCATE)") as cursor:
            await cursor.fetchall()


def _sqlite_pool_options(url: URL) -> dict[str, Any]:
    """One pooled connection for a SQLite file (nothing for ``:memory:``, which shares one).

    SQLite has a single writer and every transaction here takes the write lock at BEGIN, so a
    second connection could only wait inside SQLite's busy handler, which sleeps in steps of
    up to 100 ms. With one connection, waiting transactions queue in asyncio (first come,
    first served) and start the moment the previous one commits. The wait is bounded like the
    busy timeout; :func:`bot.services.kit.sql.transaction` reports it as storage unavailable.
    """
    dialect: Any = url.get_dialect()
    pool_class = dialect.get_pool_class(url)
    if not issubclass(pool_class, QueuePool):
        return {}
    return {"pool_size": 1, "max_overflow": 0, "pool_timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}


def create_database(url: str | URL, **engine_options: Any) -> Database:
    """Build the engine and session factory for ``url`` (``Settings.database_url``).

    ``engine_options`` go to :func:`~sqlalchemy.ext.asyncio.create_async_engine` and win over
    the defaults. SQLite gets the pragmas above, one pooled connection and the one-trip
    aiosqlite adapter; PostgreSQL uses asyncpg's prepared statement cache as it comes.
    """
    parsed = make_url(url)
    # hide_parameters: a database error's text never quotes the values it was given (a
    # hidden roll's dice, a sealed declaration's text) into a log line or an incident.
    options: dict[str, Any] = {"pool_pre_ping": False, "hide_parameters": True}
    if parsed.get_backend_name() == "sqlite":
        _ensure_sqlite_directory(parsed)
        options["connect_args"] = {
            "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000,
            "check_same_thread": False,  # see _OneTripConnection
        }
        if parsed.get_driver_name() == "aiosqlite":
            options["module"] = _OneTripDbapi(aiosqlite, sqlite3)
        options.update(_sqlite_pool_options(parsed))
    options.update(engine_options)
    engine = create_async_engine(parsed, **options)
    if engine.dialect.name == "sqlite":
        _install_sqlite_pragmas(engine)
    return Database(engine=engine, sessionmaker=async_sessionmaker(engine, expire_on_commit=False))
