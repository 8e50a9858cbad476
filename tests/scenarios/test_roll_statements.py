"""How much SQLite is asked for one ``/roll`` through the real bot: the durable roll is one
numbered, hash-chained row (docs/performance.md), so it may cost at most five statements as
SQLite sees them, BEGIN and COMMIT included, with production's provably fair dice."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import pytest

from bot.db.engine import Database
from tests.fixtures.table import Table, start_campaign
from tests.scenarios.test_secrecy import _latest

#: Production's dice: their draw is part of the roll's statements.
pytestmark = pytest.mark.fair_dice


@asynccontextmanager
async def seen_by_sqlite(db: Database) -> Any:
    """The statements SQLite runs on the bot's one pooled connection while inside (its trace
    callback: every statement stepped, pragmas, BEGIN and COMMIT included). SQLite calls it
    again, with the same statement's text, as each trigger program of that statement starts:
    those repeats are one statement, so a repeat of the last text is not counted."""
    seen: list[str] = []

    def note(statement: str) -> None:
        if not seen or seen[-1] != statement:
            seen.append(statement)

    async with db.engine.connect() as connection:
        raw = await connection.get_raw_connection()
        sqlite = raw.driver_connection._conn  # type: ignore[union-attr]
    sqlite.set_trace_callback(note)
    try:
        yield seen
    finally:
        sqlite.set_trace_callback(None)


@contextmanager
def _sqlite_only(table: Table) -> Iterator[Database]:
    db = table.bot.db
    if db.dialect != "sqlite":
        pytest.skip("counts what SQLite sees")
    yield db


@pytest.mark.parametrize("where", ["campaign", "no campaign"])
async def test_a_roll_is_at_most_five_statements(table: Table, where: str) -> None:
    if where == "campaign":
        await start_campaign(table, "d20-check")
    with _sqlite_only(table) as db:
        await table.alice.slash(table.table, "roll", dice="1d20+5")  # the seed exists now
        async with seen_by_sqlite(db) as seen:
            rolled = await table.alice.slash(table.table, "roll", dice="1d20+5")
        assert rolled.response is not None and rolled.response.embeds
        assert len(seen) <= 5, "\n".join(s[:160] for s in seen)
        row = await _latest(table) if where == "campaign" else None
        if row is not None:
            assert row.number == 2 and "fair" in row.outcome
