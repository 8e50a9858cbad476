"""Big parties: /groupsave, /groupcheck and roll requests for 6, 21 and 100 characters.

Up to 20 characters a group message gives each one a field; past that it names them by result
(failures first) and attaches the full table. Every request the bot sends stays within
Discord's limits (checked against the documented limits, not SimCord's validation), in a
channel, a thread and a forum post, with the permissions the invite asks for.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from simcord.actors import MemberActor
from simcord.builders import ChannelHandle

from bot.services.kit.context import Caller
from bot.services.store import characters
from bot.services.trust import access
from tests.fixtures.table import SEED, Table, final_answer, message_text, start_campaign
from tests.scenarios import test_secrecy_differential as differential
from tests.scenarios.test_discord_limits import limit_problems
from tests.scripted import ScriptedRandom

SIZES = (6, 21, 100)
pytestmark = pytest.mark.usefixtures("discord_thread_rules")


async def big_party(
    table: Table,
    size: int,
    scores: dict[str, int],
    place: ChannelHandle | None = None,
) -> list[tuple[MemberActor, str]]:
    """``size`` players, each with one character (``Hero 001`` …) in the party of the
    campaign of ``place`` (set up already), made through the services (the commands that
    make one character are tested elsewhere; a hundred of them would only be slow)."""
    where = place or table.table
    parent = table.env.backend.channels[where.id].parent_id
    caller = Caller(
        user_id=table.gm.id,
        channel_id=where.id,
        guild_id=table.guild.id,
        parent_channel_id=parent,
    )
    campaign = await access.campaign_here(table.bot.db, caller)
    made: list[tuple[MemberActor, str]] = []
    for n in range(1, size + 1):
        player = table.guild.add_member(table.env.create_user(f"player{n:03d}"))
        name = f"Hero {n:03d}"
        character = await characters.create_character(table.bot.db, campaign.id, player.id, name)
        for ability, value in scores.items():
            await characters.set_score(table.bot.db, character.id, ability, value)
        made.append((player, name))
    await characters.party_add_all(table.bot.db, campaign.id)
    return made


def sent_since(table: Table, cursor: int) -> list[str]:
    """Every way the bot's requests since ``cursor`` broke one of Discord's limits."""
    problems: list[str] = []
    for request in table.env.http_requests[cursor:]:
        problems += limit_problems(request.json, f"{request.method} {request.path}")
    return problems


async def attached_text(message: Any) -> str:
    """The text of the one file attached to ``message`` ("" if none)."""
    files = list(message.attachments)
    if not files:
        return ""
    assert len(files) == 1, files
    return bytes(await files[0].read()).decode()


@pytest.mark.parametrize("size", SIZES)
async def test_a_group_save_of_any_party_size_fits_and_lists_everyone(
    table: Table, size: int
) -> None:
    await start_campaign(table, "d20-check")
    party = await big_party(table, size, {"CON": 10})
    # Every odd member fails (d20 2 against DC 12), every even one succeeds (d20 15).
    table.dice(*[2 if n % 2 else 15 for n in range(1, size + 1)])
    cursor = len(table.env.http_requests)
    result = await table.gm.slash(table.table, "groupsave", ability="CON", dc=12)
    shown = final_answer(result)
    assert not shown.ephemeral, message_text(shown)
    assert sent_since(table, cursor) == []
    text = message_text(shown)
    passed = size // 2
    assert f"{passed} of {size} succeeded" in text
    table_text = await attached_text(shown)
    if size <= 20:
        assert table_text == ""  # every member in their own field, with their player
        for player, name in party:
            assert f"{name}: <@{player.id}> · d20 **" in text
    else:
        assert f"Failure · {size - passed}" in text and f"Success · {passed}" in text
        assert "Hero 001" in text  # the failures come first
        lines = table_text.splitlines()
        word = "Success" if 2 * passed >= size else "Failure"
        needed = (size + 1) // 2
        verdict = f"Group {word}: {passed} of {size} succeeded ({needed} needed)"
        assert f"Group result: {verdict}" in lines
        for n, (_, name) in enumerate(party, start=1):
            verdict = "Failure" if n % 2 else "Success"
            dice = 2 if n % 2 else 15
            assert f"{name}: d20 {dice} +0 CON = {dice} → {verdict}" in lines


@pytest.mark.parametrize("size", SIZES)
async def test_a_group_check_of_any_party_size_fits(table: Table, size: int) -> None:
    await start_campaign(table, "d20-check")
    party = await big_party(table, size, {"WIS": 12})
    table.dice(*[20] * size)
    cursor = len(table.env.http_requests)
    result = await table.gm.slash(table.table, "groupcheck", ability="WIS", dc=10)
    shown = final_answer(result)
    assert not shown.ephemeral and sent_since(table, cursor) == []
    assert f"{size} of {size} succeeded" in message_text(shown)
    if size > 20:
        assert f"{party[-1][1]}: d20 20 +1 WIS = 21 → Success" in await attached_text(shown)


async def test_a_roll_under_party_of_100_is_counted_not_named_in_the_verdict(
    table: Table,
) -> None:
    await start_campaign(table, "roll-under")
    await big_party(table, 100, {"STR": 9})
    table.dice(9)  # the one shared d20: everyone passes on ≤ 9
    result = await table.gm.slash(table.table, "groupsave", ability="STR")
    text = message_text(final_answer(result))
    assert "Pass: 100 of 100 · Fail: 0" in text
    history = await table.gm.slash(table.table, "history")
    assert "Pass: 100 of 100 · Fail: 0" in message_text(final_answer(history))


async def test_more_than_100_cannot_roll_together_and_nothing_is_recorded(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await big_party(table, 101, {"CON": 10})
    refused = await table.gm.slash(table.table, "groupsave", ability="CON", dc=12)
    assert refused.ephemeral
    assert "The party has 101 characters and at most 100" in refused.response.content
    history = await table.gm.slash(table.table, "history")
    assert "No rolls match" in message_text(final_answer(history))


def request_message(place: ChannelHandle) -> Any:
    """The latest roll request's own message in ``place`` (the one with the Roll button)."""
    return next(m for m in reversed(place.history()) if "asks for a roll" in (m.content or ""))


@pytest.mark.parametrize("size", SIZES)
async def test_a_roll_request_of_any_size_pings_everyone_and_fits(table: Table, size: int) -> None:
    await start_campaign(table, "d20-check")
    party = await big_party(table, size, {"DEX": 10})
    cursor = len(table.env.http_requests)
    asked = await table.gm.slash(table.table, "gm request roll", ability="DEX", dc=11)
    shown = final_answer(asked)
    assert not shown.ephemeral, message_text(shown)
    pinged = " ".join(m.content or "" for m in (shown, *asked.followups))
    assert all(f"<@{player.id}>" in pinged for player, _ in party)
    assert f"0 of {size} rolled" in message_text(request_message(table.table))
    # Every player rolls: odd ones fail (d20 3), even ones succeed (d20 18).
    for n, (player, name) in enumerate(party, start=1):
        table.dice(3 if n % 2 else 18)
        clicked = await player.click(request_message(table.table), label="Roll")
        if size > 20:  # the message lists names only: the roll is told to its player
            assert [m.content for m in clicked.followups] == [
                f"{name}: d20 {3 if n % 2 else 18} +0 DEX = {3 if n % 2 else 18} → "
                f"{'Failure' if n % 2 else 'Success'}"
            ]
    assert sent_since(table, cursor) == []
    final = request_message(table.table)
    text = message_text(final)
    passed = size // 2
    assert f"{passed} of {size} succeeded" in text
    if size > 20:
        assert f"Failure · {size - passed}" in text and "Waiting" not in text
        listed = await table.carol.click(final, label="Full list")
        assert listed.response is not None and listed.ephemeral
        rows = (await attached_text(listed.response)).splitlines()
        assert f"{party[1][1]}: d20 18 +0 DEX = 18 → Success" in rows
        assert len([r for r in rows if r.startswith("Hero ")]) == size
    else:
        assert not final.components  # everyone rolled: no button left


@pytest.mark.parametrize("kind", ["channel", "public thread", "forum post"])
async def test_a_request_of_100_closes_at_its_deadline_in_every_place(
    table: Table, kind: str
) -> None:
    home, place = await invite_world(table, kind)
    party = await big_party(table, 100, {"DEX": 10}, home)
    cursor = len(table.env.http_requests)
    asked = await table.gm.slash(
        place, "gm request roll", ability="DEX", dc=11, deadline="1h", default="roll", remind="30m"
    )
    assert not final_answer(asked).ephemeral, message_text(final_answer(asked))
    table.dice(18)
    await party[0][0].click(request_message(place), label="Roll")
    table.dice(*[3] * 99)
    await table.env.advance_time(2 * 3600)
    assert sent_since(table, cursor) == []
    texts = [message_text(m) for m in place.history()]
    assert any("closed at its deadline" in t and "and " in t for t in texts), texts[-3:]
    final = message_text(request_message(place))
    assert "1 of 100 succeeded" in final and "Failure · 99" in final
    assert any("reminder" in t and "Hero 100" in t for t in texts)


async def invite_world(table: Table, kind: str) -> tuple[ChannelHandle, ChannelHandle]:
    """A d20-check campaign set up in its home, playing in a place of ``kind``, the bot
    holding exactly the invite's permissions there and in the GM channel."""
    from bot.permissions import bot_permissions
    from tests.fixtures.places import open_forum_post, open_thread, restrict_bot

    restrict_bot(table, table.gm_channel, bot_permissions())
    if kind == "forum post":
        forum = table.guild.create_forum_channel("scenes")
        restrict_bot(table, forum, bot_permissions())
        home = open_forum_post(table, forum, "Session zero")
    else:
        restrict_bot(table, table.table, bot_permissions())
        home = table.table
    done = await table.admin.slash(
        home,
        "campaign setup",
        system="d20-check",
        gm_role=table.gm_role,
        gm_channel=table.gm_channel,
    )
    assert "Campaign created" in message_text(final_answer(done))
    if kind == "forum post":
        return home, home
    if kind == "channel":
        return home, home
    return home, open_thread(table, table.table, "The ambush")


async def player_sees(url: str, last_die: int) -> list[str]:
    """A fresh world with a hidden-DC request of 30: everyone rolls 10 but the last, who rolls
    ``last_die``; what a player (not the GM) sees of it: the message, their own note, the full
    list, with the last die's digits blanked (the dice are shown; pass/fail is not)."""
    async with differential._server(url, ScriptedRandom(seed=SEED)) as world:
        await start_campaign(world, "d20-check")
        party = await big_party(world, 30, {"DEX": 10})
        await world.gm.slash(world.table, "gm request roll", ability="DEX", hidden_dc=11)
        notes: list[str] = []
        for n, (player, _) in enumerate(party, start=1):
            world.dice(10 if n < len(party) else last_die)
            clicked = await player.click(request_message(world.table), label="Roll")
            notes += [m.content for m in clicked.followups]
        message = request_message(world.table)
        listed = await party[0][0].click(message, label="Full list")
        assert listed.response is not None and listed.ephemeral
        seen = [message_text(message), *notes, await attached_text(listed.response)]
    return [re.sub(r"(Hero 030: d20 )\d+( \+0 DEX = )\d+", r"\1N\2N", text) for text in seen]


async def test_a_hidden_dc_leaks_nothing_in_a_large_request(
    fresh_database: Callable[[], Awaitable[str]],
) -> None:
    # Two worlds differing only in the last die against hidden DC 11: 10 fails, 11 succeeds.
    failed = await player_sees(await fresh_database(), 10)
    passed = await player_sees(await fresh_database(), 11)
    assert "DC: hidden by the GM" in failed[0] and "Rolled · 30" in failed[0]
    assert "Hero 030: d20 N +0 DEX = N" in failed[-1]
    assert failed == passed
