"""Rolling a parsed expression: dice, modifiers, and the immutable result.

Randomness comes only from the injected ``rng``. A term's first dice come from one
``rng.randbytes(8 * count)`` call (one syscall with ``secrets.SystemRandom``); each reroll or
explosion then draws 8 more bytes. Each 8-byte little-endian word ``x`` gives the face
``x % sides + 1``, rejecting ``x >= 2**64 - 2**64 % sides`` so every face is exactly equally
likely.
"""

from __future__ import annotations

import operator
import random
import struct
from collections.abc import Callable
from typing import Any, NamedTuple

from bot.dice.errors import DiceError
from bot.dice.parser import (
    ADD,
    CMP,
    CONST,
    DICE,
    DIV,
    LABEL,
    MOD,
    MUL,
    NEG,
    SET,
    SUB,
    TDIV,
    DiceSpec,
    Expression,
    Selection,
    SetSpec,
    parse,
)

# Die flags (bit mask).
KEPT = 1  # counted in the total (or success count)
DROPPED = 2  # removed by keep/drop
REROLLED = 4  # replaced by a reroll; never counted
REPLACEMENT = 8  # this die is the reroll of an earlier one
EXPLODED = 16  # this die exploded: it added the next die
FROM_EXPLOSION = 32  # this die was added by an explosion
CLAMPED_MIN = 64  # raised to the ``mi`` minimum
CLAMPED_MAX = 128  # lowered to the ``ma`` maximum
SUCCESS = 256  # met the success target
ADDED = 512  # added by ``ra`` (reroll and add)
FOLDED = 1024  # a compounding explosion (!!): its value is added to the die it came from
FAILURE = 2048  # met the failure target (takes a success away)
IMPLODED = 4096  # this die imploded (im): it subtracted the next die
FROM_IMPLOSION = 8192  # this die was rolled by an implosion: its face is subtracted

FLAG_NAMES: tuple[tuple[int, str], ...] = (
    (KEPT, "kept"),
    (DROPPED, "dropped"),
    (REROLLED, "rerolled"),
    (REPLACEMENT, "replacement"),
    (EXPLODED, "exploded"),
    (FROM_EXPLOSION, "from_explosion"),
    (CLAMPED_MIN, "clamped_min"),
    (CLAMPED_MAX, "clamped_max"),
    (SUCCESS, "success"),
    (ADDED, "added"),
    (FOLDED, "folded"),
    (FAILURE, "failure"),
    (IMPLODED, "imploded"),
    (FROM_IMPLOSION, "from_implosion"),
)

_TWO64 = 1 << 64
_LIMITS: dict[int, int] = {}


def _limit(sides: int) -> int:
    limit = _LIMITS.get(sides)
    if limit is None:
        limit = _TWO64 - _TWO64 % sides
        if sides <= 10_000:  # bounded: hostile sizes up to MAX_SIDES are never all cached
            _LIMITS[sides] = limit
    return limit


def _draw1(rng: random.Random, sides: int) -> int:
    """One fair face."""
    limit = _limit(sides)
    x = int.from_bytes(rng.randbytes(8), "little")
    while x >= limit:
        x = int.from_bytes(rng.randbytes(8), "little")
    return x % sides + 1


def _draw(rng: random.Random, sides: int, n: int) -> tuple[int, ...]:
    """``n`` fair faces from a single ``randbytes`` call (rejections redraw one by one)."""
    if n == 1:
        return (_draw1(rng, sides),)
    xs = struct.unpack(f"<{n}Q", rng.randbytes(8 * n))
    limit = _limit(sides)
    if max(xs) >= limit:
        return tuple(x % sides + 1 if x < limit else _draw1(rng, sides) for x in xs)
    return tuple([x % sides + 1 for x in xs])


class Die(NamedTuple):
    """One die as rolled: its natural ``face``, the ``value`` it counts as, and its flags."""

    face: int
    value: int
    flags: int
    source: int  # index (in the term) of the die it was rerolled or exploded from, or -1

    @property
    def kept(self) -> bool:
        return bool(self.flags & KEPT)

    @property
    def dropped(self) -> bool:
        return bool(self.flags & DROPPED)

    @property
    def rerolled(self) -> bool:
        return bool(self.flags & REROLLED)

    @property
    def exploded(self) -> bool:
        return bool(self.flags & EXPLODED)

    @property
    def from_explosion(self) -> bool:
        return bool(self.flags & FROM_EXPLOSION)

    @property
    def success(self) -> bool:
        return bool(self.flags & SUCCESS)

    def flag_names(self) -> list[str]:
        """The names of the set flags, for records and debugging."""
        return [name for bit, name in FLAG_NAMES if self.flags & bit]


class TermResult(NamedTuple):
    """Every die of one dice term and the term's subtotal (sum, or count of successes)."""

    spec: DiceSpec
    faces: tuple[int, ...]
    values: tuple[int, ...]
    flags: tuple[int, ...] | None  # None: no modifiers, every die kept as rolled
    sources: tuple[int, ...] | None
    subtotal: int

    @property
    def notation(self) -> str:
        return self.spec.text

    @property
    def dice(self) -> tuple[Die, ...]:
        if self.flags is None or self.sources is None:
            return tuple(Die(f, f, KEPT, -1) for f in self.faces)
        return tuple(map(Die, self.faces, self.values, self.flags, self.sources))

    def kept_faces(self) -> list[int]:
        """Natural faces of the dice that count."""
        if self.flags is None:
            return list(self.faces)
        return [f for f, fl in zip(self.faces, self.flags, strict=True) if fl & KEPT]


def _natural(terms: tuple[TermResult, ...], face: int) -> bool:
    return any(t.spec.sides == 20 and face in t.kept_faces() for t in terms)


class RollResult(NamedTuple):
    """The immutable outcome of one roll: every die, every subtotal, the total.

    A comparison of totals (``1d20+5 >= 15``) has total 1 (pass) or 0 (fail) and
    ``compared`` holds both sides; ``sets`` holds which items each set kept, in order.
    """

    parsed: Expression
    total: int
    terms: tuple[TermResult, ...]
    sets: tuple[tuple[bool, ...], ...] = ()
    compared: tuple[int, int] | None = None

    @property
    def passed(self) -> bool | None:
        """Whether the comparison held; None without one."""
        return None if self.compared is None else self.total == 1

    @property
    def expression(self) -> str:
        """Canonical notation of what was rolled."""
        return self.parsed.text

    @property
    def labels(self) -> tuple[str, ...]:
        return self.parsed.labels

    @property
    def comment(self) -> str | None:
        return self.parsed.comment

    @property
    def natural_20(self) -> bool:
        """A kept d20 shows a natural 20."""
        return _natural(self.terms, 20)

    @property
    def natural_1(self) -> bool:
        """A kept d20 shows a natural 1."""
        return _natural(self.terms, 1)

    def to_record(self) -> dict[str, Any]:
        """A JSON-serializable dict with every die, for the append-only ledger."""
        term_labels: list[list[str]] = []
        last_was_dice = False
        for op, arg in self.parsed.program:
            if op == DICE:
                term_labels.append([])
                last_was_dice = True
            elif op == LABEL and last_was_dice:
                term_labels[-1].append(str(arg))
            else:
                last_was_dice = False
        terms = []
        for term, labels in zip(self.terms, term_labels, strict=True):
            dice = []
            for die in term.dice:
                entry: dict[str, Any] = {
                    "face": die.face,
                    "value": die.value,
                    "flags": die.flag_names(),
                }
                if die.source >= 0:
                    entry["source"] = die.source
                dice.append(entry)
            terms.append(
                {
                    "notation": term.spec.text,
                    "count": term.spec.count,
                    "sides": term.spec.sides,
                    "subtotal": term.subtotal,
                    "labels": labels,
                    "dice": dice,
                }
            )
        extra: dict[str, Any] = {}
        if self.sets:
            extra["sets"] = [list(kept) for kept in self.sets]
        if self.compared is not None:
            extra["compared"] = list(self.compared)
            extra["passed"] = self.passed
        return {
            **extra,
            "expression": self.parsed.text,
            "total": self.total,
            "labels": list(self.parsed.labels),
            "comment": self.parsed.comment,
            "natural_20": self.natural_20,
            "natural_1": self.natural_1,
            "terms": terms,
        }


def select(
    order: list[int], values: list[int] | tuple[int, ...], selects: tuple[Selection, ...]
) -> list[int]:
    """The indices (from ``order``, in roll order) that keep/drop operations leave kept.

    Each operation selects among the dice still kept; consecutive keeps (or drops) unite
    their selectors (Avrae). Ties go by roll order.
    """
    kept = order
    for action, sels in selects:
        chosen: set[int] = set()
        for kind, a, b in sels:
            if kind == "v":
                chosen.update(i for i in kept if a <= values[i] <= b)
            elif kind == "h":
                chosen.update(sorted(kept, key=lambda i: (-values[i], i))[:a])
            elif kind == "l":
                chosen.update(sorted(kept, key=lambda i: (values[i], i))[:a])
            else:  # middle: as many dropped below as above, one more above if odd
                ranked = sorted(kept, key=lambda i: (values[i], i))
                start = max(0, (len(ranked) - a) // 2)
                chosen.update(ranked[start : start + a])
        keep = action == "k"
        kept = [i for i in kept if (i in chosen) is keep]
    return kept


def _roll_term(spec: DiceSpec, rng: random.Random) -> TermResult:
    """Roll one dice term: rerolls, explosions, clamps, then keep/drop, then successes."""
    sides = spec.sides
    initial = _draw(rng, sides, spec.count)
    if spec.plain:
        return TermResult(spec, initial, initial, None, None, sum(initial))
    if spec.fate:
        initial = tuple(f - 2 for f in initial)
    faces: list[int] = []
    values: list[int] = []
    flags: list[int] = []
    sources: list[int] = []
    ra, rb = spec.reroll if spec.reroll is not None else (1, 0)
    cap = spec.reroll_cap
    ea, eb = spec.explode if spec.explode is not None else (1, 0)
    explode_cap = spec.explode_cap
    penetrate = spec.explode_mode in ("penetrate", "both")
    compound = spec.explode_mode in ("compound", "both")
    implode = both = False
    if spec.implode is not None:
        # Dice Maiden's e and i together (1d10 e10 i1): the first face picks the chain,
        # explode or implode; the parser allows both only on disjoint faces, both once or
        # both chained.
        ia, ib = spec.implode
        both = spec.explode is not None
        xa, xb = ea, eb
        if not both:
            implode, ea, eb = True, ia, ib
    if spec.adv_first is not None:  # Dice Maiden: advantage dice set aside before exploding
        extra, keeps = spec.adv_first
        order = sorted(range(len(initial)), key=lambda i: (initial[i], i))
        aside = set(order[:extra] if keeps == "h" else order[len(order) - extra :])
        for i in sorted(aside):
            faces.append(initial[i])
            values.append(spec.clamp(initial[i]))
            flags.append(DROPPED)
            sources.append(-1)
        initial = tuple(f for i, f in enumerate(initial) if i not in aside)
    lo = spec.min_face
    hi = spec.max_face
    tens = spec.tens
    for first in initial:
        face = first
        origin = 0
        source = -1
        explosions = 0
        head = -1
        while True:
            rerolls = 0
            while ra <= face <= rb and rerolls < cap:
                faces.append(face)
                values.append(face)
                flags.append(REROLLED | origin)
                sources.append(source)
                source = len(faces) - 1
                origin = (origin & (FROM_EXPLOSION | FOLDED | FROM_IMPLOSION)) | REPLACEMENT
                face = _draw1(rng, sides)
                rerolls += 1
            value = 10 * (face - 1) if tens else face  # Avrae's tens die: 0, 10, … 90
            flag = origin
            if lo is not None and value < lo:
                value = lo
                flag |= CLAMPED_MIN
            if hi is not None and value > hi:
                value = hi
                flag |= CLAMPED_MAX
            if penetrate and origin & FROM_EXPLOSION:
                value -= 1  # penetrating dice: each explosion counts one less
            if origin & FROM_IMPLOSION:
                value = -value  # an implosion die is subtracted
            if both and head < 0:  # the slot's first die (after its rerolls) picks the chain
                implode = ia <= face <= ib
                ea, eb = (ia, ib) if implode else (xa, xb)
            boom = ea <= face <= eb and explosions < explode_cap
            if boom:
                flag |= IMPLODED if implode else EXPLODED
            faces.append(face)
            values.append(value)
            flags.append(flag)
            sources.append(source)
            if head < 0:
                head = len(faces) - 1
            elif compound:
                values[head] += value
            if not boom:
                break
            explosions += 1
            source = len(faces) - 1
            origin = FROM_IMPLOSION if implode else FROM_EXPLOSION | (FOLDED if compound else 0)
            face = _draw1(rng, sides)
    skip = REROLLED | FOLDED | DROPPED  # DROPPED: advantage dice set aside (adv_first)
    counted = [i for i, fl in enumerate(flags) if not fl & skip]
    if spec.reroll_add is not None:
        aa, ab = spec.reroll_add
        match = next((i for i in counted if aa <= faces[i] <= ab), None)
        if match is not None:
            face = _draw1(rng, sides)
            value = spec.clamp(face)
            flag = ADDED
            if value != face:
                flag |= CLAMPED_MIN if value > face else CLAMPED_MAX
            faces.append(face)
            values.append(value)
            flags.append(flag)
            sources.append(match)
            counted.append(len(faces) - 1)
    if spec.keep is not None:  # one highest/lowest keep or drop: a single sort
        k = spec.keep_n
        high = spec.keep in ("kh", "dh")
        order = sorted(
            counted, key=(lambda i: (-values[i], i)) if high else (lambda i: (values[i], i))
        )
        kept = order[:k] if spec.keep in ("kh", "kl") else order[k:]
    elif spec.selects:
        kept = select(counted, values, spec.selects)
    else:
        kept = counted
    if spec.selects:
        for i in counted:
            flags[i] |= DROPPED
        for i in kept:
            flags[i] ^= DROPPED | KEPT
    else:
        for i in kept:
            flags[i] |= KEPT
    if spec.counting:
        subtotal = 0
        for i in kept:
            score = spec.score(values[i])
            if score > 0:
                flags[i] |= SUCCESS
            elif score < 0:
                flags[i] |= FAILURE
            subtotal += score
    else:
        subtotal = sum(values[i] for i in kept)
    return TermResult(spec, tuple(faces), tuple(values), tuple(flags), tuple(sources), subtotal)


#: What each comparison of totals tests.
COMPARE: dict[str, Callable[[int, int], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}


def roll(expression: str | Expression, rng: random.Random) -> RollResult:
    """Roll ``expression`` with ``rng``; raise :class:`DiceError` if it is not valid."""
    expr = expression if isinstance(expression, Expression) else parse(expression)
    fast = expr.fast
    if fast is not None:
        term = _roll_term(fast[0], rng)
        return RollResult(expr, term.subtotal + fast[1], (term,))
    stack: list[int] = []
    terms: list[TermResult] = []
    sets: list[tuple[bool, ...]] = []
    compared: tuple[int, int] | None = None
    for op, arg in expr.eval_program:
        if op == DICE:
            assert isinstance(arg, DiceSpec)
            term = _roll_term(arg, rng)
            terms.append(term)
            stack.append(term.subtotal)
        elif op == CONST:
            assert isinstance(arg, int | float)
            stack.append(arg)  # type: ignore[arg-type]
        elif op == NEG:
            stack[-1] = -stack[-1]
        elif op == SET:
            assert isinstance(arg, SetSpec)
            items = stack[len(stack) - arg.size :]
            del stack[len(stack) - arg.size :]
            chosen = set(select(list(range(arg.size)), items, arg.selects))
            sets.append(tuple(i in chosen for i in range(arg.size)))
            stack.append(sum(arg.score(items[i]) for i in chosen))
        elif op == CMP:
            assert isinstance(arg, str)
            right = stack.pop()
            compared = (stack[-1], right)
            stack[-1] = int(COMPARE[arg](stack[-1], right))
        else:
            right = stack.pop()
            if op == ADD:
                stack[-1] += right
            elif op == SUB:
                stack[-1] -= right
            elif op == MUL:
                stack[-1] *= right
            elif op == DIV:
                if right == 0:  # unreachable: the parser refuses divisors that can be 0
                    raise DiceError("division by zero")
                stack[-1] //= right
            elif op == MOD:
                stack[-1] %= right  # the parser refuses divisors that can be 0
            elif op == TDIV:
                stack[-1] /= right  # type: ignore[call-overload]
    total = int(stack[-1]) if expr.truncate else stack[-1]
    return RollResult(expr, total, tuple(terms), tuple(sets), compared)
