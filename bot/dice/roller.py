"""Rolling a parsed expression: dice, modifiers, and the immutable result.

Randomness comes only from the injected ``rng``. A term's first dice come from one
``rng.randbytes(8 * count)`` call (one syscall with ``secrets.SystemRandom``); each reroll or
explosion then draws 8 more bytes. Each 8-byte little-endian word ``x`` gives the face
``x % sides + 1``, rejecting ``x >= 2**64 - 2**64 % sides`` so every face is exactly equally
likely.
"""

from __future__ import annotations

import random
import struct
from typing import Any, NamedTuple

from bot.dice.errors import DiceError
from bot.dice.limits import MAX_EXPLOSIONS
from bot.dice.parser import (
    ADD,
    CONST,
    DICE,
    DIV,
    LABEL,
    MUL,
    NEG,
    SUB,
    DiceSpec,
    Expression,
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
)

_TWO64 = 1 << 64
_LIMITS: dict[int, int] = {}


def _limit(sides: int) -> int:
    limit = _LIMITS.get(sides)
    if limit is None:
        limit = _LIMITS[sides] = _TWO64 - _TWO64 % sides
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
    """The immutable outcome of one roll: every die, every subtotal, the total."""

    parsed: Expression
    total: int
    terms: tuple[TermResult, ...]

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
        return {
            "expression": self.parsed.text,
            "total": self.total,
            "labels": list(self.parsed.labels),
            "comment": self.parsed.comment,
            "natural_20": self.natural_20,
            "natural_1": self.natural_1,
            "terms": terms,
        }


def _roll_term(spec: DiceSpec, rng: random.Random) -> TermResult:
    """Roll one dice term: rerolls, explosions, clamps, then keep/drop, then successes."""
    sides = spec.sides
    initial = _draw(rng, sides, spec.count)
    if spec.plain:
        return TermResult(spec, initial, initial, None, None, sum(initial))
    faces: list[int] = []
    values: list[int] = []
    flags: list[int] = []
    sources: list[int] = []
    ra, rb = spec.reroll if spec.reroll is not None else (1, 0)
    cap = spec.reroll_cap
    ea, eb = spec.explode if spec.explode is not None else (1, 0)
    lo = spec.min_face
    hi = spec.max_face
    for first in initial:
        face = first
        origin = 0
        source = -1
        explosions = 0
        while True:
            rerolls = 0
            while ra <= face <= rb and rerolls < cap:
                faces.append(face)
                values.append(face)
                flags.append(REROLLED | origin)
                sources.append(source)
                source = len(faces) - 1
                origin = (origin & FROM_EXPLOSION) | REPLACEMENT
                face = _draw1(rng, sides)
                rerolls += 1
            value = face
            flag = origin
            if lo is not None and value < lo:
                value = lo
                flag |= CLAMPED_MIN
            if hi is not None and value > hi:
                value = hi
                flag |= CLAMPED_MAX
            boom = ea <= face <= eb and explosions < MAX_EXPLOSIONS
            if boom:
                flag |= EXPLODED
            faces.append(face)
            values.append(value)
            flags.append(flag)
            sources.append(source)
            if not boom:
                break
            explosions += 1
            source = len(faces) - 1
            origin = FROM_EXPLOSION
            face = _draw1(rng, sides)
    counted = [i for i, fl in enumerate(flags) if not fl & REROLLED]
    if spec.keep is not None:
        k = spec.keep_n
        if spec.keep in ("kh", "dh"):
            order = sorted(counted, key=lambda i: (-values[i], i))
        else:
            order = sorted(counted, key=lambda i: (values[i], i))
        kept = order[:k] if spec.keep in ("kh", "kl") else order[k:]
        for i in order:
            flags[i] |= DROPPED
        for i in kept:
            flags[i] ^= DROPPED | KEPT
    else:
        kept = counted
        for i in kept:
            flags[i] |= KEPT
    if spec.success is not None:
        sa, sb = spec.success
        subtotal = 0
        for i in kept:
            if sa <= values[i] <= sb:
                flags[i] |= SUCCESS
                subtotal += 1
    else:
        subtotal = sum(values[i] for i in kept)
    return TermResult(spec, tuple(faces), tuple(values), tuple(flags), tuple(sources), subtotal)


def roll(expression: str | Expression, rng: random.Random) -> RollResult:
    """Roll ``expression`` with ``rng``; raise :class:`DiceError` if it is not valid."""
    expr = expression if isinstance(expression, Expression) else parse(expression)
    fast = expr.fast
    if fast is not None:
        term = _roll_term(fast[0], rng)
        return RollResult(expr, term.subtotal + fast[1], (term,))
    stack: list[int] = []
    terms: list[TermResult] = []
    for op, arg in expr.eval_program:
        if op == DICE:
            assert isinstance(arg, DiceSpec)
            term = _roll_term(arg, rng)
            terms.append(term)
            stack.append(term.subtotal)
        elif op == CONST:
            assert isinstance(arg, int)
            stack.append(arg)
        elif op == NEG:
            stack[-1] = -stack[-1]
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
    return RollResult(expr, stack[-1], tuple(terms))
