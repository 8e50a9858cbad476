"""A seeded, deterministic corpus of legal expressions aimed at the exact-odds engine's worst
cases: division, multiplication, rerolls, explosions, keep/drop, success
counting, counts and sides near the limits of ``bot/dice/limits.py``.

Shared by the tests (``tests/dice/test_odds_budget.py``) and the benchmark
(``bench/dice.py`` loads this file by path), so both speak about the same inputs. Only the
standard library and ``bot.dice`` are imported.
"""

from __future__ import annotations

import random

from bot.dice import DiceError, parse
from bot.dice.limits import MAX_DICE

#: Hand-made known-bad inputs: a sparse inner sum (multiplied dice plus dice) is convolved pair
#: by pair while a division shrinks the range the static estimate saw, and their relatives.
KNOWN_BAD = [
    "(1d1000*5+1d1000)/10000",
    "(1d1000*5+1d1000*5)/10000",
    "(1d1000rr1*5+1d1000rr1)/10000",
    "(1d1000*7+1d999)/100000",
    "1d1000*5+1d1000",
    "(1d500*9+1d500)/100000*(1d600*9+1d600)/100000",
    "((1d300*4+1d300)*1d20)/1000000",
    "(1d100*1d100+1d100*1d100)/10000",
    "(1d10000*1d30)/10000",
    "(1d1000*1000+1d1000)/1000000000000",
    "(100d100*1d100)/1000000",
    "(1000d10)/1000",
    "(500d20kh250)/1000",
    "(90d10e10)/1000",
    "(90d10000e>=9000)/100000",
    "(8d20rr<20e20)/1000",
    "(9d10000e)/100000",
    "(1000d10000)/1000000000",
    "(12d12kh6>=7)*(12d12kl6<=5)/(1d6)",
    "(200d6kh100)/(1d6)",
]

#: Sides the fuzzed corpus draws from (kept at 10,000, the largest die players roll, so the
#: corpus stays the same whatever the engine's limit on sides).
_BIG = 10_000
_SIDES = [2, 3, 4, 6, 8, 10, 12, 20, 100, 1000, _BIG]
_COUNTS = [1, 1, 2, 3, 4, 5, 10, 20, 50, 100, 200, 500, MAX_DICE]
_CMP = ["=", "<", ">", "<=", ">="]


def _pick_sides(rng: random.Random) -> int:
    return rng.choice(_SIDES) if rng.random() < 0.8 else rng.randint(2, _BIG)


def _cond(rng: random.Random, sides: int) -> str:
    op = rng.choice(_CMP)
    n = rng.randint(1, sides)
    return str(n) if op == "=" else f"{op}{n}"


def _term(rng: random.Random, dice_left: int) -> tuple[str, int]:
    """One dice term and the worst-case dice it may roll (the parser's count)."""
    sides = _pick_sides(rng)
    count = min(rng.choice(_COUNTS) if rng.random() < 0.8 else rng.randint(1, MAX_DICE), dice_left)
    count = max(count, 1)
    text = f"{count}d{sides}"
    per_slot = 1
    per_roll = 1
    if rng.random() < 0.25:
        rr = rng.random() < 0.5
        text += ("rr" if rr else "r") + _cond(rng, sides)
        per_roll = 11 if rr else 2
    explode = rng.random() < 0.3
    if explode:
        text += "e" + rng.choice(["", str(sides), f">={max(2, sides - rng.randint(0, 3))}"])
        per_slot = 11
    if rng.random() < 0.15:
        text += f"mi{rng.randint(1, sides)}"
    if rng.random() < 0.15:
        text += f"ma{rng.randint(1, sides)}"
    if not explode and count > 1 and rng.random() < 0.35:
        word = rng.choice(["kh", "kl", "dh", "dl"])
        n = rng.randint(1, count if word in ("kh", "kl") else count - 1)
        text += f"{word}{n}"
    if rng.random() < 0.2:
        text += rng.choice(_CMP) + str(rng.randint(1, sides))
    return text, count * per_slot * per_roll


def _const(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return str(rng.randint(1, 20))
    return str(10 ** rng.randint(2, 12) + rng.randint(0, 9))


def _tree(rng: random.Random, depth: int, dice: list[int]) -> str:
    """A random expression; ``dice`` holds the dice still allowed (shared, decremented)."""
    if depth == 0 or rng.random() < 0.25:
        if dice[0] <= 0 or rng.random() < 0.2:
            return _const(rng)
        text, used = _term(rng, dice[0])
        dice[0] -= used
        return text
    op = rng.choice("+-*/*/")
    left = _tree(rng, depth - 1, dice)
    right = _const(rng) if op == "/" and rng.random() < 0.5 else _tree(rng, depth - 1, dice)
    text = f"({left}{op}{right})"
    return "-" + text if rng.random() < 0.05 else text


def _shrink(rng: random.Random, dice: list[int]) -> str:
    """The known-bad shape: something wide and sparse, divided down to a narrow range."""
    inner = _tree(rng, 2, dice)
    scale = rng.choice([2, 3, 5, 7, 10, 100, 1000])
    other = _tree(rng, 1, dice)
    wide = f"({inner})*{scale}+{other}" if rng.random() < 0.7 else f"({inner})*({other})"
    return f"({wide})/{10 ** rng.randint(2, 9)}"


def odds_corpus(seed: int = 15, size: int = 300) -> list[str]:
    """``KNOWN_BAD`` then ``size`` distinct generated expressions, all of which parse."""
    rng = random.Random(seed)
    out = list(KNOWN_BAD)
    seen = set(out)
    while len(out) < len(KNOWN_BAD) + size:
        dice = [MAX_DICE]
        text = _shrink(rng, dice) if rng.random() < 0.35 else _tree(rng, rng.randint(0, 4), dice)
        if text in seen:
            continue
        try:
            parse(text)
        except DiceError:
            continue
        seen.add(text)
        out.append(text)
    return out
