"""Interactions in flight: new commands and clicks refused while draining, changing nothing,
and the ones already in flight finished before the shutdown goes on.

Tests bot/ops/inflight.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import func, select

from bot.db.models import ledger
from bot.ops import RESTARTING
from bot.ops.inflight import InFlight
from bot.services.store import characters
from bot.services.store.campaigns import campaign_for_channel
from bot.services.table import requests as request_service
from tests.fixtures.table import Table, make_character, message_text, start_campaign


def _request_message(table: Table) -> Any:
    for message in reversed(table.table.history()):
        if message.embeds and (message.embeds[0].title or "").startswith("Roll request #"):
            return message
    raise AssertionError("no roll request message in #table")


async def _requested(table: Table) -> Any:
    """A d20-check request for Ann (alice) and Bo (bob) against DC 12, as posted in #table."""
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ann", {"DEX": 14})
    await make_character(table, table.bob, "Bo", {"DEX": 10})
    await table.gm.slash(table.table, "gm request roll", ability="DEX", characters="Ann, Bo", dc=12)
    return _request_message(table)


async def _ledger_rows(table: Table) -> int:
    async with table.bot.db.engine.connect() as conn:
        return int(await conn.scalar(select(func.count()).select_from(ledger)) or 0)


async def test_while_draining_new_commands_are_told_to_retry_and_change_nothing(
    table: Table,
) -> None:
    table.bot.ops.start_draining()
    result = await table.alice.slash(table.table, "roll", dice="1d20")
    assert result.ephemeral
    assert result.response is not None and result.response.content == RESTARTING
    async with table.bot.db.engine.connect() as conn:
        assert await conn.scalar(select(func.count()).select_from(ledger)) == 0
    rejected = table.bot.ops.metrics.sample(
        "pbp_commands_total", {"command": "roll", "outcome": "rejected"}
    )
    assert rejected == 1


async def test_in_flight_wait_is_bounded_and_ends_when_the_last_one_finishes() -> None:
    in_flight = InFlight()
    assert await in_flight.wait_idle(0)
    in_flight.enter()
    in_flight.enter()
    assert not await in_flight.wait_idle(0.01)  # stuck work does not hold shutdown forever
    in_flight.exit()
    assert not await in_flight.wait_idle(0.01)
    in_flight.exit()
    assert await in_flight.wait_idle(0.01)


async def test_a_button_click_while_draining_is_told_to_retry_and_changes_nothing(
    table: Table,
) -> None:
    message = await _requested(table)
    shown = message_text(message)
    table.bot.ops.start_draining()
    refused = await table.alice.click(message, label="Roll")
    assert refused.ephemeral
    assert refused.response is not None and refused.response.content == RESTARTING
    assert await _ledger_rows(table) == 0
    after = _request_message(table)
    assert message_text(after) == shown and "0 of 2 rolled" in shown
    assert after.components  # the Roll button is still there for after the restart
    metrics = table.bot.ops.metrics
    assert metrics.sample("pbp_commands_total", {"command": "pbp:req", "outcome": "rejected"}) == 1
    assert table.bot.ops.in_flight.count == 0


async def test_a_confirm_button_while_draining_deletes_nothing(table: Table) -> None:
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Sybilla", {"WIT": 6})
    asked = await table.alice.slash(table.table, "character delete", name="Sybilla")
    assert asked.response is not None
    table.bot.ops.start_draining()
    refused = await table.alice.click(asked.response, label="Delete Sybilla")
    assert refused.response is not None and refused.response.content == RESTARTING
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    assert [c.name for c in await characters.list_characters(table.bot.db, campaign.id)] == [
        "Sybilla"
    ]
    rejected = {"command": "view", "outcome": "rejected"}
    assert table.bot.ops.metrics.sample("pbp_commands_total", rejected) == 1


async def test_a_click_in_flight_holds_the_shutdown_until_it_finishes(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    message = await _requested(table)
    ops = table.bot.ops
    real = request_service.answer
    seen: dict[str, Any] = {}

    async def answer_during_sigterm(*args: Any, **kwargs: Any) -> Any:
        seen["in_flight"] = ops.in_flight.count
        ops.start_draining()  # SIGTERM arrives while the click is being handled
        seen["idle"] = await ops.in_flight.wait_idle(0)
        return await real(*args, **kwargs)

    monkeypatch.setattr(request_service, "answer", answer_during_sigterm)
    table.dice(15)
    answered = await table.alice.click(message, label="Roll")
    assert seen == {"in_flight": 1, "idle": False}
    assert answered.response is None or answered.response.content != RESTARTING
    assert "1 of 2 rolled" in message_text(_request_message(table))  # admitted: it finished
    assert await _ledger_rows(table) == 1
    assert await ops.in_flight.wait_idle(0)
