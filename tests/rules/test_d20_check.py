"""d20 check (`shared/rules/d20-check.txt`) as a whole: advantage (ruling 3), exact odds,
properties and sampling across its modules; each ruling's own tests are beside its module
(test_checks_d20.py, test_contests.py, test_dcs.py, test_items.py, test_attacks_d20.py,
test_groups_d20.py).

Tests bot/rules/d20_check/_d20.py (the kept die under advantage) and the package.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules import d20_check as d20
from bot.rules.common import Advantage
from bot.rules.d20_check import (
    AttackInput,
    CheckInput,
    ContestResult,
    ItemQuality,
    ProficiencyDegree,
)
from tests.scripted import ScriptedRandom
from tests.stats import assert_sample_fits

NONE, PROF, EXPERT = ProficiencyDegree.NONE, ProficiencyDegree.PROFICIENT, ProficiencyDegree.EXPERT


# ------------------------------------------------------------------ advantage: ruling 3


@pytest.mark.parametrize(
    ("advantage", "disadvantage", "rolls", "kept", "state"),
    [
        (True, False, [5, 17], 17, Advantage.ADVANTAGE),  # the text's 17 and 5
        (False, True, [17, 5], 5, Advantage.DISADVANTAGE),
        (2, 0, [5, 17], 17, Advantage.ADVANTAGE),  # two sources: still ONE extra d20
        (0, 3, [5, 17], 5, Advantage.DISADVANTAGE),
        (True, True, [5], 5, Advantage.NONE),  # both: neither, one d20
        (3, 1, [12], 12, Advantage.NONE),  # "even if multiple … and only one …"
        (1, 4, [12], 12, Advantage.NONE),
    ],
)
def test_advantage_and_disadvantage(
    advantage: int, disadvantage: int, rolls: list[int], kept: int, state: Advantage
) -> None:
    rng = ScriptedRandom(*rolls)
    outcome = d20.ability_check(
        10, rng, ability="DEX", level=1, advantage=advantage, disadvantage=disadvantage
    )
    assert list(rng.faces) == []  # exactly the scripted number of dice were rolled
    assert outcome.dice == tuple(rolls) and outcome.kept == kept and outcome.advantage is state


# ---------------------------------------------------------------------------------- exact odds


def test_check_odds_by_hand() -> None:
    plain = _check(10)  # +0
    assert d20.check_odds(plain, 11) == Fraction(1, 2)
    assert d20.check_odds(_check(10, advantage=True), 11) == Fraction(3, 4)
    assert d20.check_odds(_check(10, disadvantage=True), 11) == Fraction(1, 4)
    assert d20.check_odds(_check(10, advantage=2, disadvantage=1), 11) == Fraction(1, 2)
    assert d20.check_odds(plain, 21) == 0  # no automatic success on a 20
    assert d20.check_odds(_check(30), 2) == 1  # no automatic failure on a 1


def test_total_distribution_shape() -> None:
    dist = d20.total_distribution(_check(14, degree=PROF, bonus=1))  # +2 +2 +1
    assert dist == {t: Fraction(1, 20) for t in range(6, 26)}


def test_contest_odds_by_hand() -> None:
    same = d20.contest_odds(_check(10), _check(10))
    assert same == (Fraction(190, 400), Fraction(190, 400), Fraction(20, 400))


def test_group_check_odds_brute_force() -> None:
    members = {"A": _check(8), "B": _check(12, advantage=True), "C": _check(16, degree=PROF)}
    dc = 13
    ps = [d20.check_odds(m, dc) for m in members.values()]
    brute = Fraction(0)
    for outcome in itertools.product([True, False], repeat=3):
        p = Fraction(1)
        for ok, q in zip(outcome, ps, strict=True):
            p *= q if ok else 1 - q
        if 2 * sum(outcome) >= 3:
            brute += p
    assert d20.group_check_odds(members, dc) == brute
    # Two members: one success of two is already "at least half".
    pair = {"A": _check(10), "B": _check(10)}
    assert d20.group_check_odds(pair, 11) == 1 - Fraction(1, 4)


def test_attack_odds_by_hand() -> None:
    attack = AttackInput(
        ac=15, score=16, level=1, crit_rules=True, weapon_quality=ItemQuality.MASTER
    )
    odds = d20.attack_odds(attack)
    assert odds.hit == Fraction(11, 20)  # 10..20
    assert odds.critical == Fraction(1, 20) and odds.fumble == Fraction(1, 20)
    assert odds.weapon_breaks == Fraction(1, 20) * Fraction(7, 20)  # save fails on 1..7
    assert odds.lowers_target_ac == Fraction(1, 20)
    off = d20.attack_odds(AttackInput(ac=15, score=16, level=1))
    assert (off.critical, off.fumble, off.weapon_breaks) == (0, 0, 0)
    out_of_reach = d20.attack_odds(AttackInput(ac=30, attack_bonus=5, crit_rules=True))
    assert out_of_reach.hit == 0 and out_of_reach.critical == 0
    with_adv = d20.attack_odds(AttackInput(ac=15, attack_bonus=0, advantage=True, crit_rules=True))
    assert with_adv.critical == Fraction(39, 400) and with_adv.fumble == Fraction(1, 400)


# -------------------------------------------------------------------------------- properties

scores = st.integers(min_value=1, max_value=30)
levels = st.integers(min_value=1, max_value=20)
degrees = st.sampled_from(list(ProficiencyDegree))
bonuses = st.integers(min_value=-5, max_value=5)
dcs = st.integers(min_value=1, max_value=35)


@given(scores, levels, degrees, bonuses, dcs)
def test_advantage_never_worse_than_straight(
    score: int, level: int, degree: ProficiencyDegree, bonus: int, dc: int
) -> None:
    def odds(**kw: bool) -> Fraction:
        check = CheckInput(score=score, ability="X", level=level, degree=degree, bonus=bonus, **kw)
        return d20.check_odds(check, dc)

    straight = odds()
    assert 0 <= odds(disadvantage=True) <= straight <= odds(advantage=True) <= 1


@given(scores, levels, degrees, bonuses, dcs)
def test_more_of_anything_is_never_worse(
    score: int, level: int, degree: ProficiencyDegree, bonus: int, dc: int
) -> None:
    base = CheckInput(score=score, ability="X", level=level, degree=degree, bonus=bonus)
    p = d20.check_odds(base, dc)
    if score < 30:
        assert d20.check_odds(CheckInput(**{**_fields(base), "score": score + 1}), dc) >= p
    if level < 20:
        assert d20.check_odds(CheckInput(**{**_fields(base), "level": level + 1}), dc) >= p
    if degree is not EXPERT:
        ladder = [NONE, ProficiencyDegree.HALF, PROF, EXPERT]  # each adds no less
        better = ladder[ladder.index(degree) + 1]
        assert d20.check_odds(CheckInput(**{**_fields(base), "degree": better}), dc) >= p
    assert d20.check_odds(CheckInput(**{**_fields(base), "bonus": bonus + 1}), dc) >= p


def _fields(check: CheckInput) -> dict[str, object]:
    return {name: getattr(check, name) for name in CheckInput.__dataclass_fields__}


@given(scores, scores, st.booleans(), st.booleans())
def test_contest_odds_are_a_distribution(a: int, b: int, adv: bool, dis: bool) -> None:
    first = CheckInput(score=a, ability="STR", level=1, advantage=adv)
    second = CheckInput(score=b, ability="STR", level=1, disadvantage=dis)
    win_a, win_b, tie = d20.contest_odds(first, second)
    assert win_a + win_b + tie == 1
    assert all(0 <= p <= 1 for p in (win_a, win_b, tie))
    assert d20.contest_odds(second, first) == (win_b, win_a, tie)


@given(st.lists(st.tuples(scores, st.booleans()), min_size=1, max_size=6), dcs)
def test_group_odds_in_range(members: list[tuple[int, bool]], dc: int) -> None:
    named = {
        f"m{i}": CheckInput(score=s, ability="WIS", level=1, advantage=a)
        for i, (s, a) in enumerate(members)
    }
    assert 0 <= d20.group_check_odds(named, dc) <= 1


@given(scores, levels, bonuses, st.booleans(), st.booleans())
def test_distribution_sums_to_one(score: int, level: int, bonus: int, a: bool, d: bool) -> None:
    dist = d20.total_distribution(
        CheckInput(score=score, ability="X", level=level, bonus=bonus, advantage=a, disadvantage=d)
    )
    assert sum(dist.values()) == 1


# ---------------------------------------------------------------------------------- sampling


def test_sampled_totals_match_the_exact_distribution() -> None:
    rng = random.Random(424242)
    for check in (
        _check(14, degree=PROF),
        _check(8, advantage=True),
        _check(17, disadvantage=2, bonus=2),
    ):
        counts = Counter(d20.roll_check(check, rng).total for _ in range(8000))
        assert_sample_fits(counts, d20.total_distribution(check))


def test_sampled_contests_and_group_checks_match_exact_odds() -> None:
    rng = random.Random(5150)
    a, b = _check(14, advantage=True), _check(16)
    win_a, win_b, tie = d20.contest_odds(a, b)
    counts = Counter(d20.contest(a, b, rng).result for _ in range(6000))
    assert_sample_fits(
        counts,
        {ContestResult.FIRST_WINS: win_a, ContestResult.SECOND_WINS: win_b, ContestResult.TIE: tie},
    )
    members = {"A": _check(8), "B": _check(12, advantage=True), "C": _check(16, degree=PROF)}
    p = d20.group_check_odds(members, 13)
    group = Counter(d20.group_check(members, rng, 13).succeeded for _ in range(6000))
    assert_sample_fits(group, {True: p, False: 1 - p})


def test_sampled_attacks_match_exact_odds() -> None:
    rng = random.Random(8086)
    attack = AttackInput(
        ac=14, attack_bonus=4, crit_rules=True, weapon_quality=ItemQuality.ADEPT, advantage=True
    )
    odds = d20.attack_odds(attack)
    counts: Counter[str] = Counter()
    for _ in range(20000):
        outcome = d20.roll_attack(attack, rng)
        if outcome.fumble:
            counts["broken" if outcome.weapon_breaks else "held"] += 1
        elif outcome.critical:
            counts["critical"] += 1
        else:
            counts["hit" if outcome.hit else "miss"] += 1
    fumble_hits = Fraction(0)  # a natural 1 + 4 never reaches AC 14
    expected = {
        "broken": odds.weapon_breaks,
        "held": odds.fumble - odds.weapon_breaks,
        "critical": odds.critical,
        "hit": odds.hit - odds.critical - fumble_hits,
        "miss": 1 - odds.hit - odds.fumble,
    }
    assert sum(expected.values()) == 1
    assert_sample_fits(counts, expected)


def _check(
    score: int = 10,
    *,
    degree: ProficiencyDegree = NONE,
    bonus: int = 0,
    advantage: int | bool = False,
    disadvantage: int | bool = False,
    name: str = "",
) -> CheckInput:
    return CheckInput(
        score=score,
        ability="STR",
        level=1,
        degree=degree,
        bonus=bonus,
        advantage=advantage,
        disadvantage=disadvantage,
        name=name,
    )
