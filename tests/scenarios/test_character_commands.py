"""Every /character command as a GM and as a player: players edit only their own characters and
the GM any, values checked per system, list, use, show and delete, kept across a restart.

Tests bot/cogs/character.py.
"""

from __future__ import annotations

from bot.services.store import characters, ledger
from bot.services.store.campaigns import campaign_for_channel
from tests.fixtures.table import Table, make_character, message_text, start_campaign


async def test_players_edit_only_their_own_characters_and_the_gm_edits_any(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 12})
    await table.bob.slash(table.table, "character create", name="Jade")
    refused = await table.bob.slash(
        table.table, "character set", ability="DEX", value=18, character="Angus"
    )
    assert refused.ephemeral and refused.response is not None
    assert "Angus belongs to another player" in refused.response.content
    by_gm = await table.gm.slash(
        table.table, "character set", ability="DEX", value=18, character="angus"
    )
    assert by_gm.response is not None and "DEX** 18 (+4, Master)" in message_text(by_gm.response)
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    angus = await characters.get_character(table.bot.db, campaign.id, "Angus")
    assert angus.scores == {"DEX": 18}


async def test_character_values_are_validated_per_system(table: Table) -> None:
    await start_campaign(table, "roll-under")
    await table.alice.slash(table.table, "character create", name="Theobald")
    too_high = await table.alice.slash(table.table, "character set", ability="STR", value=20)
    unknown = await table.alice.slash(table.table, "character set", ability="DEX", value=5)
    no_profs = await table.alice.slash(
        table.table, "character proficiency", name="Climb", value="Trained"
    )
    for result, words in (
        (too_high, "STR score must be between 1 and 19"),
        (unknown, "this campaign uses STR, AGI, WIT"),
        (no_profs, "have no proficiencies"),
    ):
        assert result.ephemeral and result.response is not None
        assert words in result.response.content


async def test_list_use_and_show_characters(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Keegan", {"DEX": 14})
    await make_character(table, table.alice, "Halgrimmir", {"STR": 17})
    listed = await table.bob.slash(table.table, "character list")
    assert listed.response is not None
    assert "**Keegan**" in listed.response.content and "active" in listed.response.content
    used = await table.alice.slash(table.table, "character use", name="halgrimmir")
    assert used.response is not None and "You now play **Halgrimmir**" in used.response.content
    table.dice(10)
    check = await table.alice.slash(table.table, "check", ability="STR")
    assert check.response is not None and "Halgrimmir: STR check" in message_text(check.response)
    shown = await table.bob.slash(table.table, "character show", player=table.alice)
    assert shown.response is not None and "Halgrimmir" in message_text(shown.response)
    other = await table.bob.slash(table.table, "character use", name="Keegan")
    assert other.ephemeral and other.response is not None
    assert "belongs to another player" in other.response.content


async def test_delete_character_asks_first(table: Table) -> None:
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Sybilla", {"WIT": 6})
    table.dice(3)
    await table.alice.slash(table.table, "check", ability="WIT")
    asked = await table.alice.slash(table.table, "character delete", name="Sybilla")
    assert asked.ephemeral and asked.response is not None
    cancelled = await table.alice.click(asked.response, label="Cancel")
    assert cancelled.response is not None and "nothing changed" in cancelled.response.content
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    assert len(await characters.list_characters(table.bot.db, campaign.id)) == 1
    asked = await table.alice.slash(table.table, "character delete", name="Sybilla")
    assert asked.response is not None
    done = await table.alice.click(asked.response, label="Delete Sybilla")
    assert done.response is not None and "Sybilla is deleted" in done.response.content
    assert await characters.list_characters(table.bot.db, campaign.id) == []
    rows = await ledger.latest_rolls(table.bot.db, campaign.id)
    assert [(r.character_name, r.character_id) for r in rows] == [("Sybilla", None)]


async def test_data_survives_a_restart(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Keegan", {"DEX": 14})
    await table.env.restart_bot()
    shown = await table.alice.slash(table.table, "character show")
    assert shown.response is not None
    assert "**DEX** 14 (+2)" in message_text(shown.response)
    table.dice(11)
    check = await table.alice.slash(table.table, "check", ability="DEX", dc=13)
    assert check.response is not None and "**Success**" in message_text(check.response)
