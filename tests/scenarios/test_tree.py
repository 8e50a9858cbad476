"""The command tree's one error path: an unexpected error gets an incident id and shows no
internals; a player's mistake is explained and records nothing.

Tests bot/tree.py.
"""

from __future__ import annotations

import logging
import sys

import pytest

from bot.services.store import ledger
from tests.fixtures.table import Table


async def test_unexpected_errors_get_an_incident_id_and_no_internals(
    table: Table, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("secret internals: total was 17")

    monkeypatch.setattr(sys.modules["bot.cogs.dice"], "roll_dice", broken)
    with caplog.at_level(logging.ERROR, logger="bot.tree"):
        result = await table.alice.slash(table.table, "roll", dice="1d20")
    assert result.ephemeral and result.response is not None
    text = result.response.content
    assert "incident" in text and "total was" not in text and "secret" not in text
    incident = text.split("`")[1]
    assert any(incident in record.getMessage() for record in caplog.records)
    # The real exception reached the error path (and is acknowledged here).
    assert any("secret internals" in str(getattr(e, "original", e)) for e in table.env.errors)


async def test_bad_notation_is_explained_and_nothing_is_recorded(table: Table) -> None:
    result = await table.alice.slash(table.table, "roll", dice="4d6kh7")
    assert result.ephemeral and result.response is not None
    assert "keep at most 4" in result.response.content
    assert await ledger.latest_rolls(table.bot.db, None) == []
