"""The PostgreSQL server going away mid-session, and coming back.

This module's bot runs on a throwaway database of its own, because the test switches
connections to it off and on; the SQLite counterpart is in test_faults.py.
"""

from __future__ import annotations

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from tests.fixtures.table import Table, make_character, start_campaign
from tests.scenarios.test_faults import UNAVAILABLE, ledger_count


async def _set_connections(url: str, allowed: bool) -> None:
    """Switch connections to the database on or off; off also ends every open one."""
    parsed = make_url(url)
    admin = parsed.set(database="postgres", drivername="postgresql").render_as_string(False)
    conn = await asyncpg.connect(admin)
    try:
        name = parsed.database
        await conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(allowed).lower()}')
        if not allowed:
            await conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = $1 AND pid <> pg_backend_pid()",
                name,
            )
    finally:
        await conn.close()


@pytest.mark.parametrize("clean_db_url", ["own postgresql"], indirect=True)
async def test_postgresql_going_away_answers_unavailable_then_recovers(
    table: Table, pg_throwaway_url: str
) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"DEX": 14})
    before = await ledger_count(table)
    # The server drops the bot's connection.
    await _set_connections(pg_throwaway_url, allowed=False)
    try:
        for command, options in (
            ("roll", {"dice": "1d20"}),
            ("check", {"ability": "DEX"}),
            ("check", {"ability": "DEX"}),  # a new connection is refused too
        ):
            result = await table.alice.slash(table.table, command, **options)
            assert result.ephemeral and result.response is not None
            assert UNAVAILABLE in result.response.content
    finally:
        await _set_connections(pg_throwaway_url, allowed=True)
    assert await ledger_count(table) == before
    again = await table.alice.slash(table.table, "check", ability="DEX")
    assert again.response is not None and not again.ephemeral
    assert await ledger_count(table) == before + 1
