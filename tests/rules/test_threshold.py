"""Threshold (`shared/rules/threshold.txt`, rulings 1–4): results, tiers, carry-over, odds."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

# The rule function is called `test`: import the module so pytest does not collect it.
from bot.rules import threshold as th
from bot.rules.errors import RulesError
from bot.rules.threshold import Difficulty, ThresholdResult
from tests.scripted import ScriptedRandom
from tests.stats import assert_sample_fits

R = ThresholdResult


# ------------------------------------------------------------------------------------ ruling 1


@pytest.mark.parametrize(
    ("roll", "modifier", "threshold", "result"),
    [
        (10, 2, 12, R.SUCCESS),  # meets the threshold exactly
        (9, 2, 12, R.FAILURE),  # one short
        (15, 0, 12, R.SUCCESS),
        (20, 0, 12, R.CRITICAL_SUCCESS),
        (20, -10, 30, R.CRITICAL_SUCCESS),  # natural 20 whatever the total
        (1, 50, 12, R.CRITICAL_FAILURE),  # natural 1 with a huge modifier: still critical failure
        (1, 0, 1, R.CRITICAL_FAILURE),  # even when the total meets the threshold
        (2, 0, 1, R.SUCCESS),
        (19, 0, 20, R.FAILURE),
        (19, 1, 20, R.SUCCESS),
    ],
)
def test_results(roll: int, modifier: int, threshold: int, result: ThresholdResult) -> None:
    outcome = th.roll_test(modifier, threshold, ScriptedRandom(roll), attribute="STR")
    assert outcome.result is result
    assert outcome.total == roll + modifier
    assert outcome.succeeded == (result in (R.SUCCESS, R.CRITICAL_SUCCESS))


def test_outcome_carries_what_a_renderer_needs() -> None:
    outcome = th.roll_test(3, 12, ScriptedRandom(11), attribute="DEX", carry_over=-2)
    assert outcome.dice == (11,) and outcome.kept == 11
    assert outcome.modifiers == (("DEX", 3), ("critical carry-over", -2))
    assert outcome.total == 12 and outcome.threshold == 12
    assert outcome.result is R.SUCCESS and outcome.result.display == "Success"
    assert not outcome.threshold_hidden and outcome.difficulty is None


def test_result_display_texts() -> None:
    assert [r.display for r in R] == [
        "Critical Success",
        "Success",
        "Failure",
        "Critical Failure",
    ]


# ------------------------------------------------------------------------------------ ruling 2


def test_tier_defaults() -> None:
    assert {t: t.default_threshold for t in Difficulty} == {
        Difficulty.VERY_EASY: 3,
        Difficulty.EASY: 7,
        Difficulty.MODERATE: 12,
        Difficulty.HARD: 17,
        Difficulty.VERY_HARD: 20,
    }
    # Each default sits in the text's range for its tier.
    ranges = {
        Difficulty.VERY_EASY: range(1, 5),
        Difficulty.EASY: range(5, 10),
        Difficulty.MODERATE: range(10, 15),
        Difficulty.HARD: range(15, 20),
        Difficulty.VERY_HARD: range(20, 101),
    }
    assert all(t.default_threshold in ranges[t] for t in Difficulty)


def test_a_tier_resolves_to_its_threshold() -> None:
    outcome = th.roll_test(0, Difficulty.HARD, ScriptedRandom(17), attribute="WIS")
    assert (outcome.threshold, outcome.difficulty, outcome.result) == (
        17,
        Difficulty.HARD,
        R.SUCCESS,
    )


def test_campaign_tiers_override_defaults() -> None:
    tiers = {Difficulty.HARD: 15}
    outcome = th.roll_test(0, Difficulty.HARD, ScriptedRandom(15), attribute="STR", tiers=tiers)
    assert (outcome.threshold, outcome.result) == (15, R.SUCCESS)
    resolved = th.resolve_tiers(tiers)
    assert resolved[Difficulty.MODERATE] == 12 and resolved[Difficulty.HARD] == 15


def test_tiers_out_of_order_are_refused() -> None:
    with pytest.raises(RulesError):
        th.resolve_tiers({Difficulty.EASY: 14})  # above Moderate's 12
    with pytest.raises(RulesError):
        th.resolve_tiers({Difficulty.VERY_EASY: 0})


@pytest.mark.parametrize(
    "text", ["Very Hard", "very hard", "VERY_HARD", "very-hard", " Very  Hard "]
)
def test_difficulty_parse(text: str) -> None:
    assert Difficulty.parse(text) is Difficulty.VERY_HARD


def test_difficulty_parse_unknown() -> None:
    with pytest.raises(RulesError):
        Difficulty.parse("impossible")


def test_hidden_threshold_is_kept_on_the_outcome_for_the_renderer_to_hide() -> None:
    outcome = th.roll_test(1, 14, ScriptedRandom(5), attribute="INT", threshold_hidden=True)
    assert outcome.threshold_hidden and outcome.threshold == 14


@pytest.mark.parametrize("threshold", [0, -5, 101])
def test_bad_thresholds_are_refused(threshold: int) -> None:
    with pytest.raises(RulesError):
        th.roll_test(0, threshold, ScriptedRandom(10), attribute="STR")


def test_absurd_modifiers_are_refused() -> None:
    with pytest.raises(RulesError):
        th.roll_test(1000, 12, ScriptedRandom(10), attribute="STR")


# ------------------------------------------------------------------------------------ ruling 3


def test_default_attributes() -> None:
    assert th.DEFAULT_ATTRIBUTES == ("STR", "DEX", "CON", "INT", "WIS", "CHA")


def test_level_is_never_added() -> None:
    # The API has no level at all; the only modifiers are the attribute and a carry-over.
    outcome = th.roll_test(2, 12, ScriptedRandom(9), attribute="CHA")
    assert outcome.modifiers == (("CHA", 2),)
    assert outcome.total == 11 and outcome.result is R.FAILURE


# ------------------------------------------------------------------------------------ ruling 4


@pytest.mark.parametrize(
    ("roll", "carry_next"),
    [(20, 2), (1, -2), (10, 0), (19, 0), (2, 0)],
)
def test_carry_over_next(roll: int, carry_next: int) -> None:
    outcome = th.roll_test(0, 10, ScriptedRandom(roll), attribute="DEX")
    assert outcome.carry_over_next == carry_next


def test_carry_over_is_applied_once_and_recorded() -> None:
    first = th.roll_test(0, 12, ScriptedRandom(20), attribute="DEX")
    assert first.carry_over_next == 2
    # +2 turns a 10 into a 12: success thanks to the carry-over.
    second = th.roll_test(
        0, 12, ScriptedRandom(10), attribute="DEX", carry_over=first.carry_over_next
    )
    assert second.carry_over_used == 2 and second.total == 12 and second.result is R.SUCCESS
    assert second.carry_over_next == 0  # used once: nothing left after an ordinary result
    penalty = th.roll_test(0, 12, ScriptedRandom(13), attribute="DEX", carry_over=-2)
    assert penalty.total == 11 and penalty.result is R.FAILURE


def test_a_critical_with_a_carry_over_leaves_a_fresh_one_not_a_stack() -> None:
    outcome = th.roll_test(0, 12, ScriptedRandom(20), attribute="DEX", carry_over=2)
    assert outcome.carry_over_next == 2


@pytest.mark.parametrize("carry", [1, 4, -4, 3])
def test_other_carry_overs_are_refused(carry: int) -> None:
    with pytest.raises(RulesError):
        th.roll_test(0, 12, ScriptedRandom(10), attribute="DEX", carry_over=carry)


# ---------------------------------------------------------------------------------------- odds


def test_odds_by_hand() -> None:
    # +3 vs 12: faces 9..19 succeed (11 faces), 2..8 fail (7), 20 critical, 1 critical failure.
    assert th.odds_of_test(3, 12) == {
        R.CRITICAL_SUCCESS: Fraction(1, 20),
        R.SUCCESS: Fraction(11, 20),
        R.FAILURE: Fraction(7, 20),
        R.CRITICAL_FAILURE: Fraction(1, 20),
    }
    # Huge modifier: only the natural 1 fails; impossible threshold: only the natural 20.
    assert th.odds_of_test(50, 12)[R.FAILURE] == 0
    assert th.odds_of_test(0, 100)[R.SUCCESS] == 0
    assert th.odds_of_test(0, 100)[R.CRITICAL_SUCCESS] == Fraction(1, 20)


def test_odds_with_tier_and_carry_over() -> None:
    assert th.odds_of_test(0, Difficulty.MODERATE, 2) == th.odds_of_test(2, 12)
    assert th.odds_of_test(0, Difficulty.HARD, tiers={Difficulty.HARD: 15}) == th.odds_of_test(
        0, 15
    )


modifiers = st.integers(min_value=-10, max_value=15)
thresholds = st.integers(min_value=1, max_value=30)
carries = st.sampled_from([-2, 0, 2])


@given(modifiers, thresholds, carries)
def test_odds_are_a_distribution(modifier: int, threshold: int, carry: int) -> None:
    odds = th.odds_of_test(modifier, threshold, carry)
    assert set(odds) == set(R)
    assert sum(odds.values()) == 1
    assert all(0 <= p <= 1 for p in odds.values())
    assert odds[R.CRITICAL_SUCCESS] == odds[R.CRITICAL_FAILURE] == Fraction(1, 20)


@given(modifiers, thresholds, carries)
def test_higher_modifier_never_worse(modifier: int, threshold: int, carry: int) -> None:
    def success(m: int) -> Fraction:
        odds = th.odds_of_test(m, threshold, carry)
        return odds[R.SUCCESS] + odds[R.CRITICAL_SUCCESS]

    assert success(modifier + 1) >= success(modifier)


@given(modifiers, thresholds, carries, st.integers(min_value=0, max_value=2**32))
def test_rolled_result_is_consistent(modifier: int, threshold: int, carry: int, seed: int) -> None:
    outcome = th.roll_test(
        modifier, threshold, random.Random(seed), attribute="STR", carry_over=carry
    )
    assert th.odds_of_test(modifier, threshold, carry)[outcome.result] > 0
    assert outcome.total == outcome.roll + modifier + carry


def test_sampled_tests_match_exact_odds() -> None:
    rng = random.Random(31337)
    for modifier, threshold, carry in [(0, 12, 0), (3, 17, 2), (-1, 7, -2), (5, 20, 0)]:
        counts = Counter(
            th.roll_test(modifier, threshold, rng, attribute="STR", carry_over=carry).result
            for _ in range(5000)
        )
        assert_sample_fits(counts, th.odds_of_test(modifier, threshold, carry))
