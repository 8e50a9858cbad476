"""Finer rules of several systems: threshold critical thresholds and the carry-over option, a
reroll of one die of two, Null saves, spell schools and racial adjustments."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.rules import d20_check, threshold
from bot.rules.common import Advantage
from bot.rules.errors import RulesError
from bot.rules.pen_and_dagger import parse_racial_adjustments
from tests.scripted import ScriptedRandom


@pytest.mark.parametrize(("cs_at", "cf_at"), [(None, None), (18, None), (None, 5), (15, 9)])
@pytest.mark.parametrize("modifier", [-3, 0, 4])
def test_critical_thresholds_odds_match_every_face(
    modifier: int, cs_at: int | None, cf_at: int | None
) -> None:
    odds = threshold.odds_of_test(modifier, 12, crit_success_at=cs_at, crit_failure_at=cf_at)
    counted = {result: Fraction(0) for result in threshold.ThresholdResult}
    for face in range(1, 21):
        outcome = threshold.roll_test(
            modifier,
            12,
            ScriptedRandom(face),
            attribute="STR",
            crit_success_at=cs_at,
            crit_failure_at=cf_at,
        )
        counted[outcome.result] += Fraction(1, 20)
        total = face + modifier
        if face == 20 or (cs_at is not None and total >= cs_at):
            assert outcome.result is threshold.ThresholdResult.CRITICAL_SUCCESS
        elif face == 1 or (cf_at is not None and total <= cf_at):
            assert outcome.result is threshold.ThresholdResult.CRITICAL_FAILURE
    assert odds == counted and sum(odds.values()) == 1


def test_critical_thresholds_must_sit_on_the_right_side_of_the_threshold() -> None:
    with pytest.raises(RulesError, match="below the threshold"):
        threshold.odds_of_test(0, 12, crit_success_at=11)
    with pytest.raises(RulesError, match="would be a success"):
        threshold.odds_of_test(0, 12, crit_failure_at=12)


def test_carry_over_option_off_leaves_nothing() -> None:
    on = threshold.roll_test(0, 12, ScriptedRandom(20), attribute="STR")
    off = threshold.roll_test(0, 12, ScriptedRandom(20), attribute="STR", carry_over_rule=False)
    assert on.carry_over_next == 2 and off.carry_over_next == 0
    assert off.result is threshold.ThresholdResult.CRITICAL_SUCCESS


def test_reroll_one_replaces_the_chosen_die_and_keeps_again() -> None:
    check = d20_check.CheckInput(score=14, ability="DEX", level=1, disadvantage=True)
    first = d20_check.roll_check(check, ScriptedRandom(17, 5), dc=12)
    assert first.kept == 5 and first.result is d20_check.CheckResult.FAILURE
    second = d20_check.reroll_one(first, 1, ScriptedRandom(15))
    assert second.dice == (17, 15) and second.kept == 15 and second.total == 17
    assert second.result is d20_check.CheckResult.SUCCESS
    first_die = d20_check.reroll_one(first, 0, ScriptedRandom(2))
    assert first_die.dice == (2, 5) and first_die.kept == 2
    single = d20_check.roll_check(
        d20_check.CheckInput(score=14, ability="DEX", level=1), ScriptedRandom(9), dc=12
    )
    with pytest.raises(RulesError, match="advantage or disadvantage"):
        d20_check.reroll_one(single, 0, ScriptedRandom(3))
    assert first.advantage is Advantage.DISADVANTAGE


def test_null_saves_are_mana_saves_only_and_count_proficiency_once() -> None:
    assert d20_check.null_save_extra("Mana", None) == (False, ())
    assert d20_check.null_save_extra("WIS", 2) == (False, ())
    proficient, extra = d20_check.null_save_extra("mana", 2)
    assert proficient and extra == (("Null bonus", 2),)
    save = d20_check.CheckInput.save(10, ability="Mana", level=5, proficient=True, extra=extra)
    assert save.modifier_total == 0 + 3 + 2  # modifier, proficiency once, Null bonus


def test_every_school_of_the_text_has_its_ability() -> None:
    assert {school: names[0] for school, names in d20_check.SPELL_SCHOOLS.items()} == {
        "arcane": "Knowledge",
        "mystical": "Perception",
        "divine": "Wisdom",
        "eldritch": "Sanity",
        "primal": "Charisma",
        "psychic": "Psyche",
        "corruption": "Heart",
        "necrotic": "Vitality",
    }


def test_racial_adjustments_parse_as_typed() -> None:
    assert parse_racial_adjustments("STR+2, DEX-1") == {"STR": 2, "DEX": -1}
    assert parse_racial_adjustments("str +1 str +1") == {"STR": 2}
    for bad in ("STR", "STR+50", "Luck+1", ""):
        with pytest.raises(RulesError):
            parse_racial_adjustments(bad)
