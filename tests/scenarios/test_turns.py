"""/turns in SimCord's virtual time: initiative with every die, pings, holds, per-turn
deadlines through a whole round, one order per channel, restarts, the ledger.

Tests bot/cogs/turns.py, bot/services/table/turns.py and bot/render/turns.py.
"""

from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy import select, update

from bot.app import PbpBot, create_bot
from bot.config import Settings
from bot.db.models import ledger, scheduled_jobs
from tests.fixtures.table import (
    SEED,
    ScriptedRandom,
    Table,
    make_character,
    message_text,
    start_campaign,
)

HOUR = 3600.0


def _texts(table: Table) -> list[str]:
    return [message_text(m) for m in table.table.history()]


async def _turn_rows(bot: PbpBot) -> list[str]:
    async with bot.db.engine.connect() as conn:
        rows = await conn.execute(
            select(ledger.c.request).where(ledger.c.kind == "turn").order_by(ledger.c.id)
        )
        return [str(r) for r in rows.scalars()]


async def test_initiative_orders_by_the_d20_check_and_shows_every_die(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ann", {"DEX": 14})
    await make_character(table, table.bob, "Bo", {"DEX": 10})
    await make_character(table, table.carol, "Cy", {"DEX": 18})
    table.dice(10, 15, 3)
    started = await table.gm.slash(
        table.table, "turns start", characters="Ann, Bo, Cy", order="initiative"
    )
    assert started.response is not None and not started.ephemeral
    text = message_text(started.response)
    assert "d20 **10** +2 DEX = **12**" in text
    assert "d20 **15** +0 DEX = **15**" in text
    assert "d20 **3** +4 DEX = **7**" in text
    assert text.index("Bo") < text.index("Ann") < text.index("Cy")
    assert f"<@{table.bob.id}>'s turn with **Bo**" in text  # one ping, to whose turn it is
    again = await table.gm.slash(table.table, "turns start", characters="Ann")
    assert again.ephemeral and "already has a turn order" in again.response.content
    assert await _turn_rows(table.bot) == ["turn order #1: started (initiative)"]


async def test_roll_under_initiative_rerolls_ties_and_keeps_every_die(table: Table) -> None:
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Ann", {"AGI": 12})
    await make_character(table, table.bob, "Bo", {"AGI": 12})
    table.dice(5, 5, 8, 3)  # a tie at 7, then Bo's 9 beats Ann's 4
    started = await table.gm.slash(
        table.table, "turns start", characters="Ann, Bo", order="initiative"
    )
    text = message_text(started.response)
    assert "AGI 12 − d20 **5** = **7** · tie, re-rolled: 12 − d20 **3** = **9**" in text
    assert "AGI 12 − d20 **5** = **7** · tie, re-rolled: 12 − d20 **8** = **4**" in text
    assert text.index("**Bo**") < text.index("**Ann**")


async def test_a_per_turn_deadline_passes_each_turn_through_a_whole_round(
    table: Table, settings: Settings
) -> None:
    await start_campaign(table, "d20-check")
    for player, name in ((table.alice, "Ann"), (table.bob, "Bo"), (table.carol, "Cy")):
        await make_character(table, player, name, {"DEX": 10})
    off = await table.carol.slash(table.table, "me notify", how="off")
    assert off.ephemeral
    started = await table.gm.slash(
        table.table, "turns start", characters="Ann, Bo, Cy", deadline="1h"
    )
    assert "passes by itself" in message_text(started.response)
    await table.env.advance_time(HOUR - 60)
    assert not [t for t in _texts(table) if "Time is up" in t]
    await table.env.advance_time(60)
    passed = [t for t in _texts(table) if "Time is up" in t]
    assert len(passed) == 1 and "Time is up for **Ann**" in passed[0]
    assert f"<@{table.bob.id}>'s turn with **Bo**" in passed[0]

    # The bot restarts mid-round: the order and its clock go on.
    old: PbpBot = table.bot
    await table.env.restart_bot(create_bot(settings, rng=ScriptedRandom(seed=SEED)))
    await old.db.dispose()
    await table.env.advance_time(HOUR)
    passed = [t for t in _texts(table) if "Time is up" in t]
    assert len(passed) == 2 and "Time is up for **Bo**" in passed[1]
    # Cy chose no pings: named, not mentioned (the embed's list never pings).
    content = [m.content for m in table.table.history() if "Time is up" in (m.content or "")]
    assert "their player's turn with **Cy**" in content[1]
    assert table.carol.mention not in content[1]
    await table.env.advance_time(HOUR)
    passed = [t for t in _texts(table) if "Time is up" in t]
    assert len(passed) == 3 and "Time is up for **Cy**" in passed[2]
    assert "Round 2: it is" in passed[2] and "**Ann**" in passed[2]
    shown = await table.alice.slash(table.table, "turns show")
    assert shown.ephemeral and "round 2" in message_text(shown.response)
    rows = await _turn_rows(table.bot)
    assert rows[0] == "turn order #1: started (listed)"
    assert rows[1:] == [
        "turn order #1: time is up (Ann)",
        "turn order #1: time is up (Bo)",
        "turn order #1: time is up (Cy)",
    ]
    ended = await table.gm.slash(table.table, "turns end")
    assert "The turn order ends." in message_text(ended.response)
    await table.env.advance_time(5 * HOUR)
    assert len([t for t in _texts(table) if "Time is up" in t]) == 3
    await table.bot.close_database()


async def test_a_turn_job_run_early_keeps_the_turn_and_its_deadline(table: Table) -> None:
    await start_campaign(table, "d20-check")
    for player, name in ((table.alice, "Ann"), (table.bob, "Bo")):
        await make_character(table, player, name, {"DEX": 10})
    await table.gm.slash(table.table, "turns start", characters="Ann, Bo", deadline="3h")
    # The turn's job due in a minute (moved early, as a retry racing a change could): the
    # clock's hourly poll runs it early; the turn must not pass before its 3h, nor lose its
    # deadline.
    async with table.bot.db.engine.begin() as conn:
        await conn.execute(
            update(scheduled_jobs)
            .where(scheduled_jobs.c.state == "pending")
            .values(due_at=table.bot.clock.now() + timedelta(minutes=1))
        )
    await table.env.advance_time(HOUR + 60)
    assert not [t for t in _texts(table) if "Time is up" in t]
    await table.env.advance_time(2 * HOUR)
    passed = [t for t in _texts(table) if "Time is up" in t]
    assert len(passed) == 1 and "Time is up for **Ann**" in passed[0]


async def test_next_by_the_player_or_gm_only_and_hold_keeps_the_place(table: Table) -> None:
    await start_campaign(table, "d20-check")
    for player, name in ((table.alice, "Ann"), (table.bob, "Bo"), (table.carol, "Cy")):
        await make_character(table, player, name, {"DEX": 10})
    await table.gm.slash(table.table, "turns start", characters="Ann, Bo, Cy")
    refused = await table.bob.slash(table.table, "turns next")
    assert refused.ephemeral and "Ann's turn" in refused.response.content
    held = await table.bob.slash(table.table, "turns hold")  # not Bo's turn yet: skip him later
    assert "**Bo** holds this round" in message_text(held.response)
    done = await table.alice.slash(table.table, "turns next")
    assert f"<@{table.carol.id}>'s turn with **Cy**" in message_text(done.response)
    gm_next = await table.gm.slash(table.table, "turns next")
    text = message_text(gm_next.response)
    assert "Round 2" in text and "**Ann**" in text  # the hold lasted one round
    await table.alice.slash(table.table, "turns next")
    shown = await table.bob.slash(table.table, "turns show")
    assert "▶ **Bo**" in message_text(shown.response)
    not_gm = await table.alice.slash(table.table, "turns end")
    assert not_gm.ephemeral and "Only the campaign's GM" in not_gm.response.content


async def test_pen_and_dagger_initiative_orders_by_success_level_then_face(table: Table) -> None:
    from bot.rules.pen_and_dagger.table import SuccessLevel

    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Ann", {"DEX": 14})
    await make_character(table, table.bob, "Bo", {"DEX": 14})
    await make_character(table, table.carol, "Cy", {"DEX": 8})
    table.dice(11, 12, 20)
    started = await table.gm.slash(
        table.table, "turns start", characters="Ann, Bo, Cy", order="initiative"
    )
    text = message_text(started.response)
    names = {level.display_name: level for level in SuccessLevel}
    found = re.findall(
        r"\*\*(\w+)\*\* \(<@\d+>\) · DEX attempt: d20 \*\*(\d+)\*\* → ([\w ]+)", text
    )
    assert [name for name, _, _ in found] and len(found) == 3
    keys = [(names[level.strip()], int(face)) for _, face, level in found]
    assert keys == sorted(keys, reverse=True)  # level first, then the face
    assert {int(face) for _, face, _ in found} == {11, 12, 20}


async def test_threshold_initiative_is_d20_plus_the_modifier(table: Table) -> None:
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Ann", {"DEX": 2})
    await make_character(table, table.bob, "Bo", {"DEX": -1})
    table.dice(10, 12)
    started = await table.gm.slash(
        table.table, "turns start", characters="Ann, Bo", order="initiative"
    )
    text = message_text(started.response)
    assert "d20 **10** +2 DEX = **12**" in text and "d20 **12** −1 DEX = **11**" in text
    assert text.index("**Ann**") < text.index("**Bo**")
