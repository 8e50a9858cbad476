"""Every notation feature, with a seeded RNG and expectations rolled by hand."""

from __future__ import annotations

import json
import random

import pytest

from bot.dice import DiceError, parse, roll
from bot.dice.roller import DROPPED, EXPLODED, FROM_EXPLOSION, KEPT, REPLACEMENT, REROLLED

SEEDS = range(8)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("expression", "count", "sides", "offset"),
    [
        ("1d20", 1, 20, 0),
        ("d20", 1, 20, 0),
        ("D20", 1, 20, 0),
        ("8d6", 8, 6, 0),
        ("1d20+5", 1, 20, 5),
        ("1d20 - 2", 1, 20, -2),
        ("d%", 1, 100, 0),
        ("  3d 8  ", 3, 8, 0),
    ],
)
def test_plain_dice(draw, seed, expression, count, sides, offset):
    faces = draw(random.Random(seed), sides, count)
    result = roll(expression, random.Random(seed))
    assert [d.face for d in result.terms[0].dice] == faces
    assert all(d.kept for d in result.terms[0].dice)
    assert result.total == sum(faces) + offset


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("expression", "count", "sides", "keep"),
    [
        ("4d6kh3", 4, 6, lambda f: sorted(f, reverse=True)[:3]),
        ("4d6k3", 4, 6, lambda f: sorted(f, reverse=True)[:3]),
        ("2d20kl1", 2, 20, lambda f: [min(f)]),
        ("2d20kh", 2, 20, lambda f: [max(f)]),
        ("adv", 2, 20, lambda f: [max(f)]),
        ("dis", 2, 20, lambda f: [min(f)]),
        ("1d20 adv", 2, 20, lambda f: [max(f)]),
        ("d20dis", 2, 20, lambda f: [min(f)]),
        ("5d10dh2", 5, 10, lambda f: sorted(f)[:3]),
        ("5d10dl2", 5, 10, lambda f: sorted(f)[2:]),
        ("4d6d", 4, 6, lambda f: sorted(f)[1:]),
    ],
)
def test_keep_and_drop(draw, seed, expression, count, sides, keep):
    faces = draw(random.Random(seed), sides, count)
    result = roll(expression, random.Random(seed))
    dice = result.terms[0].dice
    assert [d.face for d in dice] == faces
    assert sorted(d.face for d in dice if d.kept) == sorted(keep(faces))
    assert all(d.kept != d.dropped for d in dice)
    assert result.total == sum(keep(faces))


def test_adv_plus_modifier_is_2d20kh1(draw):
    faces = draw(random.Random(3), 20, 2)
    result = roll("ADV + 5", random.Random(3))
    assert result.expression == "2d20kh1+5"
    assert result.total == max(faces) + 5


def test_explode_on_max(draw):
    # Find a seed whose first batch has exactly one 6, then hand-roll its chain.
    for seed in range(200):
        rng = random.Random(seed)
        faces = draw(rng, 6, 3)
        if faces.count(6) == 1:
            break
    expected: list[int] = []
    for face in faces:
        expected.append(face)
        while face == 6:
            face = draw(rng, 6, 1)[0]
            expected.append(face)
    result = roll("3d6e", random.Random(seed))
    dice = result.terms[0].dice
    assert [d.face for d in dice] == expected
    assert result.total == sum(expected)
    assert dice[faces.index(6)].flags & EXPLODED
    assert dice[faces.index(6) + 1].flags & FROM_EXPLOSION
    assert dice[faces.index(6) + 1].source == faces.index(6)


def test_explode_threshold_and_cap():
    # A d2 exploding on >=2 explodes at most 10 times: at most 11 dice per original die.
    for seed in range(300):
        result = roll("1d2e>=2", random.Random(seed))
        dice = result.terms[0].dice
        assert 1 <= len(dice) <= 11
        assert sum(d.exploded for d in dice) == len(dice) - 1
    assert parse("1d6e").text == "1d6e6"
    assert parse("1d6e>=5").text == "1d6e>=5"
    assert parse("1d6e5").text == "1d6e5"


def test_reroll_once(draw):
    for seed in range(200):
        rng = random.Random(seed)
        (first,) = draw(rng, 6, 1)
        if first == 1:
            break
    second = draw(rng, 6, 1)[0]
    result = roll("1d6r1", random.Random(seed))
    dice = result.terms[0].dice
    assert [d.face for d in dice] == [1, second]
    assert dice[0].flags & REROLLED and not dice[0].flags & KEPT
    assert dice[1].flags & REPLACEMENT and dice[1].source == 0
    assert result.total == second  # rerolled once only, even if the new face is 1


def test_reroll_repeatedly_until_target_or_cap(draw):
    for seed in range(50):
        rng = random.Random(seed)
        seq = draw(rng, 20, 1)
        while seq[-1] < 15 and len(seq) < 11:
            seq.append(draw(rng, 20, 1)[0])
        result = roll("1d20rr<15", random.Random(seed))
        assert [d.face for d in result.terms[0].dice] == seq
        assert result.total == seq[-1]


@pytest.mark.parametrize("seed", SEEDS)
def test_min_and_max_clamp(draw, seed):
    faces = draw(random.Random(seed), 6, 6)
    result = roll("6d6mi2ma5", random.Random(seed))
    dice = result.terms[0].dice
    assert [d.face for d in dice] == faces
    assert [d.value for d in dice] == [min(max(f, 2), 5) for f in faces]
    assert result.total == sum(min(max(f, 2), 5) for f in faces)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("target", "test"),
    [
        (">=8", lambda f: f >= 8),
        (">8", lambda f: f > 8),
        ("<=3", lambda f: f <= 3),
        ("<3", lambda f: f < 3),
        ("=10", lambda f: f == 10),
    ],
)
def test_success_counting(draw, seed, target, test):
    faces = draw(random.Random(seed), 10, 10)
    result = roll(f"10d10{target}", random.Random(seed))
    assert result.total == sum(1 for f in faces if test(f))
    assert [d.success for d in result.terms[0].dice] == [test(f) for f in faces]


def test_success_counts_only_kept_dice(draw):
    faces = draw(random.Random(5), 6, 4)
    kept = sorted(faces, reverse=True)[:2]
    assert roll("4d6kh2>=4", random.Random(5)).total == sum(1 for f in kept if f >= 4)


@pytest.mark.parametrize(
    ("expression", "total"),
    [
        ("7/2", 3),
        ("-7/2", -4),  # floor, not truncation
        ("7/-2", -4),
        ("2+3*4", 14),
        ("(2+3)*4", 20),
        ("2*-3", -6),
        ("--4", 4),
        ("-(1+2)", -3),
        ("10-2-3", 5),
        ("100/10/5", 2),
        ("+5", 5),
    ],
)
def test_arithmetic(expression, total):
    assert roll(expression, random.Random(0)).total == total


def test_arithmetic_with_dice(draw):
    rng = random.Random(11)
    a = draw(rng, 20, 1)[0]
    b = draw(rng, 4, 1)[0]
    result = roll("(1d20 + 1d4) * 2 - 3", random.Random(11))
    assert result.total == (a + b) * 2 - 3
    assert [t.subtotal for t in result.terms] == [a, b]


def test_labels_and_comment():
    result = roll("1d8+3 [Slashing] + 1d6 [fire] # Longsword, flaming", random.Random(1))
    assert result.labels == ("Slashing", "fire")
    assert result.comment == "Longsword, flaming"
    assert result.expression == "1d8+3 [Slashing]+1d6 [fire]"
    record = result.to_record()
    assert record["terms"][1]["labels"] == ["fire"]
    assert roll("1d20 #", random.Random(1)).comment is None


def test_natural_20_and_1_only_on_kept_d20(draw):
    for seed in range(2000):
        faces = draw(random.Random(seed), 20, 2)
        if 20 in faces and 1 in faces:
            break
    assert roll("2d20kh1", random.Random(seed)).natural_20
    assert not roll("2d20kh1", random.Random(seed)).natural_1
    assert roll("2d20kl1", random.Random(seed)).natural_1
    assert not roll("2d20kl1", random.Random(seed)).natural_20
    assert not roll("2d12", random.Random(0)).natural_20


def test_to_record_is_json_with_every_die():
    result = roll("4d6kh3 + 2d6e6r1 + 3", random.Random(2))
    record = json.loads(json.dumps(result.to_record()))
    assert record["total"] == result.total
    assert record["expression"] == "4d6kh3+2d6r1e6+3"
    assert len(record["terms"][0]["dice"]) == 4
    assert sum("dropped" in d["flags"] for d in record["terms"][0]["dice"]) == 1
    assert sum(len(t["dice"]) for t in record["terms"]) == sum(len(t.faces) for t in result.terms)


def test_results_are_immutable():
    result = roll("1d20", random.Random(0))
    with pytest.raises(AttributeError):
        result.total = 3  # type: ignore[misc]
    with pytest.raises((AttributeError, TypeError)):
        parse("1d20").text = "x"  # type: ignore[misc]


def test_dropped_flags_are_exclusive():
    for die in roll("10d6kh3", random.Random(4)).terms[0].dice:
        assert bool(die.flags & KEPT) != bool(die.flags & DROPPED)


def test_seeded_runs_are_reproducible():
    expr = "4d6kh3 + 3d10e10 + 2d20rr<3 + 5d8mi2>=5 [x] # c"
    assert roll(expr, random.Random(42)) == roll(expr, random.Random(42))
    assert roll(expr, random.Random(42)).to_record() == roll(expr, random.Random(42)).to_record()


def test_parse_returns_reusable_expression():
    expr = parse("2d20kh1+3")
    assert roll(expr, random.Random(1)) == roll("2d20kh1+3", random.Random(1))
    assert (expr.minimum, expr.maximum) == (4, 23)


def test_non_text_is_a_dice_error():
    with pytest.raises(DiceError):
        parse(None)  # type: ignore[arg-type]
