"""Option autocomplete offers what the campaign has, by name, and nothing about rolls.

Tests bot/cogs/_autocomplete.py.
"""

from __future__ import annotations

from tests.fixtures.table import Table, make_character, start_campaign


async def test_autocomplete_offers_the_campaigns_names(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 12})
    await table.alice.slash(table.table, "character proficiency", name="Stealth", value="Adept")
    await table.bob.slash(table.table, "character create", name="Andromedas")
    names = await table.carol.autocomplete(table.table, "character show", "name", "an")
    assert [c["value"] for c in names] == ["Angus", "Andromedas"]
    own = await table.bob.autocomplete(table.table, "character use", "name", "")
    assert [c["value"] for c in own] == ["Andromedas"]
    gm_sees_all = await table.gm.autocomplete(table.table, "character set", "character", "")
    assert {c["value"] for c in gm_sees_all} == {"Angus", "Andromedas"}
    abilities = await table.alice.autocomplete(table.table, "check", "ability", "c")
    assert [c["value"] for c in abilities] == ["CON", "CHA"]
    profs = await table.alice.autocomplete(table.table, "check", "proficiency", "st")
    assert [c["value"] for c in profs] == ["Stealth"]
    ranks = await table.alice.autocomplete(table.table, "character proficiency", "value", "")
    assert [c["value"] for c in ranks][:3] == ["Godlike", "Legendary", "Epic"]
