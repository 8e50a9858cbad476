"""Several keep/drop operations apply one after the other (docs/dice.md, "Keep and drop"),
checked over every outcome of the dice: the roll and the exact odds agree with enumeration.

Tied dice are where a second drop used to pick the die the first had already dropped."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from bot.dice import exact_odds, roll
from tests.scripted import ScriptedRandom


def _middle(faces: tuple[int, ...]) -> int:
    return sorted(faces)[1]


CASES = [
    # expression, dice, sides, what the documented reading totals
    ("3d6dh1dl1", 3, 6, _middle),
    ("3d6dl1dh1", 3, 6, _middle),
    ("4d6dl1dl1", 4, 6, lambda f: sum(sorted(f)[2:])),
    ("4d6dh1dh1", 4, 6, lambda f: sum(sorted(f)[:2])),
    ("4d6dl1dh1", 4, 6, lambda f: sum(sorted(f)[1:3])),
    ("5d4dh1dl2", 5, 4, lambda f: sum(sorted(f)[2:4])),
    ("4d6kh3dl1", 4, 6, lambda f: sum(sorted(f)[2:])),
    ("4d6dh1kl2", 4, 6, lambda f: sum(sorted(f)[:2])),
    ("4d6dl1kh2", 4, 6, lambda f: sum(sorted(f)[2:])),
    ("5d6dl1dl1dh1", 5, 6, lambda f: sum(sorted(f)[2:4])),
    ("4d6km2", 4, 6, lambda f: sum(sorted(f)[1:3])),
    ("5d6km2", 5, 6, lambda f: sum(sorted(f)[1:3])),  # one more dropped above if odd
]


@pytest.mark.parametrize(("expression", "count", "sides", "meaning"), CASES)
def test_every_outcome_rolls_the_documented_total(expression, count, sides, meaning):
    wrong = []
    for faces in itertools.product(range(1, sides + 1), repeat=count):
        got = roll(expression, ScriptedRandom(*faces)).total
        if got != meaning(faces):
            wrong.append((faces, got, meaning(faces)))
    assert wrong == []


@pytest.mark.parametrize(("expression", "count", "sides", "meaning"), CASES)
def test_exact_odds_agree_with_enumeration(expression, count, sides, meaning):
    outcomes = Counter(
        meaning(faces) for faces in itertools.product(range(1, sides + 1), repeat=count)
    )
    n = sides**count
    assert exact_odds(expression) == {k: Fraction(v, n) for k, v in outcomes.items()}


def test_tied_dice_two_drops_drop_two_dice():
    result = roll("4d6dl1dl1", ScriptedRandom(3, 3, 3, 3))
    assert result.total == 6
    assert sum(d.kept for d in result.terms[0].dice) == 2
    result = roll("3d6dh1dl1", ScriptedRandom(2, 2, 2))
    assert result.total == 2
    assert sum(d.kept for d in result.terms[0].dice) == 1
