"""/roll with several rolls at once (docs/dice.md, "Several rolls at once"): a line and a total
per roll, one ledger row, hidden rolls still hidden, refusals in the player's words with nothing
recorded.

Tests bot/cogs/dice.py and bot/render/dice.py.
"""

from __future__ import annotations

import re

from bot.services.store import ledger
from tests.fixtures.table import Table, message_text
from tests.scenarios.test_secrecy import _latest, _setup, seen_by


async def _rows(table: Table) -> list[ledger.RollView]:
    return await ledger.latest_rolls(table.bot.db, None, limit=50)


async def test_repeats_show_a_line_and_a_total_per_roll_in_one_ledger_row(table: Table) -> None:
    result = await table.alice.slash(table.table, "roll", dice="6#4d6kh3")
    assert result.response is not None
    text = message_text(result.response)
    (row,) = await _rows(table)
    totals = row.outcome["totals"]
    assert len(totals) == 6 and all(3 <= t <= 18 for t in totals)
    assert f"Totals: {', '.join(map(str, totals))}" in text
    lines = [line for line in text.splitlines() if re.match(r"`\d+` 4d6kh3 \(", line)]
    assert [int(line.rsplit("= ", 1)[1]) for line in lines] == totals
    assert sorted({term["roll"] for term in row.dice}) == list(range(6))
    assert row.outcome["expression"] == "6#4d6kh3"


async def test_rolls_separated_by_semicolons_keep_their_labels(table: Table) -> None:
    result = await table.alice.slash(
        table.table, "roll", dice="1d20+5 [attack]; 2d6+3 [damage]; 1d20+5 >= 15"
    )
    assert result.response is not None
    text = message_text(result.response)
    (row,) = await _rows(table)
    attack, damage, check = row.outcome["totals"]
    assert f"[attack] = {attack}" in text and f"[damage] = {damage}" in text
    assert check in (0, 1) and ("pass" if check else "fail") in text


async def test_a_blind_repeat_shows_no_total_to_the_roller_or_another_player(
    table: Table,
) -> None:
    gm_channel = await _setup(table, "d20-check")
    await table.alice.slash(table.table, "roll", dice="3#1d20+1000", secret="blind")
    row = await _latest(table)
    totals = [str(t) for t in row.outcome["totals"]]
    for member in (table.alice, table.bob):
        seen = seen_by(table, member, gm_channel)
        assert not any(re.search(rf"\b{t}\b", seen) for t in totals)
    gm_view = seen_by(table, table.gm, gm_channel)
    assert all(re.search(rf"\b{t}\b", gm_view) for t in totals)


async def test_misreads_are_refused_in_the_players_words_and_nothing_is_recorded(
    table: Table,
) -> None:
    for dice, words in (
        ("2d6 >= 7", "write 2d6>=N (no space) to count the dice"),
        ("21#1d6", "you can roll 1 to 20 at once"),
        ("4cod", "game-system shortcuts are not supported"),
    ):
        refused = await table.alice.slash(table.table, "roll", dice=dice)
        assert refused.ephemeral and refused.response is not None
        assert words in refused.response.content
    odds = await table.alice.slash(table.table, "odds roll", dice="6#4d6")
    assert odds.response is not None and "one roll at a time" in odds.response.content
    assert await _rows(table) == []


async def test_history_lists_every_total_of_several_rolls(table: Table) -> None:
    gm_channel = await _setup(table, "d20-check")
    del gm_channel
    await table.alice.slash(table.table, "roll", dice="3#1d20+1000")
    row = await _latest(table)
    shown = await table.alice.slash(table.table, "history")
    assert shown.response is not None
    totals = ", ".join(str(t) for t in row.outcome["totals"])
    assert f"Totals: {totals}" in message_text(shown.response)


async def test_odds_of_a_comparison_are_pass_and_fail(table: Table) -> None:
    shown = await table.alice.slash(table.table, "odds roll", dice="1d20+5 >= 15")
    assert shown.response is not None
    text = message_text(shown.response)
    assert "Pass" in text and "Fail" in text and "55" in text  # 11 faces of 20 pass
