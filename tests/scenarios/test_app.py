"""The bot as a whole: factory, command tree, sync, error path."""

from __future__ import annotations

import random

import pytest

from bot.app import extension_names
from bot.dice import roll
from bot.services.kit import personal
from tests.fixtures.table import SEED, Table, message_text


def test_every_feature_package_is_loaded() -> None:
    assert {"bot.cogs.campaign", "bot.cogs.character", "bot.cogs.checks", "bot.cogs.dice"} <= set(
        extension_names()
    )


async def test_roll_answers_publicly_with_the_injected_rng_and_is_recorded(table: Table) -> None:
    result = await table.alice.slash(table.table, "roll", dice="4d6kh3", label="strength")
    assert result.response is not None
    assert not result.ephemeral
    text = message_text(result.response)
    expected = roll("4d6kh3", random.Random(SEED))
    assert "alice rolls strength" in text
    assert f"Total: {expected.total}" in text
    assert "roll #1" in text


def _syncs(table: Table) -> int:
    return sum(
        1
        for r in table.env.http_requests
        if r.method == "PUT" and r.path.startswith("/applications/") and "commands" in r.path
    )


async def test_a_client_restarted_without_close_keeps_its_one_database(table: Table) -> None:
    """A second pool would leave the first one's connections open for the process's life."""
    database = table.bot.db
    await table.env.restart_bot()
    assert table.bot.db is database
    result = await table.alice.slash(table.table, "roll", dice="1d20")
    assert result.response is not None and not result.ephemeral


async def test_restart_skips_the_sync_when_the_commands_did_not_change(table: Table) -> None:
    before = _syncs(table)
    assert before == 1  # the first start synced
    await table.env.restart_bot()
    assert _syncs(table) == before
    # The commands still work after the restart: Discord kept them.
    result = await table.alice.slash(table.table, "roll", dice="1d20")
    assert result.response is not None


async def test_huge_rolls_are_summarised_within_discords_limits(table: Table) -> None:
    result = await table.alice.slash(table.table, "roll", dice="1000d10000", label="swarm")
    assert result.response is not None
    embed = result.response.embeds[0]
    assert len(embed) <= 6000 and len(embed.description or "") <= 4096
    assert "more dice" in (embed.description or "")


async def test_rolls_never_ping_anyone(table: Table) -> None:
    result = await table.alice.slash(
        table.table, "roll", dice="1d20 # @everyone look", label=f"for {table.bob.mention}"
    )
    assert result.response is not None
    message = result.response.message
    assert not message.mention_everyone and message.mentions == []


async def test_start_up_loads_every_features_personal_data_declaration(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """So the first /privacy show or erasure lists no folder and imports no module while the
    event loop serves everyone else (bot/services/kit/personal.py walks the services once)."""
    walked: list[bool] = []
    monkeypatch.setattr(personal, "_WALKED", walked)
    await table.env.restart_bot()
    assert walked == [True]
    shown = await table.alice.slash(table.table, "privacy show")
    assert shown.response is not None and walked == [True]
