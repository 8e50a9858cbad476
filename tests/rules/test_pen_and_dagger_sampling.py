"""Seeded sampling agrees with the exact odds: chi-square goodness-of-fit tests.

The alarm threshold is p < 1e-9, so a correct implementation practically never fails, while a
rule that is wrong by even one face of the Success Table fails by hundreds of orders of
magnitude (see ``test_chi_square_catches_a_one_face_error``). Seeds are fixed, so every run is
the same. scipy is not available: the chi-square survival function is the product's own
(:func:`bot.services.rolling.stats.chi_square_sf`, the regularized upper incomplete gamma), checked
against known values below.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Hashable, Mapping
from fractions import Fraction
from typing import TypeVar

import pytest

from bot.rules.pen_and_dagger import (
    Rank,
    SuccessLevel,
    attempt,
    attempt_odds,
    generate_group_scores,
    luck_odds,
    luck_roll,
)
from bot.services.rolling.stats import chi_square_sf as chi2_sf

K = TypeVar("K", bound=Hashable)

P_ALARM = 1e-9
SAMPLES = 40_000


def chi_square_p(observed: Counter[K], expected: Mapping[K, Fraction]) -> float:
    """Goodness-of-fit p-value; an outcome with probability 0 must never be observed."""
    n = sum(observed.values())
    assert set(observed) <= set(expected), f"unexpected outcomes {set(observed) - set(expected)}"
    statistic, bins = 0.0, 0
    for key, p in expected.items():
        if p == 0:
            assert observed[key] == 0, f"{key} has probability 0 but was observed"
            continue
        e = n * float(p)
        statistic += (observed[key] - e) ** 2 / e
        bins += 1
    return chi2_sf(statistic, bins - 1) if bins > 1 else 1.0


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [(3.841458820694124, 1, 0.05), (11.070497693516351, 5, 0.05), (29.58829844507442, 10, 0.001),
     (6.0, 2, math.exp(-3.0)), (40.0, 2, math.exp(-20.0)), (0.5, 3, 0.9188914117)],
)  # fmt: skip
def test_chi2_sf_known_values(x: float, df: int, p: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-6)


def test_chi2_sf_tail_is_monotone_and_tiny() -> None:
    values = [chi2_sf(x, 5) for x in range(0, 200, 5)]
    assert values == sorted(values, reverse=True)
    assert chi2_sf(60.0, 5) < P_ALARM < chi2_sf(45.0, 5)


def sample_attempts(rank: Rank, seed: int, **options: bool) -> Counter[SuccessLevel]:
    rng = random.Random(seed)
    return Counter(attempt(rank, rng, **options).level for _ in range(SAMPLES))


CONFIGS = [
    (Rank.TRAINED, {}),
    (Rank.DOOMED, {"disadvantage": True, "unreliable": True}),
    (Rank.GODLIKE, {"advantage": True, "reliable": True}),
    (Rank.NOVICE, {"advantage": True}),
    (Rank.LEGENDARY, {"disadvantage": True}),
    (Rank.HOPELESS, {"reliable": True}),
    (Rank.EPIC, {"advantage": True, "disadvantage": True, "unreliable": True}),
]


@pytest.mark.parametrize(("index", "config"), list(enumerate(CONFIGS)))
def test_attempt_sampling_matches_exact_odds(
    index: int, config: tuple[Rank, dict[str, bool]]
) -> None:
    rank, options = config
    observed = sample_attempts(rank, 1000 + index, **options)
    assert chi_square_p(observed, attempt_odds(rank, **options)) > P_ALARM


def test_chi_square_catches_a_one_face_error() -> None:
    """Odds with Trained's Limited range as 7-9 instead of 6-9 are rejected overwhelmingly."""
    wrong = dict(attempt_odds(Rank.TRAINED))
    wrong[SuccessLevel.FAILURE] += Fraction(1, 20)
    wrong[SuccessLevel.LIMITED] -= Fraction(1, 20)
    observed = sample_attempts(Rank.TRAINED, 1000)
    assert chi_square_p(observed, wrong) < 1e-100


def test_luck_sampling_matches_exact_odds() -> None:
    rng = random.Random(77)
    observed: Counter[bool] = Counter(luck_roll(rng).lucky for _ in range(SAMPLES))
    assert chi_square_p(observed, luck_odds()) > P_ALARM


def four_d6_drop_lowest() -> dict[int, Fraction]:
    odds: dict[int, Fraction] = {}
    for dice in itertools.product(range(1, 7), repeat=4):
        total = sum(dice) - min(dice)
        odds[total] = odds.get(total, Fraction(0)) + Fraction(1, 6**4)
    return odds


def test_generated_scores_are_4d6_drop_lowest_for_every_group_size() -> None:
    rng = random.Random(4242)
    observed: Counter[int] = Counter()
    for round_ in range(3_000):
        generation = generate_group_scores([f"P{i}" for i in range(round_ % 12 + 1)], rng)
        observed.update(generation.values)
    assert chi_square_p(observed, four_d6_drop_lowest()) > P_ALARM
