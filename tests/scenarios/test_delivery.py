"""Delivering what the channel may not see: the GM's copy of a hidden roll by DM when there is no
GM channel, the roller told how to fix it when no GM can be reached, and a notice Discord
refused kept for /catchup and /gm log and told to the GM once.

Tests bot/cogs/_delivery.py and bot/services/table/delivery.py.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from bot.db.models import Visibility, scheduled_jobs
from bot.permissions import bot_permissions
from tests.fixtures.places import restrict_bot
from tests.fixtures.table import Table, final_answer, message_text
from tests.scenarios.test_places import HOUR, _gm_notes, world
from tests.scenarios.test_secrecy import _NOISE, _latest, _setup


async def test_without_gm_channel_the_copy_goes_by_dm_to_the_gm_of_setup(table: Table) -> None:
    await _setup(table, "d20-check")
    await table.gm.slash(table.table, "campaign set gm-channel")  # unset
    await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="blind")
    total = str((await _latest(table)).outcome["total"])
    dm = "\n".join(message_text(m) for m in table.admin.user.dm_channel.history())
    assert total in dm and "Hidden roll by" in dm
    alice_view = "\n".join(message_text(m) for m in table.table.history(viewer=table.alice))
    assert total not in _NOISE.sub(" ", alice_view)
    assert "sent to the GM" in alice_view


async def test_when_no_gm_can_be_reached_the_roller_is_told_how_to_fix_it(table: Table) -> None:
    await _setup(table, "d20-check")
    await table.gm.slash(table.table, "campaign set gm-channel")  # unset
    table.env.inject_error(
        "POST",
        "/users/@me/channels",
        status=403,
        code=50007,
        message="Cannot send messages to this user",
        times=None,
    )
    table.env.inject_error(
        "POST",
        "/channels/*/messages",
        status=403,
        code=50007,
        message="Cannot send messages to this user",
        times=None,
    )
    result = await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="gm")
    row = await _latest(table)
    assert row.visibility is Visibility.GM  # recorded once, all the same
    notes = "\n".join(message_text(m) for m in result.followups)
    assert "could not be delivered" in notes and "/campaign set gm-channel" in notes
    bob_view = _NOISE.sub(
        " ", "\n".join(message_text(m) for m in table.table.history(viewer=table.bob))
    )
    assert str(row.outcome["total"]) not in bob_view


@pytest.mark.usefixtures("discord_thread_rules")
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
