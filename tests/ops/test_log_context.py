"""Every log line about a command carries its context (server, campaign, command), never the
token or a roll, and naming the campaign costs no query.

Tests bot/log_context.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select

from bot.db.models import campaigns
from bot.services.kit.context import Caller
from bot.services.trust import access, fairness
from tests.fixtures.table import Table, start_campaign


@pytest.mark.parametrize("token", ["fake-token-123"])
async def test_json_log_lines_carry_the_command_context_and_never_the_token_or_a_roll(
    json_logs: Any, table: Table, token: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table.bot.settings = table.bot.settings.model_copy(update={"discord_token": token})
    await start_campaign(table, "roll-under")
    await table.alice.slash(table.table, "character create", name="Whisper-Xyzzy")

    from bot.cogs.campaign import _cog as campaign_cog

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("boom")

    # Fails after the campaign is loaded: its id is known to the incident's log line.
    monkeypatch.setattr(campaign_cog, "campaign_embed", broken)
    failed = await table.alice.slash(table.table, "campaign show")
    assert failed.response is not None and "incident" in failed.response.content
    _ = table.env.errors  # the incident above is this test's own doing

    output = json_logs()
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    commands = [line for line in lines if line["message"].startswith("command /")]
    assert [c["message"].split(" ")[1:3] for c in commands] == [
        ["/campaign", "setup"],
        ["/character", "create"],
        ["/campaign", "show"],
    ]
    assert [c["message"].split(" ")[3] for c in commands] == ["ok", "ok", "error"]
    async with table.bot.db.engine.connect() as conn:
        campaign_id = await conn.scalar(select(campaigns.c.id))
    for line in commands:
        assert line["guild"] == table.guild.id
        assert line["campaign"] == campaign_id
        assert line["command"] in {"campaign setup", "character create", "campaign show"}
    incident = next(line for line in lines if line["message"].startswith("incident "))
    assert incident["incident"] == commands[-1]["incident"]
    assert (incident["guild"], incident["campaign"], incident["command"]) == (
        table.guild.id,
        campaign_id,
        "campaign show",
    )
    assert token not in output
    assert "xyzzy" not in output.lower()  # option values (what was rolled, names) stay out


async def test_naming_the_campaign_in_the_logs_costs_no_query(table: Table) -> None:
    await start_campaign(table, "roll-under")
    metrics = table.bot.ops.metrics

    def selects() -> float:
        return metrics.sample("pbp_db_query_duration_seconds_count", {"operation": "select"}) or 0

    caller = Caller(user_id=table.alice.id, channel_id=table.table.id, guild_id=table.guild.id)
    # All that /campaign show needs: the campaign, and its dice seed's published hash. Asked
    # once first, so what this process keeps of the campaign is as warm as for the command.
    campaign = await access.campaign_here(table.bot.db, caller)
    await fairness.show(table.bot.db, caller, campaign)
    before = selects()
    campaign = await access.campaign_here(table.bot.db, caller)
    await fairness.show(table.bot.db, caller, campaign)
    by_service = selects() - before
    before = selects()
    shown = await table.alice.slash(table.table, "campaign show")
    assert shown.response is not None and shown.response.embeds
    assert selects() - before == by_service
