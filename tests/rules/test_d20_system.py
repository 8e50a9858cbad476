"""The d20 check in the rule-system registry: a check reads as its total against the DC, or
leaves it to the GM without one, and a group check succeeds when at least half succeed.

Tests bot/rules/systems/d20.py.
"""

from __future__ import annotations

from bot.rules import d20_check as d20
from bot.rules.systems import system_for
from bot.services.kit.serialize import to_jsonable
from tests.scripted import ScriptedRandom

D20 = system_for("d20-check")
STRONG = d20.CheckInput(score=14, ability="STR", level=3)


def test_a_check_reads_against_its_dc_or_is_left_to_the_gm() -> None:
    hit = d20.roll_check(STRONG, ScriptedRandom(15), dc=12)
    missed = d20.roll_check(STRONG, ScriptedRandom(9), dc=12)
    open_ = d20.roll_check(STRONG, ScriptedRandom(9))
    assert (D20.read(hit).passed, D20.read(hit).total) == (True, 17)
    assert D20.one_line(hit) == "d20 15 +2 STR = **17** · DC 12 → **Success**"
    assert D20.read(missed).passed is False
    assert D20.read(open_).passed is None
    assert D20.one_line(open_) == "d20 9 +2 STR = **11** · no DC: the GM reads the total"


def test_a_group_check_needs_half_of_its_members() -> None:
    assert D20.group_verdict(["A", "B"], ["C"], 3, 12) == (
        True,
        "Group Success: 2 of 3 succeeded (2 needed)",
    )
    assert D20.group_verdict(["A"], ["B", "C"], 3, 12)[0] is False
    assert D20.group_verdict(["A"], ["B"], 2, None) == (
        None,
        "No DC given: the GM reads the totals.",
    )


def test_a_stored_check_comes_back_whole() -> None:
    rolled = d20.roll_check(STRONG, ScriptedRandom(15), dc=12)
    assert D20.outcome_from_record(to_jsonable(rolled)) == rolled
