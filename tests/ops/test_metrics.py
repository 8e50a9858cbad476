"""What the bot counts for its operator: commands and clicks by name and outcome, errors by
type, durations, queries.

Tests bot/ops/metrics.py.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from bot.db.models import campaigns
from bot.ops.server import OpsServer
from tests.fixtures.table import Table, start_campaign
from tests.ops.test_inflight import _request_message, _requested
from tests.ops.test_server import _get


async def test_metrics_count_commands_by_name_and_outcome_and_errors_by_type(
    table: Table,
) -> None:
    refused = await table.alice.slash(table.table, "campaign show")  # no campaign yet
    assert refused.ephemeral
    await start_campaign(table, "roll-under")
    await table.alice.slash(table.table, "character create", name="Sybilla")
    await table.bob.slash(table.table, "character create", name="Rook")
    metrics = table.bot.ops.metrics
    ok = {"command": "character create", "outcome": "ok"}
    assert metrics.sample("pbp_commands_total", ok) == 2
    assert metrics.sample("pbp_commands_total", {"command": "campaign setup", "outcome": "ok"}) == 1
    user_error = {"command": "campaign show", "outcome": "user_error"}
    assert metrics.sample("pbp_commands_total", user_error) == 1
    assert metrics.sample("pbp_errors_total", {"type": "NoCampaign"}) == 1
    count = metrics.sample("pbp_command_duration_seconds_count", {"command": "character create"})
    assert count == 2
    inserts = metrics.sample("pbp_db_query_duration_seconds_count", {"operation": "insert"})
    assert inserts is not None and inserts >= 3  # the campaign and both characters
    ops = table.bot.ops
    server = OpsServer(ops, 0, host="127.0.0.1")
    port = await server.start()
    try:
        status, text = await _get(port, "/metrics")
    finally:
        await server.stop()
    assert status == 200
    assert 'pbp_commands_total{command="character create",outcome="ok"} 2.0' in text
    assert 'pbp_gateway_latency_seconds{shard="0"}' in text
    assert "pbp_interactions_in_flight 0.0" in text


async def test_button_clicks_are_counted_timed_and_logged_with_their_context(
    json_logs: Any, table: Table
) -> None:
    message = await _requested(table)
    intruder = await table.carol.click(message, label="Roll")
    assert intruder.ephemeral  # carol has no character in the request
    table.dice(15)
    await table.alice.click(_request_message(table), label="Roll")
    metrics = table.bot.ops.metrics
    assert metrics.sample("pbp_commands_total", {"command": "pbp:req", "outcome": "ok"}) == 1
    user_error = {"command": "pbp:req", "outcome": "user_error"}
    assert metrics.sample("pbp_commands_total", user_error) == 1
    assert metrics.sample("pbp_command_duration_seconds_count", {"command": "pbp:req"}) == 2
    assert metrics.sample("pbp_interactions_in_flight") == 0

    lines = [json.loads(line) for line in json_logs().splitlines() if line.startswith("{")]
    clicks = [line for line in lines if line["message"].startswith("component ")]
    assert [c["message"].split(" ")[1:3] for c in clicks] == [
        ["pbp:req", "user_error"],
        ["pbp:req", "ok"],
    ]
    async with table.bot.db.engine.connect() as conn:
        campaign_id = await conn.scalar(select(campaigns.c.id))
    assert [(c["guild"], c["command"]) for c in clicks] == [(table.guild.id, "pbp:req")] * 2
    # The campaign is named once a service has loaded it (the refusal came before that).
    assert clicks[1]["campaign"] == campaign_id
