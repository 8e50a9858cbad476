"""d20 check ruling 4: contests, the higher total wins and a tie changes nothing.

Tests bot/rules/d20_check/contests.py.
"""

from __future__ import annotations

from bot.rules import d20_check as d20
from bot.rules.d20_check import (
    ContestResult,
)
from tests.rules.test_d20_check import _check
from tests.scripted import ScriptedRandom


def test_contest_higher_total_wins() -> None:
    a, b = _check(14, name="Ana"), _check(10, name="Orc")
    outcome = d20.contest(a, b, ScriptedRandom(8, 9))  # Ana 10, Orc 9
    assert outcome.result is ContestResult.FIRST_WINS
    assert outcome.winner is outcome.first and outcome.result_text == "Ana wins"
    outcome = d20.contest(a, b, ScriptedRandom(6, 9))  # Ana 8, Orc 9
    assert outcome.result is ContestResult.SECOND_WINS and outcome.result_text == "Orc wins"


def test_contest_tie_changes_nothing() -> None:
    outcome = d20.contest(_check(14), _check(10), ScriptedRandom(7, 9))  # 9 and 9
    assert outcome.result is ContestResult.TIE and outcome.winner is None
    assert outcome.result.display == "tie: nothing changes"
    assert outcome.result_text == "Tie: nothing changes"
    assert outcome.first.result is None and outcome.second.result is None  # no DC in contests
