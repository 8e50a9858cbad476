"""Exact probability distribution of an expression's total, for OUR roller.

Distributions are dicts of integer weights (exact, fast), turned into Fractions at the end.
Rerolls and explosions follow the same caps as rolling, so the odds are exact, not an
approximation of "infinite" explosions. Before computing anything, the cost is estimated from
the static bounds; anything over ``MAX_ODDS_COST`` steps (about 50 ms) is refused.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from math import comb

from bot.dice.errors import DiceError
from bot.dice.limits import MAX_EXPLOSIONS, MAX_ODDS_COST
from bot.dice.parser import ADD, CONST, DICE, MUL, NEG, SUB, DiceSpec, Expression, parse

Weights = dict[int, int]

_TOO_COSTLY = "too many combinations to compute exact odds"


def _hits(interval: tuple[int, int] | None, sides: int) -> tuple[int, int] | None:
    """The interval clipped to the faces 1..sides, or None if it holds no face."""
    if interval is None:
        return None
    lo, hi = max(interval[0], 1), min(interval[1], sides)
    return (lo, hi) if lo <= hi else None


def _face_weights(spec: DiceSpec) -> list[int]:
    """Weight of each final face (index face-1) of one roll, rerolls included."""
    m = spec.sides
    reroll = _hits(spec.reroll, m)
    if reroll is None:
        return [1] * m
    c = reroll[1] - reroll[0] + 1
    r = spec.reroll_cap
    base = sum(c**i * m ** (r - i) for i in range(r))
    tail = c**r
    return [(tail if reroll[0] <= f <= reroll[1] else base + tail) for f in range(1, m + 1)]


def _contribution(spec: DiceSpec, face: int) -> int:
    """What one counted die with this natural face adds to the term (value, or 0/1 success)."""
    value = spec.clamp(face)
    if spec.success is None:
        return value
    return 1 if spec.success[0] <= value <= spec.success[1] else 0


def _term_cost(spec: DiceSpec) -> int:
    """Upper estimate of the steps computing this term's distribution takes."""
    n = spec.count
    span = spec.maximum - spec.minimum + 1
    explode = _hits(spec.explode, spec.sides)
    if spec.keep is not None:
        if explode is not None:
            return MAX_ODDS_COST + 1  # variable-size pools: not supported
        return spec.sides * (n + 1) * span * (n + 1) // 2 + spec.sides
    slot_span = max(1, span // n)
    cost = spec.sides
    if explode is not None:
        cost += MAX_EXPLOSIONS * ((explode[1] - explode[0] + 1) * slot_span + spec.sides)
    # The big-integer power is cheap; decoding its ``span`` digits is what costs.
    return cost + span * (1 + n.bit_length())


def _pack(weights: Weights, lo: int, span: int, nbytes: int) -> int:
    """Kronecker substitution: weights as the base-2**(8*nbytes) digits of one integer."""
    buf = bytearray(span * nbytes)
    for k, w in weights.items():
        i = (k - lo) * nbytes
        buf[i : i + nbytes] = w.to_bytes(nbytes, "little")
    return int.from_bytes(buf, "little")


def _unpack(number: int, lo: int, span: int, nbytes: int) -> Weights:
    raw = number.to_bytes(span * nbytes, "little")
    out: Weights = {}
    for i in range(span):
        w = int.from_bytes(raw[i * nbytes : (i + 1) * nbytes], "little")
        if w:
            out[lo + i] = w
    return out


def _power(slot: Weights, n: int) -> Weights:
    """Distribution of the sum of ``n`` independent copies of ``slot``.

    One big-integer power (Kronecker substitution): every coefficient of the result is below
    ``sum(slot) ** n``, so digits of that many bits never carry into each other.
    """
    lo, hi = min(slot), max(slot)
    nbytes = (sum(slot.values()) ** n).bit_length() // 8 + 1
    packed = _pack(slot, lo, hi - lo + 1, nbytes)
    return _unpack(packed**n, lo * n, (hi - lo) * n + 1, nbytes)


def _add(a: Weights, b: Weights) -> Weights:
    """Distribution of the sum of two independent totals (Kronecker when dense enough)."""
    alo, ahi, blo, bhi = min(a), max(a), min(b), max(b)
    if (ahi - alo + 1) <= 4 * len(a) and (bhi - blo + 1) <= 4 * len(b):
        nbytes = (sum(a.values()) * sum(b.values())).bit_length() // 8 + 1
        pa = _pack(a, alo, ahi - alo + 1, nbytes)
        pb = _pack(b, blo, bhi - blo + 1, nbytes)
        return _unpack(pa * pb, alo + blo, ahi - alo + bhi - blo + 1, nbytes)
    return _binary(ADD, a, b)


def _term(spec: DiceSpec) -> Weights:
    """Weights of one dice term's subtotal."""
    m = spec.sides
    weights = _face_weights(spec)
    contrib = [_contribution(spec, f) for f in range(1, m + 1)]
    if spec.keep is not None:
        return _keep(spec, weights)
    slot: Weights = {}
    for h, w in zip(contrib, weights, strict=True):
        slot[h] = slot.get(h, 0) + w
    explode = _hits(spec.explode, m)
    if explode is not None:
        denom = sum(weights)
        power = 1  # denominator of ``slot`` relative to one roll, as levels stack up
        for _ in range(MAX_EXPLOSIONS):
            power *= denom
            deeper = slot
            slot = {}
            for f in range(1, m + 1):
                h, w = contrib[f - 1], weights[f - 1]
                if explode[0] <= f <= explode[1]:
                    for k, wk in deeper.items():
                        slot[h + k] = slot.get(h + k, 0) + w * wk
                else:
                    slot[h] = slot.get(h, 0) + w * power
    return _power(slot, spec.count)


def _keep(spec: DiceSpec, weights: list[int]) -> Weights:
    """Keep/drop by dynamic programming over the distinct values, best first."""
    n = spec.count
    by_value: dict[int, int] = {}
    for f in range(1, spec.sides + 1):
        v = spec.clamp(f)
        by_value[v] = by_value.get(v, 0) + weights[f - 1]
    highest_first = spec.keep in ("kh", "dl")
    kept = spec.keep_n if spec.keep in ("kh", "kl") else n - spec.keep_n
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    for v in sorted(by_value, reverse=highest_first):
        wv = by_value[v]
        h = v
        if spec.success is not None:
            h = 1 if spec.success[0] <= v <= spec.success[1] else 0
        new: dict[tuple[int, int], int] = {}
        for (j, s), wt in states.items():
            rem = n - j
            pw = 1
            for c in range(rem + 1):
                take = min(c, kept - j) if kept > j else 0
                key = (j + c, s + take * h)
                new[key] = new.get(key, 0) + wt * comb(rem, c) * pw
                pw *= wv
        states = new
    return {s: w for (j, s), w in states.items() if j == n}


def _binary(op: int, a: Weights, b: Weights) -> Weights:
    out: Weights = {}
    get = out.get
    for ka, wa in a.items():
        for kb, wb in b.items():
            if op == ADD:
                k = ka + kb
            elif op == SUB:
                k = ka - kb
            elif op == MUL:
                k = ka * kb
            else:
                k = ka // kb
            out[k] = get(k, 0) + wa * wb
    return out


def _term_bits(spec: DiceSpec) -> int:
    """Bits of the term's total weight (the exact denominator before reduction)."""
    per_roll = (1 + (spec.reroll_cap if _hits(spec.reroll, spec.sides) else 0)) * max(
        1, spec.sides.bit_length()
    )
    levels = 1 + (MAX_EXPLOSIONS if _hits(spec.explode, spec.sides) else 0)
    return spec.count * levels * per_roll


def odds_cost(expr: Expression) -> int:
    """Estimated steps :func:`exact_odds` would take (compared with ``MAX_ODDS_COST``).

    Each step is roughly 150 ns; big weights (many dice, rerolls, explosions) scale steps by
    their size in 64-bit words, and every reachable total costs 30 steps to become a Fraction.
    """
    cost = 0
    stack: list[tuple[int, int, int, int]] = []  # (lo, hi, support size, weight bits)
    for op, arg in expr.eval_program:
        if op == CONST:
            assert isinstance(arg, int)
            stack.append((arg, arg, 1, 0))
        elif op == DICE:
            assert isinstance(arg, DiceSpec)
            bits = _term_bits(arg)
            cost += _term_cost(arg) * (1 + bits // 64)
            stack.append((arg.minimum, arg.maximum, arg.maximum - arg.minimum + 1, bits))
        elif op == NEG:
            lo, hi, size, bits = stack[-1]
            stack[-1] = (-hi, -lo, size, bits)
        else:
            blo, bhi, bsize, bbits = stack.pop()
            alo, ahi, asize, abits = stack[-1]
            bits = abits + bbits
            steps = asize + bsize if op in (ADD, SUB) else asize * bsize
            cost += steps * (1 + bits // 64)
            if op == ADD:
                lo, hi = alo + blo, ahi + bhi
            elif op == SUB:
                lo, hi = alo - bhi, ahi - blo
            else:
                if op == MUL:
                    corners = (alo * blo, alo * bhi, ahi * blo, ahi * bhi)
                else:
                    corners = (alo // blo, alo // bhi, ahi // blo, ahi // bhi)
                lo, hi = min(corners), max(corners)
            stack[-1] = (lo, hi, min(asize * bsize, hi - lo + 1), bits)
        if cost > MAX_ODDS_COST:
            return cost
    _, _, size, bits = stack[-1]
    return cost + size * 30 * (1 + bits // 64)


@functools.lru_cache(maxsize=256)
def _odds(expr: Expression) -> tuple[tuple[int, Fraction], ...]:
    for _, arg in expr.eval_program:
        if isinstance(arg, DiceSpec) and arg.keep is not None and _hits(arg.explode, arg.sides):
            raise DiceError("exact odds are not available for exploding dice with keep/drop")
    if odds_cost(expr) > MAX_ODDS_COST:
        raise DiceError(_TOO_COSTLY)
    stack: list[Weights] = []
    for op, arg in expr.eval_program:
        if op == CONST:
            assert isinstance(arg, int)
            stack.append({arg: 1})
        elif op == DICE:
            assert isinstance(arg, DiceSpec)
            stack.append(_term(arg))
        elif op == NEG:
            stack[-1] = {-k: w for k, w in stack[-1].items()}
        else:
            b = stack.pop()
            if op == ADD:
                stack[-1] = _add(stack[-1], b)
            elif op == SUB:
                stack[-1] = _add(stack[-1], {-k: w for k, w in b.items()})
            else:
                stack[-1] = _binary(op, stack[-1], b)
    dist = stack[-1]
    total = sum(dist.values())
    return tuple((k, Fraction(dist[k], total)) for k in sorted(dist))


def exact_odds(expression: str | Expression) -> dict[int, Fraction]:
    """P(total = k) for every reachable total k, exactly; DiceError if too costly."""
    expr = expression if isinstance(expression, Expression) else parse(expression)
    return dict(_odds(expr))
