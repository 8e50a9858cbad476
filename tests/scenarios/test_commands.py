"""Every /campaign and /character command as a GM and as a player, with the refusals."""

from __future__ import annotations

import pytest

from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue
from bot.services.rolling import checks
from bot.services.store import characters, ledger
from bot.services.store.campaigns import campaign_for_channel
from bot.services.table import sheets
from tests.fixtures.table import Table, make_character, message_text, start_campaign


async def test_setup_needs_manage_server_and_one_campaign_per_channel(table: Table) -> None:
    refused = await table.gm.slash(table.table, "campaign setup", system="threshold")
    assert refused.ephemeral and refused.response is not None
    assert "Manage Server" in refused.response.content
    await start_campaign(table, "threshold")
    again = await table.admin.slash(table.table, "campaign setup", system="roll-under")
    assert again.ephemeral and again.response is not None
    assert "already has a campaign" in again.response.content
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    assert campaign.system.value == "threshold"
    assert campaign.gm_role_ids == (table.gm_role.id,)
    assert campaign.gm_channel_id == table.gm_channel.id


async def test_commands_in_a_channel_without_campaign_say_how_to_start(table: Table) -> None:
    for name, options in (
        ("check", {"ability": "STR"}),
        ("character create", {"name": "Nobody"}),
        ("campaign show", {}),
    ):
        result = await table.alice.slash(table.table, name, **options)
        assert result.ephemeral and result.response is not None
        assert result.response.content == (
            "No campaign in this channel: a GM can run /campaign setup."
        )


async def test_campaign_show_and_settings_are_gm_only(table: Table) -> None:
    await start_campaign(table, "threshold")
    shown = await table.alice.slash(table.table, "campaign show")
    assert shown.ephemeral and shown.response is not None
    assert "Very Easy 3 · Easy 7 · Moderate 12 · Hard 17 · Very Hard 20" in message_text(
        shown.response
    )
    refused = await table.alice.slash(
        table.table, "campaign set tier", difficulty="hard", threshold=15
    )
    assert refused.ephemeral and refused.response is not None
    assert refused.response.content == "Only the campaign's GM can change campaign settings."
    changed = await table.gm.slash(
        table.table, "campaign set tier", difficulty="hard", threshold=15
    )
    assert changed.response is not None and "Hard 15" in message_text(changed.response)
    bad = await table.gm.slash(table.table, "campaign set tier", difficulty="easy", threshold=30)
    assert bad.ephemeral and bad.response is not None
    assert "must not decrease" in bad.response.content
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    assert (campaign.tiers.easy, campaign.tiers.hard) == (7, 15)


async def test_gm_sets_abilities_and_roles(table: Table) -> None:
    await start_campaign(table, "d20-check")
    done = await table.gm.slash(
        table.table, "campaign set abilities", names="STR, DEX, CON, INT, WIS, CHA, Mana"
    )
    assert done.response is not None and "Mana" in message_text(done.response)
    role = table.guild.create_role("Co-GM")
    await table.gm.slash(table.table, "campaign set gm-role", role=role)
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    assert set(campaign.gm_role_ids) == {table.gm_role.id, role.id}
    fixed = await table.admin.slash(table.table, "campaign set crit-rules", on=True)
    assert fixed.response is not None and "Critical hits and fumbles: on" in message_text(
        fixed.response
    )


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


async def test_options_the_system_does_not_have_are_refused_naming_it(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Keegan", {"DEX": 14})
    for options, words in (
        ({"rank_bonus": 1}, "d20 check, where /check has no rank_bonus"),
        ({"reliable": True}, "has no reliable"),
        ({"difficulty": "hard"}, "has no difficulty"),
    ):
        result = await table.alice.slash(table.table, "check", ability="DEX", **options)
        assert result.ephemeral and result.response is not None
        assert words in result.response.content
    luck = await table.alice.slash(table.table, "luck")
    assert luck.ephemeral and luck.response is not None
    assert "/luck is for Pen & Dagger (luck rolls)" in luck.response.content
    assert await ledger.latest_rolls(table.bot.db, 1) == []


async def test_missing_scores_and_characters_are_explained(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    none_yet = await table.alice.slash(table.table, "check", ability="DEX")
    assert none_yet.ephemeral and none_yet.response is not None
    assert "no active character" in none_yet.response.content
    await table.alice.slash(table.table, "character create", name="Angus")
    no_score = await table.alice.slash(table.table, "check", ability="DEX")
    assert no_score.response is not None
    assert no_score.response.content == (
        "Angus has no DEX score yet: set it with /character set ability:DEX value:<number>."
    )
    save = await table.alice.slash(table.table, "save", ability="DEX")
    assert save.response is not None
    assert "/save is for Roll-under and d20 check (saving throws)" in save.response.content


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


async def test_delete_campaign_is_gm_only_and_asks_first(table: Table) -> None:
    await start_campaign(table, "threshold")
    refused = await table.alice.slash(table.table, "campaign delete")
    assert refused.response is not None and "Only the campaign's GM" in refused.response.content
    asked = await table.gm.slash(table.table, "campaign delete")
    assert asked.response is not None
    done = await table.gm.click(asked.response, label="Delete the campaign")
    assert done.response is not None and "Campaign deleted" in done.response.content
    gone = await table.alice.slash(table.table, "campaign show")
    assert gone.response is not None and "No campaign in this channel" in gone.response.content


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


async def test_threads_use_their_parent_channels_campaign(table: Table) -> None:
    # SimCord has no actor verb that opens a thread, so this drives the service with the
    # Caller that `caller_from` builds for a thread (its parent channel id set).
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Sybilla", {"AGI": 10})
    in_thread = Caller(
        user_id=table.alice.id,
        channel_id=987654321,
        guild_id=table.guild.id,
        parent_channel_id=table.table.id,
        interaction_id=42,
    )
    table.dice(4)
    result = await checks.perform_check(
        table.bot.db, table.bot.rng, in_thread, checks.CheckOptions(ability="AGI"), "/check"
    )
    assert result.character.name == "Sybilla" and result.outcome.passed  # type: ignore[union-attr]
    with pytest.raises(InvalidValue, match="in the channel itself"):
        await sheets.setup(table.bot.db, in_thread, "threshold")
