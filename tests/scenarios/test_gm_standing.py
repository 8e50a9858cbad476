"""GM copies go to today's GMs, Confirm buttons check the clicker at the click, and
the guard rails on the GM channel and GM roles.

Roles change through SimCord's backend, as a server admin would change them in the client;
the bot has no members intent, so it does not hear of it and must ask Discord.
"""

from __future__ import annotations

import re
from typing import Any

import discord
import pytest
from simcord.actors import MemberActor
from simcord.builders import RoleHandle

from bot.services.kit.errors import NoCampaign
from bot.services.store import characters, ledger
from bot.services.store.campaigns import CampaignView, campaign_for_channel
from bot.services.trust.export import export_campaigns, import_campaigns
from tests.fixtures.table import Table, make_character, message_text

_NOISE = re.compile(r"[0-9a-f]{64}|<[@#&]!?\d+>|#\d+")


def give(table: Table, member: MemberActor, role: RoleHandle) -> None:
    table.env.backend.add_member_role(role.guild.id, member.id, role.id)


def take(table: Table, member: MemberActor, role: RoleHandle) -> None:
    table.env.backend.remove_member_role(role.guild.id, member.id, role.id)


def dms(member: MemberActor) -> str:
    return _NOISE.sub(" ", "\n".join(message_text(m) for m in member.user.dm_channel.history()))


async def campaign_of(table: Table, guild_id: int, channel_id: int) -> CampaignView:
    return await campaign_for_channel(table.bot.db, guild_id, channel_id)


async def blind_total(
    table: Table, roller: MemberActor, channel: Any | None = None, guild_id: int | None = None
) -> tuple[str, Any]:
    """``roller`` makes a blind roll (default: in #table); its total and the result."""
    channel = channel or table.table
    result = await roller.slash(channel, "roll", dice="1d20+1000", secret="blind")
    assert result.response is not None
    campaign = await campaign_of(table, guild_id or table.guild.id, channel.id)
    [row] = await ledger.latest_rolls(table.bot.db, campaign.id, limit=1)
    return str(row.outcome["total"]), result


def moderator(table: Table) -> tuple[MemberActor, RoleHandle]:
    """A member who has Manage Server through a Mods role (so is a GM of every campaign)."""
    mods = table.guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    return table.guild.add_member(table.env.create_user("mod"), roles=[mods]), mods


async def setup_without_gm_channel(table: Table, by: MemberActor) -> None:
    done = await by.slash(table.table, "campaign setup", system="d20-check", gm_role=table.gm_role)
    assert done.response is not None and "Campaign created" in done.response.content


# --- point 6: GM copies go to today's GMs -----------------------------------------------------


async def test_a_moderator_who_lost_manage_server_gets_no_dm_copy(table: Table) -> None:
    mod, mods = moderator(table)
    await setup_without_gm_channel(table, mod)  # the moderator is the GM of setup
    take(table, mod, mods)
    total, result = await blind_total(table, table.alice)
    assert total not in dms(mod)
    notes = "\n".join(message_text(m) for m in result.followups)
    assert "could not be delivered" in notes
    assert "reliable way" in notes and "/campaign set gm-channel" in notes
    # And they are no longer a candidate at all.
    campaign = await campaign_of(table, table.guild.id, table.table.id)
    assert mod.id not in campaign.gm_user_ids


async def test_a_gm_who_lost_the_gm_role_gets_no_dm_copy_but_the_others_do(table: Table) -> None:
    await setup_without_gm_channel(table, table.admin)
    give(table, table.bob, table.gm_role)
    for gm in (table.gm, table.bob):  # both act as GM once: the bot now knows them
        shown = await gm.slash(table.table, "campaign show")
        assert shown.response is not None
    take(table, table.gm, table.gm_role)
    total, _ = await blind_total(table, table.alice)
    assert total not in dms(table.gm)
    assert total in dms(table.bob) and total in dms(table.admin)


async def test_a_member_who_gained_the_gm_role_and_acted_gets_the_copy(table: Table) -> None:
    await setup_without_gm_channel(table, table.admin)
    first, _ = await blind_total(table, table.alice)
    assert first not in dms(table.bob)
    give(table, table.bob, table.gm_role)
    listed = await table.bob.slash(table.table, "character list")
    assert listed.response is not None
    total, _ = await blind_total(table, table.alice)
    assert total in dms(table.bob)
    assert first not in dms(table.bob)  # nothing from before they were a GM


async def test_a_gm_role_holder_who_rolls_as_gm_gets_later_copies(table: Table) -> None:
    await setup_without_gm_channel(table, table.admin)
    own = await table.gm.slash(table.table, "gm roll", dice="1d20", secret="blind")
    assert own.response is not None
    total, _ = await blind_total(table, table.alice)
    assert total in dms(table.gm)


async def test_after_import_into_another_server_no_old_recipient_gets_copies(
    table: Table,
) -> None:
    mod, _ = moderator(table)
    await setup_without_gm_channel(table, mod)
    await table.gm.slash(table.table, "campaign show")  # known as GM in the old server
    old = await campaign_of(table, table.guild.id, table.table.id)
    assert {mod.id, table.gm.id} <= set(old.gm_user_ids)
    exported = await export_campaigns(table.bot.db, campaign_id=old.id)

    # The new server: the same moderator has Manage Server there too, the old GM is a member.
    env = table.env
    elsewhere = env.create_guild("Elsewhere", owner=env.create_user("owner2"))
    mods2 = elsewhere.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    channel = elsewhere.create_text_channel("table")
    mod2 = elsewhere.add_member(mod.user, roles=[mods2])
    gm2 = elsewhere.add_member(table.gm.user)
    alice2 = elsewhere.add_member(table.alice.user)
    [moved] = await import_campaigns(
        table.bot.db, exported, guild_id=elsewhere.id, channel_id=channel.id
    )
    assert (await campaign_of(table, elsewhere.id, channel.id)).gm_user_ids == ()

    total, result = await blind_total(table, alice2, channel, elsewhere.id)
    assert total not in dms(mod2) and total not in dms(gm2)
    notes = "\n".join(message_text(m) for m in result.followups)
    assert "could not be delivered" in notes and "reliable way" in notes
    # The moderator acts there as a GM: from then on they get the copies.
    await mod2.slash(channel, "campaign show")
    later, _ = await blind_total(table, alice2, channel, elsewhere.id)
    assert later in dms(mod2)
    assert moved.guild_id == elsewhere.id


# --- point 6: Confirm checks the clicker at the click ---------------------------------------


async def test_a_gm_demoted_before_confirming_cannot_delete_the_campaign(table: Table) -> None:
    await setup_without_gm_channel(table, table.admin)
    asked = await table.gm.slash(table.table, "campaign delete")
    assert asked.response is not None and "Delete this campaign" in asked.response.content
    take(table, table.gm, table.gm_role)
    clicked = await table.gm.click(asked.response, label="Delete the campaign")
    assert clicked.response is not None
    assert "Only the campaign's GM" in message_text(clicked.response)
    assert "Campaign deleted" not in message_text(clicked.response)
    await campaign_of(table, table.guild.id, table.table.id)  # still there


async def test_a_gm_demoted_before_confirming_cannot_delete_a_players_character(
    table: Table,
) -> None:
    await setup_without_gm_channel(table, table.admin)
    await make_character(table, table.alice, "Ayla", {"DEX": 14})
    asked = await table.gm.slash(table.table, "character delete", name="Ayla")
    assert asked.response is not None and "Delete **Ayla**" in asked.response.content
    take(table, table.gm, table.gm_role)
    clicked = await table.gm.click(asked.response, label="Delete Ayla")
    assert clicked.response is not None
    assert "only they or the GM" in message_text(clicked.response)
    campaign = await campaign_of(table, table.guild.id, table.table.id)
    assert [c.name for c in await characters.list_characters(table.bot.db, campaign.id)] == ["Ayla"]


# --- point 7: guard rails ---------------------------------------------------------------------


async def test_a_gm_channel_non_gms_can_read_is_refused_a_private_one_accepted(
    table: Table,
) -> None:
    await setup_without_gm_channel(table, table.admin)
    guild, bot_user = table.guild, table.bot.user
    assert bot_user is not None
    hidden = discord.PermissionOverwrite(view_channel=False)
    shown = discord.PermissionOverwrite(view_channel=True)
    players = guild.create_role("Players")
    mods = guild.create_role("Mods", permissions=discord.Permissions(manage_guild=True))
    readable = {
        "everyone": guild.create_text_channel("lobby"),
        "role": guild.create_text_channel(
            "players-too",
            overwrites={guild.default_role: hidden, table.gm_role: shown, players: shown},
        ),
        "member": guild.create_text_channel(
            "alice-too",
            overwrites={guild.default_role: hidden, table.gm_role: shown, table.alice.user: shown},
        ),
    }
    for why, channel in readable.items():
        refused = await table.gm.slash(table.table, "campaign set gm-channel", channel=channel)
        text = message_text(refused.followups[-1] if refused.followups else refused.response)
        assert refused.ephemeral and "Not set" in text and "force:True" in text, (why, text)
        assert {
            "everyone": "@everyone",
            "role": f"<@&{players.id}>",
            "member": f"<@{table.alice.id}>",
        }[why] in text
        campaign = await campaign_of(table, guild.id, table.table.id)
        assert campaign.gm_channel_id is None, why

    # Only GMs (by role, by Manage Server, by a personal overwrite) and the bot: accepted.
    private = guild.create_text_channel(
        "gm-only",
        overwrites={
            guild.default_role: hidden,
            table.gm_role: shown,
            mods: shown,
            table.admin.user: shown,
            bot_user: discord.PermissionOverwrite(view_channel=True, send_messages=True),
        },
    )
    done = await table.gm.slash(table.table, "campaign set gm-channel", channel=private)
    assert done.response is not None
    assert "Setting saved" in done.response.content and "Warning" not in done.response.content
    assert (await campaign_of(table, guild.id, table.table.id)).gm_channel_id == private.id


async def test_a_forced_gm_channel_is_set_with_a_warning(table: Table) -> None:
    await setup_without_gm_channel(table, table.admin)
    lobby = table.guild.create_text_channel("lobby")
    done = await table.gm.slash(table.table, "campaign set gm-channel", channel=lobby, force=True)
    assert done.ephemeral and done.response is not None
    text = done.response.content
    assert "Setting saved" in text and "Warning" in text and "@everyone" in text
    assert (await campaign_of(table, table.guild.id, table.table.id)).gm_channel_id == lobby.id


async def test_everyone_cannot_be_a_gm_role(table: Table) -> None:
    everyone = table.guild.default_role
    refused = await table.admin.slash(
        table.table, "campaign setup", system="d20-check", gm_role=everyone
    )
    assert refused.response is not None and "@everyone cannot be a GM role" in (
        refused.response.content
    )
    with pytest.raises(NoCampaign):  # nothing was created
        await campaign_of(table, table.guild.id, table.table.id)
    await setup_without_gm_channel(table, table.admin)
    refused = await table.gm.slash(table.table, "campaign set gm-role", role=everyone)
    assert refused.ephemeral and refused.response is not None
    assert "@everyone cannot be a GM role" in refused.response.content
    campaign = await campaign_of(table, table.guild.id, table.table.id)
    assert campaign.gm_role_ids == (table.gm_role.id,)
    # Alice (no GM role) is still no GM.
    denied = await table.alice.slash(table.table, "campaign set crit-rules", on=True)
    assert denied.response is not None and "Only the campaign's GM" in denied.response.content


async def test_setup_with_a_gm_channel_non_gms_can_read_warns(table: Table) -> None:
    done = await table.admin.slash(
        table.table,
        "campaign setup",
        system="d20-check",
        gm_role=table.gm_role,
        gm_channel=table.gm_channel,  # no overwrites: everyone can read it
    )
    assert done.response is not None and "Campaign created" in done.response.content
    assert "Warning" in done.response.content and "@everyone" in done.response.content
