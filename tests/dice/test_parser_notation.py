"""Notation read the way players from other bots mean it, with forced dice.

Each case forces the faces (tests/dice/forced.py) and states the total a player of the bot
the spelling comes from expects, worked out by hand from that bot's documentation.

Tests bot/dice/parser.py.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.dice import DiceError, exact_odds, parse, parse_many, render_markdown, render_plain, roll
from bot.dice.batch import roll_many
from bot.dice.roller import ADDED, DROPPED, FAILURE, FOLDED, KEPT, SUCCESS
from tests.dice.forced import enumerate_outcomes
from tests.scripted import ScriptedRandom


def total(expression: str, *faces: int) -> int:
    rng = ScriptedRandom(*faces)
    result = roll(expression, rng)  # type: ignore[arg-type]
    assert rng.used == len(faces), f"{expression} used {rng.used} of {len(faces)} dice"
    return result.total


@pytest.mark.parametrize(
    ("expression", "faces", "expected"),
    [
        # Avrae: keep/drop by selector (k<3 used to be "keep 1, count successes below 3").
        ("4d6k<3", (1, 5, 2, 6), 3),
        ("4d6k>4", (1, 5, 2, 6), 11),
        ("4d6p>3", (1, 5, 2, 6), 3),
        ("4d6p<2", (1, 5, 2, 6), 13),
        ("4d6p5", (1, 5, 2, 6), 9),
        ("4d6ph1", (1, 5, 2, 6), 8),
        ("4d6pl1", (1, 5, 2, 6), 13),
        ("4d6kh1kl1", (1, 5, 2, 6), 7),  # consecutive keeps unite (Avrae)
        ("3d6kh2dl1", (3, 5, 4), 5),  # keep then drop apply in turn
        ("4d6km2", (1, 5, 2, 6), 7),
        ("((10d6kh5)kl2)kh1", (1, 2, 3, 4, 5, 6, 6, 5, 4, 3), 5),
        # Dice Maiden: +d20 / -d20 are advantage / disadvantage, at the start.
        ("+d20", (4, 17), 17),
        ("-d20+2", (4, 17), 6),
        ("5+d20", (4,), 9),
        ("1d8adv", (3, 7), 7),
        # Dice Maiden: a modifier after a space is Dice Maiden's.
        ("3d6 e6", (6, 1, 1, 6), 14),  # explodes once, on 6 or more
        ("3d6e6", (6, 1, 1, 6, 2), 16),  # ours (Avrae): chains
        ("3d10 e8", (9, 1, 1, 10), 21),
        ("3d6 ie5", (5, 1, 1, 6, 2), 15),  # ie: indefinitely, on 5 or more
        ("4d6 r2", (2, 5, 1, 6, 2, 1), 14),  # reroll 2 or less, once
        ("4d6r2", (2, 5, 1, 6, 3), 15),  # ours (Avrae ro2): exactly 2, once
        ("4d6 ir2", (2, 5, 1, 6, 2, 3, 4), 18),
        ("4d6 k3", (2, 5, 1, 6), 13),
        ("4d6 d1", (2, 5, 1, 6), 13),
        ("6d10 t7", (7, 8, 2, 10, 1, 6), 3),
        ("5d10 t8 f1", (8, 1, 9, 1, 3), 0),
        ("5d10 t7 t10", (7, 10, 2, 10, 3), 5),  # Exalted: 10s count twice
        ("10d6 e6 k8 +4", (6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 6), 22),
        # Roll20 / rpg-dice-roller
        ("3d6!", (6, 2, 3, 6, 1), 18),
        ("3d6!>5", (6, 2, 3, 6, 1), 18),
        ("3d6!!", (6, 2, 3, 6, 1), 18),
        ("3d6!!kh1", (6, 2, 3, 6, 1), 13),  # the compounded die is one die of 13
        ("3d6!p", (6, 2, 3, 6, 1), 16),  # each explosion die counts one less
        ("d6!3", (3, 2), 5),
        ("2d6ro1", (1, 4, 1), 5),
        ("2d6ra1", (1, 4, 6), 11),
        ("10d10>=8f1", (8, 9, 10, 1, 1, 5, 5, 5, 5, 5), 1),
        ("3d6>3f1", (4, 1, 6), 1),
        ("4dF", (1, 2, 3, 3), 1),
        ("4dF+1", (1, 1, 1, 2), -2),
        ("4dF.2", (1, 2, 3, 3), 1),  # rpg-dice-roller's name for the standard Fate die
        ("1d20cs>18", (19,), 19),
        ("2d6min3", (1, 5), 8),
        ("2d6max3", (1, 5), 4),
        ("4d6s", (4, 1, 6, 2), 13),
        # Sets
        ("(1d4, 2+2, 3d6kl1)kh1", (3, 6, 5, 2), 4),
        ("{4d10*2, 5d6+10}k1", (1, 1, 1, 1, 6, 6, 6, 6, 6), 40),
        ("(1d8e, 1d6e)kh1", (8, 3, 6, 6, 2), 14),
        ("(1, 2, 3)k>1", (), 5),
        ("(5, 1d6)kl1", (6,), 5),
        # Comparisons of totals
        ("1d20+5 >= 15", (10,), 1),
        ("1d20+5 >= 15", (9,), 0),
        ("1d20 == 20", (20,), 1),
        ("(2d6) >= 7", (3, 3), 0),
        ("1d20 != 1", (1,), 0),
        # Comments without #
        ("2d6 ! fire", (1, 2), 3),
        ("2d6 // fire", (1, 2), 3),
        ("7//2", (), 3),
    ],
)
def test_each_spelling_means_what_its_bot_means(expression, faces, expected):
    assert total(expression, *faces) == expected


def test_selector_keep_is_a_selection_not_a_success_count():
    result = roll("4d6k<3", ScriptedRandom(1, 5, 2, 6))
    flags = [d.flags for d in result.terms[0].dice]
    assert [bool(f & KEPT) for f in flags] == [True, False, True, False]
    assert not any(f & SUCCESS for f in flags)
    assert render_plain(result) == "4d6k<=2 (1, 5x, 2, 6x) = 3"


def test_success_and_failure_marks_and_dice_added_or_folded():
    pool = roll("5d10 t8 f1", ScriptedRandom(8, 1, 9, 1, 3))
    marks = [(bool(d.flags & SUCCESS), bool(d.flags & FAILURE)) for d in pool.terms[0].dice]
    assert marks == [(True, False), (False, True), (True, False), (False, True), (False, False)]
    assert render_markdown(pool) == "5d10>=8f<=1 (8✓, **1**✗, 9✓, **1**✗, 3) = 0"
    added = roll("2d6ra1", ScriptedRandom(1, 4, 6))
    assert added.terms[0].dice[-1].flags & ADDED and added.terms[0].dice[-1].source == 0
    folded = roll("1d6!!", ScriptedRandom(6, 6, 2))
    assert [bool(d.flags & FOLDED) for d in folded.terms[0].dice] == [False, True, True]
    assert folded.total == 14 and render_plain(folded) == "1d6!!6 (6!, +6!, +2) = 14"


def test_fate_and_sets_render():
    fate = roll("4dF", ScriptedRandom(1, 2, 3, 3))
    assert render_markdown(fate) == "4dF (−, 0, +, +) = 1"
    group = roll("(1d4, 2+2, 3d6kl1)kh1", ScriptedRandom(3, 6, 5, 2))
    assert group.sets == ((False, True, False),)
    assert render_plain(group) == "(1d4 (3)x, 2 + 2, 3d6kl1 (6x, 5x, 2)x)kh1 = 4"
    assert [d.flags & DROPPED for d in group.terms[1].dice][:2] == [DROPPED, DROPPED]


def test_comparison_renders_pass_or_fail_and_is_recorded():
    result = roll("1d20+5 >= 15", ScriptedRandom(12))
    assert result.passed is True and result.compared == (17, 15)
    assert render_plain(result) == "1d20 (12) + 5 >= 15 → 17 ≥ 15: pass"
    record = result.to_record()
    assert record["passed"] is True and record["compared"] == [17, 15]


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        # Ambiguous between bots: refused with both spellings.
        (
            "2d6 >= 7",
            "2d6 >= … could count dice or compare the total: write 2d6>=N (no space) to count "
            "the dice that are >=N, or (2d6) >= N to compare the total",
        ),
        (
            "2 d6",
            "'2 d' at position 1: write 2d… without a space for 2 dice added up, or 2#d… to "
            "roll 2 times",
        ),
        ("6#4d6", "several rolls (6#4d6) are not possible here: one roll at a time"),
        ("1d20; 1d6", "several rolls (separated by ;) are not possible here"),
        (
            "+d%",
            "+d% is Dice Maiden's percentile advantage: write it out, e.g. (2d10kl1-1)*10+1d10",
        ),
        # Error positions point at the start of the unknown word.
        (
            "2d6foo3",
            "unknown word 'foo' at position 4"
            " (modifiers are e.g. kh3, dl1, r1, e, mi2; comments start with #)",
        ),
        (
            "2d6kfoo",
            "unknown word 'kfoo' at position 4"
            " (modifiers are e.g. kh3, dl1, r1, e, mi2; comments start with #)",
        ),
        ("1d20 attack", "unknown word 'attack' at position 6 (start a comment with #)"),
        (
            "4cod",
            "unknown word 'cod' at position 2 (Dice Maiden's game-system shortcuts "
            "are not supported here: write the dice, e.g. 4d10 t8 ie10 for 4cod, or pick the "
            "dice-maiden dialect)",
        ),
        (
            "4d6 b1",
            "'b' at position 5: Dice Maiden's botch count is not supported; count "
            "failures with f1 (e.g. 4d6>=5f1)",
        ),
        (
            "d6!=6",
            "'!=' at position 3 is read differently by bots: write !6 (or e6) to explode on "
            "6, or put a space before != to compare the total",
        ),
        ("4d6kh<3", "'kh<' at position 4: write k<N to keep or p<N to drop the dice that are <N"),
        (
            "4dFe",
            "4dF: Fate dice can't be rerolled, exploded or clamped (write 4dF without that "
            "modifier)",
        ),
        ("4dF.1", "'.' at position 4: only standard Fate dice (dF, dF.2) are supported"),
        ("(1, 2)kh0", "kh0: keep or drop at least one item (e.g. kh1)"),
        ("(" + ", ".join(["1"] * 21) + ")kh1", "too many items in a set: the limit is 20"),
        (
            "4d6p",
            "the expression ends too early: expected what to drop after 'p', e.g. "
            "p1, ph1, pl1 or p<3",
        ),
        (
            "1d20 >= 10 >= 2",
            "only one comparison per roll (the second is at position 12): write each comparison "
            "as its own roll, separated by ;",
        ),
        (
            "2d6 3",
            "unexpected number at position 5: to roll several times write 6#4d6 "
            "(or 6 4d6 at the start), to separate rolls use ;",
        ),
        (
            "(50d6e, 50d6e)kh1",
            "too many dice: this could roll up to 1,100 dice counting every possible explosion "
            "and reroll; the limit is 1,000",
        ),
        (
            "100d6!!",
            "too many dice: this could roll up to 1,100 dice counting every "
            "possible explosion and reroll; the limit is 1,000",
        ),
    ],
)
def test_refusals_name_what_to_type(expression, message):
    with pytest.raises(DiceError) as info:
        parse(expression)
    assert str(info.value) == message


def test_repeats_and_several_rolls_each_get_their_own_total_and_labels():
    batch = parse_many("6#4d6kh3")
    assert batch.count == 6 and parse_many("6 4d6 k3").text == "6#4d6kh3"
    faces = [f for _ in range(6) for f in (1, 2, 3, 4)]
    results = roll_many(batch, ScriptedRandom(*faces))
    assert [r.total for r in results] == [9] * 6
    pair = roll_many("1d20+5 [attack]; 2d6+3 [damage]", ScriptedRandom(12, 2, 5))
    assert [(r.total, r.labels) for r in pair] == [(17, ("attack",)), (10, ("damage",))]
    advantage = roll_many("3 +d20", ScriptedRandom(1, 20, 5, 4, 9, 9))
    assert [r.total for r in advantage] == [20, 5, 9]
    assert [r.total for r in roll_many("2 d6", ScriptedRandom(3, 4))] == [3, 4]
    assert [r.total for r in roll_many("3 + 4", ScriptedRandom())] == [7]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("21#1d6", "21 rolls: you can roll 1 to 20 at once (e.g. 20#1d6)"),
        ("0#1d6", "0 rolls: you can roll 1 to 20 at once (e.g. 20#1d6)"),
        ("10#1d6; 11#1d6", "too many rolls at once: the limit is 20"),
        (
            "10#100d6",
            "too many dice: these rolls could roll up to 1,000 dice counting every repeat, "
            "explosion and reroll; the limit is 1,000",
        ),
        ("1d6;;1d6", "roll 2 is empty: write something between the ;"),
        (
            "1d6; 2d6y",
            "roll 2: unknown word 'y' at position 5 (modifiers are e.g. kh3, dl1, r1, e, "
            "mi2; comments start with #)",
        ),
        ("6x4d6kh3", "'x' at position 2: to roll 6 times write 6#4d6kh3"),
    ],
)
def test_several_rolls_obey_the_limits_before_rolling(text, message):
    if text == "10#100d6":
        assert parse_many(text).count == 10  # exactly at the limit: fine
        text, message = "10#100d6; 1d6", message.replace("1,000 dice", "1,001 dice")
    with pytest.raises(DiceError) as info:
        parse_many(text)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("expression", "sides"),
    [
        ("4d6k<3", 6),
        ("3d6p>4", 6),
        ("3d4 e4", 4),
        ("1d4 ie3", 4),
        ("2d4!p", 4),
        ("2d4!!", 4),
        ("3dF", 3),
        ("3dFkh2", 3),
        ("4d4 t3 f1", 4),
        ("3d4>=3t4", 4),
        ("(1d4, 2, 1d4+1)kh1", 4),
        ("(1d4, 1d4)kl1*2", 4),
        ("1d4+1 >= 4", 4),
        ("1d4 == 1d4", 4),
        ("2d4 r<=2", 4),
        ("2d4 ir1", 4),
    ],
)
def test_exact_odds_of_new_notation_match_enumeration(expression, sides):
    run = lambda rng: roll(expression, rng).total  # type: ignore[arg-type]  # noqa: E731
    expected = enumerate_outcomes(run, sides, max_dice=24)
    odds = exact_odds(expression)
    assert odds == dict(expected)
    assert sum(odds.values()) == Fraction(1)


@pytest.mark.parametrize(
    ("expression", "why"),
    [
        ("4d6kh1kl1", "united keeps (kh1kl1) or keep/drop mixing ranks and values"),
        ("4d6p1kh2", "united keeps (kh1kl1) or keep/drop mixing ranks and values"),
        ("2d6ra1", "reroll-and-add (ra)"),
        ("3d6!!6>=4", "compounding explosions with keep/drop or successes"),
        ("4d6e6k<3", "exploding dice with keep/drop"),
    ],
)
def test_odds_refuse_what_they_cannot_follow(expression, why):
    with pytest.raises(DiceError) as info:
        exact_odds(expression)
    assert str(info.value) == f"exact odds are not available for {why}"
