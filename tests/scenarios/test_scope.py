"""Scope (docs/secret-rolls.md, "Who sees a roll later"): /verify, /reveal, /gm reveal, /history,
/gm log, /stats and the fortune reroll answer only about rolls made where the caller can read, by
Discord's permissions when they ask. A roll anywhere else gets the very answer a roll number never
used gets.

The world: #whisper, a private thread under the campaign channel #table that alice opened (its
rolls are the campaign's and share its numbers). bob reads #table only; the GM role has no
Manage Threads; the server owner (admin) has every permission. (A roll in a private channel
outside any campaign is numbered in that channel, so it is only ever looked up from inside it,
ledger v2: the threads are where a campaign's numbers reach places some members cannot read.)

Tests bot/cogs/_scope.py and bot/services/trust/scope.py.
"""

from __future__ import annotations

import re
from typing import Any

from simcord.actors import MemberActor
from simcord.enums import ChannelType
from sqlalchemy import func, select, update

from bot.db.models import campaigns, characters, ledger
from bot.services.store.campaigns import campaign_for_channel
from bot.services.store.ledger import NewRoll, Origin, get_roll, record
from bot.words import LedgerKind
from tests.fixtures.table import (
    Table,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)

UNUSED_ID = 999_999
#: Another server's snowflakes (the bot is not in it).
OLD_GUILD, OLD_CHANNEL = 1_300_000_000_000_000_001, 1_300_000_000_000_000_002


def _whisper(table: Table) -> Any:
    """#whisper: SimCord has no builder or actor verb that opens a thread, so its backend
    opens one as alice's Discord client would (THREAD_CREATE to the bot, alice its only
    member)."""
    thread = table.env.backend.create_thread(
        table.table.id, "whisper", table.alice.id, type=ChannelType.PRIVATE_THREAD
    )
    return next(t for t in table.table.threads if t.id == thread.id)


async def _world(table: Table) -> Any:
    await start_campaign(table, "d20-check")
    return _whisper(table)


async def _roll(table: Table, who: MemberActor, where: Any, dice: str, **options: Any) -> int:
    """``who`` rolls ``dice`` in ``where``; the roll's number, as its answer shows it."""
    result = await who.slash(where, "roll", dice=dice, **options)
    async with table.bot.db.sessionmaker() as session:
        last = await session.scalar(select(func.max(ledger.c.id)))
    assert last is not None and result.response is not None
    row = await get_roll(table.bot.db, int(last))
    assert f"#{row.number}" in message_text(result.response)
    # The tests compare /history's "#N" with these: every roll here is the campaign's, made
    # before any other, so its ledger id and its number in the campaign agree.
    assert row.id == row.number
    return row.number


def _answer(result: Any) -> tuple[str, list[dict[str, Any]], bool]:
    """Everything an answer shows: its text, its embeds, whether only the caller sees it."""
    shown = final_answer(result)
    return (shown.content, [embed.to_dict() for embed in shown.embeds], shown.ephemeral)


async def _no_such_roll(actor: MemberActor, where: Any, command: str) -> tuple[Any, ...]:
    """The answer to ``command roll:<a number never used>``."""
    return _answer(await actor.slash(where, command, roll=UNUSED_ID))


def _ids_in(result: Any) -> set[int]:
    """The roll numbers a /history or /gm log page lists."""
    return {int(n) for n in re.findall(r"\*\*#(\d+)\*\*", message_text(result.response))}


async def _history(actor: MemberActor, table: Table, command: str = "history") -> set[int]:
    result = await actor.slash(table.table, command, limit=25)
    assert result.ephemeral
    return _ids_in(result)


async def _d20s_of(actor: MemberActor, table: Table, player: MemberActor) -> str:
    """What /stats says of ``player``'s d20s to ``actor``."""
    result = await actor.slash(table.table, "stats", player=player)
    assert result.ephemeral
    return message_text(result.response)


# --- /verify, /reveal, /gm reveal: "No such roll", as for a number never used -----------------


async def test_verify_of_a_revealed_roll_in_a_private_thread_is_no_such_roll_to_outsiders(
    table: Table,
) -> None:
    whisper = await _world(table)
    roll = await _roll(table, table.alice, whisper, "1d20+1000", secret="self")
    shown = await table.alice.slash(whisper, "reveal", roll=roll)
    assert shown.response is not None and not shown.ephemeral

    outsider = _answer(await table.bob.slash(table.table, "verify", roll=roll))
    assert outsider == await _no_such_roll(table.bob, table.table, "verify")
    assert outsider[1:] == ([], True) and outsider[0].startswith("No such roll")
    # The GM role has no Manage Threads, and the GM is not in #whisper.
    assert _answer(await table.gm.slash(table.table, "verify", roll=roll)) == outsider
    reader = await table.alice.slash(table.table, "verify", roll=roll)
    assert "the commitment matches" in message_text(reader.response)


async def test_verify_and_reveal_of_a_roll_in_a_private_thread(table: Table) -> None:
    whisper = await _world(table)
    hidden = await _roll(table, table.alice, whisper, "1d20+1000", secret="self")
    missing = await _no_such_roll(table.bob, table.table, "reveal")
    assert _answer(await table.bob.slash(table.table, "reveal", roll=hidden)) == missing
    assert _answer(await table.bob.slash(table.table, "verify", roll=hidden)) == (
        await _no_such_roll(table.bob, table.table, "verify")
    )
    blind = await _roll(table, table.alice, whisper, "1d20+2000", secret="blind")
    # The GM has the blind roll's copy, but cannot read #whisper: /reveal would post what
    # was rolled there in #table.
    refused = _answer(await table.gm.slash(table.table, "reveal", roll=blind))
    assert refused == await _no_such_roll(table.gm, table.table, "reveal")
    # The server owner has Manage Threads, so reads every thread: the reveal goes through.
    shown = await table.admin.slash(table.table, "reveal", roll=blind)
    assert shown.response is not None and not shown.ephemeral
    assert str((await get_roll(table.bot.db, blind)).outcome["total"]) in message_text(
        shown.response
    )
    mine = await table.alice.slash(table.table, "reveal", roll=hidden)
    assert mine.response is not None and not mine.ephemeral


# --- /history, /gm log, /stats: rows from unreadable places are left out ----------------------


async def test_history_and_stats_leave_out_a_private_thread_to_those_outside_it(
    table: Table,
) -> None:
    whisper = await _world(table)
    in_table = await _roll(table, table.alice, table.table, "1d20")
    in_thread = {
        await _roll(table, table.alice, whisper, "1d20"),
        await _roll(table, table.alice, whisper, "1d20", secret="gm"),
    }

    assert await _history(table.bob, table) == {in_table}
    assert f"<@{table.alice.id}>: 1 d20," in await _d20s_of(table.bob, table, table.alice)
    assert await _history(table.alice, table) == {in_table, *in_thread}
    assert f"<@{table.alice.id}>: 3 d20s" in await _d20s_of(table.alice, table, table.alice)
    # bob's count says nothing of the hidden roll he could never read about either.
    assert "hidden rolls" not in await _d20s_of(table.bob, table, table.alice)


async def test_gm_log_shows_a_private_thread_only_to_a_gm_who_can_read_it(table: Table) -> None:
    whisper = await _world(table)
    in_table = await _roll(table, table.alice, table.table, "1d20")
    in_thread = await _roll(table, table.alice, whisper, "1d20", secret="blind")

    assert await _history(table.gm, table, "gm log") == {in_table}
    assert await _history(table.admin, table, "gm log") == {in_table, in_thread}
    table.env.backend.add_thread_member(whisper.id, table.gm.id)
    assert await _history(table.gm, table, "gm log") == {in_table, in_thread}


async def test_paging_stays_full_and_ordered_around_unreadable_rows(table: Table) -> None:
    whisper = await _world(table)
    readable = []
    for n in range(6):
        readable.append(await _roll(table, table.alice, table.table, f"1d4+{n}"))
        await _roll(table, table.alice, whisper, f"1d4+{n}")
    first = await table.bob.slash(table.table, "history", limit=4)
    assert _ids_in(first) == set(readable[2:])
    message = table.table.history(viewer=table.bob)[-1]
    await table.bob.click(message, label="Older")
    assert _ids_in_message(table.table.history(viewer=table.bob)[-1]) == set(readable[:2])


def _ids_in_message(message: Any) -> set[int]:
    return {int(n) for n in re.findall(r"\*\*#(\d+)\*\*", message_text(message))}


async def test_an_archived_private_thread_stays_closed_to_outsiders(table: Table) -> None:
    whisper = await _world(table)
    in_table = await _roll(table, table.alice, table.table, "1d20")
    in_thread = await _roll(table, table.alice, whisper, "1d20")
    # Play by post archives quiet threads; discord.py then drops them from its cache, which
    # must not make them look deleted (a deleted channel counts as the campaign's own).
    table.env.backend.edit_channel(whisper.id, {}, thread_metadata={"archived": True})
    assert table.bot.get_channel(whisper.id) is None

    assert await _history(table.bob, table) == {in_table}
    assert _answer(await table.bob.slash(table.table, "verify", roll=in_thread)) == (
        await _no_such_roll(table.bob, table.table, "verify")
    )
    assert await _history(table.alice, table) == {in_table, in_thread}


async def test_a_deleted_thread_is_the_gms_alone(table: Table) -> None:
    whisper = await _world(table)
    in_thread = await _roll(table, table.alice, whisper, "1d20")
    assert await _history(table.bob, table) == set()
    table.env.backend.delete_channel(whisper.id)
    # Whether the thread was private can no longer be asked: its rolls stay out of reach of
    # the players (even its own members now), and the GM keeps them.
    assert await _history(table.bob, table) == set()
    assert await _history(table.alice, table) == set()
    assert in_thread in await _history(table.gm, table)


# --- fortune dice ------------------------------------------------------------------------------


async def test_no_fortune_reroll_of_a_roll_in_a_thread_the_player_has_left(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 12})
    whisper = _whisper(table)
    given = await table.gm.slash(table.table, "fortune give", character="Angus")
    assert given.response is not None
    table.dice(2)
    attempt = await table.alice.slash(whisper, "check", ability="DEX")
    assert attempt.response is not None and not attempt.ephemeral
    table.env.backend.remove_thread_member(whisper.id, table.alice.id)

    table.dice(19)
    refused = await table.alice.slash(table.table, "fortune spend", purpose="reroll")
    assert refused.ephemeral
    assert "Reroll" not in message_text(refused.response)
    async with table.bot.db.sessionmaker() as session:
        kinds = list(await session.scalars(select(ledger.c.kind)))
        fortune = await session.scalar(
            select(characters.c.fortune).where(characters.c.name == "Angus")
        )
    assert "reroll" not in kinds and fortune == 1


async def test_a_moved_campaigns_old_rolls_read_as_its_channel_a_private_thread_still_not(
    table: Table,
) -> None:
    whisper = await _world(table)
    # A campaign moved here from another server (/campaign import) keeps where its rolls were
    # made: their server and channel are not this server's. Recorded as such a roll would be.
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    # As an import keeps it: the campaign still numbers under the channel it was set up in.
    async with table.bot.db.engine.begin() as connection:
        await connection.execute(
            update(campaigns).where(campaigns.c.id == campaign.id).values(ledger_scope=OLD_CHANNEL)
        )
    old = await record(
        table.bot.db,
        NewRoll(
            origin=Origin(channel_id=OLD_CHANNEL, user_id=table.alice.id, guild_id=OLD_GUILD),
            kind=LedgerKind.ROLL,
            request="/roll dice:1d20",
            dice=[{"sides": 20, "dice": [{"face": 7}]}],
            outcome={"total": 7, "label": None, "expression": "1d20"},
            campaign_id=campaign.id,
        ),
    )
    in_thread = await _roll(table, table.alice, whisper, "1d20")

    assert await _history(table.bob, table) == {old.number}
    public = await table.bob.slash(table.table, "verify", roll=old.number)
    assert "was public" in message_text(public.response)
    assert await _history(table.alice, table) == {old.number, in_thread}
    # What was rolled in another channel of the old server (a thread there, perhaps private)
    # is the GM's alone.
    old_thread = await record(
        table.bot.db,
        NewRoll(
            origin=Origin(channel_id=OLD_CHANNEL + 1, user_id=table.alice.id, guild_id=OLD_GUILD),
            kind=LedgerKind.ROLL,
            request="/roll dice:1d20",
            dice=[{"sides": 20, "dice": [{"face": 9}]}],
            outcome={"total": 9, "label": None, "expression": "1d20"},
            campaign_id=campaign.id,
        ),
    )
    assert old_thread.number not in await _history(table.bob, table)
    assert old_thread.number in await _history(table.gm, table)
