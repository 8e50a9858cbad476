"""Attempts, luck rolls, the natural-20 trade, rerolls and exact odds (rulings 2-6).

Exact-outcome tests script the dice with :class:`ScriptedRandom` so each test states them.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.errors import RulesError
from bot.rules.pen_and_dagger import (
    MAX_REROLLS,
    AttemptOutcome,
    LuckOutcome,
    Rank,
    Reliability,
    SuccessLevel,
    attempt,
    attempt_odds,
    best_reachable_level,
    can_reroll,
    luck_odds,
    luck_roll,
    reroll,
)
from bot.rules.pen_and_dagger import attempts as attempts_module
from tests.scripted import ScriptedRandom

L = SuccessLevel


def roll(rank: Rank, *dice: int, **options: object) -> AttemptOutcome:
    rng = ScriptedRandom(*dice)
    outcome = attempt(rank, rng, **options)  # type: ignore[arg-type]
    assert list(rng.faces) == [], "the code rolled fewer dice than the test scripted"
    return outcome


# --- a plain attempt ---------------------------------------------------------------------


def test_plain_attempt_records_every_step() -> None:
    outcome = roll(Rank.TRAINED, 12)
    assert outcome.base_rank is Rank.TRAINED
    assert outcome.effective_rank is Rank.TRAINED
    assert outcome.adjustment == 0
    assert outcome.dice == (12,)
    assert outcome.kept == 12
    assert outcome.table_level is L.NORMAL
    assert outcome.shifted_level is L.NORMAL
    assert outcome.level is L.NORMAL
    assert not outcome.trade_available and not outcome.traded and outcome.fortune_gained == 0
    assert outcome.reliability is Reliability.NONE


# --- ruling 2: advantage / disadvantage ---------------------------------------------------


def test_advantage_keeps_the_better_die() -> None:
    outcome = roll(Rank.TRAINED, 3, 17, advantage=True)
    assert outcome.dice == (3, 17)
    assert outcome.kept == 17
    assert outcome.level is L.MAJOR


def test_advantage_keeps_the_better_die_whatever_the_order() -> None:
    assert roll(Rank.TRAINED, 17, 3, advantage=True).kept == 17


def test_disadvantage_keeps_the_worse_die() -> None:
    outcome = roll(Rank.TRAINED, 17, 3, disadvantage=True)
    assert outcome.dice == (17, 3)
    assert outcome.kept == 3
    assert outcome.level is L.FAILURE


def test_advantage_and_disadvantage_cancel_to_one_die() -> None:
    outcome = roll(Rank.TRAINED, 4, advantage=True, disadvantage=True)
    assert outcome.dice == (4,)
    assert outcome.level is L.FAILURE
    assert outcome.advantage and outcome.disadvantage


def test_advantage_on_equal_levels_keeps_the_higher_face() -> None:
    """Doomed: 15 and 20 are both Normal; the 20 is kept (it offers the trade)."""
    outcome = roll(Rank.DOOMED, 15, 20, advantage=True)
    assert outcome.kept == 20
    assert outcome.trade_available


def test_disadvantage_on_equal_levels_keeps_the_lower_face() -> None:
    outcome = roll(Rank.DOOMED, 20, 15, disadvantage=True)
    assert outcome.kept == 15
    assert not outcome.trade_available


def test_advantage_avoids_natural_one() -> None:
    assert roll(Rank.LEGENDARY, 1, 2, advantage=True).level is L.LIMITED
    assert roll(Rank.LEGENDARY, 1, 2, disadvantage=True).level is L.FAILURE


# --- ruling 3: rank adjustments -----------------------------------------------------------


def test_single_rank_adjustment() -> None:
    outcome = roll(Rank.TRAINED, 9, rank_adjustment=1)
    assert outcome.effective_rank is Rank.ADEPT
    assert outcome.level is L.NORMAL  # Adept 9 is Normal; Trained 9 would be Limited


def test_rank_adjustments_are_summed() -> None:
    outcome = roll(Rank.TRAINED, 9, rank_adjustment=[1, 1, -1])
    assert outcome.adjustments == (1, 1, -1)
    assert outcome.adjustment == 1
    assert outcome.effective_rank is Rank.ADEPT


def test_rank_adjustments_are_summed_before_clamping() -> None:
    """Legendary +3 −3 is Legendary; clamping step by step would give Master."""
    assert roll(Rank.LEGENDARY, 10, rank_adjustment=[3, -3]).effective_rank is Rank.LEGENDARY
    assert roll(Rank.HOPELESS, 10, rank_adjustment=[-4, 4]).effective_rank is Rank.HOPELESS


@pytest.mark.parametrize(
    ("rank", "adjustment", "expected"),
    [(Rank.DOOMED, -1, Rank.DOOMED), (Rank.INEPT, -7, Rank.DOOMED),
     (Rank.GODLIKE, 1, Rank.GODLIKE), (Rank.EPIC, 5, Rank.GODLIKE),
     (Rank.NOVICE, -2, Rank.INEPT), (Rank.DOOMED, 10, Rank.GODLIKE)],
)  # fmt: skip
def test_rank_is_clamped(rank: Rank, adjustment: int, expected: Rank) -> None:
    outcome = roll(rank, 10, rank_adjustment=adjustment)
    assert outcome.effective_rank == expected
    assert outcome.base_rank is rank
    assert outcome.adjustment == adjustment


# --- ruling 4: reliability ----------------------------------------------------------------


def test_reliable_raises_one_level() -> None:
    outcome = roll(Rank.TRAINED, 10, reliable=True)
    assert outcome.table_level is L.NORMAL
    assert outcome.level is L.MAJOR


@pytest.mark.parametrize(
    ("rank", "expected"),
    [(Rank.TRAINED, L.CRITICAL_FAILURE), (Rank.LEGENDARY, L.FAILURE), (Rank.GODLIKE, L.LIMITED)],
)
def test_reliable_never_raises_a_natural_one(rank: Rank, expected: SuccessLevel) -> None:
    assert roll(rank, 1, reliable=True).level is expected


def test_reliable_stops_at_critical_success() -> None:
    assert roll(Rank.TRAINED, 20, reliable=True).level is L.CRITICAL_SUCCESS
    assert roll(Rank.GODLIKE, 15, reliable=True).level is L.CRITICAL_SUCCESS


def test_unreliable_lowers_one_level() -> None:
    outcome = roll(Rank.TRAINED, 10, unreliable=True)
    assert outcome.table_level is L.NORMAL
    assert outcome.level is L.LIMITED


@pytest.mark.parametrize(
    ("rank", "expected"),
    [(Rank.TRAINED, L.CRITICAL_SUCCESS), (Rank.DOOMED, L.NORMAL), (Rank.HOPELESS, L.MAJOR)],
)
def test_unreliable_never_lowers_a_natural_twenty(rank: Rank, expected: SuccessLevel) -> None:
    assert roll(rank, 20, unreliable=True).level is expected


def test_unreliable_stops_at_critical_failure() -> None:
    assert roll(Rank.TRAINED, 1, unreliable=True).level is L.CRITICAL_FAILURE
    assert roll(Rank.TRAINED, 2, unreliable=True).level is L.CRITICAL_FAILURE


def test_reliable_and_unreliable_cancel() -> None:
    outcome = roll(Rank.TRAINED, 10, reliable=True, unreliable=True)
    assert outcome.reliability is Reliability.NONE
    assert outcome.level is L.NORMAL
    # cancelling also removes the natural-1 / natural-20 exceptions' effect
    assert roll(Rank.GODLIKE, 1, reliable=True, unreliable=True).level is L.LIMITED


def test_order_adjusted_rank_before_table_before_reliability() -> None:
    """Trained +1 → Adept; face 9 → Normal; reliable → Major."""
    outcome = roll(Rank.TRAINED, 9, rank_adjustment=1, reliable=True)
    assert (outcome.effective_rank, outcome.table_level, outcome.level) == (
        Rank.ADEPT,
        L.NORMAL,
        L.MAJOR,
    )


def test_reliability_looks_at_the_kept_die_only() -> None:
    # disadvantage keeps the 1 even though a 20 was rolled: no raise
    assert roll(Rank.GODLIKE, 20, 1, disadvantage=True, reliable=True).level is L.LIMITED
    # advantage keeps the 5: raised
    assert roll(Rank.GODLIKE, 1, 5, advantage=True, reliable=True).level is L.MAJOR
    # disadvantage keeps 19 of (20, 19): unreliable lowers it (Doomed Normal → Limited)
    assert roll(Rank.DOOMED, 20, 19, disadvantage=True, unreliable=True).level is L.LIMITED
    # two natural 20s: the kept die is a 20, never lowered
    assert roll(Rank.DOOMED, 20, 20, disadvantage=True, unreliable=True).level is L.NORMAL


# --- ruling 5: the natural-20 trade -------------------------------------------------------


def test_natural_twenty_offers_the_trade_but_keeps_the_roll() -> None:
    outcome = roll(Rank.TRAINED, 20, fortune=0)
    assert outcome.level is L.CRITICAL_SUCCESS
    assert outcome.trade_available
    assert not outcome.traded and outcome.fortune_gained == 0


def test_taking_the_trade_gives_normal_and_one_fortune_die() -> None:
    outcome = roll(Rank.TRAINED, 20, fortune=1)
    traded = outcome.take_trade()
    assert traded.level is L.NORMAL
    assert traded.traded and traded.fortune_gained == 1 and not traded.trade_available
    assert traded.dice == (20,) and traded.table_level is L.CRITICAL_SUCCESS
    assert outcome.level is L.CRITICAL_SUCCESS  # the original is unchanged
    with pytest.raises(RulesError, match="already traded"):
        traded.take_trade()


def test_no_trade_at_the_fortune_maximum() -> None:
    outcome = roll(Rank.TRAINED, 20, fortune=2, fortune_max=2)
    assert not outcome.trade_available
    with pytest.raises(RulesError, match="maximum"):
        outcome.take_trade()
    assert roll(Rank.TRAINED, 20, fortune=2, fortune_max=4).trade_available


def test_no_trade_without_a_kept_natural_twenty() -> None:
    outcome = roll(Rank.TRAINED, 19)
    assert not outcome.trade_available
    with pytest.raises(RulesError, match="natural 20"):
        outcome.take_trade()
    assert not roll(Rank.TRAINED, 20, 5, disadvantage=True).trade_available
    assert roll(Rank.TRAINED, 5, 20, advantage=True).trade_available


def test_trade_on_a_low_rank_still_gains_the_die() -> None:
    traded = roll(Rank.DOOMED, 20, unreliable=True).take_trade()
    assert traded.level is L.NORMAL and traded.fortune_gained == 1


def test_attempt_refuses_an_impossible_fortune_count() -> None:
    with pytest.raises(RulesError):
        attempt(Rank.TRAINED, ScriptedRandom(5), fortune=3, fortune_max=2)
    with pytest.raises(RulesError):
        attempt(Rank.TRAINED, ScriptedRandom(5), fortune=-1)


# --- luck rolls ---------------------------------------------------------------------------


@pytest.mark.parametrize(("die", "lucky"), [(1, False), (9, False), (10, True), (19, True)])
def test_luck_roll_is_lucky_on_ten_or_more(die: int, lucky: bool) -> None:
    outcome = luck_roll(ScriptedRandom(die))
    assert outcome.die == die and outcome.lucky is lucky and not outcome.trade_available


def test_luck_roll_natural_twenty_trade() -> None:
    outcome = luck_roll(ScriptedRandom(20), fortune=0)
    assert outcome.lucky and outcome.trade_available and outcome.value == 20
    traded = outcome.take_trade()
    assert traded.lucky and traded.value == 10 and traded.fortune_gained == 1
    assert not luck_roll(ScriptedRandom(20), fortune=4, fortune_max=4).trade_available
    with pytest.raises(RulesError):
        luck_roll(ScriptedRandom(19)).take_trade()


def test_luck_odds() -> None:
    assert luck_odds() == {True: Fraction(11, 20), False: Fraction(9, 20)}


# --- ruling 6: the fortune-die reroll -----------------------------------------------------


def test_reroll_until_better_and_show_every_reroll() -> None:
    original = roll(Rank.TRAINED, 5)  # Failure
    result = reroll(original, ScriptedRandom(3, 1, 5, 8, 12))
    assert [r.kept for r in result.rerolls] == [3, 1, 5, 8]  # 3 CF, 1 CF, 5 F, 8 Limited
    assert result.final.level is L.LIMITED
    assert result.original is original
    assert all(r.level <= original.level for r in result.rerolls[:-1])


def test_reroll_keeps_the_same_modifiers() -> None:
    original = roll(
        Rank.NOVICE, 4, 2, advantage=True, rank_adjustment=[2, -1], reliable=True
    )  # Trained, kept 4 → Failure → reliable Limited
    assert original.level is L.LIMITED
    result = reroll(original, ScriptedRandom(3, 2, 9, 10))
    assert len(result.rerolls) == 2
    for again in result.rerolls:
        assert again.base_rank is Rank.NOVICE
        assert again.adjustments == (2, -1)
        assert again.effective_rank is Rank.TRAINED
        assert again.advantage and not again.disadvantage and again.reliable
        assert len(again.dice) == 2
    assert result.final.level is L.MAJOR  # kept 10 → Normal → reliable Major


def test_reroll_refuses_a_natural_one_without_rolling() -> None:
    original = roll(Rank.GODLIKE, 1)  # Limited: a natural 1 even if not a critical failure
    assert can_reroll(original) == (False, "A natural 1 cannot be rerolled with a fortune die.")
    with pytest.raises(RulesError, match="natural 1"):
        reroll(original, ScriptedRandom())


@pytest.mark.parametrize(
    ("rank", "face", "options"),
    [(Rank.TRAINED, 20, {}), (Rank.DOOMED, 15, {}), (Rank.HOPELESS, 20, {}),
     (Rank.DOOMED, 15, {"reliable": True}), (Rank.GODLIKE, 14, {"reliable": True}),
     (Rank.DOOMED, 20, {"unreliable": True}), (Rank.TRAINED, 19, {"rank_adjustment": 1})],
)  # fmt: skip
def test_reroll_refused_at_the_best_reachable_level(
    rank: Rank, face: int, options: dict[str, object]
) -> None:
    original = roll(rank, face, **options)
    allowed, reason = can_reroll(original)
    assert not allowed and reason is not None and "already the best" in reason
    with pytest.raises(RulesError, match="No fortune die was spent"):
        reroll(original, ScriptedRandom())  # no die rolled


def test_reroll_allowed_below_the_best_level() -> None:
    assert can_reroll(roll(Rank.DOOMED, 14)) == (True, None)  # Limited < Normal
    assert can_reroll(roll(Rank.DOOMED, 19, unreliable=True)) == (True, None)  # Limited
    result = reroll(roll(Rank.DOOMED, 19, unreliable=True), ScriptedRandom(19, 20))
    assert [r.level for r in result.rerolls] == [L.LIMITED, L.NORMAL]


def test_reroll_refuses_a_traded_roll() -> None:
    traded = roll(Rank.DOOMED, 20).take_trade()
    allowed, reason = can_reroll(traded)
    assert not allowed and reason is not None and "traded" in reason


def test_reroll_of_a_luck_roll_until_lucky() -> None:
    original = luck_roll(ScriptedRandom(5))
    result = reroll(original, ScriptedRandom(3, 9, 10))
    assert [r.die for r in result.rerolls] == [3, 9, 10]
    assert result.final.lucky
    assert isinstance(result.final, LuckOutcome)


def test_reroll_refuses_a_lucky_or_natural_one_luck_roll() -> None:
    with pytest.raises(RulesError, match="already lucky"):
        reroll(luck_roll(ScriptedRandom(12)), ScriptedRandom())
    with pytest.raises(RulesError, match="natural 1"):
        reroll(luck_roll(ScriptedRandom(1)), ScriptedRandom())


def test_reroll_final_natural_twenty_offers_the_trade_with_fortune_after_paying() -> None:
    original = roll(Rank.TRAINED, 5)
    assert reroll(original, ScriptedRandom(20), fortune=1).final.trade_available
    assert not reroll(original, ScriptedRandom(20), fortune=2).final.trade_available


def test_reroll_loop_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(attempts_module, "MAX_REROLLS", 50)
    original = roll(Rank.TRAINED, 5)
    with pytest.raises(RuntimeError):
        reroll(original, ScriptedRandom(*([2] * 50)))
    assert MAX_REROLLS == 100_000


def test_reroll_with_seeded_rng_always_improves() -> None:
    rng = random.Random(20260101)
    for rank in Rank:
        for adv, dis, rel, unrel in itertools.product([False, True], repeat=4):
            options = {"advantage": adv, "disadvantage": dis, "reliable": rel, "unreliable": unrel}
            original = attempt(rank, rng, **options)
            if can_reroll(original)[0]:
                result = reroll(original, rng)
                assert result.final.level > original.level
                assert all(r.level <= original.level for r in result.rerolls[:-1])


# --- exact odds ---------------------------------------------------------------------------


def test_trained_straight_odds() -> None:
    assert attempt_odds(Rank.TRAINED) == {
        L.CRITICAL_FAILURE: Fraction(1, 20),
        L.FAILURE: Fraction(4, 20),
        L.LIMITED: Fraction(4, 20),
        L.NORMAL: Fraction(6, 20),
        L.MAJOR: Fraction(4, 20),
        L.CRITICAL_SUCCESS: Fraction(1, 20),
    }


def test_odds_with_advantage_and_disadvantage() -> None:
    assert attempt_odds(Rank.TRAINED, advantage=True)[L.CRITICAL_SUCCESS] == Fraction(39, 400)
    assert attempt_odds(Rank.TRAINED, disadvantage=True)[L.CRITICAL_SUCCESS] == Fraction(1, 400)
    assert attempt_odds(Rank.TRAINED, disadvantage=True)[L.CRITICAL_FAILURE] == Fraction(39, 400)
    assert attempt_odds(Rank.TRAINED, advantage=True, disadvantage=True) == attempt_odds(
        Rank.TRAINED
    )


def test_odds_include_all_six_levels() -> None:
    odds = attempt_odds(Rank.DOOMED)
    assert set(odds) == set(SuccessLevel)
    assert odds[L.MAJOR] == 0 and odds[L.CRITICAL_SUCCESS] == 0
    assert odds[L.CRITICAL_FAILURE] == Fraction(1, 20)


ADV_MODES = [(False, False), (True, False), (False, True), (True, True)]


@pytest.mark.parametrize("rank", list(Rank))
@pytest.mark.parametrize(("adv", "dis"), ADV_MODES)
@pytest.mark.parametrize(("rel", "unrel"), ADV_MODES)
def test_odds_match_enumerating_every_scripted_roll(
    rank: Rank, adv: bool, dis: bool, rel: bool, unrel: bool
) -> None:
    """The exact odds equal counting `attempt` over every possible die (pair)."""
    options = {"advantage": adv, "disadvantage": dis, "reliable": rel, "unreliable": unrel}
    two = adv != dis
    counts = {level: Fraction(0) for level in SuccessLevel}
    for dice in itertools.product(range(1, 21), repeat=2 if two else 1):
        counts[roll(rank, *dice, **options).level] += Fraction(1, 20 ** len(dice))
    assert attempt_odds(rank, **options) == counts


@pytest.mark.parametrize(
    ("rank", "options", "best"),
    [(Rank.DOOMED, {}, L.NORMAL), (Rank.HOPELESS, {}, L.MAJOR),
     (Rank.INEPT, {}, L.CRITICAL_SUCCESS), (Rank.DOOMED, {"reliable": True}, L.MAJOR),
     (Rank.DOOMED, {"unreliable": True}, L.NORMAL), (Rank.DOOMED, {"disadvantage": True}, L.NORMAL),
     (Rank.HOPELESS, {"rank_adjustment": -1}, L.NORMAL),
     (Rank.DOOMED, {"rank_adjustment": [1, 1]}, L.CRITICAL_SUCCESS)],
)  # fmt: skip
def test_best_reachable_level(rank: Rank, options: dict[str, object], best: SuccessLevel) -> None:
    assert best_reachable_level(rank, **options) is best  # type: ignore[arg-type]


# --- properties ---------------------------------------------------------------------------

ranks = st.sampled_from(list(Rank))
faces = st.integers(min_value=1, max_value=20)
flags = st.booleans()
adjustments = st.lists(st.integers(min_value=-12, max_value=12), max_size=4)


@given(ranks, ranks, faces, faces, flags, flags, flags, flags)
def test_higher_rank_never_worse_for_the_same_dice(
    r1: Rank, r2: Rank, a: int, b: int, adv: bool, dis: bool, rel: bool, unrel: bool
) -> None:
    low, high = sorted((r1, r2))
    options = {"advantage": adv, "disadvantage": dis, "reliable": rel, "unreliable": unrel}
    dice = (a, b) if adv != dis else (a,)
    assert roll(high, *dice, **options).level >= roll(low, *dice, **options).level


@given(ranks, faces, faces, flags, flags, adjustments)
def test_more_reliability_never_worse(
    rank: Rank, a: int, b: int, adv: bool, dis: bool, adj: list[int]
) -> None:
    dice = (a, b) if adv != dis else (a,)
    base = {"advantage": adv, "disadvantage": dis, "rank_adjustment": adj}
    unreliable = roll(rank, *dice, unreliable=True, **base).level
    plain = roll(rank, *dice, **base).level
    cancelled = roll(rank, *dice, reliable=True, unreliable=True, **base).level
    reliable = roll(rank, *dice, reliable=True, **base).level
    assert unreliable <= plain == cancelled <= reliable


@given(ranks, faces, faces, flags, flags, adjustments)
def test_advantage_never_worse_and_disadvantage_never_better(
    rank: Rank, a: int, b: int, rel: bool, unrel: bool, adj: list[int]
) -> None:
    base = {"reliable": rel, "unreliable": unrel, "rank_adjustment": adj}
    straight = roll(rank, a, **base).level
    assert roll(rank, a, b, advantage=True, **base).level >= straight
    assert roll(rank, a, b, disadvantage=True, **base).level <= straight


@given(ranks, flags, flags, flags, flags, adjustments)
def test_odds_sum_to_one_and_best_level_is_a_natural_twenty(
    rank: Rank, adv: bool, dis: bool, rel: bool, unrel: bool, adj: list[int]
) -> None:
    options = {"advantage": adv, "disadvantage": dis, "reliable": rel, "unreliable": unrel}
    odds = attempt_odds(rank, rank_adjustment=adj, **options)
    assert set(odds) == set(SuccessLevel)
    assert sum(odds.values()) == 1
    assert all(p >= 0 for p in odds.values())
    best = best_reachable_level(rank, rank_adjustment=adj, **options)
    dice = (20, 20) if adv != dis else (20,)
    assert roll(rank, *dice, rank_adjustment=adj, **options).level is best
