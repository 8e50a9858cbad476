"""/campaign check: what the bot can and cannot do in each place of the campaign and the fix for
each gap, also shown to the GM at the end of /campaign setup.

Tests bot/cogs/campaign/_check.py.
"""

from __future__ import annotations

import pytest
from simcord.enums import ChannelType

from bot.permissions import bot_permissions
from tests.fixtures.places import (
    open_thread,
    restrict_bot,
)
from tests.fixtures.table import Table, final_answer
from tests.scenarios.test_places import _field, world

#: Discord's thread rules SimCord lacks (tests/fixtures/places.py).
pytestmark = pytest.mark.usefixtures("discord_thread_rules")


async def test_campaign_check_lists_each_place_what_fails_there_and_the_fix(table: Table) -> None:
    without = bot_permissions()
    without.send_messages_in_threads = False
    await world(table, "channel", without)
    scene = open_thread(table, table.table, "The ambush")
    whisper = table.env.backend.create_thread(
        table.table.id, "Whispers", table.alice.id, type=ChannelType.PRIVATE_THREAD
    )  # a private thread the bot was never added to
    result = await table.gm.slash(scene, "campaign check")
    shown = final_answer(result)
    assert shown.ephemeral
    embed = shown.embeds[0]
    name = table.bot.user.name
    here = _field(embed, scene)
    assert "❌ post clock notices, verdicts and reveals: lacks **Send Messages in Threads**" in here
    assert f"Fix: give {name} **Send Messages in Threads** in <#{table.table.id}>" in here
    home = _field(embed, table.table)
    assert "❌ post them in its threads: lacks **Send Messages in Threads**" in home
    gm = _field(embed, table.gm_channel)
    assert "✅ see it; post GM copies of hidden rolls; show them as embeds" in gm
    private = next(f.value for f in embed.fields if (f.value or "").startswith(f"<#{whisper.id}>"))
    assert f"is a private thread I am not in. Fix: add {name} to the thread" in private
    # A player may not run it.
    refused = final_answer(await table.bob.slash(scene, "campaign check"))
    assert refused.ephemeral and "Only the campaign's GM" in refused.content


async def test_campaign_setup_ends_with_the_check_for_the_gm(table: Table) -> None:
    without = bot_permissions()
    without.embed_links = False
    restrict_bot(table, table.table, without)
    done = await table.admin.slash(
        table.table, "campaign setup", system="d20-check", gm_channel=table.gm_channel
    )
    checks = [m for m in done.followups if m.embeds and m.ephemeral]
    assert len(checks) == 1, done
    field = _field(checks[0].embeds[0], table.table)
    assert "❌ show them as embeds: lacks **Embed Links**" in field
