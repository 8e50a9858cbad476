"""What Dice Maiden (github:Humblemonk/dicemaiden-rs) means by a roll, as a sampler written
from its roll_syntax.md ("Core Modifiers", "How Modifiers Combine", "Advanced Features"),
independently of pbp-dice's parser: pbp-dice's reading is then compared with it by
distribution (tests/dice/peers/check.py).

The stages, as the docs give them: ``adv#``/``dis#`` extra dice discarded first; explosions and
rerolls in the order written (``e`` once per die present, ``ie`` on new dice too, at most 100;
``r``/``ir`` reroll dice at or below the number, ``rg``/``irg`` at or above); keep/drop in the
order written (``k`` highest, ``kl``, ``km`` middle with the extra one dropped from the top,
``d`` lowest); the total; math left to right (``+ - * /``, Rust's integer division); success
counting (``t``, ``ds``, ``f``) on the kept dice, with the math written after the targets applied
to the successes. Roll sets ``N expr`` (2 to 20), ``;`` and ``! comment``. Anything else (game
systems, flags, labels, implosion, botches) raises :class:`Unmodelled`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

Sampler = Callable[[random.Random], int]


class Unmodelled(Exception):
    """The oracle does not know what Dice Maiden means by this."""


@dataclass
class _Roll:
    count: int
    sides: int  # 0: Fate dice (-1, 0, +1)
    mods: list[tuple[str, int | None]] = field(default_factory=list)
    math: list[tuple[str, object, bool]] = field(
        default_factory=list
    )  # op, n or (count, sides), after a target


_MOD = re.compile(r"(irg|ir|ie|rg|kl|km|adv|dis|ds|r|e|k|d|t|f)(\d*)")


def _face(rng: random.Random, sides: int) -> int:
    return rng.randint(-1, 1) if sides == 0 else rng.randint(1, sides)


def _dice(count: int, sides: int, rng: random.Random) -> int:
    return sum(_face(rng, sides) for _ in range(count))


def _trunc_div(a: int, b: int) -> int:
    if b == 0:
        raise ZeroDivisionError
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _apply(total: int, op: str, value: int) -> int:
    if op == "+":
        return total + value
    if op == "-":
        return total - value
    if op == "*":
        return total * value
    return _trunc_div(total, value)


def _parse_one(text: str) -> Callable[[random.Random], int]:
    s = re.sub(r"\s+", "", text).lower()
    if not s:
        raise Unmodelled(text)
    roll: _Roll | None = None
    i = 0
    if re.match(r"\+\d+d\d", s):
        s = s[1:]  # "+2d6": a plus sign before the dice
    m = re.match(r"([+-])d20", s)
    if m:
        roll = _Roll(2, 20, [("k" if m.group(1) == "+" else "kl", 1)])
        i = m.end()
    else:
        m = re.match(r"(\d*)d(\d+|%|f)", s)
        if m:
            sides = {"%": 100, "f": 0}.get(m.group(2))
            roll = _Roll(int(m.group(1) or 1), int(m.group(2)) if sides is None else sides)
            i = m.end()
        else:
            m = re.match(r"([+-]?)(\d+)", s)
            if not m:
                raise Unmodelled(text)
            value = int(m.group(2)) * (-1 if m.group(1) == "-" else 1)
            roll = _Roll(0, 1, [], [("+", value, False)])
            i = m.end()
    targeted = False
    while i < len(s) and roll.count and not roll.math:
        m = _MOD.match(s, i)
        if not m:
            break
        word, digits = m.group(1), m.group(2)
        if word == "d" and i + 1 < len(s) and not digits:
            break
        n = int(digits) if digits else None
        if word == "ds":
            if not roll.mods or roll.mods[-1][0] != "t":
                raise Unmodelled(text)
            target = roll.mods.pop()[1]
            roll.mods.append(("tds", (target, n if n is not None else target)))  # type: ignore[arg-type]
        else:
            if n is None and word not in ("e", "ie", "adv", "dis"):
                raise Unmodelled(text)
            roll.mods.append((word, n))
        targeted = targeted or word in ("t", "f", "ds")
        i = m.end()
    while i < len(s):
        m = re.match(r"([+\-*/])(?:(\d*)d(\d+|%)|(\d+))", s[i:])
        if not m:
            raise Unmodelled(text)
        op = m.group(1)
        if m.group(4) is not None:
            item: object = int(m.group(4))
        else:
            item = (int(m.group(2) or 1), 100 if m.group(3) == "%" else int(m.group(3)))
        roll.math.append((op, item, targeted))
        i += m.end()

    def sample(rng: random.Random) -> int:
        assert roll is not None
        return _evaluate(roll, rng)

    return sample


def _evaluate(roll: _Roll, rng: random.Random) -> int:
    sides = roll.sides
    level = sum((n or 1) if w == "adv" else -(n or 1) if w == "dis" else 0 for w, n in roll.mods)
    dice = [_face(rng, sides) for _ in range(roll.count + abs(level))]
    if level > 0:
        dice = sorted(dice)[level:]
    elif level < 0:
        dice = sorted(dice)[: len(dice) + level]
    top = max(sides, 1)
    for word, n in roll.mods:
        if word in ("e", "ie"):
            at = n if n is not None else top
            if word == "e":
                dice += [_face(rng, sides) for d in list(dice) if d >= at]
            else:
                k = booms = 0
                while k < len(dice) and booms < 100:
                    if dice[k] >= at:
                        dice.append(_face(rng, sides))
                        booms += 1
                    k += 1
        elif word in ("r", "ir", "rg", "irg"):
            assert n is not None
            again = word.startswith("i")
            high = word.endswith("g")
            total_rerolls = 0
            for k in range(len(dice)):
                tries = 0
                while (
                    (dice[k] >= n if high else dice[k] <= n)
                    and tries < (100 if again else 1)
                    and total_rerolls < 100
                ):
                    dice[k] = _face(rng, sides)
                    tries += 1
                    total_rerolls += 1
    for word, n in roll.mods:
        if word == "k":
            dice = sorted(dice)[len(dice) - min(n or 0, len(dice)) :]
        elif word == "kl":
            dice = sorted(dice)[:n]
        elif word == "km":
            assert n is not None
            if n < len(dice):
                drop = len(dice) - n
                low = drop // 2
                dice = sorted(dice)[low : len(dice) - (drop - low)]
        elif word == "d":
            dice = sorted(dice)[n:]
    total = sum(dice)
    counting = any(w in ("t", "tds", "f") for w, _ in roll.mods)
    successes = 0
    for word, n in roll.mods:
        if word == "t":
            successes += sum(d >= n for d in dice)  # type: ignore[operator]
        elif word == "tds":
            target, double = n  # type: ignore[misc]
            successes += sum(2 if d >= double else 1 if d >= target else 0 for d in dice)
        elif word == "f":
            successes -= sum(d <= n for d in dice)  # type: ignore[operator]
    result = successes if counting else total
    for op, item, after_target in roll.math:
        value = item if isinstance(item, int) else _dice(item[0], item[1], rng)  # type: ignore[index]
        if counting and not after_target:
            continue  # math before a target changes the total, not the successes
        result = _apply(result, op, value)
    return result


def samplers(expr: str) -> list[Sampler]:
    """One sampler per result Dice Maiden shows for ``expr``; Unmodelled if unknown."""
    parts = expr.split(";")
    if len(parts) > 4 or any(not p.strip() for p in parts):
        raise Unmodelled(expr)
    out: list[Sampler] = []
    for part in parts:
        part = part.split("!", 1)[0].strip()  # "1d20 ! Attack; 1d8 ! Damage": two rolls
        flags = re.match(r"^((?:s|nr|ul)\s+)+", part)
        if flags:  # "Special Flags": display only, the total is the same
            part = part[flags.end() :]
        if re.match(r"^p\s", part) or part.startswith("("):
            raise Unmodelled(expr)
        m = re.match(r"^(\d+)\s+(?=[d\d+-])(.*)$", part)
        if m and 1 <= int(m.group(1)) <= 20:
            out += [_parse_one(m.group(2))] * int(m.group(1))
        elif m:
            raise Unmodelled(expr)
        else:
            out.append(_parse_one(part))
    return out
