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


_MOD = re.compile(
    r"(esss|ess|tdhc|tdh|cpd|cpr|wit|wfrp|ms|cs|hsn|hsk|hsh|mnm|plot|conan|cd|"
    r"aliens|alien|fitd|fudge|shadowrun|wngw|wng|wwc|ww|sw|gbs|gb|dheart|dh|lf|irg|ir|ie|rg|kl|km|adv|dis|ds|"
    r"tl|r|e|k|d|t|f|i|b)(\d*)([lf]?)(?:dn(\d+))?(t?)"
)
#: System modifiers (dicemaiden-rs src/dice/roller.rs) that need no number.
_BARE = ("e", "ie", "adv", "dis", "alien", "fitd", "fudge", "dh", "dheart", "gb", "gbs", "wng")
_BARE += (
    "i",
    "b",
    "ww",
    "tdh",
    "tdhc",
    "cpd",
    "ms",
    "hsn",
    "hsk",
    "hsh",
    "mnm",
    "plot",
    "cpr",
    "wit",
)
#: Essence20 skill dice by rank (dicemaiden-rs src/dice/mod.rs, ESSENCE20_RANKS).
_ESSENCE20 = ((1, 2), (1, 4), (1, 6), (1, 8), (1, 10), (1, 12), (2, 8), (3, 6))


def _face(rng: random.Random, sides: int) -> int:
    # randint(1, sides) is 1 + _randbelow(sides): the same draws, without randint's argument
    # checks, which were a third of the peers corpus's time (millions of dice).
    return rng._randbelow(3) - 1 if sides == 0 else rng._randbelow(sides) + 1


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
    i = _modifiers(roll, s, i, text)
    targeted = any(w in _TARGETS for w, _ in roll.mods)
    while i < len(s):
        m = re.match(r"([+\-*/])(?:(\d*)d(\d+|%)|(\d+))", s[i:])
        if not m:
            raise Unmodelled(text)
        op = m.group(1)
        i += m.end()
        if m.group(4) is not None:
            item: object = int(m.group(4))
            roll.math.append((op, item, targeted))
            # "1d20+5 t6": Dice Maiden's modifiers are one list, so targets may follow the
            # math; the math before the first target applies to each die (roller.rs:786).
            counts = re.match(r"(?:(?:tl|t|f|b)\d+)+|mnm$", s[i:])
            if counts and not targeted:
                i = _modifiers(roll, s, i, text)
                targeted = True
            continue
        else:
            # "+ 1d4 ie4": modifiers right after added dice are theirs (parser.rs,
            # parse_all_modifiers); their kept dice join the roll's (roller.rs, AddDice).
            sub = _Roll(int(m.group(2) or 1), 100 if m.group(3) == "%" else int(m.group(3)))
            at = i
            i = _modifiers(sub, s, i, text)
            if i > at and op != "+":
                raise Unmodelled(text)
            item = sub
        roll.math.append((op, item, targeted))

    def sample(rng: random.Random) -> int:
        assert roll is not None
        return _evaluate(roll, rng)

    return sample


_TARGETS = ("t", "tds", "f", "tl", "tlds", "alien", "wng", "lf", "fitd", "gb")


def _modifiers(roll: _Roll, s: str, i: int, text: str) -> int:
    """Read one roll's modifiers from ``s[i:]`` (no spaces), return where they stop."""
    while i < len(s) and roll.count:
        m = _MOD.match(s, i)
        if not m:
            break
        word, digits = m.group(1), m.group(2)
        if word == "d" and i + 1 < len(s) and not digits:
            break
        if word not in ("lf", "wngw") and (m.group(3) or m.group(4) or m.group(5)):
            m = re.compile(re.escape(word) + r"(\d*)").match(s, i)
            assert m is not None
            digits = m.group(1)
        n = int(digits) if digits else None
        if word == "ds":
            last = roll.mods[-1][0] if roll.mods else ""
            if last not in ("t", "tl"):
                raise Unmodelled(text)
            target = roll.mods.pop()[1]
            double = n if n is not None else target
            roll.mods.append((last + "ds", (target, double)))  # type: ignore[arg-type]
        elif word == "lf":  # Lasers & Feelings: lf4 (lasers), lf4l, lf4f (feelings)
            roll.mods.append(("lf", (n, m.group(3) or "l")))  # type: ignore[arg-type]
        elif word in ("wng", "wngw"):  # Wrath & Glory: wngw2dn3t (t: the total instead)
            roll.mods.append(("wng", (n, m.group(4), m.group(5))))  # type: ignore[arg-type]
        else:
            if n is None and word not in _BARE:
                raise Unmodelled(text)
            roll.mods.append((word, n))
        i = m.end()
    return i


def _evaluate(roll: _Roll, rng: random.Random) -> int:
    return _roll(roll, rng)[2]


def _roll(roll: _Roll, rng: random.Random) -> tuple[list[int], int, int]:
    """One Dice Maiden roll (roller.rs, roll_dice): its kept dice, its dice total, and the
    result it shows (successes, damage, the key die, or the total)."""
    for word, n in roll.mods:
        if word in ("cpr", "wit"):  # roller.rs:2453: a 10 adds a d10, a 1 takes one away
            face = total = _face(rng, 10)  # (the Witcher, roller.rs:2619: again while the new
            sign = 1 if face == 10 else -1 if face == 1 else 0  # die shows the same, 100 at most)
            for _ in range(100 if word == "wit" else 1):
                if not sign:
                    break
                extra = _face(rng, 10)
                total += sign * extra
                if extra != face:
                    break
            # then the math: * and / first, + and - after (roller.rs:2594)
            shift = 0
            for op, item, _ in roll.math:
                if not isinstance(item, int):
                    raise Unmodelled("Cyberpunk Red with added dice")
                if op in "+-":
                    shift += item if op == "+" else -item
                else:
                    total = _apply(total, op, item)
            return [total], total + shift, total + shift
        if word in ("conan", "cd"):  # roller.rs:2930, 3123: Conan 2d20
            if n is None:
                raise Unmodelled("Conan without a count")
            # Skill dice: each one rolled is a success, and added d6s are combat dice; combat
            # dice: 1 one, 2 two, 5-6 one. The successes show; math changes only the total.
            combat = [_face(rng, 6) for _ in range(n)] if word == "cd" else []
            shown = n if word == "conan" else 0
            for _, item, _ in roll.math:
                if isinstance(item, _Roll):
                    if item.sides != 6:
                        raise Unmodelled("Conan with other added dice")
                    combat += [_face(rng, 6) for _ in range(item.count)]
            shown += sum({1: 1, 2: 2, 5: 1, 6: 1}.get(f, 0) for f in combat)
            return combat, shown, shown
        if word == "sw":  # roller.rs:1736: the better of an exploding trait die and wild d6
            best = 0
            for die in (n, 6):
                total = face = _face(rng, die)  # type: ignore[arg-type]
                for _ in range(100):
                    if face < die:  # type: ignore[operator]
                        break
                    face = _face(rng, die)  # type: ignore[arg-type]
                    total += face
                best = max(best, total)
            for op, item, _ in roll.math:
                best = _apply(best, op, item if isinstance(item, int) else _roll(item, rng)[1])  # type: ignore[arg-type]
            return [best], best, best
    sides = roll.sides
    level = sum((n or 1) if w == "adv" else -(n or 1) if w == "dis" else 0 for w, n in roll.mods)
    dice = [_face(rng, sides) for _ in range(roll.count + abs(level))]
    if level > 0:
        dice = sorted(dice)[level:]
    elif level < 0:
        dice = sorted(dice)[: len(dice) + level]
    top = max(sides, 1)
    first = len(dice)
    imploded: list[int] = []
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
        elif word == "i":  # implosion: each first die at or below N rolls one, subtracted
            at = n if n is not None else 1
            imploded += [_face(rng, sides) for d in dice[:first] if d <= at]
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
    if any(w == "fudge" for w, _ in roll.mods):  # roller.rs, apply_fudge_conversion
        dice = [d - 2 for d in dice]
    total = sum(dice) - sum(imploded)
    words = {w for w, _ in roll.mods}
    counting = bool(words & {"t", "tds", "f", "tl", "tlds", "alien", "wng", "lf"})
    # Math, left to right; added dice are rolled here and join the kept dice.
    value = total
    counted = list(dice)
    after: list[tuple[str, int]] = []
    for op, item, after_target in roll.math:
        if isinstance(item, _Roll):
            sub_dice, sub_total, _ = _roll(item, rng)
            counted += sub_dice
            amount = sub_total
            if counting:  # added dice change the total, not the successes (roller.rs:788)
                value = _apply(value, op, amount)
                continue
        else:
            amount = item  # type: ignore[assignment]
            if counting and not after_target:  # before the targets: on each die
                counted = [_apply(d, op, amount) for d in counted]
                continue
        if counting and after_target:
            after.append((op, amount))
        else:
            value = _apply(value, op, amount)
    for word, n in roll.mods:
        if word == "wfrp":  # roller.rs:4417, wfrp_test_outcome: the Success Levels
            assert n is not None
            sl = n // 10 - dice[0] // 10
            return dice, value, max(sl, 1) if dice[0] <= 5 else min(sl, -1) if dice[0] >= 96 else sl
        if word == "ms":  # roller.rs:4504: one d100 against the stat (50 unless given); a
            stat = n if n is not None else 50  # success shows as 1 success (mod.rs:376)
            if len(dice) != 1 or not 1 <= stat <= 99:
                raise Unmodelled("Mothership advantage")
            return dice, dice[0], 1 if dice[0] <= stat else dice[0]
        if word == "mnm":  # roller.rs:4225: DC 10; a success shows its degrees
            return dice, value, (value - 10) // 5 + 1 if value >= 10 else value
        if word == "cs" and not 1 <= (n or 0) <= 10:  # roller.rs:2744: the total shows
            raise Unmodelled("Cypher level")  # the task (3 x level) is judged apart
        if word == "plot":  # roller.rs:4141: 1 counts 2, 2 counts 4, the rest 0
            value += sum({1: 2, 2: 4}.get(d, 0) - d for d in dice)
        if word == "hsk":  # roller.rs:1604: killing damage, STUN = the total x 1d3
            value *= _face(rng, 3)
        if word == "tdhc":  # roller.rs:4175: called upon, the House Die joins the total
            value += _face(rng, 6)
        if word in ("ess", "esss"):  # roller.rs:2369: the skill die (its highest rank's
            assert n is not None  # total when specialized) is added after the math
            ranks = range(1 if word == "esss" else n, n + 1)
            value += max(_dice(*_ESSENCE20[r - 1], rng) for r in ranks)
        if word == "gbs":
            return dice, value, value
        if word == "gb":  # roller.rs:1241, the Godbound damage chart
            chart = lambda v: 0 if v <= 1 else 1 if v <= 5 else 2 if v <= 9 else 4  # noqa: E731
            shown = chart(value) if roll.math else sum(chart(d) for d in counted)
            return dice, value, shown
        if word == "fitd":  # roller.rs:3943, the highest die (the lowest of 2 for fitd0)
            return dice, value, (min(counted) if n == 0 else max(counted))
        if word in ("ww", "wwc"):  # roller.rs:4073: the highest die once the cut ones go
            kept = sorted(counted, reverse=True)[n or 0 :]
            return dice, value, max(kept)
    if not counting:
        return dice, value, value
    successes = 0
    for word, n in roll.mods:
        if word == "t":
            successes += sum(d >= n for d in counted)  # type: ignore[operator]
        elif word == "tl":
            successes += sum(d <= n for d in counted)  # type: ignore[operator]
        elif word in ("tds", "tlds"):
            target, double = n  # type: ignore[misc]
            if word == "tds":
                successes += sum(2 if d >= double else 1 if d >= target else 0 for d in counted)
            else:
                successes += sum(2 if d <= double else 1 if d <= target else 0 for d in counted)
        elif word == "f":
            successes -= sum(d <= n for d in counted)  # type: ignore[operator]
        elif word == "alien":  # roller.rs:3869: every kept 6
            successes += sum(d == 6 for d in counted)
        elif word == "wng":  # roller.rs:1086: 4-5 one icon, 6 an exalted icon worth two
            _, _, by_total = n  # type: ignore[misc]
            if by_total:
                return dice, value, sum(counted)
            successes += sum(1 if 4 <= d <= 5 else 2 if d == 6 else 0 for d in counted)
        elif word == "lf":  # roller.rs:3804: every rolled die at or under (or over) the number
            target, kind = n  # type: ignore[misc]
            successes += sum((d <= target) if kind == "l" else (d >= target) for d in counted)
    for op, amount in after:
        successes = _apply(successes, op, amount)
    return dice, value, successes


# --- Game-system aliases: dicemaiden-rs src/dice/aliases.rs, expand_alias, transcribed ----
# Each returns the expansion exactly as aliases.rs formats it (None: the alias refuses).


def _a5e(base: str) -> Callable[[re.Match[str]], str | None]:
    dice = {"1": "1d4", "2": "1d6", "3": "1d8", "4": "1d4", "6": "1d6", "8": "1d8"}
    dice.update({"10": "1d10", "12": "1d12", "20": "1d20", "100": "1d100"})
    return lambda m: f"{base}{m.group(1) or ''} + {dice[m.group(2)]}"  # aliases.rs:1409-1420


def _exalted(kind: str) -> Callable[[re.Match[str]], str | None]:
    def expand(m: re.Match[str]) -> str | None:  # aliases.rs:666-870
        g = [int(x) for x in m.groups() if x is not None]
        if g[0] == 0:
            return None
        if kind == "plain":
            t = g[1] if len(g) > 1 else 7
            return f"{g[0]}d10 t{t} t10" if 1 <= t <= 10 else None
        if kind == "t_ds":
            t, d = g[1], g[-1]
        elif kind == "d":
            t, d = 7, g[1]
        else:
            t, d = g[2], g[1]
        if not (1 <= t <= 10 and t <= d <= 10):
            return None
        return f"{g[0]}d10 t{t}ds{d}"

    return expand


_ED1 = [
    "1d4 ie - 2",
    "1d4 ie - 1",
    "1d4 ie",
    "1d6 ie",
    "1d8 ie",
    "1d10 ie",
    "1d12 ie",
    "2d6 ie",
    "1d8 ie + 1d6 ie",
    "2d8 ie",
    "1d10 ie + 1d8 ie",
    "2d10 ie",
    "1d12 ie + 1d10 ie",
    "2d12 ie",
    "1d12 ie + 2d6 ie",
    "1d12 ie + 1d8 ie + 1d6 ie",
    "1d12 ie + 2d8 ie",
    "1d12 ie + 1d10 ie + 1d8 ie",
    "1d20 ie + 2d6 ie",
    "1d20 ie + 1d8 ie + 1d6 ie",
    "1d20 ie + 1d10 ie + 1d6 ie",
    "1d20 ie + 1d10 ie + 1d8 ie",
    "1d20 ie + 2d10 ie",
    "1d20 ie + 1d12 ie + 1d10 ie",
    "1d20 ie + 1d12 ie + 1d8 ie + 1d4 ie",
    "1d20 ie + 1d12 ie + 1d8 ie + 1d6 ie",
    "1d20 ie + 1d12 ie + 2d8 ie",
    "1d20 ie + 2d10 ie + 1d8 ie",
    "1d20 ie + 1d12 ie + 1d10 ie + 1d8 ie",
    "1d20 ie + 1d12 ie + 1d10 ie + 1d8 ie",
    "1d20 ie + 1d10 ie + 2d8 ie + 1d6 ie",
    "1d20 ie + 2d10 ie + 1d8 ie + 1d6 ie",
    "1d20 ie + 2d10 ie + 2d8 ie",
    "1d20 ie + 3d10 ie + 1d8 ie",
    "1d20 ie + 1d12 ie + 2d10 ie + 1d8 ie",
    "2d20 ie + 1d10 ie + 1d8 ie + 1d4 ie",
    "2d20 ie + 1d10 ie + 1d8 ie + 1d6 ie",
    "2d20 ie + 1d10 ie + 2d8 ie",
    "2d20 ie + 2d10 ie + 1d8 ie",
    "2d20 ie + 1d12 ie + 1d10 ie + 1d8 ie",
    "2d20 ie + 1d10 ie + 1d8 ie + 2d6 ie",
    "2d20 ie + 1d10 ie + 2d8 ie + 1d6 ie",
    "2d20 ie + 2d10 ie + 1d8 ie + 1d6 ie",
    "2d20 ie + 3d10 ie + 1d8 ie",
    "2d20 ie + 3d10 ie + 1d8 ie",
    "2d20 ie + 1d12 ie + 2d10 ie + 1d8 ie",
    "2d20 ie + 2d10 ie + 2d8 ie + 1d4 ie",
    "2d20 ie + 2d10 ie + 2d8 ie + 1d6 ie",
    "2d20 ie + 2d10 ie + 3d8 ie",
    "2d20 ie + 3d10 ie + 2d8 ie",
]  # aliases.rs:1101-1160 (generated from its tables)
_ED4 = [
    "1d4 ie - 2",
    "1d4 ie - 1",
    "1d4 ie",
    "1d6 ie",
    "1d8 ie",
    "1d10 ie",
    "1d12 ie",
    "2d6 ie",
    "1d8 ie + 1d6 ie",
    "2d8 ie",
    "1d10 ie + 1d8 ie",
    "2d10 ie",
    "1d12 ie + 1d10 ie",
    "2d12 ie",
    "1d12 ie + 2d6 ie",
    "1d12 ie + 1d8 ie + 1d6 ie",
    "1d12 ie + 2d8 ie",
    "1d12 ie + 1d10 ie + 1d8 ie",
    "1d20 ie + 2d6 ie",
    "1d20 ie + 1d8 ie + 1d6 ie",
    "1d20 ie + 2d8 ie",
    "1d20 ie + 1d10 ie + 1d8 ie",
    "1d20 ie + 2d10 ie",
    "1d20 ie + 1d12 ie + 1d10 ie",
    "1d20 ie + 2d12 ie",
    "1d20 ie + 1d12 ie + 2d6 ie",
    "1d20 ie + 1d12 ie + 1d8 ie + 1d6 ie",
    "1d20 ie + 1d12 ie + 2d8 ie",
    "1d20 ie + 1d12 ie + 1d10 ie + 1d8 ie",
    "2d20 ie + 2d6 ie",
    "2d20 ie + 1d8 ie + 1d6 ie",
    "2d20 ie + 2d8 ie",
    "2d20 ie + 1d10 ie + 1d8 ie",
    "2d20 ie + 2d10 ie",
    "2d20 ie + 1d12 ie + 1d10 ie",
    "2d20 ie + 2d12 ie",
    "2d20 ie + 1d12 ie + 2d6 ie",
    "2d20 ie + 1d12 ie + 1d8 ie + 1d6 ie",
    "2d20 ie + 1d12 ie + 2d8 ie",
    "2d20 ie + 1d12 ie + 1d10 ie + 1d8 ie",
    "3d20 ie + 2d6 ie",
    "3d20 ie + 1d8 ie + 1d6 ie",
    "3d20 ie + 2d8 ie",
    "3d20 ie + 1d10 ie + 1d8 ie",
    "3d20 ie + 2d10 ie",
    "3d20 ie + 1d12 ie + 1d10 ie",
    "3d20 ie + 2d12 ie",
    "3d20 ie + 1d12 ie + 2d6 ie",
    "3d20 ie + 1d12 ie + 1d8 ie + 1d6 ie",
    "3d20 ie + 1d12 ie + 2d8 ie",
    "3d20 ie + 1d12 ie + 1d10 ie + 1d8 ie",
    "4d20 ie + 2d6 ie",
    "4d20 ie + 1d8 ie + 1d6 ie",
    "4d20 ie + 2d8 ie",
    "4d20 ie + 1d10 ie + 1d8 ie",
    "4d20 ie + 2d10 ie",
    "4d20 ie + 1d12 ie + 1d10 ie",
    "4d20 ie + 2d12 ie",
    "4d20 ie + 1d12 ie + 2d6 ie",
    "4d20 ie + 1d12 ie + 1d8 ie + 1d6 ie",
    "4d20 ie + 1d12 ie + 2d8 ie",
    "4d20 ie + 1d12 ie + 1d10 ie + 1d8 ie",
    "5d20 ie + 2d6 ie",
    "5d20 ie + 1d8 ie + 1d6 ie",
    "5d20 ie + 2d8 ie",
    "5d20 ie + 1d10 ie + 1d8 ie",
    "5d20 ie + 2d10 ie",
    "5d20 ie + 1d12 ie + 1d10 ie",
    "5d20 ie + 2d12 ie",
    "5d20 ie + 1d12 ie + 2d6 ie",
    "5d20 ie + 1d12 ie + 1d8 ie + 1d6 ie",
    "5d20 ie + 1d12 ie + 2d8 ie",
    "5d20 ie + 1d12 ie + 1d10 ie + 1d8 ie",
    "6d20 ie + 2d6 ie",
    "6d20 ie + 1d8 ie + 1d6 ie",
    "6d20 ie + 2d8 ie",
    "6d20 ie + 1d10 ie + 1d8 ie",
    "6d20 ie + 2d10 ie",
    "6d20 ie + 1d12 ie + 1d10 ie",
    "6d20 ie + 2d12 ie",
    "6d20 ie + 1d12 ie + 2d6 ie",
    "6d20 ie + 1d12 ie + 1d8 ie + 1d6 ie",
    "6d20 ie + 1d12 ie + 2d8 ie",
    "6d20 ie + 1d12 ie + 1d10 ie + 1d8 ie",
    "7d20 ie + 2d6 ie",
    "7d20 ie + 1d8 ie + 1d6 ie",
    "7d20 ie + 2d8 ie",
    "7d20 ie + 1d10 ie + 1d8 ie",
    "7d20 ie + 2d10 ie",
    "7d20 ie + 1d12 ie + 1d10 ie",
    "7d20 ie + 2d12 ie",
    "7d20 ie + 1d12 ie + 2d6 ie",
    "7d20 ie + 1d12 ie + 1d8 ie + 1d6 ie",
    "7d20 ie + 1d12 ie + 2d8 ie",
    "7d20 ie + 1d12 ie + 1d10 ie + 1d8 ie",
    "8d20 ie + 2d6 ie",
    "8d20 ie + 1d8 ie + 1d6 ie",
    "8d20 ie + 2d8 ie",
    "8d20 ie + 1d10 ie + 1d8 ie",
    "8d20 ie + 2d10 ie",
]  # aliases.rs:1101-1122, 1163-1247


def _ol(score: int) -> str | None:  # aliases.rs:1547-1601, Open Legend without adv/dis
    dice = {1: (1, 4), 2: (1, 6), 3: (1, 8), 4: (1, 10), 5: (2, 6), 6: (2, 8), 7: (2, 10)}
    dice.update({8: (3, 8), 9: (3, 10), 10: (4, 8)})
    if score > 10:
        return None
    if score not in dice:
        return "1d20 ie20"
    n, sides = dice[score]
    return f"1d20 ie20 + {n}d{sides} ie{sides}"


def _ol_adv(m: re.Match[str]) -> str | None:  # aliases.rs:1569-1601
    plain = _ol(int(m.group(1)))
    level = int(m.group(3) or 0)
    if plain is None or not level:
        return plain
    word = "adv" if m.group(2) == "a" else "dis"
    return f"{plain} {word}{1 if plain == '1d20 ie20' else level}"


def _cod(m: re.Match[str]) -> str:  # aliases.rs:516-534
    mod = f" {m.group(3).strip()}" if m.group(3) else ""
    again = {"8": "ie8", "9": "ie9", "r": "ie10 r7"}.get(m.group(2), "ie10")
    return f"{m.group(1)}d10 t8 {again}{mod}"


def _alien(m: re.Match[str]) -> str | None:  # aliases.rs:1461-1507
    base, stress = int(m.group(1)), int(m.group(2) or 0) + (1 if m.group(3) else 0)
    if not 1 <= base <= 20 or (m.group(2) and not 1 <= stress <= 10 + bool(m.group(3))):
        return None
    return f"{base}d6 alien" + (f" + {stress}d6 aliens{stress}" if m.group(2) else "")


def _fitd(m: re.Match[str]) -> str | None:  # aliases.rs:1084-1097
    n = int(m.group(1))
    return "2d6 fitd0" if n == 0 else f"{n}d6 fitd" if n <= 10 else None


def _lf(m: re.Match[str]) -> str | None:  # aliases.rs:1054-1082
    n, t = int(m.group(1)), int(m.group(2))
    return f"{n}d6 lf{t}{m.group(3)}" if 1 <= n <= 20 and 2 <= t <= 5 else None


def _wng(m: re.Match[str]) -> str:  # aliases.rs:484-506
    w, dn, n, sides, special = m.groups()
    t = "t" if special in ("soak", "exempt", "dmg") else ""
    return f"{n}d{sides} wngw{w or 1}" + (f"dn{dn}" if dn else "") + t


def _gb(m: re.Match[str]) -> str:  # aliases.rs:467-481
    if m.re.groups == 4:
        return f"{m.group(2)}d{m.group(3)} {m.group(1)}{(m.group(4) or '').strip()}"
    return f"1d20 {m.group(1)}{(m.group(2) or '').strip()}"


def _ess(m: re.Match[str]) -> str | None:  # aliases.rs:1612-1641
    sign, count, sides, special, mod = m.groups()
    rank = [r for r, (c, s) in enumerate(_ESSENCE20, 1) if (c, s) == (int(count or 1), int(sides))]
    if not rank:
        return None
    d20 = {"+": "2d20 k1", "-": "2d20 kl1"}.get(sign or "", "1d20")
    tail = f" {mod.replace(' ', '')}" if mod else ""
    return f"{d20} {'esss' if special else 'ess'}{rank[0]}{tail}"


def _tdh(m: re.Match[str]) -> str:  # aliases.rs:1650-1678
    total = int(m.group(1)) + (int(m.group(4).replace(" ", "")) if m.group(4) else 0)
    dice = {"b": "2d6 adv1", "n": "2d6 dis1"}.get(m.group(2) or "", "2d6")
    mod = "" if total == 0 else f" + {total}" if total > 0 else f" - {-total}"
    return f"{dice} {'tdhc' if m.group(3) else 'tdh'}{mod}"


def _cpd(m: re.Match[str]) -> str:  # aliases.rs:920-929
    return f"{m.group(1)}d6 cpd" + (f" {m.group(2).strip()}" if m.group(2) else "")


def _wfrp(m: re.Match[str]) -> str | None:  # aliases.rs:941-967
    base = int(m.group(1))
    if not 1 <= base <= 100:
        return None
    shift = int(m.group(3) or 0) * (-1 if m.group(2) == "-" else 1)
    return f"1d100 wfrp{min(max(base + shift, 0), 200)}"


def _cs(m: re.Match[str]) -> str:  # aliases.rs:969-978
    return f"1d20 cs{m.group(1)}" + (f" {m.group(2).strip()}" if m.group(2) else "")


def _hs(m: re.Match[str]) -> str | None:  # aliases.rs:445-463, 346-367
    if m.group(2) == "h":
        return "3d6 hsh"
    count = float(m.group(1))
    whole, half, kind = int(count), count % 1 > 0, f"hs{m.group(2)}"
    if whole == 0 and half:
        return f"1d3 {kind}"
    return f"{whole}d6 {kind}" + (" + 1d3" if half else "")


def _hs_frac(m: re.Match[str]) -> str | None:  # aliases.rs:633-657
    n, kind, fraction = m.groups()
    if kind == "k" and fraction == "1":
        return f"{n}d6 + 1d3 hsk"
    if kind == "n":
        return f"{n}d6 hsn"
    return f"{n}d6 + {n}" if kind == "h" else None


def _d6l(m: re.Match[str]) -> str | None:  # aliases.rs:1018-1036
    n = int(m.group(1))
    if n == 0:
        return None
    return "1d6 t4f1ie6" if n == 1 else f"{n - 1}d6 t4 + 1d6 t4f1ie6"


def _mnm(m: re.Match[str]) -> str:  # aliases.rs:402-410
    return f"1d20{m.group(1).replace(' ', '')} mnm" if m.group(1) else "1d20 mnm"


def _ms(m: re.Match[str]) -> str:  # aliases.rs:1680-1710
    sign, stat = m.groups()
    if sign:
        return f"2d100 ms{stat or ''}{'a' if sign == '+' else 'd'}"
    return f"1d100 ms{stat or ''}"


_ALIASES: list[tuple[str, Callable[[re.Match[str]], str | None]]] = [
    (r"dheart", lambda m: "2d12 dheart"),  # aliases.rs:376
    (r"dheartgm", lambda m: "1d20"),  # aliases.rs:380
    (r"\+d%", lambda m: "2d10 kl1 * 10 + 1d10 - 10"),  # aliases.rs:385
    (r"-d%", lambda m: "2d10 k1 * 10 + 1d10 - 10"),  # aliases.rs:388
    (r"wng", lambda m: "1d6 wng"),  # aliases.rs:393
    (r"dh", lambda m: "1d10 dh"),  # aliases.rs:397
    (r"\+a5e\s*([+-]?\d+)?\s*ex([1-3]|4|6|8|10|12|20|100)", _a5e("2d20 k1")),  # :1442
    (r"-a5e\s*([+-]?\d+)?\s*ex([1-3]|4|6|8|10|12|20|100)", _a5e("2d20 kl1")),  # :1447
    (r"a5e\s*([+-]?\d+)?\s*ex([1-3]|4|6|8|10|12|20|100)", _a5e("1d20")),  # :1452
    (r"alien(\d+)(?:s(\d+)(p?))?", _alien),  # aliases.rs:1461-1507
    (r"sr(\d+)", lambda m: f"{m.group(1)}d6 t5 shadowrun{m.group(1)}"),  # aliases.rs:439
    (r"(gbs?)\s+(\d+)d(\d+)(?:\s*([+-]\s*\d+))?", _gb),  # aliases.rs:467
    (r"(gbs?)(?:\s*([+-]\s*\d+))?", _gb),  # aliases.rs:477
    (r"wng(?:\s+w(\d+))?(?:\s+dn(\d+))?\s+(\d+)d(\d+)(?:\s*!\s*(\w+))?", _wng),  # :484
    (r"(\d+)cod([89r]?)(?:\s*([+-]\s*\d+))?", _cod),  # aliases.rs:516
    (
        r"(\d+)wod(\d+)(?:\s*([+-]\s*\d+))?",  # aliases.rs:545
        lambda m: (
            f"{m.group(1)}d10 f1 t{m.group(2)}" + (f" {m.group(3).strip()}" if m.group(3) else "")
        ),
    ),
    (r"dh\s+(\d+)d(\d+)", lambda m: f"{m.group(1)}d{m.group(2)} ie{m.group(2)} dh"),  # :554
    (r"(\d+)df", lambda m: f"{m.group(1)}d3 fudge"),  # aliases.rs:561
    (r"(\d+)wh(\d+)\+", lambda m: f"{m.group(1)}d6 t{m.group(2)}"),  # aliases.rs:567
    (r"dd(\d)(\d)", lambda m: f"1d{m.group(1)} * 10 + 1d{m.group(2)}"),  # aliases.rs:574
    (
        r"([+-])d(\d+)",  # aliases.rs:581
        lambda m: f"2d{m.group(2)} {'k1' if m.group(1) == '+' else 'kl1'}",
    ),
    (r"(\d+)d%", lambda m: f"{m.group(1)}d100"),  # aliases.rs:593
    (r"sp(\d+)(?:t(\d+))?", lambda m: f"{m.group(1)}d10 t{m.group(2) or 8} ie10"),  # :605
    (r"(\d+)yz", lambda m: f"{m.group(1)}d6 t6"),  # aliases.rs:612
    (r"snm(\d+)", lambda m: f"{m.group(1)}d6 ie6 t4"),  # aliases.rs:618
    (r"ex(\d+)t(\d+)ds(\d+)", _exalted("t_ds")),  # aliases.rs:666
    (r"ex(\d+)t(\d+)d(\d+)", _exalted("t_ds")),  # aliases.rs:706
    (r"ex(\d+)d(\d+)", _exalted("d")),  # aliases.rs:746
    (r"ex(\d+)d(\d+)t(\d+)", _exalted("d_t")),  # aliases.rs:776
    (r"ex(\d+)ds(\d+)", _exalted("d")),  # aliases.rs:816
    (r"ex(\d+)(?:t(\d+))?", _exalted("plain")),  # aliases.rs:846
    (r"ed(\d+)", lambda m: _ED1[int(m.group(1)) - 1] if 1 <= int(m.group(1)) <= 50 else None),
    (r"ed4e(\d+)", lambda m: _ED4[int(m.group(1)) - 1] if 1 <= int(m.group(1)) <= 100 else None),
    (
        r"sw(\d+)",
        lambda m: f"2d1 sw{m.group(1)}" if m.group(1) in ("4", "6", "8", "10", "12") else None,
    ),
    (
        r"ww(\d+)",
        lambda m: f"{m.group(1)}d6 ww" if 1 <= int(m.group(1)) <= 10 else None,
    ),  # aliases.rs:302-311, 1530
    (r"ww(\d+)c(\d+)", lambda m: f"{m.group(1)}d6 wwc{m.group(2)}"),  # aliases.rs:1510-1528
    (r"ol(\d{1,2})(?:\s*([ad])(\d+))?", _ol_adv),  # aliases.rs:1569
    (r"(attack|skill|save)(\s*[+-]\s*\d+)?", lambda m: f"1d20{(m.group(2) or '').strip()}"),
    (r"(\d+)lf(\d+)([lf]?)", _lf),  # aliases.rs:1054
    (r"fitd(\d+)", _fitd),  # aliases.rs:1084
    (r"age", lambda m: "2d6 + 1d6"),  # aliases.rs:278
    (r"([+-])?ess(\d*)d(\d+)(s)?(?:\s*([+-]\s*\d+))?", _ess),  # aliases.rs:1612
    (r"tdh(\d+)([bn])?(c)?(?:\s*([+-]\s*\d+))?", _tdh),  # aliases.rs:1650
    (r"cpd(\d+)(?:\s*([+-]\s*\d+))?", _cpd),  # aliases.rs:920
    (r"wfrp(\d+)(?:\s*([+-])\s*(\d+))?", _wfrp),  # aliases.rs:941
    (r"([+-])?ms(\d+)?", _ms),  # aliases.rs:1680
    (r"cs\s+(\d+)(?:\s*([+-]\s*\d+))?", _cs),  # aliases.rs:969
    (  # aliases.rs:910-918
        r"cpr(?:\s*([+-]\s*\d+))?",
        lambda m: "1d10 cpr" + (f" {m.group(1).strip()}" if m.group(1) else ""),
    ),
    (  # aliases.rs:930-938
        r"wit(?:\s*([+-]\s*\d+))?",
        lambda m: "1d10 wit" + (f" {m.group(1).strip()}" if m.group(1) else ""),
    ),
    (r"(\d+(?:\.\d+)?)hs([nkh])", _hs),  # aliases.rs:445
    (r"(\d+)hs([nkh])(\d+)", _hs_frac),  # aliases.rs:633
    (r"(\d+)d6l", _d6l),  # aliases.rs:1018
    (r"mnm(?:\s*([+-]\s*\d+))?", _mnm),  # aliases.rs:402
    (r"(\d+)dp", lambda m: f"{m.group(1)}d6 plot"),  # aliases.rs:660
    (r"conan([345])", lambda m: f"{m.group(1)}d20 conan{m.group(1)}"),  # aliases.rs:996
    # aliases.rs:987 writes "3d20 conan3 4d6 cd4"; parser.rs:1699 reads the bare 4d6 as added
    # dice, which is how this oracle's parser needs it written
    (r"conan([2-5])cd(\d+)", lambda m: f"{m.group(1)}d20 conan{m.group(1)} + {m.group(2)}d6"),
    (r"cd(\d+)", lambda m: f"{m.group(1)}d6 cd{m.group(1)}"),  # aliases.rs:1002
    (r"dndstats", lambda m: "6 4d6 k3"),  # aliases.rs:279
]
_ALIAS_RES = [(re.compile(f"^(?:{p})$"), f) for p, f in _ALIASES]


def expand_alias(text: str) -> str | None:
    """aliases.rs expand_alias: the whole (lowercased) roll as one alias, or None."""
    body = text.strip().lower()
    for pattern, expand in _ALIAS_RES:
        m = pattern.match(body)
        if m is not None:
            return expand(m)
    return None


def _with_alias(part: str) -> list[Sampler]:
    """parser.rs parse_dice_string: a roll set (2-20), an alias, or a roll."""
    expanded = expand_alias(part)
    if expanded is not None:
        part = expanded
    elif (m := re.match(r"^(\S+?)\s*([+\-*/]\s*\S.*)$", part)) and expand_alias(m.group(1)):
        # "ex5 + 2", "+d% + 25": the first part is the alias, the rest its math
        # (parser.rs:1140, parse_base_dice; parser.rs:440)
        head = expand_alias(m.group(1))
        assert head is not None
        if re.match(r"^\d+ ", head):
            raise Unmodelled(part)
        part = head + " " + m.group(2)
    m = re.match(r"^(\d+)\s+(?:\([^)]*\)\s*)?(?=[d\d+-]|[a-z])(.*)$", part)  # "3 (Stat) 4d6"
    if m:
        n = int(m.group(1))
        if not 2 <= n <= 20:
            raise Unmodelled(part)
        return _with_alias(m.group(2)) * n
    return [_parse_one(part)]


def samplers(expr: str) -> list[Sampler]:
    """One sampler per result Dice Maiden shows for ``expr``; Unmodelled if unknown."""
    parts = expr.split(";")
    if len(parts) > 4 or any(not p.strip() for p in parts):
        raise Unmodelled(expr)
    out: list[Sampler] = []
    for part in parts:
        whole = re.match(r"^\s*(?:\d+\s+)?(.*)$", part)
        assert whole is not None
        if expand_alias(whole.group(1)) is None:  # "wng 4d6 !soak" is one alias (parser.rs:83)
            part = part.split("!", 1)[0].strip()  # "1d20 ! Attack; 1d8 ! Damage": two rolls
        flags = re.match(r"^((?:s|nr|ul)\s+)+", part)
        if flags:  # "Special Flags": display only, the total is the same
            part = part[flags.end() :]
        if re.match(r"^p\s", part):
            raise Unmodelled(expr)
        label = re.match(r"^\(([^)]*)\)\s*", part)  # parser.rs LABEL_REGEX: "(Attack) 1d20"
        if label:
            part = part[label.end() :]
        out += _with_alias(part)
    return out
