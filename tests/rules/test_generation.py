"""Group ability-score generation (Pen & Dagger ruling 8): who rolls which of the 24 dice for any
number of players, the GM rolling when their number is odd, 4d6 drop the lowest each.

Tests bot/rules/pen_and_dagger/generation.py.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bot.rules.errors import RulesError
from bot.rules.pen_and_dagger import (
    GenerationScheme,
    GroupGeneration,
    generate_group_scores,
)
from tests.rules.test_abilities_pen_and_dagger import players
from tests.scripted import ScriptedRandom

# Dice each roller rolls, by number of players, worked out from the table by hand.
# (players: (GM rolls?, dice per roller in turn order))
EXPECTED_DICE = {
    1: (True, [12, 12]),  # 2 rollers: 2d6 of each of the six scores
    2: (False, [12, 12]),
    3: (True, [6, 6, 6, 6]),  # 4 rollers: 1d6 of every score
    4: (False, [6, 6, 6, 6]),
    5: (True, [4] * 6),  # 6 rollers: the four dice of one score each
    6: (False, [4] * 6),
    7: (True, [3] * 8),  # halves of 4: 12 dice → 3 each
    8: (False, [3] * 8),
    9: (True, [3, 3, 2, 2, 2] * 2),  # halves of 5: 12 = 3+3+2+2+2
    10: (False, [3, 3, 2, 2, 2] * 2),
    11: (True, [2] * 12),  # halves of 6
    12: (False, [2] * 12),
}


def check_scores(generation: GroupGeneration) -> None:
    assert len(generation.scores) == 6
    for score in generation.scores:
        assert len(score.dice) == 4
        dropped = [die for die in score.dice if die.dropped]
        assert len(dropped) == 1
        values = [die.value for die in score.dice]
        assert dropped[0].value == min(values)
        assert score.total == sum(values) - min(values)
        assert 3 <= score.total <= 18
    assert generation.values == tuple(score.total for score in generation.scores)


@pytest.mark.parametrize("count", sorted(EXPECTED_DICE))
def test_dice_per_roller_for_1_to_12_players(count: int) -> None:
    gm_rolls, per_roller = EXPECTED_DICE[count]
    generation = generate_group_scores(players(count), random.Random(count), gm="Dana (GM)")
    expected_rollers = players(count) + (["Dana (GM)"] if gm_rolls else [])
    assert list(generation.rollers) == expected_rollers
    assert generation.gm_rolls is gm_rolls
    by_roller = generation.dice_by_roller()
    assert [len(by_roller[name]) for name in expected_rollers] == per_roller
    assert sum(per_roller) == 24
    check_scores(generation)


@pytest.mark.parametrize("count", [1, 2])
def test_two_rollers_each_roll_two_dice_of_every_score(count: int) -> None:
    generation = generate_group_scores(players(count), random.Random(7))
    assert generation.scheme is GenerationScheme.TWO_DICE_EACH
    for score in generation.scores:
        assert sorted(Counter(die.roller for die in score.dice).values()) == [2, 2]


@pytest.mark.parametrize("count", [3, 4])
def test_four_rollers_each_roll_one_die_of_every_score(count: int) -> None:
    generation = generate_group_scores(players(count), random.Random(7))
    assert generation.scheme is GenerationScheme.ONE_DIE_EACH
    for score in generation.scores:
        assert [die.roller for die in score.dice] == list(generation.rollers)


@pytest.mark.parametrize("count", [5, 6])
def test_six_rollers_each_roll_one_whole_score(count: int) -> None:
    generation = generate_group_scores(players(count), random.Random(7))
    assert generation.scheme is GenerationScheme.ONE_SCORE_EACH
    for roller, score in zip(generation.rollers, generation.scores, strict=True):
        assert {die.roller for die in score.dice} == {roller}


@pytest.mark.parametrize("count", [7, 8, 9, 10, 11, 12, 13, 20])
def test_seven_or_more_split_into_two_halves_of_three_scores(count: int) -> None:
    generation = generate_group_scores(players(count), random.Random(7))
    assert generation.scheme is GenerationScheme.TWO_GROUPS
    first, second = generation.groups
    assert len(first) == len(second) == len(generation.rollers) // 2
    assert first + second == generation.rollers
    for score in generation.scores[:3]:
        assert {die.roller for die in score.dice} <= set(first)
    for score in generation.scores[3:]:
        assert {die.roller for die in score.dice} <= set(second)
    # round-robin in turn order within each half
    for half, scores in ((first, generation.scores[:3]), (second, generation.scores[3:])):
        dealt = [die.roller for score in scores for die in score.dice]
        assert dealt == [half[k % len(half)] for k in range(12)]
    check_scores(generation)


def test_a_half_of_more_than_twelve_leaves_members_without_dice() -> None:
    generation = generate_group_scores(players(26), random.Random(3))  # halves of 13
    by_roller = generation.dice_by_roller()
    assert by_roller["P13"] == () and by_roller["P26"] == ()
    assert len(by_roller["P1"]) == 1


def test_every_die_attributed_in_roll_order_with_the_gm_name() -> None:
    dice = [3, 5, 1, 6] + [2, 2, 2, 2] * 5
    generation = generate_group_scores(["Ann"], ScriptedRandom(*dice), gm="Gus")
    first = generation.scores[0]
    assert [(d.value, d.roller) for d in first.dice] == [(3, "Ann"), (5, "Ann"), (1, "Gus"),
                                                         (6, "Gus")]  # fmt: skip
    assert first.dropped.value == 1 and first.dropped.roller == "Gus"
    assert first.total == 14


def test_tied_lowest_drops_only_one_die() -> None:
    dice = [3, 6, 3, 5] + [1] * 20
    generation = generate_group_scores(["A", "B", "C", "D"], ScriptedRandom(*dice))
    first = generation.scores[0]
    assert [d.dropped for d in first.dice] == [True, False, False, False]
    assert first.total == 14
    assert generation.scores[1].total == 3


@pytest.mark.parametrize(
    ("names", "gm"),
    [([], "GM"), (["A", "A"], "GM"), (["A", " "], "GM"), (["A"], "A"), (["A", "B", "C"], "")],
)
def test_bad_groups_are_refused(names: list[str], gm: str) -> None:
    with pytest.raises(RulesError):
        generate_group_scores(names, random.Random(1), gm=gm)


def test_gm_name_may_match_when_the_gm_does_not_roll() -> None:
    generation = generate_group_scores(["A", "GM"], random.Random(1))
    assert generation.rollers == ("A", "GM") and not generation.gm_rolls
