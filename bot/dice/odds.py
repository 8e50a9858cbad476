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
        cost += MAX_EXPLOSIONS * (explode[1] - explode[0] + 1) * slot_span + spec.sides
    return cost + slot_span * slot_span * n * n // 2 + n


def _power(slot: Weights, n: int) -> Weights:
    """Distribution of the sum of ``n`` independent copies of ``slot``."""
    acc: Weights = {0: 1}
    items = list(slot.items())
    for _ in range(n):
        out: Weights = {}
        get = out.get
        for ka, wa in acc.items():
            for kb, wb in items:
                k = ka + kb
                out[k] = get(k, 0) + wa * wb
        acc = out
    return acc


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


def odds_cost(expr: Expression) -> int:
    """Estimated steps :func:`exact_odds` would take (compared with ``MAX_ODDS_COST``)."""
    cost = 0
    sizes: list[tuple[int, int, int]] = []  # (lo, hi, support size) per stack entry
    for op, arg in expr.eval_program:
        if op == CONST:
            assert isinstance(arg, int)
            sizes.append((arg, arg, 1))
        elif op == DICE:
            assert isinstance(arg, DiceSpec)
            cost += _term_cost(arg)
            sizes.append((arg.minimum, arg.maximum, arg.maximum - arg.minimum + 1))
        elif op == NEG:
            lo, hi, size = sizes[-1]
            sizes[-1] = (-hi, -lo, size)
        else:
            blo, bhi, bsize = sizes.pop()
            alo, ahi, asize = sizes[-1]
            cost += asize * bsize
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
            sizes[-1] = (lo, hi, min(asize * bsize, hi - lo + 1))
        if cost > MAX_ODDS_COST:
            break
    return cost


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
            stack[-1] = _binary(op, stack[-1], b)
    dist = stack[-1]
    total = sum(dist.values())
    return tuple((k, Fraction(dist[k], total)) for k in sorted(dist))


def exact_odds(expression: str | Expression) -> dict[int, Fraction]:
    """P(total = k) for every reachable total k, exactly; DiceError if too costly."""
    expr = expression if isinstance(expression, Expression) else parse(expression)
    return dict(_odds(expr))
