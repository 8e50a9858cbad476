"""Where play by post happens: every place a campaign covers, with the permissions the invite
asks for, and what happens when a post does not get through.

The places: the campaign's channel, a public and a private thread of it, a forum post (the
campaign set up in a forum), a thread Discord archived after a quiet day, and a thread made
after the campaign. The bot posts on its own there when the game clock runs: a turn passing
at its deadline, a roll request's reminder and its verdict at the deadline, a round revealed
at its deadline. Discord's thread rules SimCord lacks are added by
:func:`tests.fixtures.places.discord_thread_rules`.
"""

from __future__ import annotations

from typing import Any

import discord
import pytest
from simcord.builders import ChannelHandle
from simcord.enums import ChannelType
from sqlalchemy import select

from bot.db.models import scheduled_jobs
from bot.permissions import bot_permissions
from tests.fixtures.places import (
    KINDS,
    archive,
    bot_id,
    is_archived,
    open_forum_post,
    open_thread,
    restrict_bot,
)
from tests.fixtures.table import Table, final_answer, message_text

HOUR = 3600.0
pytestmark = pytest.mark.usefixtures("discord_thread_rules")


async def character(table: Table, place: ChannelHandle, player: Any, name: str) -> None:
    made = await player.slash(place, "character create", name=name)
    assert made.response is not None and name in made.response.content, made
    done = await player.slash(place, "character set", ability="DEX", value=14, character=name)
    assert done.response is not None and "Score saved" in done.response.content


async def world(
    table: Table, kind: str, permissions: discord.Permissions | None = None
) -> ChannelHandle:
    """A d20-check campaign of two characters, and the place of ``kind`` where it plays; the
    bot holds ``permissions`` (default: the invite's) in the campaign's channel and the GM
    channel."""
    permissions = permissions or bot_permissions()
    restrict_bot(table, table.gm_channel, permissions)
    if kind == "forum post":
        forum = table.guild.create_forum_channel("scenes")
        restrict_bot(table, forum, permissions)
        first = open_forum_post(table, forum, "Session zero")
        home = first
    else:
        restrict_bot(table, table.table, permissions)
        home = table.table
    done = await table.admin.slash(
        home,
        "campaign setup",
        system="d20-check",
        gm_role=table.gm_role,
        gm_channel=table.gm_channel,
    )
    assert "Campaign created" in message_text(final_answer(done)), message_text(final_answer(done))
    await character(table, home, table.alice, "Ann")
    await character(table, home, table.bob, "Bo")
    if kind == "forum post":
        return open_forum_post(table, forum, "The ambush")
    if kind == "channel":
        return table.table
    return open_thread(table, table.table, "The ambush", private=kind == "private thread")


async def clock_notices(table: Table, place: ChannelHandle, kind: str) -> dict[str, bool]:
    """A turn order, a roll request and a round with deadlines in ``place``; each falls due
    (an archived thread is archived before); which of the bot's posts are there after."""
    started = await table.gm.slash(place, "turns start", characters="Ann, Bo", deadline="1h")
    assert not final_answer(started).ephemeral, message_text(final_answer(started))
    asked = await table.gm.slash(
        place,
        "gm request roll",
        ability="DEX",
        characters="Ann, Bo",
        dc=10,
        deadline="3h",
        default="skip",
        remind="2h",
    )
    assert not final_answer(asked).ephemeral, message_text(final_answer(asked))
    opened = await table.gm.slash(place, "gm round open", deadline="90m")
    assert not final_answer(opened).ephemeral, message_text(final_answer(opened))
    await table.alice.slash(place, "declare", text="I draw steel.")
    if kind == "archived thread":
        archive(table, place)
    await table.env.advance_time(4 * HOUR)
    texts = [message_text(m) for m in place.history() if m.author.id == bot_id(table)]
    return {
        "turn passed": any("Time is up for **Ann**" in t for t in texts),
        "round revealed": any("revealed at its deadline" in t for t in texts),
        "reminder": any("reminder: the GM is waiting for Bo" in t for t in texts),
        "request closed": any("closed at its deadline" in t for t in texts),
    }


@pytest.mark.parametrize("kind", KINDS)
async def test_clock_notices_reach_every_place_with_the_invites_permissions(
    table: Table, kind: str
) -> None:
    if kind == "thread made later":
        place = await world(table, "channel")
        place = open_thread(table, table.table, "Later, in the crypt")
    else:
        place = await world(table, kind)
    posted = await clock_notices(table, place, kind)
    assert all(posted.values()), posted
    if kind == "archived thread":
        assert not is_archived(table, place)  # posting reopened it, as on Discord
    # Every notice job is marked delivered; nothing was kept as undelivered.
    from bot.db.delivery_models import undelivered_notices

    async with table.bot.db.engine.connect() as conn:
        states = set((await conn.execute(select(scheduled_jobs.c.delivery))).scalars())
        kept = (await conn.execute(select(undelivered_notices.c.id))).all()
    assert states <= {"delivered", None} and "delivered" in states, states
    assert kept == []


async def _gm_notes(table: Table) -> list[str]:
    return [
        message_text(m)
        for m in table.gm_channel.history()
        if m.author.id == bot_id(table) and "I could not post" in message_text(m)
    ]


async def test_a_refused_notice_is_kept_shown_in_catchup_and_gm_log_and_told_to_the_gm_once(
    table: Table,
) -> None:
    without = bot_permissions()
    without.send_messages_in_threads = False
    place = await world(table, "public thread", without)
    await table.gm.slash(place, "turns start", characters="Ann, Bo", deadline="1h")
    await table.env.advance_time(2.5 * HOUR)  # two turns pass by themselves, both refused
    assert not any("Time is up" in message_text(m) for m in place.history())
    notes = await _gm_notes(table)
    assert len(notes) == 1, notes  # once, not per notice
    assert f"<#{place.id}>" in notes[0] and "**Send Messages in Threads**" in notes[0]
    assert (
        f"give {table.bot.user.name} **Send Messages in Threads** in <#{table.table.id}>"
        in (notes[0])
    )
    async with table.bot.db.engine.connect() as conn:
        states = list((await conn.execute(select(scheduled_jobs.c.delivery))).scalars())
    assert states.count("undelivered") == 2, states

    shown = final_answer(await table.bob.slash(place, "catchup"))
    assert shown.ephemeral
    assert "Not posted: the notice that time is up in turn order #1" in shown.content
    assert "Send Messages in Threads" in shown.content
    log = final_answer(await table.gm.slash(table.table, "gm log"))
    assert "Not posted" in message_text(log) and f"<#{place.id}>" in message_text(log)

    # Fixed: the next notice gets through; broken again later: the GM is told again.
    restrict_bot(table, table.table, bot_permissions())
    await table.env.advance_time(HOUR)
    assert any("Time is up" in message_text(m) for m in place.history())
    restrict_bot(table, table.table, without)
    await table.env.advance_time(HOUR)
    assert len(await _gm_notes(table)) == 2


async def test_a_locked_thread_is_reported_not_skipped(table: Table) -> None:
    place = await world(table, "public thread")
    await table.gm.slash(place, "turns start", characters="Ann, Bo", deadline="1h")
    archive(table, place, locked=True)
    await table.env.advance_time(1.5 * HOUR)
    notes = await _gm_notes(table)
    assert len(notes) == 1 and "is locked" in notes[0] and "Unlock" in notes[0], notes


async def test_a_deleted_thread_is_reported_not_skipped(table: Table) -> None:
    place = await world(table, "public thread")
    await table.gm.slash(
        place, "gm request roll", ability="DEX", characters="Ann", dc=10, deadline="1h"
    )
    table.env.backend.delete_channel(place.id)
    await table.env.advance_time(1.5 * HOUR)
    notes = await _gm_notes(table)
    assert len(notes) == 1 and "no longer exists" in notes[0], notes
    assert "the verdict of roll request #1" in notes[0]


async def test_transient_failures_are_retried_with_backoff_then_kept(table: Table) -> None:
    place = await world(table, "public thread")
    table.env.inject_error("POST", f"/channels/{place.id}/messages", status=500, times=2)
    await table.gm.slash(place, "turns start", characters="Ann, Bo", deadline="1h")
    await table.env.advance_time(HOUR + 60)
    passed = [m for m in place.history() if "Time is up" in message_text(m)]
    assert len(passed) == 1  # the third try got through, once
    assert await _gm_notes(table) == []

    table.env.inject_error("POST", f"/channels/{place.id}/messages", status=503, times=None)
    await table.env.advance_time(HOUR)
    notes = await _gm_notes(table)
    assert len(notes) == 1 and "Discord did not answer" in notes[0], notes
    tries = [
        r
        for r in table.env.http_requests
        if r.method == "POST" and r.path.endswith(f"{place.id}/messages")
    ]
    assert len(tries) >= 3 + 4  # 3 for the first notice, 4 (1 + 3 retries) for the second


async def test_the_gm_copy_reaches_the_gm_by_dm_when_the_gm_channel_refuses(table: Table) -> None:
    without = bot_permissions()
    without.send_messages = False
    await world(table, "channel")
    restrict_bot(table, table.gm_channel, without)
    for _ in range(3):
        await table.alice.slash(table.table, "roll", dice="1d20", secret="blind")
    # The server owner set the campaign up: a known GM, who gets the copies by DM instead.
    backend = table.env.backend
    dm_id = backend.dm_channels.get(table.admin.id)
    assert dm_id is not None
    texts = [m.content or "" for m in backend.messages[dm_id].values()]
    assert sum("Hidden roll by" in t for t in texts) == 3  # every copy, by DM
    notes = [t for t in texts if "I could not post" in t]
    assert len(notes) == 1 and "**Send Messages**" in notes[0], notes  # why, once
    assert f"<#{table.gm_channel.id}>" in notes[0]
    log = final_answer(await table.gm.slash(table.table, "gm log"))
    assert "GM channel (sent by DM instead)" in message_text(log)


def _field(embed: Any, place: ChannelHandle) -> str:
    found = [f.value for f in embed.fields if (f.value or "").startswith(f"<#{place.id}>\n")]
    assert len(found) == 1, [f.value for f in embed.fields]
    return str(found[0])


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
