"""Threshold in the rule-system registry: a test reads as its result, and a critical leaves
the carry-over the rule text gives (ruling 4) for the next test.

Tests bot/rules/systems/threshold.py.
"""

from __future__ import annotations

from bot.rules import threshold as th
from bot.rules.systems import Tone, system_for
from bot.services.kit.serialize import to_jsonable
from tests.scripted import ScriptedRandom

THRESHOLD = system_for("threshold")


def _test(face: int) -> th.ThresholdOutcome:
    return th.roll_test(2, 12, ScriptedRandom(face), attribute="DEX")


def test_a_test_reads_as_its_total_against_the_threshold() -> None:
    reading = THRESHOLD.read(_test(10))
    assert (reading.passed, reading.tone, reading.total) == (True, Tone.SUCCESS, 12)
    assert reading.modifiers == (("DEX", 2),)
    assert THRESHOLD.one_line(_test(10)) == "d20 10 +2 DEX = **12** · Threshold 12 → **Success**"


def test_criticals_leave_a_carry_over_and_an_ordinary_result_none() -> None:
    assert THRESHOLD.read(_test(20)).tone is Tone.CRITICAL_SUCCESS
    assert THRESHOLD.carry_over_next(_test(20)) == 2
    assert THRESHOLD.read(_test(1)).tone is Tone.CRITICAL_FAILURE
    assert THRESHOLD.carry_over_next(_test(1)) == -2
    assert THRESHOLD.carry_over_next(_test(10)) is None


def test_a_stored_test_comes_back_whole_and_a_group_reads_as_a_count() -> None:
    rolled = _test(20)
    assert THRESHOLD.outcome_from_record(to_jsonable(rolled)) == rolled
    assert THRESHOLD.group_verdict(["A", "B"], ["C"], 3, None) == (None, "2 of 3 succeeded")
