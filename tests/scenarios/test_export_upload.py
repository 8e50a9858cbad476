"""/campaign export within Discord's upload limit.

Discord tells the bot, with each interaction, the largest file it accepts in answer
(``attachment_size_limit``; it depends on the server's boosts). SimCord always says 25 MiB;
here a server with a smaller limit is one whose interactions say less.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
import simcord.interactions

from tests.fixtures.table import Table, start_campaign


def _limit_uploads(monkeypatch: pytest.MonkeyPatch, limit: int) -> None:
    """Every interaction from now on says Discord accepts files of at most ``limit`` bytes."""
    real = simcord.interactions.base_payload

    def smaller(*args: Any, **kwargs: Any) -> Any:
        record, payload = real(*args, **kwargs)
        payload["attachment_size_limit"] = limit
        return record, payload

    monkeypatch.setattr(simcord.interactions, "base_payload", smaller)


async def _big_rolls(table: Table, count: int) -> None:
    for _ in range(count):
        rolled = await table.gm.slash(table.table, "roll", dice="1000d10000")
        assert rolled.response is not None


async def test_export_is_a_gzip_file_of_the_campaign(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await _big_rolls(table, 2)
    result = await table.admin.slash(table.table, "campaign export")
    assert result.response is not None and result.response.ephemeral
    [attachment] = result.response.attachments
    assert attachment.filename.endswith(".json.gz")
    raw = await attachment.read()
    assert len(raw) <= 25 * 2**20
    data = json.loads(gzip.decompress(raw))
    ledger = data["campaigns"][0]["tables"]["ledger"]
    assert [row["request"].split()[-1] for row in ledger] == ["dice:1000d10000"] * 2


async def test_over_the_servers_limit_it_answers_with_the_size_and_the_cli(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    await start_campaign(table, "d20-check")
    await _big_rolls(table, 2)
    _limit_uploads(monkeypatch, 8 * 2**10)
    result = await table.admin.slash(table.table, "campaign export")
    assert result.response is not None and result.response.ephemeral
    assert result.response.attachments == []
    text = result.response.content
    assert "more than the 8 KB Discord lets this server receive" in text
    assert "pbp-dice export --guild" in text and "--campaign 1" in text


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
