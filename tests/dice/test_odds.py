"""Exact odds against brute-force enumeration of the same rules."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from bot.dice import exact_odds, parse


def brute(count: int, sides: int, total_of) -> dict[int, Fraction]:
    outcomes = Counter(
        total_of(faces) for faces in itertools.product(range(1, sides + 1), repeat=count)
    )
    n = sides**count
    return {k: Fraction(v, n) for k, v in outcomes.items()}


@pytest.mark.parametrize(
    ("expression", "count", "sides", "total_of"),
    [
        ("1d20", 1, 20, sum),
        ("3d6", 3, 6, sum),
        ("2d6+1d4", None, None, None),
        ("4d6kh3", 4, 6, lambda f: sum(sorted(f)[1:])),
        ("4d6kl2", 4, 6, lambda f: sum(sorted(f)[:2])),
        ("5d4dh2", 5, 4, lambda f: sum(sorted(f)[:3])),
        ("5d4dl1", 5, 4, lambda f: sum(sorted(f)[1:])),
        ("2d20kh1+3", 2, 20, lambda f: max(f) + 3),
        ("dis", 2, 20, min),
        ("4d6mi2ma5", 4, 6, lambda f: sum(min(max(x, 2), 5) for x in f)),
        ("5d10>=8", 5, 10, lambda f: sum(x >= 8 for x in f)),
        ("5d6kh3>=4", 5, 6, lambda f: sum(x >= 4 for x in sorted(f)[2:])),
        ("3d6*2-1", 3, 6, lambda f: sum(f) * 2 - 1),
        ("3d6/2", 3, 6, lambda f: sum(f) // 2),
        ("-3d6/4", 3, 6, lambda f: (-sum(f)) // 4),
        ("1d6*1d6", 2, 6, lambda f: f[0] * f[1]),
        ("1d6-1d6", 2, 6, lambda f: f[0] - f[1]),
        ("1d20/1d4", None, None, None),
    ],
)
def test_odds_match_enumeration(expression, count, sides, total_of):
    if expression == "2d6+1d4":
        expected = Counter()
        for a, b, c in itertools.product(range(1, 7), range(1, 7), range(1, 5)):
            expected[a + b + c] += Fraction(1, 144)
    elif expression == "1d20/1d4":
        expected = Counter()
        for a, b in itertools.product(range(1, 21), range(1, 5)):
            expected[a // b] += Fraction(1, 80)
    else:
        expected = brute(count, sides, total_of)
    odds = exact_odds(expression)
    assert odds == dict(expected)
    assert sum(odds.values()) == 1


def test_reroll_odds_by_enumeration():
    # 1d6r<3: a first face of 1 or 2 is replaced by a second roll, whatever it shows.
    expected = Counter()
    for first, second in itertools.product(range(1, 7), repeat=2):
        expected[second if first < 3 else first] += Fraction(1, 36)
    assert exact_odds("1d6r<3") == dict(expected)


def test_capped_reroll_odds_by_enumeration():
    # 1d4rr1: up to 10 rerolls; after the 10th the face stands. Enumerate the chain.
    def chain(depth: int) -> Counter:
        out: Counter = Counter()
        for face in range(1, 5):
            if face == 1 and depth < 10:
                for k, p in chain(depth + 1).items():
                    out[k] += p / 4
            else:
                out[face] += Fraction(1, 4)
        return out

    assert exact_odds("1d4rr1") == dict(chain(0))


def test_capped_explosion_odds_by_enumeration():
    def chain(level: int) -> Counter:
        out: Counter = Counter()
        for face in range(1, 4):
            if face == 3 and level < 10:
                for k, p in chain(level + 1).items():
                    out[face + k] += p / 3
            else:
                out[face] += Fraction(1, 3)
        return out

    single = chain(0)
    assert exact_odds("1d3e") == dict(single)
    two: Counter = Counter()
    for (a, pa), (b, pb) in itertools.product(single.items(), repeat=2):
        two[a + b] += pa * pb
    assert exact_odds("2d3e3") == dict(two)


def test_exploding_successes():
    # 1d10e10>=8: each 10 is a success and adds a die, up to 10 explosions.
    def chain(level: int) -> Counter:
        out: Counter = Counter()
        for face in range(1, 11):
            hit = int(face >= 8)
            if face == 10 and level < 10:
                for k, p in chain(level + 1).items():
                    out[hit + k] += p / 10
            else:
                out[hit] += Fraction(1, 10)
        return out

    assert exact_odds("1d10e10>=8") == dict(chain(0))


@pytest.mark.parametrize(
    "expression", ["10d10e10", "100d6", "1d100*1d20", "12d12kh6", "1d20rr<20", "3d100"]
)
def test_odds_sum_to_one_and_match_static_bounds(expression):
    odds = exact_odds(expression)
    assert sum(odds.values()) == 1
    expr = parse(expression)
    assert expr.minimum <= min(odds) and max(odds) <= expr.maximum
