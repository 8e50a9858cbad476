"""Every /campaign command as a GM and as a player, with the refusals.

Tests bot/cogs/campaign/_cog.py.
"""

from __future__ import annotations

import pytest

from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue
from bot.services.rolling import checks
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
