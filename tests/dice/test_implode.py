"""Imploding dice (``im``): a die showing its lowest face (or ``imN``/``im<N``) rolls again and
subtracts the new die, chained like the explosion it mirrors."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from bot.dice import DiceError, exact_odds, parse, render_markdown, render_plain, roll
from bot.dice.roller import FROM_IMPLOSION, IMPLODED
from tests.dice.forced import enumerate_outcomes
from tests.scripted import ScriptedRandom


def forced(expression: str, *faces: int):
    rng = ScriptedRandom(*faces)
    result = roll(expression, rng)  # type: ignore[arg-type]
    assert rng.used == len(faces), f"{expression} used {rng.used} of {len(faces)} dice"
    return result


@pytest.mark.parametrize(
    ("expression", "faces", "expected"),
    [
        ("1d6im", (4,), 4),  # no 1: nothing happens
        ("1d6im", (1, 4), -3),  # 1 - 4
        ("1d6im", (1, 1, 5), -5),  # chained: 1 - 1 - 5
        ("3d6im", (1, 3, 6, 2), 8),  # only the 1 implodes: 1 - 2 + 3 + 6
        ("2d10im<3", (2, 9, 7), 4),  # 2 - 7 + 9
        ("2d10im2", (1, 2, 5), -2),  # exactly 2: 1 + 2 - 5
        ("1d6imr1", (1, 3), 3),  # the reroll comes first, as with explosions
        ("4d6imkh3", (1, 2, 5, 6, 4), 13),  # the implosion die (-4) is one die of the pool
    ],
)
def test_implosions_subtract_chained_dice(expression, faces, expected):
    assert forced(expression, *faces).total == expected


def test_every_die_is_shown_and_marked():
    result = forced("2d6im", 1, 5, 1, 3)
    flags = [d.flags for d in result.terms[0].dice]
    assert [bool(f & IMPLODED) for f in flags] == [True, True, False, False]
    assert [bool(f & FROM_IMPLOSION) for f in flags] == [False, True, True, False]
    assert render_plain(result) == "2d6im1 (1i, -1i, -3, 5) = 2"
    assert render_markdown(result) == "2d6im1 (**1**¡, −**1**¡, −3, 5) = 2"


def test_chain_stops_after_ten_implosions_like_explosions():
    result = forced("1d6im", *([1] * 11))
    assert result.total == 1 - 10 and len(result.terms[0].dice) == 11


def test_worst_case_counts_every_implosion():
    assert parse("90d6im").terms[0].worst_dice == 990
    with pytest.raises(DiceError, match="could roll up to 1,100 dice"):
        parse("100d6im")
    spec = parse("2d6im").terms[0]
    # Each die can reach 1 - 10 * 6 (ten implosions of 6 after 1s); the bound must cover it.
    assert spec.minimum <= 2 * (1 - 10 * 6) and spec.maximum >= 12


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1d6im<=6", "1d6im<=6: every face implodes, so it would never stop"),
        ("1d6!im", "1d6: a term can explode or implode, not both; write them as two rolls"),
        ("4dFim", "Fate dice can't be rerolled, exploded or clamped"),
    ],
)
def test_refusals(expression, message):
    with pytest.raises(DiceError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse(expression)


@pytest.mark.parametrize(
    ("expression", "sides"),
    [("1d3im", 3), ("2d3im", 3), ("1d4im<2", 4), ("1d3imr1", 3), ("1d4imma3", 4), ("2d2im2", 2)],
)
def test_exact_odds_match_enumeration(expression, sides):
    run = lambda rng: roll(expression, rng).total  # type: ignore[arg-type]  # noqa: E731
    expected = enumerate_outcomes(run, sides, max_dice=24)
    odds = exact_odds(expression)
    assert odds == dict(expected)
    assert sum(odds.values()) == Fraction(1)


@pytest.mark.parametrize("expression", ["3d6imkh2", "4d6im1>=4"])
def test_exact_odds_refused_by_name_with_keep_or_successes(expression):
    with pytest.raises(DiceError, match="exact odds are not available for imploding dice"):
        exact_odds(expression)


@pytest.mark.parametrize("expression", ["90d10000im<9999", "1d6im" * 300, "(1d2im," * 100])
def test_hostile_inputs_fail_or_roll_within_bounds(expression):
    try:
        result = roll(expression, random.Random(1))
    except DiceError as error:
        assert 0 < len(str(error)) <= 300
        return
    assert result.parsed.minimum <= result.total <= result.parsed.maximum
