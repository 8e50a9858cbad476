"""Small helpers shared by the services: dialect-specific INSERT and error translation."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.orm import Session

from bot.db.engine import READ_ONLY, Database
from bot.services.kit.errors import StorageUnavailable

log = logging.getLogger(__name__)

#: What the ``_in`` building blocks run on: an ORM session, or a Core connection (faster).
Executor = AsyncSession | AsyncConnection


def dialect_name(executor: Executor) -> str:
    """``"sqlite"`` or ``"postgresql"``."""
    if isinstance(executor, AsyncConnection):
        return executor.dialect.name
    return executor.get_bind().dialect.name


def insert_for(session: Executor, table: Table) -> Any:
    """An INSERT with ``on_conflict_do_nothing`` / ``on_conflict_do_update`` for this dialect."""
    if dialect_name(session) == "postgresql":
        return postgresql.insert(table)
    return sqlite.insert(table)


#: A statement's driver form per (statement, dialect, columns): its SQL string, and for each
#: positional parameter its name and bind processor (JSON, timestamps).
_Form = tuple[str, tuple[str, ...], tuple[Callable[[Any], Any] | None, ...], dict[str, Any]]
_FORMS: dict[tuple[int, str, tuple[str, ...] | None], tuple[Any, _Form]] = {}


def _driver_form(stmt: Any, dialect: Dialect, columns: tuple[str, ...] | None) -> _Form:
    key = (id(stmt), dialect.name, columns)
    held = _FORMS.get(key)
    if held is not None and held[0] is stmt:
        return held[1]
    compiled = stmt.compile(dialect=dialect, column_keys=list(columns or ()))
    names = tuple(compiled.positiontup or ())
    if columns is not None and not set(names) <= set(columns):
        raise ValueError(f"a column of {stmt} would take a default: name it")
    # Each value's conversion for the driver (JSON, timestamps), from its bind's type as a
    # compiled statement would apply it (public API: the type's dialect implementation).
    binds = compiled.binds
    processors = tuple(
        binds[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names
    )
    # A value the statement carries itself (a LIMIT, a CASE's result): sent as it is bound.
    fixed = {
        name: binds[name].value
        for name in names
        if not binds[name].required and binds[name].value is not None
    }
    form = (str(compiled), names, processors, fixed)
    _FORMS[key] = (stmt, form)
    return form


async def run_hot(
    executor: Executor,
    stmt: Any,
    params: Mapping[str, Any],
    *,
    columns: Sequence[str] | None = None,
) -> Any:
    """Run a hot path's statement (a module constant) with ``params``: on a SQLite Core
    connection as its compiled string with positional values (``exec_driver_sql``), which skips
    SQLAlchemy's per-call compile-cache lookup and parameter building (a roll runs three such
    statements); otherwise as ``execute``. ``columns``: an INSERT's columns, all given."""
    if isinstance(executor, AsyncConnection) and executor.dialect.name == "sqlite":
        return await executor.exec_driver_sql(
            *_driver_args(executor.dialect, stmt, params, columns)
        )
    return await executor.execute(stmt, dict(params))


def run_hot_sync(
    executor: Connection | Session,
    stmt: Any,
    params: Mapping[str, Any],
    *,
    columns: Sequence[str] | None = None,
) -> Any:
    """:func:`run_hot` for code running in ``run_sync`` (a sync Connection or Session)."""
    if isinstance(executor, Connection) and executor.dialect.name == "sqlite":
        return executor.exec_driver_sql(*_driver_args(executor.dialect, stmt, params, columns))
    return executor.execute(stmt, dict(params))


def _driver_args(
    dialect: Dialect, stmt: Any, params: Mapping[str, Any], columns: Sequence[str] | None
) -> tuple[str, tuple[Any, ...]]:
    sql, names, processors, fixed = _driver_form(
        stmt, dialect, None if columns is None else tuple(columns)
    )
    if fixed:
        params = {**fixed, **params}
    values = tuple(
        params[name] if process is None else process(params[name])
        for name, process in zip(names, processors, strict=True)
    )
    return sql, values


def runs_hot(executor: Executor) -> bool:
    """Whether :func:`run_hot` sends its statement as the driver's SQL here (a SQLite Core
    connection): a SELECT's rows then come as the driver gives them, no column type applied
    (a timestamp as text, a flag as 0 or 1); the caller converts what it reads."""
    return isinstance(executor, AsyncConnection) and executor.dialect.name == "sqlite"


def result_processors(columns: Sequence[Any], dialect: Dialect) -> tuple[tuple[int, Any], ...]:
    """For rows read through :func:`run_hot` on SQLite: the position and conversion of each of
    ``columns`` whose type converts what the driver gives (as SQLAlchemy's result would)."""
    found = []
    for position, column in enumerate(columns):
        process = column.type.dialect_impl(dialect).result_processor(dialect, None)
        if process is not None:
            found.append((position, process))
    return tuple(found)


_UNAVAILABLE_HINTS = (
    "locked",
    "busy",
    "unable to open",
    "disk i/o",
    "connect",
    "timeout",
    "closed",
)


#: PostgreSQL SQLSTATE classes that mean "the server is not there for us right now":
#: 08 connection exceptions, 53 insufficient resources (too many connections), 57P operator
#: intervention (shutdown, "cannot connect now"); and two codes that mean "this transaction
#: lost a race, nothing of it was kept, the same command again will do": 40001 serialization
#: failure, 40P01 deadlock detected (the server rolled the transaction back).
#: https://www.postgresql.org/docs/current/errcodes-appendix.html
_UNAVAILABLE_SQLSTATES = ("08", "53", "57P", "40001", "40P01")


#: SQLite primary result codes that mean "the storage refuses us right now", not a bug:
#: PERM, BUSY, LOCKED, READONLY (a read-only file or file system), IOERR, FULL (disk full),
#: CANTOPEN, PROTOCOL. https://www.sqlite.org/rescode.html
_UNAVAILABLE_SQLITE_CODES = frozenset({3, 5, 6, 8, 10, 13, 14, 15})


def _unavailable(exc: DBAPIError) -> bool:
    """A lock timeout, a lost connection or a disk that refuses writes, not a bug such as a
    missing table."""
    if exc.connection_invalidated:
        return True
    sqlite_code = getattr(exc.orig, "sqlite_errorcode", None)
    if isinstance(sqlite_code, int) and sqlite_code & 0xFF in _UNAVAILABLE_SQLITE_CODES:
        return True  # extended codes carry the primary one in their low byte
    text = str(exc.orig).lower()
    sqlstate = str(getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", "") or "")
    if sqlstate.startswith(_UNAVAILABLE_SQLSTATES):
        return True
    # 55000 is broad (object not in prerequisite state); only its "not accepting connections"
    # form (ALLOW_CONNECTIONS false, a database being dropped) means the server is away.
    if sqlstate == "55000" and "accepting connections" in text:
        return True
    return isinstance(exc, OperationalError) and any(hint in text for hint in _UNAVAILABLE_HINTS)


#: At most one operator warning per database and cause in this many seconds.
WARN_EVERY_S = 60.0
_warned: dict[tuple[int, str], float] = {}


def _cause(exc: BaseException) -> str:
    """A short, safe name for why the database refused: the driver's error name or SQLSTATE,
    never the message (it can quote a statement's parameters, a hidden roll among them)."""
    orig = getattr(exc, "orig", None) or exc
    name = getattr(orig, "sqlite_errorname", None)
    if name:
        return str(name)
    sqlstate = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    return f"SQLSTATE {sqlstate}" if sqlstate else type(orig).__name__


def _tell_operator(db: Database, exc: BaseException) -> None:
    """Players are told "nothing was recorded" (a UserError, not logged); the operator must
    learn that the disk is full or read-only, or the server gone, without a log line per
    command."""
    cause = _cause(exc)
    key = (id(db.engine), cause)
    now = time.monotonic()
    if now - _warned.get(key, -WARN_EVERY_S) >= WARN_EVERY_S:
        _warned[key] = now
        log.warning("the database refused a transaction (%s): nothing was recorded", cause)


@asynccontextmanager
async def _translated(db: Database) -> AsyncIterator[None]:
    """An unreachable, locked or saturated database becomes :class:`StorageUnavailable`."""
    try:
        yield
    except DBAPIError as exc:
        if _unavailable(exc):
            _tell_operator(db, exc)
            raise StorageUnavailable() from exc
        raise
    except OSError as exc:  # connection refused before the driver wrapped it
        _tell_operator(db, exc)
        raise StorageUnavailable() from exc
    except PoolTimeout as exc:  # every pooled connection stayed busy (SQLite: the one writer)
        _tell_operator(db, exc)
        raise StorageUnavailable() from exc


@asynccontextmanager
async def transaction(db: Database) -> AsyncIterator[AsyncSession]:
    """One transaction; an unreachable or locked database becomes :class:`StorageUnavailable`."""
    async with _translated(db), db.sessionmaker.begin() as session:
        yield session


@asynccontextmanager
async def core_transaction(db: Database) -> AsyncIterator[AsyncConnection]:
    """:func:`transaction` on a Core connection: no ORM session to set up and tear down.

    For hot paths whose building blocks take an :data:`Executor` (a check: bench/db.py).
    """
    async with _translated(db), db.engine.begin() as connection:
        yield connection


@asynccontextmanager
async def reading(db: Database) -> AsyncIterator[AsyncConnection]:
    """A page of a long walk's reads, off the event loop: on SQLite a read transaction (BEGIN
    DEFERRED: one snapshot, no write lock; a WAL reader blocks no writer) whose statements run
    in aiosqlite's thread, where the in-place path would run a slow statement on the loop; on
    PostgreSQL a transaction like any other. Only reads may run on it."""
    async with _translated(db), db.engine.connect() as connection:
        connection = await connection.execution_options(**{READ_ONLY: True})
        async with connection.begin():
            yield connection


@asynccontextmanager
async def one_statement(db: Database) -> AsyncIterator[AsyncConnection]:
    """For ONE statement, atomic by itself: on PostgreSQL without BEGIN and COMMIT (autocommit:
    one round trip instead of three); on SQLite a :func:`core_transaction` (its in-place path
    needs one). Run exactly one statement on it."""
    if db.dialect != "postgresql":
        async with core_transaction(db) as connection:
            yield connection
        return
    async with _translated(db), db.engine.connect() as connection:
        await connection.execution_options(isolation_level="AUTOCOMMIT")
        yield connection
