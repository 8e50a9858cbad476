"""Every limit's message, and an adversarial corpus that must only ever raise DiceError.

Tests bot/dice/limits.py and bot/dice/errors.py.
"""

from __future__ import annotations

import contextlib
import random

import pytest

from bot.dice import DiceError, exact_odds, parse, render_markdown, render_plain, roll, roll_many
from bot.errors import UserError


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1" * 1001, "that expression is too long (1,001 characters; the limit is 1,000)"),
        ("1001d6", "1001d6: at most 1,000 dice can be rolled"),
        ("1d10000000000000000", "number too large: numbers can be at most 10^15"),
        ("0d6", "0d6: roll at least one die (write e.g. 1d6)"),
        ("1d0", "1d0: a die needs at least one side"),
        ("(" * 21 + "1" + ")" * 21, "too many nested parentheses: the limit is 20"),
        ("1" + "+1" * 101, "too many operations: the limit is 100"),
        ("10000000000000000", "number too large: numbers can be at most 10^15"),
        (
            "1000000000000000*10",
            "numbers get too large: results must stay within ±10^15 (use smaller numbers)",
        ),
        (
            "500d6+501d6",
            "too many dice: this could roll up to 1,001 dice counting every possible "
            "explosion and reroll; the limit is 1,000",
        ),
        (
            "100d6e",
            "too many dice: this could roll up to 1,100 dice counting every possible "
            "explosion and reroll; the limit is 1,000",
        ),
        ("4d6kh7", "4d6kh7: you can keep at most 4 dice"),
        ("4d6kh0", "4d6kh0: keep at least one die"),
        ("4d6dl4", "4d6dl4: you can drop at most 3 dice"),
        (
            "1d1e1",
            "1d1e1: every face explodes, so it would never stop (a one-sided die always shows 1: "
            "leave the explosion out)",
        ),
        (
            "1d6e>=1",
            "1d6e>=1: every face explodes, so it would never stop (explode on fewer faces, "
            "e.g. 1d6e6)",
        ),
        (
            "1d6rr<7",
            "1d6rr<7: every face would be rerolled forever (reroll fewer faces, e.g. 1d6rr1)",
        ),
        ("1d6mi4ma3", "1d6: the maximum (ma) is below the minimum (mi)"),
        ("4d6mi2min3", "4d6: only one min modifier per dice term (write it once)"),
        ("1/0", "division by zero"),
        (
            "1/(1d6-3)",
            "division by zero is possible: (1d6-3) can be 0 (the '/' at position 2; divide by "
            "something that can't be 0)",
        ),
        ("2d6 adv", "adv only applies to a single die, as in 1d20 adv+5 or 1d8adv"),
        ("", "there is no dice expression to roll: try 1d20+5"),
        ("# just a comment", "there is no dice expression to roll: try 1d20+5"),
        ("１d20", "unexpected character U+FF11 at position 1"),
        ("1d20\x00", "unexpected character U+0000 at position 5"),
        ("1d20 [fire", "the [label] at position 6 is never closed with ]"),
        ("(1d20", "the expression ends too early: expected ')'"),
        ("1d20)", "unmatched ')' at position 5"),
        ("1d20 + ", "the expression ends too early: expected a number, dice or '('"),
        ("2(3)", "unexpected '(' at position 2: expected an operator (+ - * /) or the end"),
        (
            "1d6rr",
            "the expression ends too early: expected a face number after 'rr', e.g. rr1 or rr<3",
        ),
    ],
)
def test_limit_and_syntax_messages(expression, message):
    with pytest.raises(DiceError) as info:
        parse(expression)
    assert str(info.value) == message
    assert isinstance(info.value, UserError)


def test_odds_refuse_costly_expressions():
    with pytest.raises(DiceError, match="too many combinations to compute exact odds"):
        exact_odds("1000d10000")
    with pytest.raises(DiceError, match="not available for exploding dice with keep/drop"):
        exact_odds("4d6e6kh3")


ADVERSARIAL = [
    "1d1e1",
    "1000d20" + "k>0" * 10,
    "(" * 500,
    "(" * 500 + "1" + ")" * 500,
    "+1" * 400,
    "1" + "+1" * 400,
    "9" * 4301,
    "9" * 999,
    "9999999d9999999",
    "1d20rr<20",
    "10d10e1",
    "１d20",
    "1d20\x00",
    "\x00" * 100,
    "x" * 100_000,
    "1d20" + " " * 100_000,
    "-" * 999 + "1",
    "-" * 99 + "1",
    "1" + "*9" * 200,
    "1000d10000",
    "1000d10000kh999",
    "90d6e",
    "90d2e2",
    "8d6e6rr1",
    "1d20rr<20e>=20mi2ma19",
    "[" * 500,
    "[a]" * 300,
    "1d20" + " [x]" * 30,
    "#" * 999,
    "1d20 # " + "é" * 900,
    "d" * 999,
    "1d" * 300,
    "k" * 999,
    "1d6" + "e" * 500,
    "1d6" + "kh" * 400,
    "1d20 " + "adv " * 100,
    ")" * 999,
    "((((((((((((((((((((1d20))))))))))))))))))))",
    "1e5",
    "1d20+1d20" * 50,
    "1d2147483648",
    "-1d20",
    "1d-20",
    "1.5d6",
    "1d6/1d6/1d6/1d6",
    "999999999999999/-1",
    "-999999999999999-1",
    "2d20kh1>=20<=1",
    "1d20\u202e",
    "\U0001f3b2",
    "1d20 [@everyone]",
    "0x10",
    "1_000",
    "⁴d6",
    # Other bots' notation: sets, selectors, comparisons, Fate, pools, explosion variants.
    "(" * 21 + "1d20, 1" + ")kh1" * 21,
    "(" + ", ".join(["50d20kh25"] * 20) + ")kh10",
    "(" + ", ".join(["1d6"] * 21) + ")kh1",
    "{" * 500,
    "(1d20," * 300,
    "(,)",
    "()kh1",
    "(1, 2)kh1kl1ph1pl1k>1p<2km1",
    "1000d20" + "p>0" * 10,
    "1000d20k>5k<15kh900dl3km400p=7",
    "1000d20!!",
    "90d6!!kh3",
    "90d6!p",
    "90d6!!p>5",
    "1000dF",
    "1000dFkh999>=1f<=-1",
    "1d20 >= 1d20 >= 1d20",
    "(1d20 == 20) + 1",
    "1d20 == " + "+1" * 90,
    "333d20ra>0",
    "499d2 ir1",
    "9d6 e1",
    "90d10 ie9 t8 t9 t10 f1 f2",
    "1d20cs>0cf<21",
    "4d6sdsasd",
    "1d6 ! " + "x" * 990,
    "1d6 // " + "x" * 990,
    "1d6 " + "! " * 400,
    "+d20" * 200,
    "-d%",
    "1d20 = 5",
    "{1d6}>3",
    "2 d6",
    "6#4d6",
    "1d20; 1d20",
    "((((((((((((((((((((1d20kh1))kl1)kh1)kl1)kh1)kl1)kh1)kl1)kh1)kl1)kh1",
    "(1d1000000000000000, 1)kh1",
    "(999999999999999, 999999999999999)kh2",
    "(-999999999999999, -999999999999999)",
    "100d10000!p",
    "0/(1d6, 2d4)kh1",  # found by Hypothesis: the odds estimate bounded sets more loosely
    "6/(1d6, 2d4)kl1*(1, 2)kh1",
]


@pytest.mark.parametrize("expression", ADVERSARIAL, ids=range(len(ADVERSARIAL)))
def test_adversarial_inputs_raise_dice_error_or_evaluate(expression):
    try:
        result = roll(expression, random.Random(0))
    except DiceError as error:
        assert 0 < len(str(error)) <= 300
        return
    assert result.parsed.minimum <= result.total <= result.parsed.maximum
    assert len(render_markdown(result, 2000)) <= 2000
    assert len(render_plain(result, 100)) <= 100
    with contextlib.suppress(DiceError):
        exact_odds(expression)


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1d20+5 adv", "put adv right after a single die or on its own: adv+5 or 1d20 adv+5"),
        (
            "1d20+5>=15>=3",
            "only one comparison per roll (the second is at position 11): write each comparison "
            "as its own roll, separated by ;",
        ),
    ],
)
def test_misplaced_words(expression, message):
    with pytest.raises(DiceError) as info:
        parse(expression)
    assert str(info.value) == message


BATCHES = [
    "20#1d20",
    "21#1d20",
    "20#50d20kh25",
    "20#(50d20kh25, 1)kh1",
    "1d20;" * 20,
    "1d20;" * 21,
    ";" * 999,
    "6 4d6 k3; 3 +d20; 2 d6; 1d20+5 [x] >= 15; 4dF",
    "999999999#1d6",
    "0#1d6",
    "1#" * 300 + "1d6",
    "1d6 [;] ; 2d6 [;;]",
    "[" + ";" * 900 + "]",
]


@pytest.mark.parametrize("text", BATCHES, ids=range(len(BATCHES)))
def test_adversarial_commands_raise_dice_error_or_roll_within_limits(text):
    try:
        results = roll_many(text, random.Random(0))
    except DiceError as error:
        assert 0 < len(str(error)) <= 300
        return
    assert 1 <= len(results) <= 20
    assert sum(len(t.faces) for r in results for t in r.terms) <= 1000
    for result in results:
        assert result.parsed.minimum <= result.total <= result.parsed.maximum
