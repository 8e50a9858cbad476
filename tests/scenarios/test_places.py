"""Where play by post happens: every place a campaign covers, with the permissions the invite
asks for, and what happens when a post does not get through.

The places: the campaign's channel, a public and a private thread of it, a forum post (the
campaign set up in a forum), a thread Discord archived after a quiet day, and a thread made
after the campaign. The bot posts on its own there when the game clock runs: a turn passing
at its deadline, a roll request's reminder and its verdict at the deadline, a round revealed
at its deadline. Discord's thread rules SimCord lacks are added by
:func:`tests.fixtures.places.discord_thread_rules`.

Tests bot/cogs/_places.py and bot/render/places.py.
"""

from __future__ import annotations

from typing import Any

import discord
import pytest
from simcord.builders import ChannelHandle
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


def _field(embed: Any, place: ChannelHandle) -> str:
    found = [f.value for f in embed.fields if (f.value or "").startswith(f"<#{place.id}>\n")]
    assert len(found) == 1, [f.value for f in embed.fields]
    return str(found[0])
