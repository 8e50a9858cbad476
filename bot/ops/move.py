"""`pbp-dice move --to URL`: the whole database copied into another, empty one, ids and all.

For an operator leaving SQLite for PostgreSQL (or going back). Unlike ``export``/``import``,
which remap ids to fit a campaign into a database already in use, a move keeps every id: roll
numbers on old messages, buttons (``pbp:req:12``), ``/verify roll:42`` and the hash chains all
go on working against the new database. So the target must be empty: the target is migrated to
this version's schema first, then refused if any table holds a row. The copy is one transaction
on the target (all or nothing), read from one transaction on the source (a consistent
snapshot), a batch at a time; each id counter of the target then starts where the source's
stood, so an id used and deleted before the move is never handed out again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Integer, Table, func, insert, select, text, tuple_
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.db.engine import Database, create_database
from bot.db.migrate import alembic_config, upgrade_to_head
from bot.db.schema import metadata
from bot.errors import UserError

#: Rows read and written per statement: bounded memory whatever the ledger's size.
BATCH = 1000


@dataclass
class Moved:
    """What a move copied: rows per table, in the order they were written."""

    rows: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def shown(url: str) -> str:
    """A database URL as it may be printed: never its password."""
    return make_url(url).render_as_string(hide_password=True)


def _same_database(a: str, b: str) -> bool:
    ua, ub = make_url(a), make_url(b)
    if ua.get_backend_name() != ub.get_backend_name():
        return False
    if ua.get_backend_name() == "sqlite":
        return Path(ua.database or "").resolve() == Path(ub.database or "").resolve()
    return (ua.host or "localhost", ua.port or 5432, ua.database) == (
        ub.host or "localhost",
        ub.port or 5432,
        ub.database,
    )


def _revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def _head() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def _id_column(table: Table) -> str | None:
    """The table's own integer id, if a counter hands it out (AUTOINCREMENT, a sequence)."""
    columns = list(table.primary_key.columns)
    if len(columns) != 1:
        return None
    column = columns[0]
    if column.autoincrement is False or not isinstance(column.type, Integer):
        return None
    return column.name


async def _high_water(connection: AsyncConnection, table: Table, column: str) -> int:
    """The largest id the source's counter has handed out (deleted rows included)."""
    largest = (await connection.execute(select(func.max(table.c[column])))).scalar() or 0
    if connection.dialect.name == "sqlite":
        found = await connection.execute(
            text("SELECT seq FROM sqlite_sequence WHERE name = :name"), {"name": table.name}
        )
        counter = found.scalar()
    else:
        sequence = (
            await connection.execute(
                text("SELECT pg_get_serial_sequence(:table, :column)"),
                {"table": table.name, "column": column},
            )
        ).scalar()
        counter = None
        if sequence:
            row = (
                await connection.execute(text(f"SELECT last_value, is_called FROM {sequence}"))
            ).one()
            counter = row.last_value if row.is_called else None
    return max(int(largest), int(counter or 0))


async def _set_counter(connection: AsyncConnection, table: Table, column: str, value: int) -> None:
    """Start the target's id counter after ``value``."""
    if value <= 0:
        return
    if connection.dialect.name == "sqlite":
        # sqlite_sequence only has rows for AUTOINCREMENT tables that were written to.
        params = {"name": table.name, "seq": value}
        updated = await connection.execute(
            text("UPDATE sqlite_sequence SET seq = :seq WHERE name = :name"), params
        )
        if updated.rowcount == 0:
            exists = await connection.execute(
                text(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name "
                    "AND sql LIKE '%AUTOINCREMENT%'"
                ),
                {"name": table.name},
            )
            if exists.first() is not None:
                await connection.execute(
                    text("INSERT INTO sqlite_sequence (name, seq) VALUES (:name, :seq)"), params
                )
        return
    sequence = (
        await connection.execute(
            text("SELECT pg_get_serial_sequence(:table, :column)"),
            {"table": table.name, "column": column},
        )
    ).scalar()
    if sequence:
        await connection.execute(
            text("SELECT setval(:seq, :value, true)"), {"seq": sequence, "value": value}
        )


async def _nonempty(connection: AsyncConnection) -> dict[str, int]:
    found = {}
    for table in metadata.sorted_tables:
        count = (await connection.execute(select(func.count()).select_from(table))).scalar()
        if count:
            found[table.name] = int(count)
    return found


async def _copy_table(source: AsyncConnection, target: AsyncConnection, table: Table) -> int:
    """Every row of ``table``, in primary-key order, a batch at a time (keyset paging)."""
    key = list(table.primary_key.columns)
    copied = 0
    last: tuple[Any, ...] | None = None
    while True:
        query = select(table).order_by(*key).limit(BATCH)
        if last is not None:
            query = (
                query.where(tuple_(*key) > tuple_(*last))
                if len(key) > 1
                else query.where(key[0] > last[0])
            )
        rows = (await source.execute(query)).mappings().all()
        if not rows:
            return copied
        await target.execute(insert(table), [dict(row) for row in rows])
        copied += len(rows)
        last = tuple(rows[-1][column.name] for column in key)


async def move(
    source_url: str, target_url: str, report: Callable[[str], None] = lambda _line: None
) -> Moved:
    """Copy every row of ``source_url``'s database into ``target_url``'s (migrated first, and
    refused unless empty). Raises :class:`UserError` with what to do when it cannot."""
    if _same_database(source_url, target_url):
        raise UserError("The target is the database DATABASE_URL already names: give another.")
    source = create_database(source_url)
    target: Database | None = None
    try:
        async with source.engine.connect() as connection:
            at = await connection.run_sync(_revision)
        head = _head()
        if at is None:
            raise UserError(
                f"{shown(source_url)} holds no pbp-dice data (it was never migrated): check "
                "DATABASE_URL, the database to move from."
            )
        if at != head:
            raise UserError(
                f"{shown(source_url)} is at schema {at}, this pbp-dice at {head}: run "
                "`pbp-dice migrate` on it first (with the pbp-dice that will use the new one)."
            )
        report(f"migrating {shown(target_url)}")
        await upgrade_to_head(target_url)
        target = create_database(target_url)
        moved = Moved()
        async with source.engine.connect() as reading, target.engine.connect() as writing:
            if reading.dialect.name == "postgresql":
                reading = await reading.execution_options(isolation_level="REPEATABLE READ")
            async with reading.begin(), writing.begin():
                held = await _nonempty(writing)
                if held:
                    listed = ", ".join(f"{name} ({n})" for name, n in held.items())
                    raise UserError(
                        f"{shown(target_url)} already holds data: {listed}. A move only goes "
                        "into an empty database; nothing was written."
                    )
                for table in metadata.sorted_tables:
                    moved.rows[table.name] = await _copy_table(reading, writing, table)
                    if moved.rows[table.name]:
                        report(f"copied {table.name}: {moved.rows[table.name]} rows")
                    column = _id_column(table)
                    if column is not None:
                        mark = await _high_water(reading, table, column)
                        await _set_counter(writing, table, column, mark)
        return moved
    finally:
        await source.dispose()
        if target is not None:
            await target.dispose()
