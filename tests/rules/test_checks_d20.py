"""d20 check rulings 1, 2 and 5 (`shared/rules/d20-check.txt`): proficiency and ability tables,
checks against a DC, saving throws.

Tests bot/rules/d20_check/checks.py.
"""

from __future__ import annotations

import pytest

from bot.rules import d20_check as d20
from bot.rules.d20_check import (
    CheckResult,
    ProficiencyDegree,
)
from bot.rules.errors import RulesError
from tests.rules.test_d20_check import EXPERT, NONE, PROF
from tests.scripted import ScriptedRandom


def test_proficiency_bonus_for_every_level() -> None:
    expected = [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [6] * 4
    assert [d20.proficiency_bonus(level) for level in range(1, 21)] == expected


@pytest.mark.parametrize("level", [0, 21, -1])
def test_levels_outside_1_to_20_are_refused(level: int) -> None:
    with pytest.raises(RulesError):
        d20.proficiency_bonus(level)


def test_ability_modifier_for_scores_1_to_30() -> None:
    expected = [-5, -4, -4, -3, -3, -2, -2, -1, -1, 0, 0, 1, 1, 2, 2]
    expected += [3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10]
    assert [d20.ability_modifier(score) for score in range(1, 31)] == expected


@pytest.mark.parametrize("score", [0, 31])
def test_scores_out_of_range_are_refused(score: int) -> None:
    with pytest.raises(RulesError):
        d20.ability_modifier(score)


@pytest.mark.parametrize(
    ("text", "degree"),
    [
        ("none", NONE),
        ("Proficient", PROF),
        ("prof", PROF),
        ("EXPERT", EXPERT),
        ("expertise", EXPERT),
    ],
)
def test_degree_parse(text: str, degree: ProficiencyDegree) -> None:
    assert ProficiencyDegree.parse(text) is degree


def test_degree_parse_unknown_and_multipliers() -> None:
    with pytest.raises(RulesError):
        ProficiencyDegree.parse("master")
    assert [d.display for d in ProficiencyDegree] == ["None", "Half", "Proficient", "Expert"]
    # "doubled or halved": of a +3 bonus, 0, 1 (halved, rounded down), 3 and 6.
    assert [d.bonus(3) for d in ProficiencyDegree] == [0, 1, 3, 6]


def test_proficiency_added_once_doubled_once_and_zero_without_it() -> None:
    # "if two different rules say you can add your proficiency bonus … add the bonus only once"
    assert ProficiencyDegree.from_sources(proficient=2) is PROF
    # "multiply … only once": doubled by several features is still Expert (×2), never ×4.
    assert ProficiencyDegree.from_sources(proficient=3, doubled=2) is EXPERT
    # "lack proficiency in the History skill, you gain no benefit from a feature that lets
    # you double your proficiency bonus"
    assert ProficiencyDegree.from_sources(proficient=0, doubled=True) is NONE


def test_abilities_are_a_campaign_setting() -> None:
    assert d20.DEFAULT_ABILITIES == ("STR", "DEX", "CON", "INT", "WIS", "CHA")
    for name in ("Knowledge", "Perception", "Sanity", "Psyche", "Heart", "Vitality", "Mana"):
        assert name in d20.EXTRA_ABILITIES


def test_check_total_and_named_modifiers() -> None:
    outcome = d20.ability_check(
        14,  # +2
        ScriptedRandom(10),
        ability="DEX",
        level=5,  # +3, doubled: +6
        degree=EXPERT,
        bonus=1,
        dc=19,
        proficiency_name="Stealth",
    )
    assert outcome.modifiers == (("DEX", 2), ("Stealth (Expert)", 6), ("bonus", 1))
    assert (outcome.dice, outcome.kept, outcome.total) == ((10,), 10, 19)
    assert outcome.result is CheckResult.SUCCESS and outcome.result_text == "Success"
    assert outcome.kind is d20.CheckKind.ABILITY_CHECK


def test_total_one_below_dc_fails() -> None:
    outcome = d20.ability_check(14, ScriptedRandom(9), ability="DEX", level=5, degree=EXPERT)
    assert outcome.total == 17 and outcome.result is None  # no DC given
    failed = d20.ability_check(14, ScriptedRandom(9), ability="DEX", level=5, bonus=0, dc=14)
    assert failed.total == 11 and failed.result is CheckResult.FAILURE


def test_no_dc_means_the_gm_judges() -> None:
    outcome = d20.ability_check(10, ScriptedRandom(15), ability="WIS", level=1)
    assert outcome.result is None and outcome.succeeded is None and outcome.result_text == "—"


def test_proficiency_label_defaults_and_no_entry_when_untrained() -> None:
    plain = d20.ability_check(10, ScriptedRandom(5), ability="STR", level=9, degree=PROF)
    assert plain.modifiers == (("STR", 0), ("proficiency (Proficient)", 4))
    untrained = d20.ability_check(10, ScriptedRandom(5), ability="STR", level=9)
    assert untrained.modifiers == (("STR", 0),)


def test_natural_20_is_not_an_automatic_success() -> None:
    outcome = d20.ability_check(1, ScriptedRandom(20), ability="STR", level=1, dc=25)
    assert outcome.total == 15 and outcome.result is CheckResult.FAILURE
    save = d20.saving_throw(1, ScriptedRandom(20), ability="CON", level=1, proficient=False, dc=16)
    assert save.result is CheckResult.FAILURE


def test_natural_1_is_not_an_automatic_failure() -> None:
    outcome = d20.ability_check(
        30, ScriptedRandom(1), ability="STR", level=17, degree=EXPERT, dc=20
    )
    assert outcome.total == 1 + 10 + 12 and outcome.result is CheckResult.SUCCESS
    save = d20.saving_throw(30, ScriptedRandom(1), ability="CON", level=20, proficient=True, dc=17)
    assert save.total == 17 and save.result is CheckResult.SUCCESS


def test_invalid_inputs_are_refused() -> None:
    with pytest.raises(RulesError):
        d20.ability_check(10, ScriptedRandom(5), ability="STR", level=0)
    with pytest.raises(RulesError):
        d20.ability_check(10, ScriptedRandom(5), ability="STR", level=1, dc=0)
    with pytest.raises(RulesError):
        d20.ability_check(10, ScriptedRandom(5), ability=" ", level=1)
    with pytest.raises(RulesError):
        d20.ability_check(10, ScriptedRandom(5), ability="STR", level=1, advantage=-1)


def test_saving_throw_adds_proficiency_only_if_proficient() -> None:
    proficient = d20.saving_throw(
        16, ScriptedRandom(10), ability="WIS", level=5, proficient=True, bonus=-1, dc=15
    )
    assert proficient.modifiers == (("WIS", 3), ("WIS save (Proficient)", 3), ("bonus", -1))
    assert proficient.total == 15 and proficient.result is CheckResult.SUCCESS
    assert proficient.kind is d20.CheckKind.SAVING_THROW
    plain = d20.saving_throw(16, ScriptedRandom(10), ability="WIS", level=5, proficient=False)
    assert plain.modifiers == (("WIS", 3),) and plain.total == 13


def test_saving_throw_with_advantage() -> None:
    outcome = d20.saving_throw(
        10, ScriptedRandom(3, 14), ability="DEX", level=1, proficient=False, advantage=True
    )
    assert outcome.kept == 14
