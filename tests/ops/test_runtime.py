"""The running bot as an operator sees it: metrics, /healthz, draining, JSON log lines."""

from __future__ import annotations

import gc
import gzip
import json
import random
from typing import Any

import aiohttp
import pytest
from pydantic import SecretStr
from simcord import Env
from sqlalchemy import func, select

from bot import app
from bot.app import create_bot
from bot.config import Settings
from bot.db.models import campaigns, ledger
from bot.ops import RESTARTING, Operations
from bot.ops.inflight import InFlight
from bot.ops.server import OpsServer
from bot.serve import serve
from bot.services.kit.context import Caller
from bot.services.store import characters
from bot.services.store.campaigns import campaign_for_channel
from bot.services.table import requests as request_service
from bot.services.trust import access, fairness
from tests.fixtures.table import SEED, Table, make_character, message_text, start_campaign


async def _get(port: int, path: str) -> tuple[int, str]:
    async with (
        aiohttp.ClientSession() as http,
        http.get(f"http://127.0.0.1:{port}{path}") as response,
    ):
        return response.status, await response.text()


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


async def test_healthz_is_503_until_migrated_and_logged_in_and_again_while_draining(
    settings: Settings,
) -> None:
    ops = Operations()
    server = OpsServer(ops, 0, host="127.0.0.1")
    port = await server.start()
    try:
        status, body = await _get(port, "/healthz")
        assert (status, json.loads(body)["status"]) == (503, "starting")
        ops.health.migrated = True  # what `serve` sets after the migrations
        assert (await _get(port, "/healthz"))[0] == 503
        bot = create_bot(settings, rng=random.Random(SEED), ops=ops)
        env = Env(bot)
        await env.start()
        try:
            status, body = await _get(port, "/healthz")
            assert (status, json.loads(body)["status"]) == (200, "ready")
            ops.start_draining()
            status, body = await _get(port, "/healthz")
            assert (status, json.loads(body)["status"]) == (503, "shutting down")
        finally:
            await env.shutdown()
            await bot.close_database()  # SimCord detaches the bot without closing it
    finally:
        await server.stop()


async def test_python_m_bot_builds_the_bot_with_a_frozen_start_up_heap(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve` (python -m bot) asks for freeze_heap; what that does is the next test."""
    built: list[dict[str, Any]] = []

    class Built(Exception):
        pass

    def spy(*args: Any, **kwargs: Any) -> Any:
        built.append(kwargs)
        raise Built  # stop before logging in to Discord

    monkeypatch.setattr(app, "create_bot", spy)
    with pytest.raises(Built):
        await serve(settings.model_copy(update={"discord_token": SecretStr("not-a-token")}))
    assert [kwargs.get("freeze_heap") for kwargs in built] == [True]


async def test_a_bot_with_freeze_heap_freezes_its_start_up_heap_and_tests_do_not(
    settings: Settings,
) -> None:
    """Once set up, full collections skip the start-up objects; the tests' own bots never
    freeze (they would leak)."""
    assert gc.get_freeze_count() == 0
    bot = create_bot(settings, rng=random.Random(SEED), freeze_heap=True)
    env = Env(bot)
    try:
        await env.start()
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # modules, the tree, the cogs
        guild = env.create_guild("Table")
        alice = guild.add_member(env.create_user("alice"))
        result = await alice.slash(guild.create_text_channel("t"), "roll", dice="1d20")
        assert result.response is not None and not result.ephemeral
        assert gc.get_freeze_count() <= frozen  # once, at start-up, not again per command
    finally:
        gc.unfreeze()
        await env.shutdown()
        await bot.close_database()  # SimCord detaches the bot without closing it


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


async def test_campaign_export_gives_the_gm_the_file_privately_and_refuses_players(
    table: Table,
) -> None:
    await start_campaign(table, "roll-under")
    await table.alice.slash(table.table, "character create", name="Sybilla")
    result = await table.gm.slash(table.table, "campaign export")
    # Deferred ("thinking"), then the file: Discord shows it in place of the placeholder.
    [message] = [m for m in (result.response, *result.followups) if m is not None and m.attachments]
    assert message.ephemeral
    [attachment] = message.attachments
    data = json.loads(gzip.decompress(await attachment.read()))
    tables = data["campaigns"][0]["tables"]
    assert data["format"] == "pbp-dice-export"
    assert [c["name"] for c in tables["characters"]] == ["Sybilla"]
    refused = await table.alice.slash(table.table, "campaign export")
    texts = [m.content for m in (refused.response, *refused.followups) if m is not None]
    assert any("Only the campaign's GM" in t for t in texts)
    assert not any(m.attachments for m in (refused.response, *refused.followups) if m is not None)


# --------------------------------------------------------------------------- button clicks


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


async def test_naming_the_campaign_in_the_logs_costs_no_query(table: Table) -> None:
    await start_campaign(table, "roll-under")
    metrics = table.bot.ops.metrics

    def selects() -> float:
        return metrics.sample("pbp_db_query_duration_seconds_count", {"operation": "select"}) or 0

    caller = Caller(user_id=table.alice.id, channel_id=table.table.id, guild_id=table.guild.id)
    before = selects()
    # All that /campaign show needs: the campaign, and its dice seed's published hash.
    campaign = await access.campaign_here(table.bot.db, caller)
    await fairness.show(table.bot.db, caller, campaign)
    by_service = selects() - before
    before = selects()
    shown = await table.alice.slash(table.table, "campaign show")
    assert shown.response is not None and shown.response.embeds
    assert selects() - before == by_service
