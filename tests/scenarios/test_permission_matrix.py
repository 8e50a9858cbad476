"""The permission matrix: each place a campaign covers × each permission the bot uses, removed
one at a time × each feature that posts. In every cell the feature works, or works in a
plainer form and the right person is told, or does not work and the right person is told
(the GM for what the bot posts by itself, the player for what they asked for). Nothing fails
silently.

6 places × 6 permissions × 5 features = 180 cells, played in SimCord (36 worlds, one per
place and missing permission, each playing the five features). :data:`EXPECTED` says which
cells are not plain "works", and the test holds every cell to it.
"""

from __future__ import annotations

from typing import Any

import discord
import pytest
from simcord.builders import ChannelHandle

from bot.permissions import OPTIONAL, REQUIRED, bot_permissions
from tests.fixtures.places import (
    KINDS,
    archive,
    bot_id,
    open_forum_post,
    open_thread,
    restrict_bot,
)
from tests.fixtures.table import Table, final_answer, message_text

HOUR = 3600.0
PERMISSIONS = (*REQUIRED, *OPTIONAL)
FEATURES = (
    "command answers",
    "hidden stubs and GM copies",
    "clock notices",
    "webhook posts",
    "context menu",
)
THREADS = tuple(k for k in KINDS if k != "channel")

#: Outcomes: ``works``; ``plainer`` (it works in a plainer form: a GM copy by DM, a notice as
#: plain text, a post as the bot's embed; the right person is told why); ``told`` (it does
#: not happen; the right person is told where, why and the fix).
WORKS, PLAINER, TOLD = "works", "plainer", "told"


def expected(kind: str, removed: str, feature: str) -> str:
    """What each cell should show: the rules of docs/deploying.md, "Permissions"."""
    in_thread = kind != "channel"
    if feature in ("command answers", "context menu"):
        return WORKS  # Discord checks no permission of the bot for an interaction's answers
    if feature == "hidden stubs and GM copies":
        # The stub is an answer; the GM copy goes to #gm, a channel, missing the same.
        if removed in ("view_channel", "send_messages", "embed_links"):
            return PLAINER
        return WORKS
    if feature == "clock notices":
        send = "send_messages_in_threads" if in_thread else "send_messages"
        if removed in ("view_channel", send):
            return TOLD
        if removed == "embed_links":
            return PLAINER
        return WORKS
    if feature == "webhook posts":
        return PLAINER if removed in ("manage_webhooks", "view_channel") else WORKS
    raise AssertionError(feature)


EXPECTED = {
    (kind, removed, feature): expected(kind, removed, feature)
    for kind in KINDS
    for removed in PERMISSIONS
    for feature in FEATURES
}


def _dm_texts(table: Table, member: Any) -> list[str]:
    channel_id = table.env.backend.dm_channels.get(member.id)
    if channel_id is None:
        return []
    return [m.content or "" for m in table.env.backend.messages[channel_id].values()]


def _gm_told(table: Table, seen: int, place: ChannelHandle) -> bool:
    """A note since ``seen`` (the count of notes before), in #gm or the known GM's DMs, that
    names ``place`` or the GM channel, the problem and the fix."""
    notes = [
        message_text(m)
        for m in table.gm_channel.history()
        if m.author.id == bot_id(table) and "I could not post" in message_text(m)
    ] + [t for t in _dm_texts(table, table.admin) if "I could not post" in t]
    return len(notes) > seen and "To fix it," in notes[-1]


def _notes(table: Table) -> int:
    return sum("I could not post" in message_text(m) for m in table.gm_channel.history()) + sum(
        "I could not post" in t for t in _dm_texts(table, table.admin)
    )


async def _world(table: Table, kind: str, permissions: discord.Permissions) -> ChannelHandle:
    restrict_bot(table, table.gm_channel, permissions)
    if kind == "forum post":
        forum = table.guild.create_forum_channel("scenes")
        restrict_bot(table, forum, permissions)
        home = open_forum_post(table, forum, "Session zero")
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
    assert "Campaign created" in message_text(final_answer(done))
    for player, name in ((table.alice, "Ann"), (table.bob, "Bo")):
        await player.slash(home, "character create", name=name)
        await player.slash(home, "character set", ability="DEX", value=14, character=name)
    if kind == "forum post":
        return open_forum_post(table, forum, "The ambush")
    if kind == "channel":
        return table.table
    return open_thread(table, table.table, "The ambush", private=kind == "private thread")


async def _cells(table: Table, kind: str, removed: str) -> dict[str, str]:
    permissions = bot_permissions()
    setattr(permissions, removed, False)
    place = await _world(table, kind, permissions)
    found: dict[str, str] = {}

    def quiet() -> None:
        if kind == "archived thread":
            archive(table, place)  # a day of quiet before each step

    # Command answers.
    quiet()
    answered = final_answer(await table.alice.slash(place, "check", ability="DEX"))
    found["command answers"] = WORKS if "DEX" in message_text(answered) else "FAILED"

    # A hidden roll: its stub here, its GM copy in #gm (or by DM, with the reason).
    quiet()
    seen = _notes(table)
    stub = final_answer(await table.alice.slash(place, "roll", dice="1d20", secret="blind"))
    in_gm = [m for m in table.gm_channel.history() if "Hidden roll by" in message_text(m)]
    by_dm = [t for t in _dm_texts(table, table.admin) if "Hidden roll by" in t]
    if "Commitment" not in message_text(stub):
        found["hidden stubs and GM copies"] = "FAILED"
    elif in_gm and in_gm[-1].embeds:
        found["hidden stubs and GM copies"] = WORKS
    elif (in_gm or by_dm) and _gm_told(table, seen, place):
        found["hidden stubs and GM copies"] = PLAINER
    else:
        found["hidden stubs and GM copies"] = "FAILED"

    # A clock notice: a turn passes at its deadline, here.
    quiet()
    await table.gm.slash(place, "turns start", characters="Ann, Bo", deadline="1h")
    quiet()
    seen = _notes(table)
    await table.env.advance_time(HOUR + 60)
    posted = [m for m in place.history() if "Time is up" in message_text(m)]
    if posted and posted[-1].embeds:
        found["clock notices"] = WORKS
    elif posted and _gm_told(table, seen, place):
        found["clock notices"] = PLAINER
    elif not posted and _gm_told(table, seen, place):
        found["clock notices"] = TOLD
    else:
        found["clock notices"] = "FAILED"
    await table.gm.slash(place, "turns end")

    # /post: through the webhook, or as the bot's embed with the poster told why.
    quiet()
    done = await table.alice.slash(place, "post", text="Ann draws steel.")
    confirm = final_answer(done)
    as_hook = [m for m in place.history() if m.webhook_id and "Ann draws" in (m.content or "")]
    as_embed = [
        m for m in place.history() if m.embeds and "Ann draws" in (m.embeds[0].description or "")
    ]
    if as_hook and "Posted as" in confirm.content:
        found["webhook posts"] = WORKS
    elif as_embed and any(
        "Manage Webhooks" in (m.content or "") for m in [confirm, *done.followups] if m
    ):
        found["webhook posts"] = PLAINER
    else:
        found["webhook posts"] = "FAILED"

    # The context menu on one's own message.
    quiet()
    said = await table.alice.send(place, "I try [[1d20+2]]")
    menu = final_answer(
        await table.alice.context_menu(place, "Roll the dice in this message", said)
    )
    found["context menu"] = WORKS if "rolls the dice in" in menu.content else "FAILED"
    return found


@pytest.mark.usefixtures("discord_thread_rules")
@pytest.mark.parametrize("removed", PERMISSIONS)
@pytest.mark.parametrize("kind", KINDS)
async def test_each_place_without_each_permission(table: Table, kind: str, removed: str) -> None:
    found = await _cells(table, kind, removed)
    wanted = {feature: EXPECTED[kind, removed, feature] for feature in FEATURES}
    assert found == wanted


def test_the_matrix_size_and_its_plainer_and_told_cells() -> None:
    assert len(EXPECTED) == 180
    not_plain = {cell: outcome for cell, outcome in EXPECTED.items() if outcome != WORKS}
    # Summarised in the note: which cells degrade, and how.
    assert sum(o == PLAINER for o in not_plain.values()) == 36
    assert sum(o == TOLD for o in not_plain.values()) == 12
