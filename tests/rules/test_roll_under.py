"""Roll-under (`shared/rules/roll-under.txt`, rulings 1–3): examples, rulings, odds, sampling."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules import roll_under as ru
from bot.rules.errors import RulesError
from bot.rules.roll_under import SaveResult
from tests.scripted import ScriptedRandom
from tests.stats import assert_sample_fits

# ----------------------------------------------------------------- the text's worked examples


def test_save_example_balthasar_passes_sybilla_falls() -> None:
    # "Balthasar (AGI 7) rolls a 6 … he passes. Sybilla (AGI 10) rolls a 13 … she … falls."
    balthasar = ru.save(7, ScriptedRandom(6), ability=ru.Ability.AGI)
    sybilla = ru.save(10, ScriptedRandom(13), ability=ru.Ability.AGI)
    assert (balthasar.roll, balthasar.result, balthasar.passed) == (6, SaveResult.PASS, True)
    assert (sybilla.roll, sybilla.result, sybilla.passed) == (13, SaveResult.FAIL, False)
    assert balthasar.result.display == "Pass" and sybilla.result.display == "Fail"
    assert balthasar.ability is ru.Ability.AGI and balthasar.target == 7


def test_group_save_example_one_die_for_everyone() -> None:
    # "Balthasar (WIT 12), Sybilla (WIT 6), and Theobald (WIT 9) … gets a 9: Balthasar and
    # Theobald pass, but Sybilla fails." The script holds ONE die: a second roll would fail.
    rng = ScriptedRandom(9)
    outcome = ru.group_save({"Balthasar": 12, "Sybilla": 6, "Theobald": 9}, rng)
    assert outcome.roll == 9
    assert outcome.passed == ("Balthasar", "Theobald")
    assert outcome.failed == ("Sybilla",)
    assert [m.score for m in outcome.members] == [12, 6, 9]
    assert list(rng.faces) == []


def test_contest_example_ranking() -> None:
    # "Balthasar (STR 5), Sybilla (STR 8), and Theobald (STR 9) … Balthasar rolls a 6 … −1.
    # Sybilla rolls a 5 … 3. Theobald rolls a 20 … −11. Sybilla first, then Balthasar, then
    # Theobald."
    outcome = ru.contest({"Balthasar": 5, "Sybilla": 8, "Theobald": 9}, ScriptedRandom(6, 5, 20))
    assert outcome.ranking == ("Sybilla", "Balthasar", "Theobald")
    assert outcome.winner == "Sybilla"
    (only_round,) = outcome.rounds
    assert [(r.name, r.roll, r.total) for r in only_round.rolls] == [
        ("Balthasar", 6, -1),
        ("Sybilla", 5, 3),
        ("Theobald", 20, -11),
    ]
    assert (only_round.first_place, only_round.last_place) == (1, 3)
    assert not only_round.is_tie_break


# --------------------------------------------------------------------------------- ruling 1


@pytest.mark.parametrize(
    ("score", "roll", "result"),
    [
        (7, 7, SaveResult.PASS),  # equal passes
        (7, 8, SaveResult.FAIL),
        (1, 1, SaveResult.PASS),
        (1, 2, SaveResult.FAIL),
        (19, 19, SaveResult.PASS),
        (19, 20, SaveResult.FAIL),  # a 20 always fails: scores stop at 19
        (10, 1, SaveResult.PASS),
    ],
)
def test_save_passes_on_equal_or_under(score: int, roll: int, result: SaveResult) -> None:
    assert ru.save(score, ScriptedRandom(roll)).result is result


@pytest.mark.parametrize("score", [0, 20, -3, 100])
def test_scores_outside_1_to_19_are_refused(score: int) -> None:
    with pytest.raises(RulesError):
        ru.save(score, ScriptedRandom(10))
    with pytest.raises(RulesError):
        ru.save_odds(score)
    with pytest.raises(RulesError):
        ru.group_save({"A": 10, "B": score}, ScriptedRandom(10))
    with pytest.raises(RulesError):
        ru.contest({"A": 10, "B": score}, ScriptedRandom(10, 10))


def test_non_integer_scores_are_refused() -> None:
    with pytest.raises(RulesError):
        ru.validate_score(True)
    with pytest.raises(RulesError):
        ru.validate_score(10.0)  # type: ignore[arg-type]


def test_empty_groups_and_one_man_contests_are_refused() -> None:
    with pytest.raises(RulesError):
        ru.group_save({}, ScriptedRandom())
    with pytest.raises(RulesError):
        ru.contest({"Solo": 10}, ScriptedRandom(5))


@pytest.mark.parametrize("text", ["AGI", "agi", "Agility", " agility "])
def test_ability_parse(text: str) -> None:
    assert ru.Ability.parse(text) is ru.Ability.AGI


def test_ability_parse_unknown() -> None:
    with pytest.raises(RulesError):
        ru.Ability.parse("DEX")


# ---------------------------------------------------------------------------------- ruling 3


def test_three_way_forced_tie_resolved_by_recontest_with_every_round_kept() -> None:
    scores = {"Ada": 10, "Bo": 10, "Cy": 10}
    rolls = [
        5, 5, 5,  # round 1: everyone totals 5 — a three-way tie
        3, 3, 8,  # round 2 (all three again): Ada 7, Bo 7, Cy 2 — Ada and Bo still tied
        10, 4,  # round 3 (Ada and Bo only): Ada 0, Bo 6 — Bo first
    ]  # fmt: skip
    rng = ScriptedRandom(*rolls)
    outcome = ru.contest(scores, rng)
    assert list(rng.faces) == []
    assert outcome.ranking == ("Bo", "Ada", "Cy")
    assert [r.participants for r in outcome.rounds] == [
        ("Ada", "Bo", "Cy"),
        ("Ada", "Bo", "Cy"),
        ("Ada", "Bo"),
    ]
    assert [[x.total for x in r.rolls] for r in outcome.rounds] == [[5, 5, 5], [7, 7, 2], [0, 6]]
    assert [(r.first_place, r.last_place) for r in outcome.rounds] == [(1, 3), (1, 3), (1, 2)]
    assert [r.number for r in outcome.rounds] == [1, 2, 3]
    assert [r.is_tie_break for r in outcome.rounds] == [False, True, True]


def test_tie_for_lower_places_only_reorders_those_places() -> None:
    # Ada 9 is clear first; Bo and Cy tie at 3 and re-roll for 2nd and 3rd: Cy 8−2=6 beats Bo.
    outcome = ru.contest({"Ada": 10, "Bo": 8, "Cy": 8}, ScriptedRandom(1, 5, 5, 7, 2))
    assert outcome.ranking == ("Ada", "Cy", "Bo")
    assert [(r.participants, r.first_place, r.last_place) for r in outcome.rounds] == [
        (("Ada", "Bo", "Cy"), 1, 3),
        (("Bo", "Cy"), 2, 3),
    ]
    assert outcome.place("Bo") == 3


def test_two_separate_ties_are_broken_top_places_first() -> None:
    # Round 1: A 5, B 5, C 0, D 0. A and B re-roll for 1st–2nd, then C and D for 3rd–4th.
    rng = ScriptedRandom(5, 5, 10, 10, 9, 1, 2, 3)
    outcome = ru.contest({"A": 10, "B": 10, "C": 10, "D": 10}, rng)
    assert outcome.ranking == ("B", "A", "C", "D")
    assert [(r.participants, r.first_place) for r in outcome.rounds] == [
        (("A", "B", "C", "D"), 1),
        (("A", "B"), 1),
        (("C", "D"), 3),
    ]


def test_a_tie_that_repeats_is_repeated_again() -> None:
    rng = ScriptedRandom(4, 4, 7, 7, 12, 12, 2, 3)
    outcome = ru.contest({"A": 9, "B": 9}, rng)
    assert outcome.ranking == ("A", "B")
    assert len(outcome.rounds) == 4


def test_a_broken_rng_cannot_loop_forever() -> None:
    with pytest.raises(RuntimeError):
        ru.contest({"A": 9, "B": 9}, ScriptedRandom(then=10), max_rounds=50)


# ------------------------------------------------------------------------------------- odds


def test_save_odds_table() -> None:
    for score in range(1, 20):
        assert ru.save_odds(score) == Fraction(score, 20)


def test_group_save_odds_example_and_brute_force() -> None:
    scores = {"Balthasar": 12, "Sybilla": 6, "Theobald": 9}
    odds = ru.group_save_odds(scores)
    per_member, everyone, nobody = odds  # unpacks as the tuple
    assert per_member == {
        "Balthasar": Fraction(12, 20),
        "Sybilla": Fraction(6, 20),
        "Theobald": Fraction(9, 20),
    }
    # Brute force over the one shared die.
    assert everyone == Fraction(sum(all(r <= s for s in scores.values()) for r in range(1, 21)), 20)
    assert nobody == Fraction(sum(all(r > s for s in scores.values()) for r in range(1, 21)), 20)
    assert (everyone, nobody) == (Fraction(6, 20), Fraction(8, 20))


def test_contest_odds_equal_scores_are_even() -> None:
    for score in (1, 10, 19):
        assert ru.contest_odds(score, score) == (Fraction(1, 2), Fraction(1, 2))


def test_contest_odds_by_hand() -> None:
    # Score 11 vs 10: A is ahead when roll_a < roll_b + 1, i.e. roll_a ≤ roll_b: 210 of 400.
    # Tied when roll_a = roll_b + 1: 19 of 400. B ahead: 171 of 400. Ties re-roll.
    assert ru.contest_odds(11, 10) == (Fraction(210, 381), Fraction(171, 381))


def test_two_way_win_odds_agree_with_contest_odds() -> None:
    for a, b in [(5, 8), (19, 1), (12, 12), (3, 17)]:
        win = ru.contest_win_odds({"A": a, "B": b})
        assert (win["A"], win["B"]) == ru.contest_odds(a, b)


def test_win_odds_of_three_sum_to_one_and_are_symmetric() -> None:
    win = ru.contest_win_odds({"A": 10, "B": 10, "C": 10})
    assert win == {"A": Fraction(1, 3), "B": Fraction(1, 3), "C": Fraction(1, 3)}
    win = ru.contest_win_odds({"Balthasar": 5, "Sybilla": 8, "Theobald": 9})
    assert sum(win.values()) == 1
    assert win["Balthasar"] < win["Sybilla"] < win["Theobald"]


def test_win_odds_refuses_huge_contests() -> None:
    with pytest.raises(RulesError):
        ru.contest_win_odds({f"c{i}": 10 for i in range(ru.MAX_EXACT_CONTESTANTS + 1)})


scores_st = st.integers(min_value=1, max_value=19)


@given(scores_st, scores_st)
def test_contest_odds_properties(a: int, b: int) -> None:
    pa, pb = ru.contest_odds(a, b)
    assert pa + pb == 1  # ties are always broken eventually
    assert 0 <= pa <= 1 and 0 <= pb <= 1
    assert ru.contest_odds(b, a) == (pb, pa)
    if a > b:
        assert pa > pb
    if a < 19:  # a higher score is never worse
        assert ru.contest_odds(a + 1, b)[0] >= pa


@given(st.lists(scores_st, min_size=1, max_size=6))
def test_group_save_odds_properties(scores: list[int]) -> None:
    named = {f"c{i}": s for i, s in enumerate(scores)}
    per_member, everyone, nobody = ru.group_save_odds(named)
    assert all(0 <= p <= 1 for p in per_member.values())
    assert 0 <= everyone <= min(per_member.values())
    assert everyone + nobody <= 1
    assert nobody <= 1 - max(per_member.values())


@given(st.lists(scores_st, min_size=2, max_size=4))
def test_win_odds_are_a_distribution(scores: list[int]) -> None:
    win = ru.contest_win_odds({f"c{i}": s for i, s in enumerate(scores)})
    assert sum(win.values()) == 1
    assert all(0 < p < 1 for p in win.values())


@given(scores_st, st.integers(min_value=0, max_value=2**32))
def test_save_result_always_matches_ruling_1(score: int, seed: int) -> None:
    outcome = ru.save(score, random.Random(seed))
    assert 1 <= outcome.roll <= 20
    assert outcome.passed == (outcome.roll <= score)


# --------------------------------------------------------------------------------- sampling


def test_sampled_saves_match_exact_odds() -> None:
    rng = random.Random(20240611)
    for score in (1, 7, 13, 19):
        counts = Counter(ru.save(score, rng).passed for _ in range(4000))
        p = ru.save_odds(score)
        assert_sample_fits(counts, {True: p, False: 1 - p})


def test_sampled_group_saves_match_exact_odds() -> None:
    rng = random.Random(7)
    scores = {"A": 12, "B": 6, "C": 9}
    _, everyone, nobody = ru.group_save_odds(scores)
    counts: Counter[str] = Counter()
    for _ in range(6000):
        outcome = ru.group_save(scores, rng)
        n = len(outcome.passed)
        counts["all" if n == 3 else "none" if n == 0 else "some"] += 1
    assert_sample_fits(counts, {"all": everyone, "none": nobody, "some": 1 - everyone - nobody})


def test_sampled_contests_match_exact_win_odds() -> None:
    rng = random.Random(99)
    scores = {"Balthasar": 5, "Sybilla": 8, "Theobald": 9}
    counts = Counter(ru.contest(scores, rng).winner for _ in range(6000))
    assert_sample_fits(counts, ru.contest_win_odds(scores))
