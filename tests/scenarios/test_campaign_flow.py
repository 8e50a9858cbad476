"""Campaign set-up and the first check, through the real commands."""

from __future__ import annotations

from tests.fixtures.table import Table, make_character, message_text, start_campaign


async def test_roll_under_campaign_from_setup_to_recorded_save(table: Table) -> None:
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Sybilla", {"AGI": 10})
    result = await table.alice.slash(table.table, "check", ability="agi")
    assert result.response is not None
    text = message_text(result.response)
    assert "Sybilla: AGI save" in text
    assert ("Pass" in text) != ("Fail" in text)
