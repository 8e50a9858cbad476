"""Assigning the group's generated scores to abilities (ruling 8), with racial adjustments.

Tests bot/rules/pen_and_dagger/abilities.py.
"""

from __future__ import annotations

import random

import pytest

from bot.rules.errors import RulesError
from bot.rules.pen_and_dagger import (
    ABILITIES,
    generate_group_scores,
    validate_assignment,
)


def players(count: int) -> list[str]:
    return [f"P{i}" for i in range(1, count + 1)]


SCORES = [15, 14, 13, 12, 10, 8]
ASSIGNMENT = {"STR": 15, "DEX": 14, "CON": 13, "INT": 12, "WIS": 10, "CHA": 8}


def test_valid_assignment_returns_final_scores() -> None:
    final = validate_assignment(SCORES, ASSIGNMENT, {"STR": 2, "CHA": -1})
    assert final == {"STR": 17, "DEX": 14, "CON": 13, "INT": 12, "WIS": 10, "CHA": 7}
    assert tuple(final) == ABILITIES


def test_ability_names_are_case_insensitive() -> None:
    assignment = {name.lower(): score for name, score in ASSIGNMENT.items()}
    assert validate_assignment(SCORES, assignment)["STR"] == 15


def test_duplicate_scores_are_a_multiset() -> None:
    scores = [12, 12, 10, 10, 10, 9]
    ok = {"STR": 12, "DEX": 12, "CON": 10, "INT": 10, "WIS": 10, "CHA": 9}
    assert validate_assignment(scores, ok)["DEX"] == 12
    too_many = {**ok, "CON": 12}
    with pytest.raises(RulesError, match="exactly once"):
        validate_assignment(scores, too_many)


def test_score_not_in_the_group_is_refused() -> None:
    with pytest.raises(RulesError, match="exactly once"):
        validate_assignment(SCORES, {**ASSIGNMENT, "CHA": 18})


def test_missing_ability_is_refused() -> None:
    partial = {name: score for name, score in ASSIGNMENT.items() if name != "WIS"}
    with pytest.raises(RulesError, match="missing: WIS"):
        validate_assignment(SCORES, partial)


def test_unknown_or_repeated_ability_is_refused() -> None:
    with pytest.raises(RulesError, match="not an ability"):
        validate_assignment(SCORES, {**ASSIGNMENT, "LCK": 8})
    with pytest.raises(RulesError, match="twice"):
        validate_assignment(SCORES, {**ASSIGNMENT, "str": 15})
    with pytest.raises(RulesError, match="not an ability"):
        validate_assignment(SCORES, ASSIGNMENT, {"LCK": 1})


def test_wrong_number_of_group_scores_is_refused() -> None:
    with pytest.raises(RulesError, match="six"):
        validate_assignment([*SCORES, 9], ASSIGNMENT)


def test_nothing_above_19_at_first_level_after_racial_adjustments() -> None:
    scores = [18, 14, 13, 12, 10, 8]
    assignment = {**ASSIGNMENT, "STR": 18}
    assert validate_assignment(scores, assignment, {"STR": 1})["STR"] == 19
    with pytest.raises(RulesError, match="exceed 19"):
        validate_assignment(scores, assignment, {"STR": 2})
    assert validate_assignment(scores, assignment, {"STR": 2}, level=2)["STR"] == 20


def test_scores_below_one_and_bad_levels_are_refused() -> None:
    with pytest.raises(RulesError, match="at least 1"):
        validate_assignment(SCORES, ASSIGNMENT, {"CHA": -8})
    with pytest.raises(RulesError):
        validate_assignment(SCORES, ASSIGNMENT, level=0)


def test_generated_scores_can_be_assigned() -> None:
    generation = generate_group_scores(players(3), random.Random(11))
    assignment = dict(zip(ABILITIES, generation.values, strict=True))
    assert validate_assignment(generation.values, assignment) == assignment
