"""Dialects (docs/dice.md, "Dialects"): each switches only the readings its row of
bot/dice/dialects.py names, says so in the answer, and keeps exact odds, limits and the
hostile corpus intact."""

from __future__ import annotations

import contextlib
import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.dice import DiceError, exact_odds, parse, parse_many, render_markdown, roll, roll_many
from bot.dice.dialects import DIALECTS, READINGS, switches
from tests.dice.test_limits import ADVERSARIAL, BATCHES
from tests.dice.test_properties import near_valid
from tests.scripted import ScriptedRandom


def brute(count: int, sides: int, total_of) -> dict[int, Fraction]:
    outcomes = Counter(
        total_of(faces) for faces in itertools.product(range(1, sides + 1), repeat=count)
    )
    return {k: Fraction(v, sides**count) for k, v in outcomes.items()}


# (dialect, expression, dice, sides, what the dialect's bot means by it)
MEANINGS = [
    ("roll20", "4d6>4", 4, 6, lambda f: sum(x >= 4 for x in f)),
    ("pbp", "4d6>4", 4, 6, lambda f: sum(x > 4 for x in f)),
    ("roll20", "3d6<2", 3, 6, lambda f: sum(x <= 2 for x in f)),
    ("dice-maiden", "1d4+2*3", 1, 4, lambda f: (f[0] + 2) * 3),
    ("pbp", "1d4+2*3", 1, 4, lambda f: f[0] + 6),
    ("dice-maiden", "2d4-1*2", 2, 4, lambda f: (f[0] + f[1] - 1) * 2),
    ("dice-maiden", "1d4*2+1", 1, 4, lambda f: f[0] * 2 + 1),
    ("avrae", "4d6k3", 4, 6, lambda f: 3 * f.count(3)),
    ("pbp", "4d6k3", 4, 6, lambda f: sum(sorted(f)[1:])),
    ("avrae", "1d%", 1, 10, lambda f: (f[0] - 1) * 10),
    ("avrae", "2d%+1", 2, 10, lambda f: (f[0] + f[1] - 2) * 10 + 1),
    ("avrae", "4d6pl1pl1", 4, 6, lambda f: sum(sorted(f)[1:])),
    ("pbp", "4d6pl1pl1", 4, 6, lambda f: sum(sorted(f)[2:])),
]


@pytest.mark.parametrize(("dialect", "text", "count", "sides", "meaning"), MEANINGS)
def test_each_dialect_means_its_bots_reading_by_exact_odds_and_every_roll(
    dialect, text, count, sides, meaning
):
    expr = parse(text, dialect)
    assert exact_odds(expr) == brute(count, sides, meaning)
    for faces in itertools.product(range(1, sides + 1), repeat=count):
        assert roll(expr, ScriptedRandom(*faces)).total == meaning(faces), faces


def test_roll20_rerolls_until_none_is_left():
    expr = parse("1d6r1", "roll20")
    assert roll(expr, ScriptedRandom(1, 1, 4)).total == 4
    assert parse("1d6r1").text == "1d6r1"
    assert roll(parse("1d6r1"), ScriptedRandom(1, 1)).total == 1


def test_avrae_advantage_is_for_d20s():
    with pytest.raises(DiceError, match=r"write 2d6kh1"):
        parse("1d6adv", "avrae")
    assert parse("1d20adv", "avrae").text == "2d20kh1"
    assert "Avrae's adv only applies to d20s" in parse("1d6adv").notes[0]


@pytest.mark.parametrize("reading", READINGS, ids=[r.switch for r in READINGS])
def test_a_changed_reading_names_its_dialect_and_the_default_says_how_it_read(reading):
    for dialect in DIALECTS:
        try:
            notes = parse_many(reading.example, dialect).notes
        except DiceError as error:
            # Refused: by a dialect that says what to type, or by the default that refuses a
            # spelling bots read differently (pbp's "1d20+5 sneak attack", "2d6 >= 7").
            assert "write" in str(error) or "start a comment" in str(error), error
            continue
        said = any(n.startswith(f"{_name(dialect)} dialect: ") for n in notes)
        if reading.differs(dialect):
            assert said, notes
        elif not said:  # no row of this dialect touched it: the default reading
            assert parse_many(reading.example, dialect).text == parse_many(reading.example).text


def _name(dialect: str) -> str:
    from bot.dice.dialects import DIALECT_NAMES

    return DIALECT_NAMES[dialect]


def test_only_the_tables_switches_exist():
    assert switches("pbp") == frozenset()
    assert switches("roll20") == {
        "inclusive",
        "reroll-repeats",
        "trailing-text",
        "unary-sign",
        "group-dice",
    }
    assert switches("dice-maiden") == {
        "left-to-right",
        "maiden-modifiers",
        "display-options",
        "shortcuts",
    }
    assert switches("avrae") == {
        "keep-face",
        "tens-die",
        "united-drops",
        "advantage-d20",
        "trailing-text",
        "total-comparison",
        "unary-sign",
        "decimals",
        "empty-set",
        "zero-dice",
    }
    with pytest.raises(ValueError):
        switches("klingon")


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("expression", ADVERSARIAL, ids=range(len(ADVERSARIAL)))
def test_hostile_inputs_in_every_dialect(dialect, expression):
    try:
        expr = parse(expression, dialect)
    except DiceError as error:
        assert 0 < len(str(error)) <= 300
        return
    result = roll(expr, random.Random(0))
    assert expr.minimum <= result.total <= expr.maximum
    assert len(render_markdown(result, 2000)) <= 2000
    with contextlib.suppress(DiceError):
        odds = exact_odds(expr)
        assert result.total in odds


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("text", BATCHES, ids=range(len(BATCHES)))
def test_hostile_commands_in_every_dialect(dialect, text):
    try:
        batch = parse_many(text, dialect)
    except DiceError as error:
        assert 0 < len(str(error)) <= 300
        return
    results = roll_many(batch, random.Random(0))
    assert 1 <= len(results) <= 20
    assert sum(len(t.faces) for r in results for t in r.terms) <= 1000


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(near_valid(), st.sampled_from(DIALECTS), st.integers(0, 2**32))
def test_near_valid_expressions_in_every_dialect(text, dialect, seed):
    try:
        expr = parse(text, dialect)
    except DiceError as error:
        assert str(error)
        return
    result = roll(expr, random.Random(seed))
    assert expr.minimum <= result.total <= expr.maximum
    assert result == roll(expr, random.Random(seed))
    try:
        odds = exact_odds(expr)
    except DiceError:
        return
    assert result.total in odds
    assert expr.minimum <= min(odds) and max(odds) <= expr.maximum


@pytest.mark.parametrize(
    ("text", "total"),
    [("(4*6)d1", 24), ("(2+3)d1", 5), ("(10/3)d1+1", 4), ("((2))d1", 2)],
)
def test_computed_dice_counts_within_the_limits(text, total):
    assert roll(text, random.Random(0)).total == total


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("(3d6)d2", "the number of dice can't be rolled"),
        ("(500*3)d6", "at most 1,000 dice"),
        ("(0)d6", "roll at least one die"),
        ("(2-3)d6", "roll at least one die"),
    ],
)
def test_computed_dice_counts_refused_saying_why(text, says):
    with pytest.raises(DiceError, match=says):
        parse(text)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("6x4d6kh3", "write 6#4d6kh3"),
        ("3d6-1d4 k1", "write it right after its dice"),
        ("1d6 % (1d2-1)", "division by zero is possible"),
        ("100 - -d%", "-1d100"),
        ("2d6khh1", "at position 4 (did you mean 'kh'?)"),
    ],
)
def test_refusals_teach_position_and_spelling(text, says):
    with pytest.raises(DiceError) as info:
        parse_many(text)
    assert says in str(info.value)
    assert "position" in str(info.value)


def test_dice_maiden_double_successes():
    expr = parse("4d6 t5ds6")
    assert roll(expr, ScriptedRandom(5, 6, 1, 6)).total == 5
    expr = parse("4d6 t6ds")
    assert roll(expr, ScriptedRandom(5, 6, 1, 6)).total == 4


@pytest.mark.parametrize(
    ("text", "count", "sides", "meaning"),
    [
        ("1d10%3", 1, 10, lambda f: f[0] % 3),
        ("2d6%4+1", 2, 6, lambda f: (f[0] + f[1]) % 4 + 1),
        ("(1d6-4)%3", 1, 6, lambda f: (f[0] - 4) % 3),
    ],
)
def test_the_remainder_rounds_down_like_division(text, count, sides, meaning):
    expr = parse(text)
    assert exact_odds(expr) == brute(count, sides, meaning)
    for faces in itertools.product(range(1, sides + 1), repeat=count):
        assert roll(expr, ScriptedRandom(*faces)).total == meaning(faces)
    assert bool(expr.notes) == ("-4" in text)  # said only when a negative can occur


@pytest.mark.parametrize("dialect", ["avrae", "roll20"])
def test_words_after_a_roll_are_a_comment_said_in_the_answer(dialect):
    expr = parse("1d20+5 sneak attack", dialect)
    assert expr.text == "1d20+5" and expr.comment == "sneak attack"
    assert expr.notes[0].endswith("read `sneak attack` as a comment")
    with pytest.raises(DiceError, match="start a comment with #"):
        parse("1d20+5 sneak attack")
    with pytest.raises(DiceError, match="put adv right after"):
        parse("1d20+5 adv", dialect)  # a misplaced modifier is no comment


def test_avrae_compares_the_total_after_a_space():
    expr = parse("2d6 >= 7", "avrae")
    assert roll(expr, ScriptedRandom(3, 3)).total == 0
    assert roll(expr, ScriptedRandom(3, 4)).total == 1
    with pytest.raises(DiceError, match="could count dice or compare the total"):
        parse("2d6 >= 7")
