"""Faults a player never sees as a crash: Discord errors, the same interaction delivered
again, and the database going away or refusing writes (locked by another process, read-only,
disk full).

Restarts between a roll request and its last answer, and between a natural 20 and the fortune
choice, are covered where those features live: ``tests/scenarios/test_requests.py::
test_three_players_answer_across_a_restart_with_one_shared_d20`` and ``tests/scenarios/
test_fortune.py::test_choice_survives_a_restart_and_is_made_once``. "No GM reachable at all" is
``tests/scenarios/test_secrecy.py::test_when_no_gm_can_be_reached_the_roller_is_told_how_to_fix_it``.
"""

from __future__ import annotations

import copy
import logging
import sqlite3
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from bot import tree as bot_tree
from bot.db.models import ledger as ledger_table
from bot.services.store.ledger import DuplicateInteraction
from bot.tree import user_message
from tests.fixtures.table import (
    Table,
    make_character,
    message_text,
    start_campaign,
)
from tests.scenarios.test_secrecy import _latest, _setup, seen_by

#: A write lock held elsewhere fails after 0.2 s (set before the bot is built).
pytestmark = pytest.mark.usefixtures("short_busy_timeout")

UNAVAILABLE = "nothing was recorded"


async def ledger_count(table: Table) -> int:
    async with table.bot.db.engine.connect() as conn:
        return int(await conn.scalar(select(func.count()).select_from(ledger_table)) or 0)


async def test_gm_channel_post_fails_the_copy_goes_by_dm_and_is_recorded_once(
    table: Table,
) -> None:
    gm_channel = await _setup(table, "d20-check")
    # Discord keeps failing (a transient failure is retried first: bot/cogs/_places.py).
    table.env.inject_error("POST", f"/channels/{gm_channel.id}/messages", status=500, times=None)
    before = await ledger_count(table)
    result = await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="blind")
    await table.env.advance_time(60)  # the retries' backoff
    assert await ledger_count(table) == before + 1
    total = str((await _latest(table)).outcome["total"])
    dm = "\n".join(message_text(m) for m in table.admin.user.dm_channel.history())
    assert total in dm  # the GM of setup got it by DM instead
    notes = "\n".join(message_text(m) for m in result.followups)
    assert "sent to the GM" in notes
    assert total not in seen_by(table, table.bob, gm_channel)


async def test_a_lost_followup_is_told_to_the_roller_and_the_roll_is_recorded_once(
    table: Table,
) -> None:
    gm_channel = await _setup(table, "d20-check")
    before = await ledger_count(table)
    # The roller's private copy of a gm roll is the first webhook followup.
    table.env.inject_error("POST", "/webhooks/*/*", status=500, times=1)
    result = await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="gm")
    assert await ledger_count(table) == before + 1
    row = await _latest(table)
    notes = "\n".join(message_text(m) for m in result.followups)
    assert f"private copy of roll #{row.id}" in notes and "do not roll again" in notes
    gm_view = "\n".join(message_text(m) for m in gm_channel.history(viewer=table.gm))
    assert str(row.outcome["total"]) in gm_view  # the GM still has it
    assert "Something went wrong" not in notes


def _last_interaction(table: Table) -> dict[str, Any]:
    """The last INTERACTION_CREATE the simulated gateway sent, as sent."""
    for _kind, event, payload in reversed(table.env.backend.transcript):
        if event == "INTERACTION_CREATE":
            return copy.deepcopy(dict(payload))
    raise AssertionError("no interaction was sent")


@pytest.mark.parametrize(
    ("command", "options"),
    [("roll", {"dice": "1d20+1000", "secret": "blind"}), ("check", {"ability": "DEX"})],
)
async def test_an_interaction_delivered_again_is_recorded_and_answered_once(
    table: Table,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    options: dict[str, Any],
) -> None:
    """A retry of the same interaction (a gateway replay, or two processes on one shard during
    a deploy) after a failed delivery: one ledger row, no second answer, no incident."""
    monkeypatch.setattr(bot_tree, "DUPLICATE_GRACE_S", 0.05)
    gm_channel = await _setup(table, "d20-check")
    table.env.inject_error("POST", f"/channels/{gm_channel.id}/messages", status=500, times=1)
    before = await ledger_count(table)
    first = await table.alice.slash(table.table, command, **options)
    assert first.response is not None and not first.ephemeral
    assert await ledger_count(table) == before + 1
    shown = len(table.table.history(viewer=table.alice))
    cursor = table.env.error_cursor
    caplog.clear()
    with caplog.at_level(logging.INFO):
        table.env.backend.emit("INTERACTION_CREATE", _last_interaction(table))
        await table.env.settle()
    assert await ledger_count(table) == before + 1
    assert len(table.table.history(viewer=table.alice)) == shown  # nothing said twice
    raised = [getattr(e, "original", e) for e in table.env.errors_since(cursor)]
    assert [type(e) for e in raised] == [DuplicateInteraction]  # the service noticed
    _ = table.env.errors  # acknowledged: expected, the table fixture fails on the rest
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    assert "already recorded" in caplog.text


async def test_a_roll_whose_answer_was_lost_is_pointed_to_when_delivered_again(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first delivery recorded the roll but never answered (its process died, or Discord
    refused the answer): the second delivery tells the player where the roll went, instead
    of rolling again or staying silent."""
    monkeypatch.setattr(bot_tree, "DUPLICATE_GRACE_S", 0.05)
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"DEX": 14})
    before = await ledger_count(table)
    table.env.inject_error("POST", "/interactions/*/*/callback", status=500, times=2)
    lost = await table.alice.slash(table.table, "check", ability="DEX")
    assert lost.response is None  # the result and the error message both failed
    _ = table.env.errors  # the incident of the failed answer is the point of this test
    assert await ledger_count(table) == before + 1
    table.env.backend.emit("INTERACTION_CREATE", _last_interaction(table))
    await table.env.settle()
    assert await ledger_count(table) == before + 1  # not rolled again
    row_id = (await _latest(table)).id
    answer = [e for e in table.env.http_requests if e.path.endswith("/callback")][-1]
    assert f"already recorded as roll #{row_id}" in answer.json["data"]["content"]
    assert answer.json["data"]["flags"] & 64  # ephemeral: for the roller only
    _ = table.env.errors  # the replay's DuplicateInteraction: expected


@pytest.mark.parametrize("clean_db_url", ["sqlite"], indirect=True)
async def test_sqlite_locked_by_another_process_answers_unavailable_then_recovers(
    table: Table, database_url: str
) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"DEX": 14})
    before = await ledger_count(table)
    # Another process takes the write lock and keeps it (a backup tool, a stuck migration).
    other = sqlite3.connect(make_url(database_url).database or "", isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        for command, options in (("roll", {"dice": "1d20"}), ("check", {"ability": "DEX"})):
            result = await table.alice.slash(table.table, command, **options)
            assert result.ephemeral and result.response is not None
            assert UNAVAILABLE in result.response.content
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert await ledger_count(table) == before
    # Back, without a restart.
    again = await table.alice.slash(table.table, "check", ability="DEX")
    assert again.response is not None and not again.ephemeral
    assert await ledger_count(table) == before + 1


async def _on_the_bots_connection(table: Table, pragma: str) -> Any:
    """Run a PRAGMA on the bot's one pooled SQLite connection, outside any transaction (a
    BEGIN IMMEDIATE would itself be refused once writes are); it stays set for the bot."""
    async with table.bot.db.engine.connect() as conn:
        raw = await conn.get_raw_connection()
        cursor = await raw.driver_connection.execute(pragma)
        found = await cursor.fetchone()
        await cursor.close()
        return found[0] if found else None


def _rows_outside(database_url: str) -> int:
    """Ledger rows, read by a connection of our own (a reader is never refused)."""
    other = sqlite3.connect(make_url(database_url).database or "")
    try:
        return int(other.execute("SELECT count(*) FROM ledger").fetchone()[0])
    finally:
        other.close()


@pytest.mark.parametrize(
    ("fault", "on", "off"),
    [
        # SQLITE_READONLY, what a read-only database file gives. Made from inside: the tests
        # run as root, which ignores permission bits, and an open descriptor keeps writing to
        # a file chmod-ed under it anyway; query_only refuses writes with the same error.
        ("SQLITE_READONLY", "PRAGMA query_only=1", "PRAGMA query_only=0"),
        # SQLITE_FULL, what a full disk gives: no page may be added to the file.
        ("SQLITE_FULL", "PRAGMA max_page_count={pages}", "PRAGMA max_page_count=1073741823"),
    ],
)
@pytest.mark.parametrize("clean_db_url", ["sqlite"], indirect=True)
async def test_sqlite_refusing_writes_answers_unavailable_then_recovers(
    table: Table,
    database_url: str,
    caplog: pytest.LogCaptureFixture,
    fault: str,
    on: str,
    off: str,
) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"DEX": 14})
    await table.alice.slash(table.table, "roll", dice="1d20")
    # A full disk leaves no free page inside the file either; migration 0006's rebuild frees
    # the old tables' pages, which the rolls below would otherwise fill first.
    await _on_the_bots_connection(table, "VACUUM")
    pages = await _on_the_bots_connection(table, "PRAGMA page_count")
    await _on_the_bots_connection(table, on.format(pages=pages))
    cursor = table.env.error_cursor
    try:
        for _ in range(60):  # until the ledger needs a page the "full disk" cannot give
            result = await table.alice.slash(table.table, "check", ability="DEX")
            if result.ephemeral:
                break
        assert result.ephemeral and result.response is not None, fault
        assert UNAVAILABLE in result.response.content, result.response.content
        written = _rows_outside(database_url)
        refused = await table.alice.slash(table.table, "roll", dice="1d20")
        assert refused.ephemeral and refused.response is not None
        assert UNAVAILABLE in refused.response.content
        assert _rows_outside(database_url) == written  # nothing half-recorded
    finally:
        await _on_the_bots_connection(table, off)
    errors = table.env.errors_since(cursor)
    assert errors and all(isinstance(user_message(e), str) for e in errors)  # no incident
    # The operator is told why, once for the two refusals, with no statement parameters.
    told = [r for r in caplog.records if r.levelno == logging.WARNING and "refused" in r.msg]
    assert [r.getMessage() for r in told] == [
        f"the database refused a transaction ({fault}): nothing was recorded"
    ]
    # Back, without a restart.
    again = await table.alice.slash(table.table, "check", ability="DEX")
    assert again.response is not None and not again.ephemeral
    assert _rows_outside(database_url) == written + 1
