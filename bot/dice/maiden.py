"""Dice Maiden's game-system shortcuts (``4cod``, ``alien4s2``, ``wng 4d6``…), read in the
dice-maiden dialect as Dice Maiden expands them.

Each row is one of Dice Maiden's own aliases, transcribed from dicemaiden-rs
(github:Humblemonk/dicemaiden-rs, ``src/dice/aliases.rs``; the line is given per row): the
same pattern, and the dice it expands to, written in this bot's notation. Where Dice Maiden
also shows something the total does not carry (a Shadowrun glitch, a Forged in the Dark
outcome, an Alien panic roll), the row says so and the answer says it in its note: the number
is the same, what is left out is named. Shortcuts not in this table are refused with the dice
to write (docs/dice.md, "Dialects").

Pure data and string work: the expansion is then parsed like anything the player typed, so
every limit, exact odds and the hostile corpus hold unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

_ALIASES_RS = "src/dice/aliases.rs"


@dataclass(frozen=True, slots=True)
class Shortcut:
    """One Dice Maiden alias: its pattern, what it expands to, and what else Dice Maiden shows."""

    system: str
    pattern: re.Pattern[str]
    line: int  # in dicemaiden-rs src/dice/aliases.rs (or parser.rs, when ``source`` says so)
    expand: Callable[[re.Match[str]], str | None]  # the roll, in the dice-maiden dialect
    shows: str = ""  # what Dice Maiden shows besides the number ("" if nothing)
    source: str = _ALIASES_RS
    #: Math may follow (``ex5 + 2``); not for Godbound, whose chart then applies to the total.
    math: bool = True

    @property
    def cite(self) -> str:
        return f"{self.source}:{self.line}"


@dataclass(frozen=True, slots=True)
class Expansion:
    """A shortcut as read: the roll to parse (dice-maiden dialect), how many times, a note."""

    text: str
    repeat: int
    note: str


def _math(mod: str | None) -> str:
    """Dice Maiden's trailing ``+ 5`` / ``-2`` on a shortcut, spaces dropped."""
    return f" {mod.replace(' ', '')}" if mod else ""


def _p(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def _count(m: re.Match[str], group: int, low: int = 1, high: int = 100) -> int | None:
    n = int(m.group(group)[:4])
    return n if low <= n <= high else None


def _pool(m: re.Match[str], text: str, low: int = 1, high: int = 100) -> str | None:
    """``text`` with ``{n}`` the first group, when it is a count Dice Maiden accepts."""
    n = _count(m, 1, low, high)
    return None if n is None else text.format(n=n)


def _wild_worlds(m: re.Match[str]) -> str | None:
    """Wild Worlds: the highest of N d6 after dropping the C highest (``ww4c1``), or nothing
    when the cut leaves no die."""
    cut = m.group(2)
    if cut and not 0 < int(cut[:4]) < int(m.group(1)[:4]):
        return None
    return _pool(m, "{n}d6" + (f"dh{int(cut[:4])}" if cut else "") + "kh1", 1, 10)


def _cod(m: re.Match[str]) -> str | None:
    again = {"8": "8", "9": "9"}.get(m.group(2).lower(), "10")
    rote = " r7" if m.group(2).lower() == "r" else ""
    return _pool(m, f"{{n}}d10 t8 ie{again}{rote}{_math(m.group(3))}")


def _wod(m: re.Match[str]) -> str | None:
    return _pool(m, f"{{n}}d10 f1 t{int(m.group(2)[:4])}{_math(m.group(3))}")


def _exalted(target: int | None, double: str) -> Callable[[re.Match[str]], str | None]:
    """Exalted (aliases.rs:666-870): d10s against a target (7 unless given); the double face
    and up count twice. ``double`` names where the double face is: ``"g3"`` the third group,
    ``"g2"`` the second, ``"t10"`` the plain forms' second target of 10 (``t7 t10``).
    ``target`` None: the target is the second group (``"t3"``: the third)."""

    def expand(m: re.Match[str]) -> str | None:
        g = [int(x[:4]) for x in m.groups() if x is not None]
        n = g[0]
        if double == "t3":  # ex10d8t6: the double face first, then the target
            d, t = g[1], g[2]
        elif target is None:
            t = g[1] if len(g) > 1 else 7
            d = g[2] if double == "g3" else 10
        else:
            t, d = target, g[1]
        if not 1 <= n <= 100 or not 1 <= t <= 10 or not t <= d <= 10:
            return None
        return f"{n}d10 t{t} t10" if double == "t10" else f"{n}d10 t{t}ds{d}"

    return expand


#: Earthdawn steps, 1st edition 1-50 (aliases.rs:1101-1122 for 1-18, shared by both
#: editions, and 1125-1160 for 19-50).
_EARTHDAWN = (
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
)
#: Earthdawn 4th edition steps 19-100 (aliases.rs:1163-1247).
_EARTHDAWN_4E = (
    *_EARTHDAWN[:18],
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
)


def _earthdawn(steps: tuple[str, ...]) -> Callable[[re.Match[str]], str | None]:
    def expand(m: re.Match[str]) -> str | None:
        step = int(m.group(1)[:4])
        return steps[step - 1] if 1 <= step <= len(steps) else None

    return expand


_A5E_DIE = {
    "1": "1d4",
    "2": "1d6",
    "3": "1d8",
    "4": "1d4",
    "6": "1d6",
    "8": "1d8",
    "10": "1d10",
    "12": "1d12",
    "20": "1d20",
    "100": "1d100",
}


def _a5e(base: str) -> Callable[[re.Match[str]], str | None]:
    """Level Up A5E: a d20 (advantage ``+a5e``, disadvantage ``-a5e``) and an expertise die."""

    def expand(m: re.Match[str]) -> str | None:
        mod = (m.group(1) or "").replace(" ", "")
        return f"{base}{mod} + {_A5E_DIE[m.group(2)]}"

    return expand


def _alien(m: re.Match[str]) -> str | None:
    base = _count(m, 1, 1, 20)
    stress = int(m.group(2)[:4]) + (1 if m.group(3) else 0) if m.group(2) else 0
    if base is None or not 0 <= stress <= 11 or (m.group(2) and stress == 0):
        return None
    # Every kept die showing 6 is a success, base and stress dice alike (roller.rs:3869).
    return f"{base}d6=6" + (f" + {stress}d6=6" if stress else "")


def _fitd(m: re.Match[str]) -> str | None:
    n = int(m.group(1)[:4])
    if n == 0:
        return "2d6 kl1"  # zero dice: the lower of two
    return f"{n}d6 k1" if n <= 10 else None


def _lasers(m: re.Match[str]) -> str | None:
    n, target = int(m.group(1)[:4]), int(m.group(2)[:4])
    if not 1 <= n <= 20 or not 2 <= target <= 5:
        return None
    # Lasers (the default, and "l"): dice at or under the number; feelings ("f"): at or over.
    return f"{n}d6 tl{target}" if m.group(3).lower() != "f" else f"{n}d6 t{target}"


def _wrath(m: re.Match[str]) -> str | None:
    # Wrath & Glory: 4-5 an icon (1), 6 an exalted icon (2); soak/exempt/dmg roll the total.
    n, sides = int(m.group(3)[:4]), int(m.group(4)[:6])
    if m.group(5) and m.group(5).lower() in ("soak", "exempt", "dmg"):
        return f"{n}d{sides}"
    return f"{n}d{sides} t4 t6" if sides == 6 else None


def _godbound(m: re.Match[str]) -> str | None:
    straight = m.group(1).lower() == "gbs"
    dice = m.re.groups == 4  # "gb 3d8 + 2" (aliases.rs:467) or "gb + 2" (aliases.rs:477)
    n, sides = (int(m.group(2)[:4]), int(m.group(3)[:6])) if dice else (1, 20)
    mod = m.group(4) if dice else m.group(2)
    if straight:
        return f"{n}d{sides}{_math(mod)}"
    # The damage chart: 1 or less 0, 2-5 1, 6-9 2, 10+ 4 (roller.rs:1296), on each die; with
    # math, on the total, which this bot can read for one die: its faces the chart then counts.
    shift = int(mod.replace(" ", "")[:7]) if mod else 0
    if shift and n != 1:
        return None
    steps = [min(max(step - shift, 1), sides + 1) for step in (2, 6, 10, 10)]
    return f"{n}d{sides} " + " ".join(f"t{step}" for step in steps)


def _godbound_written(m: re.Match[str]) -> str | None:
    """``1d20 gb``, ``3d8 gbs``: Godbound's modifier written on dice."""
    n, sides, word = int(m.group(1)[:4]), int(m.group(2)[:6]), m.group(3).lower()
    return f"{n}d{sides}" if word == "gbs" else f"{n}d{sides} t2 t6 t10 t10"


#: Open Legend attribute dice by score (aliases.rs:1547-1561).
_OPEN_LEGEND = {1: "1d4", 2: "1d6", 3: "1d8", 4: "1d10", 5: "2d6", 6: "2d8", 7: "2d10"}
_OPEN_LEGEND.update({8: "3d8", 9: "3d10", 10: "4d8"})


def _open_legend(m: re.Match[str]) -> str | None:
    """Open Legend (aliases.rs:1563-1601): advantage rolls extra attribute dice and drops
    them before they explode; with no attribute dice it applies to the d20, at most 1."""
    score, kind, level = int(m.group(1)), m.group(2), int((m.group(3) or "0")[:4])
    if score > 10 or level > 500:
        return None
    word = {"a": "adv", "d": "dis"}.get((kind or "").lower(), "")
    dice = _OPEN_LEGEND.get(score)
    if dice is None:
        return "1d20 ie20" + (f" {word}1" if level else "")
    sides = dice.split("d")[1]
    return f"1d20 ie20 + {dice} ie{sides}" + (f" {word}{level}" if level else "")


#: Essence20 skill dice by rank 1-8 (dicemaiden-rs src/dice/mod.rs, ESSENCE20_RANKS).
_ESSENCE20 = ("1d2", "1d4", "1d6", "1d8", "1d10", "1d12", "2d8", "3d6")


def _essence20(rank: int, special: bool, d20: str, mod: str | None) -> str | None:
    """Essence20 (aliases.rs:1604-1641, roller.rs:2369): the d20 plus the skill die; with a
    specialization every rank up to it is rolled and the highest total counts."""
    if not 1 <= rank <= len(_ESSENCE20):
        return None
    ladder = _ESSENCE20[:rank][::-1]
    skill = f"({', '.join(ladder)})kh1" if special and rank > 1 else ladder[0]
    return f"{d20} + {skill}{_math(mod)}"


def _ess(m: re.Match[str]) -> str | None:
    sign, count, sides, special, mod = m.groups()
    die = f"{int((count or '1')[:4])}d{int(sides[:6])}"
    if die not in _ESSENCE20:
        return None
    d20 = {"+": "2d20 k1", "-": "2d20 kl1"}.get(sign or "", "1d20")
    return _essence20(_ESSENCE20.index(die) + 1, bool(special), d20, mod)


def _ess_written(m: re.Match[str]) -> str | None:
    """``1d20 ess4``, ``2d20 k1 esss8 +1``: the expansion as Dice Maiden writes it."""
    d20, word, rank, mod = m.groups()
    return _essence20(int(rank[:4]), word.lower() == "esss", " ".join(d20.split()), mod)


def _darkest_house(m: re.Match[str]) -> str | None:
    """The Darkest House (aliases.rs:1650-1678): 2d6 (a Boon rolls a third and drops the
    lowest, a Bane the highest) plus the rating; called upon, the House Die (1d6) joins the
    total (roller.rs:4175)."""
    rating, boon, called, mod = m.groups()
    total = int(rating[:6]) + (int(mod.replace(" ", "")[:7]) if mod else 0)
    dice = {"b": "2d6 adv1", "n": "2d6 dis1"}.get((boon or "").lower(), "2d6")
    house = " + 1d6" if called else ""
    return f"{dice}{house}" + ("" if total == 0 else f" {'+' if total > 0 else '-'} {abs(total)}")


def _darkest_house_written(m: re.Match[str]) -> str | None:
    """``2d6 adv1 tdhc + 4``: the House Die modifier as Dice Maiden writes it."""
    dice, boon, called, mod = m.groups()
    return f"{dice}{f' {boon}' if boon else ''}{' + 1d6' if called else ''}{_math(mod)}"


def _wfrp(target: int) -> str | None:
    """WFRP 4e (roller.rs:4417): the Success Levels, the target's tens less the roll's. The
    automatic bands (01-05 at least +1, 96-00 at most -1) change nothing for targets 10-89;
    outside those this bot can't write them."""
    if not 10 <= target <= 89:
        return None
    return f"{target // 10} - (1d100 / 10)"


def _wfrp_alias(m: re.Match[str]) -> str | None:
    base = int(m.group(1)[:4])
    if not 1 <= base <= 100:
        return None
    shift = int(m.group(3)[:4]) * (-1 if m.group(2) == "-" else 1) if m.group(3) else 0
    return _wfrp(min(max(base + shift, 0), 200))


def _step(value: int, op: str, n: int) -> int:
    """One of Dice Maiden's math steps on a die (Rust: ``/`` truncates toward zero)."""
    if op == "+":
        return value + n
    if op == "-":
        return value - n
    if op == "*":
        return value * n
    return abs(value) // n * (1 if value >= 0 else -1)


def _math_on_dice(m: re.Match[str]) -> str | None:
    """``1d20+5 t6``: Dice Maiden applies the math written before a target, success or
    failure to each die, then counts (roller.rs:786 and 3459). The targets are rewritten onto
    the faces they then count: the math only grows with the face (``*`` and ``/`` by a
    positive number), so each target is a range of faces. Botches only show beside the
    result; the math after the targets applies to the successes, as written."""
    count, sides, math, counts, after = m.groups()
    n, faces = int(count or "1"), int(sides[:6])
    steps = [(op, int(k[:6])) for op, k in re.findall(r"([+\-*/])\s*(\d+)", math)]
    if not 1 <= n <= 1000 or not 1 <= faces <= 1000:
        return None
    if any(op in "*/" and k <= 0 for op, k in steps):
        return None
    value = {face: face for face in range(1, faces + 1)}
    for op, k in steps:
        value = {face: _step(v, op, k) for face, v in value.items()}
    words = []
    for word, k in re.findall(r"(tl|t|f|b)(\d+)", counts.lower()):
        target = int(k[:6])
        if word == "t":
            words.append(f"t{min([f for f, v in value.items() if v >= target] or [faces + 1])}")
        elif word == "f":
            words.append(f"f{max([f for f, v in value.items() if v <= target] or [0])}")
        elif word == "b" and any(v <= target for v in value.values()):
            words.append(f"b{max(f for f, v in value.items() if v <= target)}")
        elif word == "tl":
            return None
    return f"{n}d{faces} {''.join(words)}{_math(after)}" if words else None


def _hero(m: re.Match[str]) -> str | None:
    """Hero System (aliases.rs:346-367): whole d6s, and a d3 for a half die; killing damage
    multiplies the total, math included, by 1d3 for its STUN (roller.rs:1604)."""
    count, kind, mod = m.groups()
    whole, half = int(count.split(".")[0][:4]), "." in count and int(count.split(".")[1]) > 0
    if kind.lower() == "h":
        return f"3d6{_math(mod)}"
    dice = " + ".join(([f"{whole}d6"] if whole else []) + (["1d3"] if half else []))
    if not dice or whole > 100:
        return None
    if kind.lower() == "n":
        return f"{dice}{_math(mod)}"
    return f"({dice}{_math(mod)}) * 1d3" if mod or half else f"{dice} * 1d3"


def _d6_legends(m: re.Match[str]) -> str | None:
    """D6 Legends (aliases.rs:1017-1036): the last die is the wild die."""
    n = _count(m, 1, 1, 100)
    if n is None:
        return None
    return "1d6 t4f1ie6" if n == 1 else f"{n - 1}d6 t4 + 1d6 t4f1ie6"


def _simple(text: str) -> Callable[[re.Match[str]], str | None]:
    return lambda m: text


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("Daggerheart", _p(r"^dheart$"), 376, _simple("2d12"), "which die is Hope and Fear"),
    Shortcut("Daggerheart (GM)", _p(r"^dheartgm$"), 380, _simple("1d20")),
    Shortcut(
        "percentile advantage",
        _p(r"^\+d%(?P<rest>.*)$"),
        385,
        lambda m: (
            "2d10 kl1 * 10 + 1d10 - 10"
            + (f" {m.group('rest').strip()}" if m.group("rest").strip() else "")
        ),
    ),
    Shortcut(
        "percentile disadvantage",
        _p(r"^-d%(?P<rest>.*)$"),
        388,
        lambda m: (
            "2d10 k1 * 10 + 1d10 - 10"
            + (f" {m.group('rest').strip()}" if m.group("rest").strip() else "")
        ),
    ),
    Shortcut(
        "Wrath & Glory",
        _p(r"^wng$"),
        393,
        _simple("1d6 t4 t6"),
        "the wrath die's complication or glory",
    ),
    Shortcut("Dark Heresy", _p(r"^dh$"), 397, _simple("1d10"), "righteous fury on a 10"),
    Shortcut(
        "Level Up A5E (advantage)",
        _p(r"^\+a5e\s*([+-]?\d+)?\s*ex([1-3]|4|6|8|10|12|20|100)$"),
        1442,
        _a5e("2d20 k1"),
    ),
    Shortcut(
        "Level Up A5E (disadvantage)",
        _p(r"^-a5e\s*([+-]?\d+)?\s*ex([1-3]|4|6|8|10|12|20|100)$"),
        1447,
        _a5e("2d20 kl1"),
    ),
    Shortcut(
        "Level Up A5E",
        _p(r"^a5e\s*([+-]?\d+)?\s*ex([1-3]|4|6|8|10|12|20|100)$"),
        1452,
        _a5e("1d20"),
    ),
    Shortcut(
        "Shadowrun",
        _p(r"^sr(\d+)$"),
        439,
        lambda m: _pool(m, "{n}d6 t5"),
        "a glitch when more than half the dice show 1",
    ),
    Shortcut(
        "Godbound",
        _p(r"^(gbs?)\s+(\d+)d(\d+)(?:\s*([+-]\s*\d+))?$"),
        467,
        _godbound,
        math=False,
    ),
    Shortcut("Godbound", _p(r"^(gbs?)(?:\s*([+-]\s*\d+))?$"), 477, _godbound, math=False),
    Shortcut(
        "Wrath & Glory",
        _p(r"^wng(?:\s+w(\d+))?(?:\s+dn(\d+))?\s+(\d+)d(\d+)(?:\s*!\s*(\w+))?$"),
        484,
        _wrath,
        "the wrath dice's complications and glory, and pass or fail against the difficulty",
    ),
    Shortcut(
        "Chronicles of Darkness",
        _p(r"^(\d+)cod([89r]?)(?:\s*([+-]\s*\d+))?$"),
        516,
        _cod,
    ),
    Shortcut("World of Darkness", _p(r"^(\d+)wod(\d+)(?:\s*([+-]\s*\d+))?$"), 545, _wod),
    Shortcut(
        "Dark Heresy",
        _p(r"^dh\s+(\d+)d(\d+)$"),
        554,
        lambda m: f"{int(m.group(1)[:4])}d{int(m.group(2)[:6])} ie{int(m.group(2)[:6])}",
        "righteous fury on a 10",
    ),
    Shortcut("Fudge", _p(r"^(\d+)df$"), 561, lambda m: _pool(m, "{n}dF")),
    Shortcut(
        "Warhammer",
        _p(r"^(\d+)wh(\d+)\+$"),
        567,
        lambda m: _pool(m, f"{{n}}d6 t{int(m.group(2)[:4])}"),
    ),
    Shortcut(
        "double-digit dice",
        _p(r"^dd(\d)(\d)$"),
        574,
        lambda m: None if "0" in m.group(1, 2) else f"1d{m.group(1)} * 10 + 1d{m.group(2)}",
    ),
    Shortcut(
        "advantage",
        _p(r"^([+-])d(\d+)$"),
        581,
        lambda m: f"2d{int(m.group(2)[:6])} {'k1' if m.group(1) == '+' else 'kl1'}",
    ),
    Shortcut("percentile dice", _p(r"^(\d+)d%$"), 593, lambda m: _pool(m, "{n}d100")),
    Shortcut(
        "Storypath",
        _p(r"^sp(\d+)(?:t(\d+))?$"),
        605,
        lambda m: _pool(m, f"{{n}}d10 t{int((m.group(2) or '8')[:4])} ie10"),
    ),
    Shortcut("Year Zero", _p(r"^(\d+)yz$"), 612, lambda m: _pool(m, "{n}d6 t6")),
    Shortcut("Sunsails New Millennium", _p(r"^snm(\d+)$"), 618, lambda m: _pool(m, "{n}d6 ie6 t4")),
    Shortcut("Exalted", _p(r"^ex(\d+)t(\d+)ds(\d+)$"), 666, _exalted(None, "g3")),
    Shortcut("Exalted", _p(r"^ex(\d+)t(\d+)d(\d+)$"), 706, _exalted(None, "g3")),
    Shortcut("Exalted", _p(r"^ex(\d+)d(\d+)$"), 746, _exalted(7, "g2")),
    Shortcut("Exalted", _p(r"^ex(\d+)d(\d+)t(\d+)$"), 776, _exalted(None, "t3")),
    Shortcut("Exalted", _p(r"^ex(\d+)ds(\d+)$"), 816, _exalted(7, "g2")),
    Shortcut("Exalted", _p(r"^ex(\d+)(?:t(\d+))?$"), 846, _exalted(None, "t10")),
    Shortcut("Earthdawn", _p(r"^ed(\d+)$"), 873, _earthdawn(_EARTHDAWN)),
    Shortcut("Earthdawn 4th edition", _p(r"^ed4e(\d+)$"), 881, _earthdawn(_EARTHDAWN_4E)),
    Shortcut(
        "D&D",
        _p(r"^(attack|skill|save)(\s*[+-]\s*\d+)?$"),
        889,
        lambda m: "1d20" + (m.group(2) or "").replace(" ", ""),
    ),
    Shortcut(
        "Lasers & Feelings",
        _p(r"^(\d+)lf(\d+)([lf]?)$"),
        1054,
        _lasers,
        "Laser Feelings on a die showing the number exactly",
    ),
    Shortcut(
        "Forged in the Dark",
        _p(r"^fitd(\d+)$"),
        1084,
        _fitd,
        "the outcome (1-3 failure, 4-5 partial, 6 success, two 6s critical)",
    ),
    Shortcut(
        "Alien RPG",
        _p(r"^alien(\d+)(?:s(\d+)(p?))?$"),
        1461,
        _alien,
        "a panic roll (1d6 + stress) when a stress die shows 1",
    ),
    Shortcut(
        "Savage Worlds",
        _p(r"^sw(\d+)$"),
        896,
        lambda m: (
            f"(1d{m.group(1)}!, 1d6!)kh1" if m.group(1) in ("4", "6", "8", "10", "12") else None
        ),
        "which die was the wild die",
    ),
    Shortcut(
        "Wild Worlds",
        _p(r"^ww(\d+)(?:c(\d+))?$"),
        1510,
        _wild_worlds,
        "the outcome (6 triumph, 4-5 conflict, 1-3 disaster) and a twist on matching dice",
    ),
    Shortcut(
        "Open Legend",
        _p(r"^ol(\d{1,2})(?:\s*([ad])(\d+))?$"),
        1570,
        _open_legend,
    ),
    Shortcut(
        "Essence20",
        _p(r"^([+-])?ess(\d*)d(\d+)(s)?(?:\s*([+-]\s*\d+))?$"),
        1612,
        _ess,
        "a critical success when a skill die rolls its maximum, and a natural 20",
        math=False,
    ),
    Shortcut(
        "Essence20",
        _p(r"^(1d20|2d20\s+kl?1)\s+(esss?)(\d+)(?:\s*([+-]\s*\d+))?$"),
        1577,
        _ess_written,
        "a critical success when a skill die rolls its maximum, and a natural 20",
        "src/dice/parser.rs",
        math=False,
    ),
    Shortcut(
        "The Darkest House",
        _p(r"^tdh(\d+)([bn])?(c)?(?:\s*([+-]\s*\d+))?$"),
        1650,
        _darkest_house,
        "the House Die, and whether the House acts",
        math=False,
    ),
    Shortcut(
        "The Darkest House",
        _p(r"^(2d6)(?:\s+(adv1|dis1))?\s+tdh(c)?(?:\s*([+-]\s*\d+))?$"),
        1628,
        _darkest_house_written,
        "the House Die, and whether the House acts",
        "src/dice/parser.rs",
        math=False,
    ),
    Shortcut(
        "Cyberpunk Red damage",
        _p(r"^cpd(\d+)(?:\s*([+-]\s*\d+))?$"),
        920,
        lambda m: _pool(m, f"{{n}}d6{_math(m.group(2))}", 1, 500),
        "a Critical Injury when two or more dice show 6 (its 5 damage, straight to Hit "
        "Points, is not in this total)",
    ),
    Shortcut(
        "Cyberpunk Red damage",
        _p(r"^(\d+)d6\s+cpd(?:\s*([+-]\s*\d+))?$"),
        1621,
        lambda m: _pool(m, f"{{n}}d6{_math(m.group(2))}", 1, 500),
        "a Critical Injury when two or more dice show 6 (its 5 damage, straight to Hit "
        "Points, is not in this total)",
        "src/dice/parser.rs",
    ),
    Shortcut(
        "WFRP 4e Success Levels",
        _p(r"^wfrp(\d+)(?:\s*([+-])\s*(\d+))?$"),
        941,
        _wfrp_alias,
        "success or failure (01-05 always succeed, 96-00 always fail; +0 and -0) and "
        "Astounding results on doubles",
        math=False,
    ),
    Shortcut(
        "WFRP 4e Success Levels",
        _p(r"^1d100\s+wfrp(\d+)$"),
        1650,
        lambda m: _wfrp(int(m.group(1)[:4])),
        "success or failure (01-05 always succeed, 96-00 always fail; +0 and -0) and "
        "Astounding results on doubles",
        "src/dice/parser.rs",
        math=False,
    ),
    Shortcut(
        "the math before a target applies to each die",
        _p(
            r"^(\d*)d(\d+)((?:\s*[+\-*/]\s*\d+)+)\s+((?:(?:t|f|b)\d+)+)"
            r"((?:\s*[+\-*/]\s*\d+)*)$"
        ),
        3459,
        _math_on_dice,
        source="src/dice/roller.rs",
        math=False,
    ),
    Shortcut(
        "Cypher System",
        _p(r"^cs\s+(\d+)(?:\s*([+-]\s*\d+))?$"),
        969,
        lambda m: f"1d20{_math(m.group(2))}" if 1 <= int(m.group(1)[:4]) <= 10 else None,
        "success against the task's target (3 × its level, on the die alone), a GM intrusion "
        "on a 1 and a minor or major effect on 17-20",
    ),
    Shortcut(
        "Cypher System",
        _p(r"^1d20\s+cs(\d+)(?:\s*([+-]\s*\d+))?$"),
        1634,
        lambda m: f"1d20{_math(m.group(2))}" if 1 <= int(m.group(1)[:4]) <= 10 else None,
        "success against the task's target (3 × its level, on the die alone), a GM intrusion "
        "on a 1 and a minor or major effect on 17-20",
        "src/dice/parser.rs",
    ),
    Shortcut(
        "Hero System damage",
        _p(r"^(\d+(?:\.\d+)?)hs([nk])(?:\s*([+\-*/]\s*\d+))?$"),
        445,
        _hero,
        "the BODY",
        math=False,
    ),
    Shortcut(
        "Hero System to-hit",
        _p(r"^(\d+(?:\.\d+)?)hs(h)(?:\s*([+\-*/]\s*\d+))?$"),
        458,
        _hero,
        "the target to roll under (11 + OCV - DCV)",
        math=False,
    ),
    Shortcut(
        "D6 Legends",
        _p(r"^(\d+)d6l$"),
        1018,
        _d6_legends,
        "which die is the wild die",
    ),
    Shortcut(
        "Lasers & Feelings",
        _p(r"^(\d+)d6\s+lf(\d+)([lf]?)$"),
        1054,
        _lasers,
        "Laser Feelings on a die showing the number exactly",
    ),
    Shortcut(
        "Alien RPG",
        _p(r"^(\d+)d6\s+alien(?:\s*\+\s*(\d+)d6\s+aliens\2)?$"),
        1461,
        lambda m: (
            None
            if _count(m, 1, 1, 20) is None or (m.group(2) and not 1 <= int(m.group(2)[:4]) <= 11)
            else f"{int(m.group(1))}d6=6" + (f" + {int(m.group(2))}d6=6" if m.group(2) else "")
        ),
        "a panic roll (1d6 + stress) when a stress die shows 1",
    ),
    Shortcut(
        "Wild Worlds",
        _p(r"^(\d+)d6\s+ww(?:c(\d+))?$"),
        1510,
        _wild_worlds,
        "the outcome (6 triumph, 4-5 conflict, 1-3 disaster) and a twist on matching dice",
    ),
    Shortcut(
        "Godbound",
        _p(r"^(\d+)d(\d+)\s+(gbs?)$"),
        1618,
        _godbound_written,
        source="src/dice/parser.rs",
        math=False,
    ),
    Shortcut(
        "Hero System damage",
        _p(r"^(\d+)d(\d+)\s+hs([nk])$"),
        1614,
        lambda m: (
            f"{int(m.group(1)[:4])}d{int(m.group(2)[:6])}"
            + (" * 1d3" if m.group(3).lower() == "k" else "")
        ),
        "the BODY",
        "src/dice/parser.rs",
        math=False,
    ),
    Shortcut(
        "Hero System to-hit",
        _p(r"^(\d+)d(\d+)\s+hsh$"),
        1625,
        lambda m: f"{int(m.group(1)[:4])}d{int(m.group(2)[:6])}",
        "the target to roll under (11 + OCV - DCV)",
        "src/dice/parser.rs",
    ),
    Shortcut(
        "Forged in the Dark",
        _p(r"^2d6\s+fitd0$"),
        1606,
        _simple("2d6 kl1"),
        "the outcome (1-3 failure, 4-5 partial, 6 success, two 6s critical)",
        "src/dice/parser.rs",
    ),
    Shortcut(
        "Shadowrun",
        _p(r"^(\d+)d6\s+t5\s+shadowrun(\d+)$"),
        439,
        lambda m: _pool(m, "{n}d6 t5") if m.group(1) == m.group(2) else None,
        "a glitch when more than half the dice show 1",
    ),
    Shortcut(
        "Dark Heresy",
        _p(r"^1d10\s+dh$"),
        1612,
        _simple("1d10"),
        "righteous fury on a 10",
        "src/dice/parser.rs",
    ),
    Shortcut(
        "failures with no target",
        _p(r"^(\d+)d(\d+)\s*f(\d+)((?:\s*b\d+)?)$"),
        1072,
        lambda m: (
            f"{int(m.group(1)[:4])}d{int(m.group(2)[:6])} t{int(m.group(2)[:6]) + 1}"
            f" f{int(m.group(3)[:6])}{m.group(4)}"
        ),
        source="src/dice/roller.rs",
        math=False,
    ),
    Shortcut(
        "plot dice",
        _p(r"^(\d+)(?:dp|d6\s+plot)(?:\s*([+-]\s*\d+))?$"),
        660,
        lambda m: _pool(m, f"{{n}}d6=2 tl2 * 2{_math(m.group(2))}", 1, 100),
        "the Complication and Opportunity symbols (1: C+2, 2: C+4, 5-6: Opportunity)",
        math=False,
    ),
    Shortcut(
        "Conan: every skill die rolled counts as a success",
        _p(r"^conan([345])$"),
        996,
        lambda m: f"{m.group(1)}d20 t1",
        "the skill dice",
        math=False,  # the math changes a total Dice Maiden does not show (mod.rs:376)
    ),
    Shortcut(
        "Conan: every skill die rolled counts as a success, and each combat die 1, 2, 0 or 1",
        _p(r"^conan([2-5])cd(\d+)$"),
        987,
        lambda m: (
            f"{int(m.group(2)[:4])}d6=2 tl2 t5 + {m.group(1)}"
            if 1 <= int(m.group(2)[:4]) <= 100
            else None
        ),
        "the skill and combat dice and the effects rolled on 5 and 6",
        math=False,
    ),
    Shortcut(
        "Conan combat dice",
        _p(r"^cd(\d+)$"),
        1002,
        lambda m: _pool(m, "{n}d6=2 tl2 t5"),
        "the effects rolled on 5 and 6",
        math=False,  # the math changes a total Dice Maiden does not show (mod.rs:376)
    ),
    Shortcut(
        "Cyberpunk Red",
        _p(r"^(?:1d10\s+)?cpr(?:\s*([+\-*])\s*(\d+))?$"),
        910,
        lambda m: "1d10 e10 i1" + (f" {m.group(1)} {int(m.group(2)[:6])}" if m.group(1) else ""),
        "a critical success or failure on a 10 or a 1",
        math=False,  # roller.rs:2594 multiplies before it adds: one operation reads the same
    ),
    Shortcut(
        "the Witcher",
        _p(r"^(?:1d10\s+)?wit(?:\s*([+\-*])\s*(\d+))?$"),
        930,
        lambda m: "1d10 ie10 im1" + (f" {m.group(1)} {int(m.group(2)[:6])}" if m.group(1) else ""),
        "a critical success or failure on a 10 or a 1",
        math=False,  # roller.rs:2594 multiplies before it adds: one operation reads the same
    ),
    Shortcut("AGE", _p(r"^age$"), 278, _simple("2d6 + 1d6"), "which die is the dragon die"),
    Shortcut("D&D stats", _p(r"^dndstats$"), 279, _simple("6 4d6 k3")),
    Shortcut(
        "Wrath & Glory",
        _p(r"^(\d+)d6 wng$"),
        2021,
        lambda m: _pool(m, "{n}d6 t4 t6"),
        "the wrath die's complication or glory",
        "src/dice/parser.rs",
    ),
    Shortcut(
        "Forged in the Dark",
        _p(r"^(\d+)d6 fitd$"),
        1602,
        lambda m: _pool(m, "{n}d6 k1", 1, 10),
        "the outcome (1-3 failure, 4-5 partial, 6 success, two 6s critical)",
        "src/dice/parser.rs",
    ),
    Shortcut(
        "Fudge",
        _p(r"^(\d+)d3 fudge$"),
        1617,
        lambda m: _pool(m, "{n}dF"),
        source="src/dice/parser.rs",
    ),
    Shortcut(
        "Alien RPG",
        _p(r"^(\d+)d6 alien$"),
        1582,
        lambda m: _pool(m, "{n}d6=6", 1, 20),
        source="src/dice/parser.rs",
    ),
)


#: Dice Maiden's systems this bot can't show, and what to write instead (docs/dice.md,
#: "Measured against the other bots"): the first pattern matching the whole roll answers.
UNREADABLE: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        _p(r"^(?:\d+d20\s+)?(?:conan\d*|cd\d*)(?:\s*cd\d+)?\s*[+\-*/]"),
        "Dice Maiden's Conan shows the successes before the math; write the dice alone "
        "(e.g. cd4) and add the number yourself",
    ),
    (
        _p(r"^(?:[+-]?ms\d*|\d+d100\s+ms\d*[ad]?)$"),
        "Dice Maiden's Mothership shows one success in place of a roll at or under the stat; "
        "write 1d100 and compare it yourself",
    ),
    (
        _p(r"^(?:mnm|1d20\s*[+-]?\s*\d*\s*mnm)"),
        "Dice Maiden's Mutants & Masterminds shows degrees of success in place of the total; "
        "write 1d20+N and compare it with the DC yourself",
    ),
    (
        _p(r"^(?:1d100\s+)?wfrp\d+"),
        "in Dice Maiden's WFRP, targets outside 10-89 let the automatic bands (01-05, 96-00) "
        "change the Success "
        "Levels, which no total gives; write 1d100 and read them yourself",
    ),
    (
        _p(r"^(?:\d+\s*)?(?:vtm\d+h\d+|\d+d10\s+vtm)"),
        "in Dice Maiden's Vampire 5 pairs of 10s count 4, which no count of dice gives; write "
        "Nd10>=6 and "
        "add 2 for each pair of 10s yourself",
    ),
    (
        _p(r"^(?:\d+wod\d+c\b|.*\bf\d+\s+(?:t\d+\s+)?c\b|.*\bc\s+f\d+)"),
        "in Dice Maiden's World of Darkness cancel, 10s cancel 1s only up to the 1s rolled, "
        "which no count "
        "of dice gives; write Nd10 t8 f1 and cancel yourself",
    ),
    (
        _p(r"^(?:cpr|wit|1d10\s+(?:cpr|wit))\b"),
        "Dice Maiden's Cyberpunk Red and Witcher d10 take one operation here (+, - or *: "
        "Dice Maiden multiplies before it adds, and rounds a division toward zero); write "
        "the operations apart, e.g. 1d10 e10 i1 * 2 + 3",
    ),
    (
        _p(r"^gbs?\s+\d+d\d+\s*[+\-*/]"),
        "Dice Maiden's Godbound chart on the total of several dice is no count of dice; "
        "write the dice (e.g. 3d8-2) and read the chart yourself",
    ),
    (
        _p(r"^(?:sil\d*|bnw\d+|\d*\s*mm\b)"),
        "this Dice Maiden system shows a result no total or count of dice gives (Silhouette's "
        "extra 6s, Brave New World's disasters, Marvel's d616); write the dice, e.g. 3d6",
    ),
)


def unreadable(text: str) -> str | None:
    """Why this bot can't read a Dice Maiden system roll, with what to write, or None."""
    body = text.strip()
    for pattern, why in UNREADABLE:
        if pattern.match(body):
            return f"`{body[:40]}`: {why}"
    return None


def expand(text: str) -> Expansion | None:
    """Dice Maiden's reading of a whole roll that is one of its shortcuts, or None."""
    body = text.strip()
    if len(body) > 100:
        return None
    found = _match(body)
    if found is None:
        # "ex5 + 2": the first word is the shortcut, the rest its math (dicemaiden-rs
        # parser.rs:1140, parse_base_dice expands the first part).
        m = re.match(r"^(\S+?)\s*([+\-*/]\s*\S.*)$", body)
        head = _match(m.group(1)) if m is not None else None
        if m is None or head is None or head[0] is None or not head[1].math:
            return None
        if re.match(r"^\d+ \d*d", head[0]):
            return None  # a set ("dndstats") takes no math
        found = (f"{head[0]} {m.group(2)}", head[1])
    roll, shortcut = found
    if roll is None:
        return None
    repeat = 1
    if (set_ := re.match(r"^(\d+) (\d*d.*)$", roll)) is not None:  # "6 4d6 k3"
        repeat, roll = int(set_.group(1)), set_.group(2)
    shown = f"Dice Maiden dialect: read `{body}` ({shortcut.system}) as `{roll}`"
    if shortcut.shows:
        shown += f"; Dice Maiden also shows {shortcut.shows}, left out here"
    return Expansion(roll, repeat, shown)


def _match(body: str) -> tuple[str | None, Shortcut] | None:
    for shortcut in SHORTCUTS:
        m = shortcut.pattern.match(body)
        if m is not None:
            return shortcut.expand(m), shortcut
    return None
