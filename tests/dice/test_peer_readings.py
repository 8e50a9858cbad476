"""Readings added so each peer's players are read as their bot means (docs/dice.md, "Coming
from another bot"): Avrae's decimals and tens dice, rpg-dice-roller's and GNOLL's spellings,
and Dice Maiden's game-system shortcuts (bot/dice/maiden.py). Meanings are checked by exact
odds where they exist, else on forced dice (tests/scripted.py)."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest

from bot.dice import DiceError, exact_odds, parse, parse_many, roll, roll_many
from bot.dice.maiden import SHORTCUTS, expand
from tests.dice.peers.check import load
from tests.scripted import ScriptedRandom


def _total(text: str, faces: list[int], dialect: str = "pbp") -> object:
    results = roll_many(parse_many(text, dialect), ScriptedRandom(*faces))
    return results[0].total if len(results) == 1 else [r.total for r in results]


# --- Avrae -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "faces", "total"),
    [
        ("1.5", [], 1),  # d20 truncates the total: int(1.5)
        ("7/2*2", [], 7),  # / keeps the fraction
        ("-7/2", [], -3),  # toward zero, as int()
        ("1d6/2+0.5", [5], 3),
        ("38850.*-38850.*+-+0", [], 0),
        ("+87.991557//-+.08832536//.08832536", [], -11288),
        ("()", [], 0),
        ("-()k1+3", [], 3),
        ("0d6", [], 0),
        ("+d20", [7], 7),  # a sign, not advantage
        ("2d%kh1", [1, 4], 30),  # tens dice: faces 1 and 4 count 0 and 30
        ("+d%k0", [1], 0),
        ("10d6mi10", [1] * 10, 100),
    ],
)
def test_avrae_reads_as_d20(text, faces, total):
    assert _total(text, faces, "avrae") == total


def test_avrae_tens_dice_keep_their_values():
    odds = exact_odds(parse("2d%kh1", "avrae"))
    assert min(odds) == 0 and max(odds) == 90 and sum(odds.values()) == 1
    assert odds[90] == Fraction(19, 100)


def test_decimals_have_no_exact_odds_and_truncated_bounds():
    expr = parse("1d6/1d6/1d6", "avrae")
    with pytest.raises(DiceError, match="decimals"):
        exact_odds(expr)
    for seed in range(50):
        assert expr.minimum <= roll(expr, random.Random(seed)).total <= expr.maximum


def test_decimals_stay_refused_outside_avrae():
    with pytest.raises(DiceError, match="whole numbers"):
        parse("1.5")


def test_large_dice_roll_and_refuse_exact_odds_by_cost():
    expr = parse("1d116952743745")
    assert 1 <= roll(expr, random.Random(1)).total <= 116952743745
    with pytest.raises(DiceError, match="too many combinations"):
        exact_odds(expr)


# --- rpg-dice-roller and GNOLL -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "faces", "total"),
    [
        ("10d10f<4", list(range(1, 11)), 6),  # GNOLL's filter: 1 + 2 + 3
        ("10d10f>5c", list(range(1, 11)), 5),  # filter, then count
        ("10d10c", list(range(1, 11)), 10),
        ("10d10f!=1", list(range(1, 11)), 54),
        ("d4r!=1", [1], 1),
        ("d4r!=4", [1, 2], 2),
        ("d3!o", [3, 3], 6),  # explodes once
        ("4dF /* a comment */", [3, 3, 3, 3], 4),
        ("max(1d6, 1d8)", [2, 7], 7),
        ("min(1d6, 1d8)", [2, 7], 2),
        ("{4d10*5d6}k2", [1] * 9, 20),  # keeping more than the set holds keeps it all
        ("{3+4d6, 5d2*6d3}dh2", [1] * 15, 0),  # dropping as many drops it all
        ("{4d6, 2d10}>10", [6, 6, 6, 6, 1, 1], 1),
        ("{4d6+5, 1d10}>10f<3", [6, 6, 6, 6, 2], 0),
        ("4d20max-12", [5, 5, 5, 5], -48),
        ("5d10r", [1, 2, 3, 4, 5, 6], 20),  # r alone: the lowest face, once
    ],
)
def test_rpg_dice_roller_and_gnoll_spellings(text, faces, total):
    assert _total(text, faces) == total


def test_set_counts_have_exact_odds():
    odds = exact_odds(parse("{4d6}>20f<5"))
    assert set(odds) == {-1, 0, 1} and sum(odds.values()) == 1


def test_roll20_counts_each_die_of_a_lone_group():
    assert exact_odds(parse("{5d6}>4", "roll20")) == exact_odds(parse("5d6>=4"))
    assert exact_odds(parse("{5d6}>4")) == exact_odds(parse("(5d6) > 4"))


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("2d4r==1", "`r==1`"),  # GNOLL rerolls the whole roll while its total matches
        ("d10rr>4", "`rr>4`"),  # GNOLL rerolls until it holds
        ("1d20rr<20", "`rr<20`"),  # the 10-reroll cap
        ("10d10f<4", "`f<4`"),
        ("{4d6}>10", "`>10`"),
        ("4d6kh3mi2", "`mi2`"),
    ],
)
def test_notes_quote_what_was_typed(text, quoted):
    assert any(quoted in note for note in parse(text).notes)


# --- Dice Maiden's shortcuts ---------------------------------------------------------------


def test_every_shortcut_cites_dicemaiden_rs():
    for shortcut in SHORTCUTS:
        assert re.fullmatch(r"src/dice/(aliases|parser|roller)\.rs:\d+", shortcut.cite), shortcut


def test_every_shortcut_reads_at_least_one_corpus_expression():
    corpus = [e["expr"] for e in load("Dice Maiden") if e.get("origin") != "refuses"]
    for shortcut in SHORTCUTS:
        hits = [text for text in corpus if shortcut.pattern.match(text.strip())]
        if not hits:
            continue  # a shortcut only the source shows (dheartgm, …)
        assert any(expand(text) is not None for text in hits), shortcut.system


@pytest.mark.parametrize(
    ("shortcut", "means"),
    [
        ("4cod", "4d10 t8 ie10"),
        ("5wod8", "5d10 f1 t8"),
        ("sr6", "6d6 t5"),
        ("sp4t7", "4d10 t7 ie10"),
        ("6yz", "6d6 t6"),
        ("snm5", "5d6 ie6 t4"),
        ("3wh4+", "3d6 t4"),
        ("ex5", "5d10 t7 t10"),
        ("ex5t8d9", "5d10 t8ds9"),
        ("dd34", "1d3 * 10 + 1d4"),
        ("+d%", "2d10 kl1 * 10 + 1d10 - 10"),
        ("+d6", "2d6 k1"),
        ("a5e +5 ex1", "1d20+5 + 1d4"),
        ("attack +5", "1d20+5"),
        ("alien4", "4d6=6"),
        ("fitd3", "3d6kh1"),
        ("fitd0", "2d6kl1"),
        ("2lf4", "2d6<=4"),
        ("2lf4f", "2d6>=4"),
        ("wng 4d6", "4d6>=4t6"),
        ("gb 2d8", "2d8>=2t6t10t10"),
        ("4df", "4dF"),
        ("ww4c1", "4d6dh1kh1"),
        ("ex5 + 2", "5d10 t7 t10 + 2"),
        ("ess1d8", "1d20 + 1d8"),
        ("+ess1d8s", "2d20 k1 + (1d8, 1d6, 1d4, 1d2)kh1"),
        ("1d20 ess4 +3", "1d20 + 1d8 + 3"),
        ("tdh4bc - 2", "3d6 k2 + 1d6 + 2"),
        ("cpd4+2", "4d6 + 2"),
        ("wfrp67", "6 - (1d100 / 10)"),
        ("cs 3 + 2", "1d20 + 2"),
        ("3hsk", "3d6 * 1d3"),
        ("2.5hsk", "(2d6 + 1d3) * 1d3"),
        ("8d6l", "7d6 t4 + 1d6 t4f1ie6"),
        ("conan3cd4", "4d6=2 tl2 t5 + 3"),
        ("4dp", "4d6=2 tl2 * 2"),
        ("1d20+5 t6", "1d20 t1"),
        ("2d10*2 t6f2b1", "2d10 t3 f1"),
    ],
)
def test_shortcuts_mean_what_dice_maiden_expands_them_to(shortcut, means):
    ours = parse_many(shortcut, "dice-maiden")
    assert ours.single is not None
    assert exact_odds(ours.single) == exact_odds(parse(means, "dice-maiden"))
    assert ours.notes[0].startswith(f"Dice Maiden dialect: read `{shortcut}`")


def test_alien_stress_dice_count_sixes_with_the_base_dice():
    assert exact_odds(parse_many("alien4s2", "dice-maiden").parts[0][0]) == exact_odds(
        parse("6d6=6")
    )
    assert "panic roll" in parse_many("alien4s2", "dice-maiden").notes[0]


def test_shortcut_sets_labels_and_comments():
    assert parse_many("dndstats", "dice-maiden").count == 6
    assert parse_many("3 4cod", "dice-maiden").count == 3
    batch = parse_many("(Attack) fitd4 ! sneaking", "dice-maiden")
    assert batch.parts[0][0].comment == "Attack: sneaking"
    assert _total("wng 4d6 !soak", [1, 2, 3, 4], "dice-maiden") == 10  # soak: the total


def test_shortcuts_are_refused_with_the_dice_outside_the_dialect():
    with pytest.raises(DiceError, match="4d10 t8 ie10"):
        parse_many("4cod")


@pytest.mark.parametrize(
    ("text", "faces", "total"),
    [
        ("4d6 i", [1, 3, 4, 5, 2], 11),  # the 1 rolls one more die, taken away
        ("3d6 adv1", [1, 4, 5, 6], 15),  # four dice, the lowest dropped first
        ("3d6 dis1", [1, 4, 5, 6], 10),
        ("4d6 tl3", [1, 3, 4, 6], 2),
        ("4d6 rg5", [6, 1, 2, 3, 4], 10),
        ("6d10 t7 f1 b1", [7, 8, 1, 1, 2, 3], 0),  # botches are shown, not counted
        ("7d6 t4 + 1d6 t4f1ie6", [4, 4, 4, 1, 1, 1, 1, 1], 3),  # the wild die's f1 ignored
    ],
)
def test_dice_maiden_modifiers(text, faces, total):
    assert _total(text, faces, "dice-maiden") == total


@pytest.mark.parametrize(
    ("text", "faces", "total"),
    [
        ("1d20+3 t8f1", [5], 1),  # 5 + 3 reaches 8: the math goes on each die first
        ("1d20+3 t8f1", [4], 0),
        ("3d1+2*2 f1b2t6", [1, 1, 1], 3),  # (1 + 2) * 2 = 6 on each die
        ("4d1+1 t4f1+1", [1, 1, 1, 1], 1),  # no die reaches 4; the +1 after goes on the count
        ("wfrp67", [45], 2),  # Success Levels: 6 - 4
        ("wfrp67", [100], -4),
        ("cd4", [1, 2, 5, 3], 4),  # Conan combat dice: 1, 2, 1, 0
        ("4dp", [1, 2, 3, 6], 6),  # plot dice: 2 + 4
        ("gb + 5", [5], 4),  # Godbound's chart on 5 + 5 = 10
        ("gb + 5", [1], 2),
        ("4d6 f1", [1, 1, 3, 6], -2),  # failures with no target count below zero
        ("tdh4c", [3, 4, 6], 17),  # the House Die joins the total when called upon
        ("1d10 e10 i1", [1, 7], -6),  # a 1 takes a die away, once
        ("1d10 e10 i1", [10, 7], 17),  # a 10 adds one, once
        ("cpr * 2", [10, 10], 40),  # Cyberpunk Red: the 10 adds one 10, no more
        ("wit", [1, 1, 4], -4),  # the Witcher: a 1 takes dice away while they show 1
        ("wit", [10, 10, 3], 23),
        ("1d20 ie20 adv1", [5, 20, 3], 23),  # the 5 set aside, the 20 explodes
        ("2d6 ie6 adv1", [1, 6, 3, 4], 13),  # the 1 is set aside first; the 6 explodes
        ("2d6 ie6 dis1", [6, 6, 2, 5], 13),  # one 6 set aside, the other explodes
        ("ol5a1", [20, 4, 1, 6, 3, 2], 35),  # 20 explodes (4); the 1 set aside; 6 explodes (2)
    ],
)
def test_dice_maiden_game_systems_on_forced_dice(text, faces, total):
    assert _total(text, faces, "dice-maiden") == total


@pytest.mark.parametrize(
    "text",
    ["1 d6", "4d6 i1 k3", "1d6+3d10 t7", "6d10 t7 + 5d6 - 2d4", "4d6 i1 ie6"],
)
def test_dice_maiden_refusals_name_what_to_write(text):
    with pytest.raises(DiceError, match="write"):
        parse_many(text, "dice-maiden")


def test_each_further_target_counts_on_its_own_as_its_exact_odds_say():
    """`=2 t5`: a 5 is no 2 but still meets t5, so it counts once; rolls and odds agree."""
    expr = parse("1d6=2 t5", "dice-maiden")
    rolled = {face: _total("1d6=2 t5", [face], "dice-maiden") for face in range(1, 7)}
    assert rolled == {1: 0, 2: 1, 3: 0, 4: 0, 5: 1, 6: 1}
    assert {k: float(v) for k, v in exact_odds(expr).items()} == {0: 0.5, 1: 0.5}


def test_a_dice_maiden_label_may_follow_the_set_count_or_be_empty():
    batch = parse_many("3 (Stat Roll) 4d6 k3", "dice-maiden")
    assert batch.count == 3
    assert batch.parts[0][0].comment == "Stat Roll"
    assert "read `()` as an empty label" in parse_many("() 2d6", "dice-maiden").notes[0]


@pytest.mark.parametrize(
    "text",
    # Dice Maiden shows something no total gives: the successes before the math (Conan),
    # one success in place of the roll (Mothership, M&M), the automatic bands (WFRP 5).
    ["conan3 - 1", "cd4 + 3", "ms45", "mnm +5", "wfrp5", "gb 3d8 - 2", "cpr / 2", "3d6 adv2 dis1"],
)
def test_dice_maiden_systems_this_bot_cannot_show_are_refused(text):
    with pytest.raises(DiceError, match="write"):
        parse_many(text, "dice-maiden")
