"""Drop the ledger's append-only triggers for a test, as an operator with database access can,
and put them back for the next one (the PostgreSQL test schema is shared by the session)."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from types import ModuleType

from sqlalchemy import delete, text
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db.engine import Database
from bot.db.models import ledger

_MIGRATION = (
    Path(__file__).resolve().parents[1] / "migrations" / "versions" / "0008_ledger_salts.py"
)


@functools.cache
def _migration() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ledger_chain_migration", _MIGRATION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def drop_statements(dialect: str) -> list[str]:
    """Drop the append-only triggers, if there."""
    return list(_migration().drop_statements(dialect))


def trigger_statements(dialect: str) -> list[str]:
    """Create the append-only triggers."""
    return list(_migration().trigger_statements(dialect))


async def drop_triggers(engine: AsyncEngine) -> None:
    """What an operator with full database access can do (README: threat model). On
    PostgreSQL the next test's cleanup puts them back; SQLite databases are per test."""
    async with engine.begin() as connection:
        for statement in drop_statements(engine.dialect.name):
            await connection.execute(text(statement))


async def purge_newest_rolls(db: Database, from_id: int) -> None:
    """An operator's purge of the newest ledger rows, past the append-only triggers (0007):
    the ids must stay used even then. Triggers a test already dropped stay dropped."""
    purge = delete(ledger).where(ledger.c.id >= from_id)
    async with db.sessionmaker() as session, session.begin():
        if db.dialect == "postgresql":
            found = "SELECT count(*) FROM pg_trigger WHERE tgname = 'ledger_append_only'"
            guarded = bool((await session.execute(text(found))).scalar_one())
            switch = "ALTER TABLE ledger {} TRIGGER ledger_append_only"
            if guarded:
                await session.execute(text(switch.format("DISABLE")))
            await session.execute(purge)
            if guarded:
                await session.execute(text(switch.format("ENABLE")))
            return
        found = "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'ledger_no_delete'"
        guard = (await session.execute(text(found))).scalar_one_or_none()
        if guard is not None:
            await session.execute(text("DROP TRIGGER ledger_no_delete"))
        await session.execute(purge)
        if guard is not None:
            await session.execute(text(guard))
