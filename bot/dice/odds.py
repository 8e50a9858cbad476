"""Exact probability distribution of an expression's total, for OUR roller.

Distributions are dicts of integer weights (exact, fast), turned into Fractions at the end.
Rerolls and explosions follow the same caps as rolling, so the odds are exact, not an
approximation of "infinite" explosions.

Cost is bounded twice (docs/dice.md, "Exact odds"). A static estimate from the parser's bounds
refuses the obviously huge for next to nothing. The guarantee is an :class:`OddsMeter`: every
operation (face tables, explosion levels, packing and unpacking, big-integer products and
powers, keep/drop states, pairwise mapping for ``*``, ``/`` and sparse sums, the final
Fractions) is charged *before* it runs, from the real sizes of its inputs, and the computation
is refused as soon as the total passes ``MAX_ODDS_COST`` steps of about 150 ns. The estimate
alone could be fooled (a division narrowing the range while a sparse sum inside was convolved
pair by pair).
"""

from __future__ import annotations

import functools
from fractions import Fraction
from math import log2

from bot.dice.errors import DiceError
from bot.dice.limits import MAX_ODDS_COST
from bot.dice.parser import (
    ADD,
    CMP,
    CONST,
    DICE,
    MOD,
    MUL,
    NEG,
    SET,
    SUB,
    DiceSpec,
    Expression,
    Op,
    Selection,
    SetSpec,
    parse,
    set_bounds,
)
from bot.dice.roller import COMPARE, select

Weights = dict[int, int]

_TOO_COSTLY = "too many combinations to compute exact odds"


class OddsMeter:
    """Steps of real work done so far; refuses (DiceError) once they would pass ``budget``.

    Callers charge an operation before doing it, so the work done never exceeds the budget:
    at most the refused operation's own charge goes over, and that operation never runs.
    ``precheck=False`` skips the static estimate, so the meter alone bounds the work (tests
    and bench/dice.py check that it does).
    """

    __slots__ = ("budget", "precheck", "used")

    def __init__(self, budget: int = MAX_ODDS_COST, *, precheck: bool = True) -> None:
        self.budget = budget
        self.precheck = precheck
        self.used = 0

    def charge(self, steps: int) -> None:
        self.used += steps
        if self.used > self.budget:
            raise DiceError(_TOO_COSTLY)


def _words(number: int) -> int:
    """Size of a big integer in 64-bit words (at least 1)."""
    return 1 + number.bit_length() // 64


def _product_steps(words_a: int, words_b: int) -> int:
    """Steps of one product of two big integers of these sizes, its result stored: schoolbook
    (measured about 4 ns per pair of words, so a margin of two) plus allocating and adding."""
    return 1 + (words_a + words_b) // 4 + words_a * words_b // 16


def _kronecker_steps(nbytes: int) -> int:
    """Steps of a big product or power whose result has ``nbytes`` bytes (Karatsuba, measured:
    about 0.5 ns x bytes**1.585 for a product, twice that for a power; rounded up)."""
    return 1 + int(nbytes**1.6 / 150)


def _fraction_steps(total: int) -> int:
    """Steps of one ``Fraction(weight, total)`` (its gcd is quadratic in the words)."""
    w = _words(total)
    return 8 + 3 * w + w * w // 4


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


def _contributions(spec: DiceSpec) -> list[int]:
    """What one counted die adds to the term for each natural face 1..sides (its value, 0 if
    a keep/drop by value removes it, or its successes): one comprehension a step, so the
    work per face stays what ``_term`` charges."""
    m = spec.sides
    if spec.fate:
        values = [-1, 0, 1]
    elif spec.tens:
        values = [10 * (f - 1) for f in range(1, m + 1)]
    else:
        low = 1 if spec.min_face is None else spec.min_face
        high = max(m, low) if spec.max_face is None else spec.max_face
        values = [min(max(f, low), high) for f in range(1, m + 1)]
    if spec.counting:
        s0, s1 = spec.success if spec.success is not None else (1, 0)
        f0, f1 = spec.failure if spec.failure is not None else (1, 0)
        scores = [(s0 <= v <= s1) - (f0 <= v <= f1) for v in values]
        for a, b in spec.more_successes:
            scores = [n + (a <= v <= b) for n, v in zip(scores, values, strict=True)]
    else:
        scores = values
    if spec.selects and spec.keep is None:  # one keep/drop by value (checked by _unsupported)
        action, sels = spec.selects[0]
        keep = action == "k"
        scores = [
            n if any(a <= v <= b for _, a, b in sels) is keep else 0
            for n, v in zip(scores, values, strict=True)
        ]
    return scores


@functools.lru_cache(maxsize=1024)
def _window_of(
    selects: tuple[Selection, ...], keep: str | None, keep_n: int, n: int
) -> tuple[int, int] | None:
    """The ranks ``[a, b)`` (0 = the highest die) that keep/drop by rank leave, or None.

    Any run of single highest/lowest/middle operations applied one after the other keeps a
    contiguous run of the sorted dice, whatever the ties (docs/dice.md, "Keep and drop"):
    found by running the roller's own ``select`` on distinct values. United selections are
    windows when what they leave is contiguous (Avrae's ``ph1pl1``; not ``kh1kl1``);
    selections by value never are.
    """
    if keep is not None:
        return {
            "kh": (0, keep_n),
            "kl": (n - keep_n, n),
            "dh": (keep_n, n),
            "dl": (0, n - keep_n),
        }[keep]
    if not selects or any(sel[0] == "v" for _, sels in selects for sel in sels):
        return None
    kept = select(list(range(n)), [n - i for i in range(n)], selects)
    if not kept or kept != list(range(kept[0], kept[-1] + 1)):
        return None
    return kept[0], kept[-1] + 1


def _window(spec: DiceSpec) -> tuple[int, int] | None:
    if spec.keep is None and not spec.selects:
        return None  # most terms: no keep/drop, no lookup
    return _window_of(spec.selects, spec.keep, spec.keep_n, spec.count)


def _chain(spec: DiceSpec, sides: int) -> tuple[int, int] | None:
    """The faces that add another die: exploding (``!``) or imploding (``im``) ones."""
    return _hits(spec.explode if spec.implode is None else spec.implode, sides)


def _unsupported(spec: DiceSpec) -> str | None:
    """Why exact odds cannot follow this term, or None."""
    if spec.implode is not None and (spec.counting or spec.selects):
        return "imploding dice (im) with keep/drop or successes"
    if spec.implode is not None and spec.explode is not None:
        return "dice that both explode and implode"
    if spec.adv_first is not None:
        return "advantage dice set aside before exploding"
    exploding = _chain(spec, spec.sides) is not None
    ranked = _window(spec) is not None
    if spec.selects and spec.keep is None and not ranked:
        by_value = len(spec.selects) == 1 and all(k == "v" for k, _, _ in spec.selects[0][1])
        if not by_value:
            return "united keeps (kh1kl1) or keep/drop mixing ranks and values"
        if exploding:
            return "exploding dice with keep/drop"
    if ranked and exploding:
        return "exploding dice with keep/drop"
    if spec.reroll_add is not None:
        return "reroll-and-add (ra)"
    if spec.explode_mode in ("compound", "both") and exploding and (spec.counting or spec.selects):
        return "compounding explosions with keep/drop or successes"
    return None


def _term_cost(spec: DiceSpec) -> int:
    """Upper estimate of the steps computing this term's distribution takes."""
    n = spec.count
    span = spec.maximum - spec.minimum + 1
    explode = _chain(spec, spec.sides)
    if _window(spec) is not None:
        return spec.sides * (n + 1) * span * (n + 1) // 2 + spec.sides
    slot_span = max(1, span // n)
    cost = spec.sides
    if explode is not None:
        cost += spec.explode_cap * ((explode[1] - explode[0] + 1) * slot_span + spec.sides)
    # The big-integer power is cheap; decoding its ``span`` digits is what costs.
    return cost + span * (1 + n.bit_length())


def _pack(weights: Weights, lo: int, span: int, nbytes: int) -> int:
    """Kronecker substitution: weights as the base-2**(8*nbytes) digits of one integer."""
    buf = bytearray(span * nbytes)
    for k, w in weights.items():
        i = (k - lo) * nbytes
        buf[i : i + nbytes] = w.to_bytes(nbytes, "little")
    return int.from_bytes(buf, "little")


def _pack_steps(weights: Weights, span: int, nbytes: int) -> int:
    """Steps of :func:`_pack` (measured: about 2 a weight, and 1 per 16 bytes of buffer)."""
    return 2 * len(weights) + span * nbytes // 16


def _unpack(number: int, lo: int, span: int, nbytes: int) -> Weights:
    raw = number.to_bytes(span * nbytes, "little")
    out: Weights = {}
    for i in range(span):
        w = int.from_bytes(raw[i * nbytes : (i + 1) * nbytes], "little")
        if w:
            out[lo + i] = w
    return out


def _unpack_steps(span: int, nbytes: int) -> int:
    """Steps of :func:`_unpack` (measured: about 2 a digit, more for long digits)."""
    return span * (2 + nbytes // 32)


def _total(weights: Weights, meter: OddsMeter) -> int:
    """Sum of the weights (the distribution's denominator)."""
    meter.charge(len(weights))
    total = sum(weights.values())
    meter.charge(len(weights) * _words(total) // 4)  # the additions, paid as they grew
    return total


def _power(slot: Weights, n: int, meter: OddsMeter) -> Weights:
    """Distribution of the sum of ``n`` independent copies of ``slot``.

    One big-integer power (Kronecker substitution): every coefficient of the result is at most
    ``sum(slot) ** n``, below 2**(8*nbytes - 1), so digits never carry into each other. The
    digit size comes from a logarithm with a bit to spare rather than the power itself.
    Packing, the power and unpacking are charged together before any of them starts.
    """
    if n == 1:  # one die: its slot already is the answer
        return slot
    lo, hi = min(slot), max(slot)
    nbytes = int(n * log2(_total(slot, meter)) + 2) // 8 + 1
    span = (hi - lo) * n + 1
    meter.charge(
        _pack_steps(slot, hi - lo + 1, nbytes)
        + _kronecker_steps(span * nbytes)
        + _unpack_steps(span, nbytes)
    )
    packed = _pack(slot, lo, hi - lo + 1, nbytes)
    return _unpack(packed**n, lo * n, span, nbytes)


def _add(a: Weights, b: Weights, meter: OddsMeter) -> Weights:
    """Distribution of the sum of two independent totals (Kronecker when dense enough)."""
    alo, ahi, blo, bhi = min(a), max(a), min(b), max(b)
    if (ahi - alo + 1) <= 4 * len(a) and (bhi - blo + 1) <= 4 * len(b):
        nbytes = (_total(a, meter) * _total(b, meter)).bit_length() // 8 + 1
        span = ahi - alo + bhi - blo + 1
        meter.charge(
            _pack_steps(a, ahi - alo + 1, nbytes)
            + _pack_steps(b, bhi - blo + 1, nbytes)
            + _kronecker_steps(span * nbytes) // 2  # a product: half a power's price
            + _unpack_steps(span, nbytes)
        )
        pa = _pack(a, alo, ahi - alo + 1, nbytes)
        pb = _pack(b, blo, bhi - blo + 1, nbytes)
        return _unpack(pa * pb, alo + blo, span, nbytes)
    return _binary(ADD, a, b, meter)


def _term(spec: DiceSpec, meter: OddsMeter) -> Weights:
    """Weights of one dice term's subtotal."""
    m = spec.sides
    meter.charge(5 * m)  # face weights, contributions, the slot (measured: about 3 a face)
    weights = _face_weights(spec)
    window = _window(spec)
    if window is not None:
        return _keep(spec, weights, window, meter)
    contrib = _contributions(spec)
    slot: Weights = {}
    for h, w in zip(contrib, weights, strict=True):
        slot[h] = slot.get(h, 0) + w
    explode = _chain(spec, m)
    implode = spec.implode is not None
    if explode is not None:
        denom = sum(weights)
        booms = explode[1] - explode[0] + 1
        power = 1  # denominator of ``slot`` relative to one roll, as levels stack up
        levels = spec.explode_cap
        penetrate = spec.explode_mode in ("penetrate", "both")
        if penetrate:  # every die below the first is an explosion's: one less
            contrib = [h - 1 for h in contrib]
            slot = {h - 1: w for h, w in slot.items()}
        first = contrib
        if implode:  # every die below the first is an implosion's: subtracted
            contrib = [-h for h in contrib]
            slot = {-h: w for h, w in slot.items()}
        for level in range(levels):
            if penetrate and level == levels - 1:
                contrib = [h + 1 for h in contrib]  # the first die is not an explosion's
            if implode and level == levels - 1:
                contrib = first
            power *= denom
            # One dict update and product per (exploding face, deeper entry) and per other
            # face (measured: about 2 steps each, plus the product).
            per_update = 2 + _product_steps(_words(power), _words(denom))
            meter.charge((m + booms * len(slot)) * per_update)
            deeper = slot
            slot = {}
            for f in range(1, m + 1):
                h, w = contrib[f - 1], weights[f - 1]
                if explode[0] <= f <= explode[1]:
                    for k, wk in deeper.items():
                        slot[h + k] = slot.get(h + k, 0) + w * wk
                else:
                    slot[h] = slot.get(h, 0) + w * power
    return _power(slot, spec.count, meter)


def _keep(spec: DiceSpec, weights: list[int], window: tuple[int, int], meter: OddsMeter) -> Weights:
    """Keep/drop by rank, by dynamic programming over the distinct values, best first: the
    dice ranked ``window[0]`` to ``window[1] - 1`` (0 = the highest) count."""
    n = spec.count
    by_value: dict[int, int] = {}
    values = (
        [f - 2 for f in (1, 2, 3)]
        if spec.fate
        else [spec.clamp(f) for f in range(1, spec.sides + 1)]
    )
    for v, w in zip(values, weights, strict=True):
        by_value[v] = by_value.get(v, 0) + w
    first, last = window
    # Every weight stays below sum(weights)**n: that bounds the size of each product. Each
    # inner step also builds a tuple key and updates a dict (measured: about 6 steps).
    big = 1 + n * sum(weights).bit_length() // 64
    per_inner = 7 + 2 * _product_steps(big, big)
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    for v in sorted(by_value, reverse=True):
        wv = by_value[v]
        h = spec.score(v) if spec.counting else v  # once per distinct value
        meter.charge(len(states))
        meter.charge(sum(n - j + 1 for j, _ in states) * per_inner)
        new: dict[tuple[int, int], int] = {}
        for (j, s), wt in states.items():
            rem = n - j
            pw = 1
            binom = 1  # comb(rem, c), updated in place: math.comb costs O(c) each time
            for c in range(rem + 1):
                # How many of these c dice fall in the kept ranks (no calls: a hot loop).
                top = j + c if j + c < last else last
                take = top - (j if j > first else first)
                if take < 0:
                    take = 0
                key = (j + c, s + take * h)
                new[key] = new.get(key, 0) + wt * binom * pw
                pw *= wv
                binom = binom * (rem - c) // (c + 1)
        states = new
    return {s: w for (j, s), w in states.items() if j == n}


_COMPARE = COMPARE


def _compare(op: str, a: Weights, b: Weights, meter: OddsMeter) -> Weights:
    """Pass (1) / fail (0) of ``a <op> b``, pair by pair."""
    per_pair = 3 + _product_steps(_words(_total(a, meter)), _words(_total(b, meter)))
    meter.charge(len(a) * len(b) * per_pair)
    holds = _COMPARE[op]
    out: Weights = {}
    for ka, wa in a.items():
        for kb, wb in b.items():
            k = int(holds(ka, kb))
            out[k] = out.get(k, 0) + wa * wb
    return out


def _set(spec: SetSpec, items: list[Weights], meter: OddsMeter) -> Weights:
    """A set's kept total, by enumerating every combination of its items' totals."""
    combos = 1
    for item in items:
        combos *= len(item)
        if combos > MAX_ODDS_COST:
            raise DiceError(_TOO_COSTLY)
    bits = sum(_words(_total(item, meter)) for item in items)
    meter.charge(combos * (10 + 4 * spec.size + bits))
    partial: dict[tuple[int, ...], int] = {(): 1}
    for item in items:
        partial = {(*key, k): w * wk for key, w in partial.items() for k, wk in item.items()}
    order = list(range(spec.size))
    result: Weights = {}
    for key, w in partial.items():
        total = sum(spec.score(key[i]) for i in select(order, key, spec.selects))
        result[total] = result.get(total, 0) + w
    return result


def _binary(op: Op, a: Weights, b: Weights, meter: OddsMeter) -> Weights:
    """Pair by pair: ``*``, ``/``, and sums too sparse for Kronecker substitution."""
    # Each pair: a key, a dict update and a product (measured: about 3 steps and the product).
    per_pair = 3 + _product_steps(_words(_total(a, meter)), _words(_total(b, meter)))
    meter.charge(len(a) * len(b) * per_pair)
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
            elif op == MOD:
                k = ka % kb
            else:
                k = ka // kb
            out[k] = get(k, 0) + wa * wb
    return out


def _term_bits(spec: DiceSpec) -> int:
    """Bits of the term's total weight (the exact denominator before reduction)."""
    per_roll = (1 + (spec.reroll_cap if _hits(spec.reroll, spec.sides) else 0)) * max(
        1, spec.sides.bit_length()
    )
    levels = 1 + (spec.explode_cap if _chain(spec, spec.sides) else 0)
    return spec.count * levels * per_roll


#: What :func:`_binary` and :func:`_compare` meter for each pair of totals at the least: a key,
#: a dict update and the product (3 steps and 1). The estimate once counted 1 a pair, and so
#: priced a division or product by a large die 3-4 times below the work it metered.
_PER_PAIR = 4


def odds_cost(expr: Expression) -> int:
    """Estimated steps :func:`exact_odds` would take (compared with ``MAX_ODDS_COST``).

    Each step is roughly 150 ns; big weights (many dice, rerolls, explosions) scale steps by
    their size in 64-bit words, and every reachable total costs 30 steps to become a Fraction.
    """
    if expr.truncate:
        return MAX_ODDS_COST + 1  # refused: decimals
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
        elif op == SET:
            assert isinstance(arg, SetSpec)
            items = stack[len(stack) - arg.size :]
            del stack[len(stack) - arg.size :]
            combos = 1
            for item in items:
                combos = min(combos * item[2], MAX_ODDS_COST + 1)
            bits = sum(item[3] for item in items)
            cost += combos * (10 + 4 * arg.size) * (1 + bits // 64)
            if arg.success is not None:
                lo, hi = -arg.size, arg.size
            else:
                lo, hi = set_bounds(arg.selects, [(item[0], item[1]) for item in items])
            stack.append((lo, hi, min(combos, hi - lo + 1), bits))
        elif op == CMP:
            bsize, abits = stack.pop()[2], stack[-1][3]
            asize = stack[-1][2]
            cost += asize * bsize * _PER_PAIR * (1 + abits // 64)
            stack[-1] = (0, 1, 2, abits)
        else:
            blo, bhi, bsize, bbits = stack.pop()
            alo, ahi, asize, abits = stack[-1]
            bits = abits + bbits
            steps = asize + bsize if op in (ADD, SUB) else asize * bsize * _PER_PAIR
            cost += steps * (1 + bits // 64)
            if op == ADD:
                lo, hi = alo + blo, ahi + bhi
            elif op == SUB:
                lo, hi = alo - bhi, ahi - blo
            else:
                corners: tuple[int, ...]
                if op == MOD:
                    corners = (0, bhi - 1) if blo > 0 else (blo + 1, 0)
                elif op == MUL:
                    corners = (alo * blo, alo * bhi, ahi * blo, ahi * bhi)
                else:
                    corners = (alo // blo, alo // bhi, ahi // blo, ahi // bhi)
                lo, hi = min(corners), max(corners)
            stack[-1] = (lo, hi, min(asize * bsize, hi - lo + 1), bits)
        if cost > MAX_ODDS_COST:
            return cost
    _, _, size, bits = stack[-1]
    return cost + size * 30 * (1 + bits // 64)


def _compute(expr: Expression, meter: OddsMeter) -> tuple[tuple[int, Fraction], ...]:
    """The exact distribution, every operation charged to ``meter`` before it runs."""
    if expr.truncate:
        raise DiceError("exact odds are not available for decimals or Avrae's `/`")
    for _, arg in expr.eval_program:
        if isinstance(arg, DiceSpec) and (why := _unsupported(arg)) is not None:
            raise DiceError(f"exact odds are not available for {why}")
    # The static estimate: a few steps an instruction, and it refuses the obviously huge
    # before any real work.
    if meter.precheck:
        meter.charge(5 * len(expr.eval_program))
        if odds_cost(expr) > meter.budget:
            raise DiceError(_TOO_COSTLY)
    stack: list[Weights] = []
    for op, arg in expr.eval_program:
        meter.charge(1)
        if op == CONST:
            assert isinstance(arg, int)
            stack.append({arg: 1})
        elif op == DICE:
            assert isinstance(arg, DiceSpec)
            stack.append(_term(arg, meter))
        elif op == NEG:
            meter.charge(len(stack[-1]))
            stack[-1] = {-k: w for k, w in stack[-1].items()}
        elif op == SET:
            assert isinstance(arg, SetSpec)
            items = stack[len(stack) - arg.size :]
            del stack[len(stack) - arg.size :]
            stack.append(_set(arg, items, meter))
        elif op == CMP:
            assert isinstance(arg, str)
            b = stack.pop()
            stack[-1] = _compare(arg, stack[-1], b, meter)
        else:
            b = stack.pop()
            if op == ADD:
                stack[-1] = _add(stack[-1], b, meter)
            elif op == SUB:
                meter.charge(len(b))
                stack[-1] = _add(stack[-1], {-k: w for k, w in b.items()}, meter)
            else:
                stack[-1] = _binary(op, stack[-1], b, meter)
    dist = stack[-1]
    total = _total(dist, meter)
    meter.charge(len(dist) * (4 + _fraction_steps(total)))
    return tuple((k, Fraction(dist[k], total)) for k in sorted(dist))


@functools.lru_cache(maxsize=256)
def _odds(expr: Expression) -> tuple[tuple[int, Fraction], ...] | str:
    """Cached result, or the refusal: a refused expression repeated costs nothing again."""
    try:
        return _compute(expr, OddsMeter())
    except DiceError as error:
        return str(error)


def exact_odds(expression: str | Expression, meter: OddsMeter | None = None) -> dict[int, Fraction]:
    """P(total = k) for every reachable total k, exactly; DiceError if too costly.

    With ``meter`` (tests, benchmarks) the work is done afresh and charged to it; otherwise
    results and refusals are cached and the budget is ``MAX_ODDS_COST``.
    """
    expr = expression if isinstance(expression, Expression) else parse(expression)
    if meter is not None:
        return dict(_compute(expr, meter))
    found = _odds(expr)
    if isinstance(found, str):
        raise DiceError(found)
    return dict(found)
