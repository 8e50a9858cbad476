"""/groupsave and /contest in each system, through the real commands.

Tests bot/cogs/groups.py, bot/services/rolling/groups.py and bot/render/groups.py.
"""

from __future__ import annotations

from typing import Any

from bot.db.models import LedgerRow
from tests.fixtures.table import Table, make_character, message_text, start_campaign


async def _party(table: Table, system: str, scores: list[dict[str, int]]) -> None:
    await start_campaign(table, system)
    players = ((table.alice, "Ann"), (table.bob, "Bo"), (table.carol, "Cy"))
    for (player, name), sheet in zip(players, scores, strict=True):
        await make_character(table, player, name, sheet)
        await table.gm.slash(table.table, "party add", character=name)


async def _ledger(table: Table) -> list[Any]:
    from sqlalchemy import select

    async with table.bot.db.sessionmaker() as session:
        return list((await session.execute(select(LedgerRow).order_by(LedgerRow.id))).scalars())


async def test_roll_under_group_save_is_one_d20_for_everyone(table: Table) -> None:
    await _party(table, "roll-under", [{"STR": 12}, {"STR": 6}, {"STR": 9}])
    refused = await table.alice.slash(table.table, "groupsave", ability="STR")
    assert refused.ephemeral and "Only the campaign's GM" in refused.response.content
    table.dice(9)
    result = await table.gm.slash(table.table, "groupsave", ability="STR")
    assert result.response is not None and not result.ephemeral
    text = message_text(result.response)
    assert "One d20 for the whole party: **9**" in text
    assert "Pass: Ann, Cy · Fail: Bo" in text
    rows = await _ledger(table)
    assert [r.kind for r in rows] == ["save", "save", "save", "group"]
    assert [r.interaction_id is not None for r in rows] == [False, False, False, True]


async def test_d20_group_save_needs_half_the_party(table: Table) -> None:
    await _party(table, "d20-check", [{"CON": 10}, {"CON": 10}, {"CON": 10}])
    no_dc = await table.gm.slash(table.table, "groupsave", ability="CON")
    assert no_dc.ephemeral and "needs a dc" in no_dc.response.content
    table.dice(14, 2, 3)
    failed = await table.gm.slash(table.table, "groupsave", ability="CON", dc=12)
    assert "Group Failure: 1 of 3 succeeded (2 needed)" in message_text(failed.response)
    table.dice(14, 2, 13)
    passed = await table.gm.slash(table.table, "groupsave", ability="CON", dc=12)
    assert "Group Success: 2 of 3 succeeded" in message_text(passed.response)


async def test_threshold_and_pen_and_dagger_list_each_member(table: Table) -> None:
    await _party(table, "threshold", [{"DEX": 2}, {"DEX": 0}, {"DEX": -1}])
    table.dice(20, 10, 1)
    result = await table.gm.slash(table.table, "groupsave", ability="DEX", dc=12)
    text = message_text(result.response)
    assert "d20 **20** +2 DEX = **22** → **Critical Success**" in text
    assert "d20 **10** +0 DEX = **10** → **Failure**" in text
    assert "d20 **1** −1 DEX = **0** → **Critical Failure**" in text
    assert "1 of 3 succeeded" in text
    # Threshold ruling 4: the critical success leaves +2 on Ann's next DEX test.
    table.dice(5)
    check = await table.alice.slash(table.table, "check", ability="DEX", dc=12)
    assert "critical carry-over" in message_text(check.response)


async def test_pen_and_dagger_group_attempt(table: Table) -> None:
    await _party(table, "pen-and-dagger", [{"WIS": 14}, {"WIS": 8}, {"WIS": 10}])
    refused = await table.gm.slash(table.table, "groupsave", ability="WIS", dc=10)
    assert refused.ephemeral and "takes no dc" in refused.response.content
    table.dice(11, 11, 11)
    result = await table.gm.slash(table.table, "groupsave", ability="WIS")
    text = message_text(result.response)
    assert "(Adept)" in text and "(Novice)" in text and "(Trained)" in text
    assert "no group rule" in text


async def test_three_way_roll_under_contest_breaks_a_tie_by_recontest(table: Table) -> None:
    await _party(table, "roll-under", [{"WIT": 10}, {"WIT": 12}, {"WIT": 15}])
    # Round 1: Ann 10-3=7, Bo 12-5=7, Cy 15-2=13 -> Cy first, Ann and Bo tied.
    # Round 2 (places 2-3): Ann 10-4=6, Bo 12-6=6 -> tied again. Round 3: Ann 10-1=9, Bo 12-9=3.
    table.dice(3, 5, 2, 4, 6, 1, 9)
    result = await table.alice.slash(
        table.table, "contest", ability="WIT", characters=f"Ann, Bo, <@{table.carol.id}>"
    )
    assert result.response is not None and not result.ephemeral
    text = message_text(result.response)
    assert "Cy wins" in text
    assert "Round 2: tie-break for places 2–3" in text
    assert "Round 3: tie-break for places 2–3" in text
    assert "Ann: 10 − 1 = **9**" in text and "Bo: 12 − 9 = **3**" in text
    assert "1. Cy\n2. Ann\n3. Bo" in text


async def test_d20_contest_tie_changes_nothing_and_others_have_no_contest(table: Table) -> None:
    await _party(table, "d20-check", [{"STR": 14}, {"STR": 10}, {"STR": 10}])
    table.dice(8, 10)
    result = await table.gm.slash(table.table, "contest", ability="STR", characters="Ann, Bo")
    assert "Tie: nothing changes" in message_text(result.response)
    three = await table.gm.slash(table.table, "contest", ability="STR", characters="Ann, Bo, Cy")
    assert three.ephemeral and "between two characters" in three.response.content
    outsider = await table.carol.slash(table.table, "contest", ability="STR", characters="Ann, Bo")
    assert outsider.ephemeral and "Only the GM" in outsider.response.content


async def test_threshold_has_no_contest_rule(table: Table) -> None:
    await _party(table, "threshold", [{"STR": 1}, {"STR": 1}, {"STR": 1}])
    result = await table.gm.slash(table.table, "contest", ability="STR", characters="Ann, Bo")
    assert result.ephemeral and "/contest is for Roll-under and d20 check" in (
        result.response.content
    )


async def test_check_with_a_helper_rolls_with_advantage(table: Table) -> None:
    await _party(table, "d20-check", [{"STR": 14}, {"STR": 10}, {"STR": 10}])
    table.dice(4, 17)
    result = await table.alice.slash(table.table, "check", ability="STR", helper="bo", dc=15)
    text = message_text(result.response)
    assert "helped by Bo" in text
    assert "~~4~~, **17** (advantage)" in text and "Success" in text
    ghost = await table.alice.slash(table.table, "check", ability="STR", helper="Nobody")
    assert ghost.ephemeral and "No character named" in ghost.response.content
    itself = await table.alice.slash(table.table, "check", ability="STR", helper="Ann")
    assert itself.ephemeral and "cannot help themselves" in itself.response.content


async def test_helper_is_refused_outside_d20_check(table: Table) -> None:
    await _party(table, "roll-under", [{"STR": 14}, {"STR": 10}, {"STR": 10}])
    result = await table.alice.slash(table.table, "check", ability="STR", helper="Bo")
    assert result.ephemeral and "has no helper" in result.response.content


async def test_a_long_tie_break_still_shows_the_ranking(table: Table) -> None:
    await _party(table, "roll-under", [{"WIT": 10}, {"WIT": 10}, {"WIT": 4}])
    # 30 tied rounds (more than an embed has fields), then Bo 10-2=8 beats Ann 10-7=3.
    table.dice(*([5, 5] * 30), 7, 2)
    result = await table.gm.slash(table.table, "contest", ability="WIT", characters="Ann, Bo")
    text = message_text(result.response)
    assert "Bo wins" in text
    assert "1. Bo\n2. Ann" in text
    assert "more not shown" in text  # the rounds were cut, the ranking was not
