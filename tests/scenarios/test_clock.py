"""The game clock in SimCord's virtual time: deadlines with their defaults, reminders, and
jobs that fell due while the bot was stopped. Time moves only by ``env.advance_time``.

Tests bot/cogs/clock.py and bot/services/kit/clock.py.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select, update

from bot.app import PbpBot, create_bot
from bot.config import Settings
from bot.db.models import ledger, scheduled_jobs
from bot.db.party_models import roll_request_targets, roll_requests
from tests.fixtures.table import (
    SEED,
    ScriptedRandom,
    Table,
    make_character,
    message_text,
    start_campaign,
)

HOUR = 3600.0


def _first_request_message(table: Table) -> Any:
    for message in table.table.history():
        if message.embeds and (message.embeds[0].title or "").startswith("Roll request #"):
            return message
    raise AssertionError("no roll request message in #table")


async def _party(table: Table) -> None:
    """Ann, Bo and Cy, each with DEX 14, at a d20-check campaign."""
    await start_campaign(table, "d20-check")
    for player, name in ((table.alice, "Ann"), (table.bob, "Bo"), (table.carol, "Cy")):
        await make_character(table, player, name, {"DEX": 14})


async def _request(table: Table, characters: str, ability: str = "DEX", **options: Any) -> Any:
    """The GM's request that ``characters`` roll ``ability``, with ``options`` (deadline…)."""
    return await table.gm.slash(
        table.table, "gm request roll", ability=ability, characters=characters, **options
    )


def _texts(table: Table) -> list[str]:
    return [message_text(m) for m in table.table.history()]


async def _ledger_requests(bot: PbpBot) -> list[str]:
    async with bot.db.engine.connect() as conn:
        rows = await conn.execute(select(ledger.c.request).order_by(ledger.c.id))
        return [str(r) for r in rows.scalars()]


async def test_roll_default_rolls_for_whoever_has_not_and_completes_at_the_deadline(
    table: Table,
) -> None:
    await _party(table)
    posted = await _request(table, "Ann, Bo, Cy", dc=12, deadline="2h", default="roll")
    assert posted.response is not None and not posted.ephemeral
    assert "Deadline:" in message_text(posted.response)
    table.dice(15)
    await table.alice.click(_first_request_message(table), label="Roll")
    await table.env.advance_time(HOUR)
    assert "1 of 3 rolled" in message_text(_first_request_message(table))

    table.dice(3, 18)  # Bo and Cy, rolled by the deadline with their stored DEX
    await table.env.advance_time(HOUR + 60)
    request = message_text(_first_request_message(table))
    assert "d20 **3** +2 DEX = **5** → **Failure** · *rolled by default at the deadline*" in request
    assert "d20 **18** +2 DEX = **20** → **Success** · *rolled by default at the deadline*" in (
        request
    )
    assert "Group Success: 2 of 3 succeeded" in request
    assert not _first_request_message(table).components  # no button once closed
    closed = [t for t in _texts(table) if "closed at its deadline" in t]
    assert len(closed) == 1 and "Bo (rolled by default)" in closed[0]
    rows = await _ledger_requests(table.bot)
    assert sum("rolled by default at the deadline" in r for r in rows) == 2

    await table.env.advance_time(10 * HOUR)
    assert len([t for t in _texts(table) if "closed at its deadline" in t]) == 1


async def test_skip_leaves_out_and_fail_counts_failed(table: Table) -> None:
    await _party(table)
    await _request(table, "Ann, Bo, Cy", dc=12, deadline="90m", default="skip")
    table.dice(15)
    await table.alice.click(_first_request_message(table), label="Roll")
    await table.env.advance_time(2 * HOUR)
    text = message_text(_first_request_message(table))
    assert "Group Success: 1 of 1 succeeded" in text
    assert text.count("no roll by the deadline: left out") == 2

    await _request(table, "Ann, Bo, Cy", dc=12, deadline="1d", default="fail")
    table.dice(15)
    second = [m for m in table.table.history() if m.components][-1]
    await table.alice.click(second, label="Roll")
    await table.env.advance_time(25 * HOUR)
    texts = [message_text(m) for m in table.table.history() if "Roll request #2" in message_text(m)]
    assert any("Group Failure: 1 of 3 succeeded" in t for t in texts)
    assert any(t.count("counts as failed") == 2 for t in texts)


@pytest.mark.parametrize(
    ("system", "ability", "options"),
    [
        ("d20-check", "DEX", {"dc": 12}),
        ("d20-check", "DEX", {"hidden_dc": 12}),
        ("threshold", "DEX", {"dc": 10}),
        ("roll-under", "AGI", {}),
        ("pen-and-dagger", "DEX", {}),
    ],
)
async def test_everyone_skipped_means_no_group_result(
    table: Table, system: str, ability: str, options: dict[str, int]
) -> None:
    # Nobody rolled by the deadline and the default is skip: nobody is left to count, so the
    # request says so instead of "Group Success: 0 of 0 succeeded (0 needed)".
    await start_campaign(table, system)
    for player, name in ((table.alice, "Ann"), (table.bob, "Bo")):
        await make_character(table, player, name, {ability: 12})
    posted = await _request(table, "Ann, Bo", ability, deadline="2h", default="skip", **options)
    assert posted.response is not None and not posted.ephemeral
    await table.env.advance_time(2 * HOUR + 60)
    text = message_text(_first_request_message(table))
    assert text.count("no roll by the deadline: left out") == 2
    assert "Nobody rolled: no group result." in text
    assert "succeeded" not in text and "Success" not in text and "Pass:" not in text


async def test_bad_durations_are_refused_and_nothing_is_kept(table: Table) -> None:
    await _party(table)
    for bad, words in (
        ("tomorrow", "not a duration"),
        ("31d", "at most 30 days"),
        ("0m", "at least"),
    ):
        refused = await _request(table, "Ann, Bo, Cy", deadline=bad)
        assert refused.ephemeral and words in refused.response.content, bad
    no_deadline = await _request(table, "Ann, Bo, Cy", default="roll")
    assert no_deadline.ephemeral and "needs a deadline" in no_deadline.response.content
    async with table.bot.db.engine.connect() as conn:
        assert (await conn.execute(select(scheduled_jobs.c.id))).first() is None
    assert not [m for m in table.table.history() if m.components]


async def test_extend_moves_the_deadline_and_close_applies_the_default_now(table: Table) -> None:
    await _party(table)
    await _request(table, "Ann, Bo, Cy", dc=12, deadline="1h", default="fail")
    refused = await table.alice.slash(table.table, "gm request extend", by="1h")
    assert refused.ephemeral
    extended = await table.gm.slash(table.table, "gm request extend", by="2h")
    assert extended.response is not None and "extended by 2h" in extended.response.content
    await table.env.advance_time(2 * HOUR)  # past the first deadline, not the new one
    assert "0 of 3 rolled" in message_text(_first_request_message(table))
    table.dice(15)
    await table.alice.click(_first_request_message(table), label="Roll")
    closed = await table.gm.slash(table.table, "gm request close")
    assert closed.response is not None and "closed by the GM" in closed.response.content
    text = message_text(_first_request_message(table))
    assert "Group Failure: 1 of 3 succeeded" in text
    assert not _first_request_message(table).components
    await table.env.advance_time(5 * HOUR)  # the cancelled deadline never runs
    assert not [t for t in _texts(table) if "closed at its deadline" in t]


async def test_a_deadline_job_run_early_leaves_an_extended_request_open(table: Table) -> None:
    await _party(table)
    await _request(table, "Ann, Bo", dc=12, deadline="2h", default="fail")
    await table.gm.slash(table.table, "gm request extend", by="1d")
    # The deadline job due in a minute, as a retry racing the extend used to leave it: the
    # job runs early, and must not close the request before its deadline.
    async with table.bot.db.engine.begin() as conn:
        await conn.execute(
            update(scheduled_jobs)
            .where(scheduled_jobs.c.state == "pending")
            .values(due_at=table.bot.clock.now() + timedelta(minutes=1))
        )
    await table.env.advance_time(HOUR)
    assert not [t for t in _texts(table) if "closed at its deadline" in t]
    assert "0 of 2 rolled" in message_text(_first_request_message(table))
    table.dice(15)
    await table.alice.click(_first_request_message(table), label="Roll")
    await table.env.advance_time(26 * HOUR)  # past the extended deadline: closes, once
    assert len([t for t in _texts(table) if "closed at its deadline" in t]) == 1
    text = message_text(_first_request_message(table))
    assert "Group Success: 1 of 2 succeeded" in text and text.count("counts as failed") == 1


async def test_a_deadline_passing_while_the_bot_is_stopped_runs_once_at_start(
    table: Table, settings: Settings
) -> None:
    await _party(table)
    await _request(table, "Ann, Bo, Cy", dc=12, deadline="1h", default="skip")
    table.dice(15)
    await table.alice.click(_first_request_message(table), label="Roll")
    old: PbpBot = table.bot
    clock = old.get_cog("ClockCog")
    assert clock is not None
    clock.poll.cancel()  # the bot is down: nothing runs its jobs while time passes
    await table.env.advance_time(3 * HOUR)
    assert "1 of 3 rolled" in message_text(_first_request_message(table))
    assert not [t for t in _texts(table) if "closed at its deadline" in t]
    # The button is still there, but the deadline has passed: a click is refused.
    late = await table.bob.click(_first_request_message(table), label="Roll")
    assert late.ephemeral and "closed at its deadline" in late.response.content

    await table.env.restart_bot(create_bot(settings, rng=ScriptedRandom(seed=SEED)))
    await old.db.dispose()
    closed = [t for t in _texts(table) if "closed at its deadline" in t]
    assert len(closed) == 1
    assert "Group Success: 1 of 1 succeeded" in message_text(_first_request_message(table))
    await table.env.advance_time(3 * HOUR)
    await table.env.restart_bot(create_bot(settings, rng=ScriptedRandom(seed=SEED)))
    assert len([t for t in _texts(table) if "closed at its deadline" in t]) == 1
    await table.bot.close_database()


def _reminders(table: Table) -> list[str]:
    return [t for t in _texts(table) if "reminder:" in t]


async def test_one_reminder_per_player_still_to_roll_as_each_chose(table: Table) -> None:
    await _party(table)
    dm = await table.carol.slash(table.table, "me notify", how="dm")
    assert dm.ephemeral and "direct message" in dm.response.content
    await _request(table, "Ann, Bo, Cy", deadline="1d", remind="12h")
    await table.env.advance_time(12 * HOUR - 1)
    table.dice(15)
    await table.alice.click(_first_request_message(table), label="Roll")  # a second before
    await table.env.advance_time(2)
    pings = _reminders(table)
    assert len(pings) == 1  # Bo, in the channel; Ann had rolled; Cy chose DMs
    assert table.bob.mention in pings[0] and "Bo" in pings[0]
    assert "/channels/" in pings[0]  # a jump link to the request
    assert table.alice.mention not in pings[0]
    dms = [message_text(m) for m in table.carol.user.dm_channel.history()]
    assert len(dms) == 1 and "reminder:" in dms[0] and "Cy" in dms[0]
    assert not [m for m in table.alice.user.dm_channel.history()]
    await table.env.advance_time(6 * HOUR)  # still open: no second reminder
    assert len(_reminders(table)) == 1
    assert len(list(table.carol.user.dm_channel.history())) == 1


async def test_no_reminder_to_an_opted_out_player_nor_after_completion(table: Table) -> None:
    await _party(table)
    off = await table.bob.slash(table.table, "me notify", how="off")
    assert off.ephemeral and "No more reminders" in off.response.content
    await _request(table, "Bo", remind="1h")
    await _request(table, "Ann", remind="1h")
    table.dice(15)
    buttons = [m for m in table.table.history() if m.components]
    await table.alice.click(buttons[-1], label="Roll")  # completes request #2
    await table.env.advance_time(2 * HOUR)
    assert _reminders(table) == []
    assert not list(table.bob.user.dm_channel.history())


async def test_a_hidden_dc_request_closed_at_its_deadline_tells_only_the_gm(table: Table) -> None:
    await _party(table)
    await _request(table, "Ann, Bo", hidden_dc=15, deadline="6h", default="roll")
    table.dice(17)
    await table.alice.click(_first_request_message(table), label="Roll")
    table.dice(4)
    await table.env.advance_time(6 * HOUR)
    for viewer in (table.alice, table.bob, table.carol):
        seen = "\n".join(message_text(m) for m in table.table.history(viewer=viewer))
        assert "closed at its deadline" in seen and "d20 **4** +2 DEX = **6**" in seen
        for word in ("Success", "Failure", "DC 15"):
            assert word not in seen
    gm_seen = "\n".join(message_text(m) for m in table.gm_channel.history(viewer=table.gm))
    assert "closed at its deadline" in gm_seen and "reveal with /gm request reveal" in gm_seen
    assert "DC 15" in gm_seen and "Group Success: 1 of 2 succeeded" in gm_seen
    revealed = await table.gm.slash(table.table, "gm request reveal")
    assert "Group Success: 1 of 2 succeeded" in message_text(revealed.response)


async def test_a_requests_times_are_the_game_clocks(table: Table) -> None:
    # One clock (docs/clock.md). Created, answered, completed and revealed are the game clock's
    # times (here SimCord's virtual time, far from the wall clock), like the deadline.
    await _party(table)
    start = table.bot.clock.now()
    await _request(table, "Ann, Bo", hidden_dc=12)
    await table.env.advance_time(HOUR)
    table.dice(15, 4)
    await table.alice.click(_first_request_message(table), label="Roll")
    await table.env.advance_time(HOUR)
    await table.bob.click(_first_request_message(table), label="Roll")
    await table.env.advance_time(HOUR)
    revealed = await table.gm.slash(table.table, "gm request reveal")
    assert revealed.response is not None and not revealed.ephemeral
    async with table.bot.db.engine.connect() as conn:
        request = (await conn.execute(select(roll_requests))).one()
        answers = (
            await conn.execute(
                select(roll_request_targets.c.answered_at).order_by(roll_request_targets.c.position)
            )
        ).scalars()
        stamps = (
            await conn.execute(select(ledger.c.revealed_at).where(ledger.c.visibility == "blind"))
        ).scalars()
        answered, revealed_rows = list(answers), list(stamps)
    hour = timedelta(hours=1)
    assert request.created_at == start
    assert answered == [start + hour, start + 2 * hour]
    assert request.completed_at == start + 2 * hour
    assert request.revealed_at == start + 3 * hour
    assert len(revealed_rows) == 3 and set(revealed_rows) == {start + 3 * hour}


async def test_a_roll_the_gms_close_made_says_so_not_at_the_deadline(table: Table) -> None:
    await _party(table)
    await _request(table, "Ann, Bo", dc=12, deadline="1d", default="roll")
    table.dice(15)
    await table.alice.click(_first_request_message(table), label="Roll")
    table.dice(18)  # Bo's, rolled by the default when the GM closes
    closed = await table.gm.slash(table.table, "gm request close")
    assert closed.response is not None and "closed by the GM" in closed.response.content
    assert "Bo (rolled by default)" in closed.response.content
    text = message_text(_first_request_message(table))
    assert "**20** → **Success** · *rolled by default when the GM closed the request*" in text
    assert "at the deadline" not in text
    rows = await _ledger_requests(table.bot)
    assert sum("rolled by default when the GM closed the request" in r for r in rows) == 1
    assert not [r for r in rows if "at the deadline" in r]
