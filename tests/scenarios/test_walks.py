"""``/verify log`` through Discord: posted for the table as the checkpoint the next check reads
back and walks on from; a checkpoint the database says but the message does not show is not
trusted; a long walk edits its one message with its progress, then shows the result."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from sqlalchemy import text

from bot import interaction
from bot.services.kit import walks
from tests.fixtures.table import Table, message_text, start_campaign


async def _rolls(table: Table, count: int) -> None:
    for n in range(count):
        await table.alice.slash(table.table, "roll", dice=f"1d4+{n}")


async def test_the_next_check_walks_on_from_the_published_one(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await _rolls(table, 3)
    first = await table.carol.slash(table.table, "verify", log=True)
    assert first.response is not None and not first.ephemeral
    said = message_text(first.response)
    assert "All 3 rolls" in said and "#3" in said
    await _rolls(table, 2)
    second = await table.carol.slash(table.table, "verify", log=True)
    assert second.response is not None
    said = message_text(second.response)
    assert "The 2 rolls since the last check (#3" in said and "5 rolls in all" in said
    full = await table.bob.slash(table.table, "verify", log=True, full=True)
    assert full.response is not None and "All 5 rolls" in message_text(full.response)


async def test_a_checkpoint_moved_in_the_database_is_not_trusted(table: Table) -> None:
    """Moving the checkpoint forward would skip rolls changed since: the message it names
    does not show that head, so the whole log is walked."""
    await start_campaign(table, "d20-check")
    await _rolls(table, 3)
    await table.carol.slash(table.table, "verify", log=True)
    await _rolls(table, 2)
    async with table.bot.db.engine.begin() as connection:
        await connection.execute(
            text(
                "UPDATE log_checkpoints SET number = 5, "
                "head = (SELECT chain FROM ledger WHERE number = 5 AND campaign_id IS NOT NULL)"
            )
        )
    moved = await table.carol.slash(table.table, "verify", log=True)
    assert moved.response is not None
    said = message_text(moved.response)
    assert "All 5 rolls" in said and "so the whole log was walked" in said


async def test_a_deleted_checkpoint_message_means_the_whole_walk(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await _rolls(table, 2)
    first = await table.carol.slash(table.table, "verify", log=True)
    assert first.response is not None
    await table.admin.delete(first.response)
    await _rolls(table, 1)
    again = await table.carol.slash(table.table, "verify", log=True)
    assert again.response is not None and "All 3 rolls" in message_text(again.response)


async def test_a_long_check_edits_its_message_with_its_progress(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    await start_campaign(table, "d20-check")
    await _rolls(table, 5)
    monkeypatch.setattr(walks, "PAGE", 2)
    monkeypatch.setattr(walks, "SHOWN_FROM", 4)
    monkeypatch.setattr(interaction, "PROGRESS_EVERY_S", 0.0)
    shown: list[str | None] = []
    real = discord.Interaction.edit_original_response

    async def spy(self: discord.Interaction, **kwargs: Any) -> Any:
        shown.append(kwargs.get("content"))
        return await real(self, **kwargs)

    monkeypatch.setattr(discord.Interaction, "edit_original_response", spy)
    checked = await table.carol.slash(table.table, "verify", log=True)
    assert shown[:4] == [
        "Checked 0 of 5 rolls…",
        "Checked 2 of 5 rolls…",
        "Checked 4 of 5 rolls…",
        "Checked 5 of 5 rolls…",
    ]
    assert checked.response is not None
    assert "Checked" not in checked.response.content and "All 5 rolls" in message_text(
        checked.response
    )
