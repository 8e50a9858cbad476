"""Bounded exact odds (docs/dice.md, "Exact odds"): the work meter refuses whatever would cost more
than the budget, for every expression, and whatever it accepts is still exact.

Speed itself is measured in bench/dice.py, never asserted here.
"""

from __future__ import annotations

import functools
import random
import sys
from collections import Counter
from fractions import Fraction
from types import FrameType
from typing import Any

import pytest

from bot.dice import DiceError, exact_odds, parse, roll
from bot.dice.limits import MAX_EXPLOSIONS, MAX_ODDS_COST
from bot.dice.odds import OddsMeter
from bot.dice.parser import ADD, CONST, DICE, MUL, NEG, SUB, DiceSpec, Expression
from tests.dice.odds_corpus import KNOWN_BAD, odds_corpus

TOO_COSTLY = "too many combinations to compute exact odds"
REFUSALS = (TOO_COSTLY, "exact odds are not available for exploding dice with keep/drop")
CORPUS = odds_corpus()

Dist = dict[int, Fraction]


class _Exhausted(Exception):
    """The reference evaluation would not be cheap: skip the comparison."""


class _Reference:
    """A naive, independent evaluation of the roller's rules with Fractions, within a cap."""

    def __init__(self, cap: int = 200_000) -> None:
        self.left = cap

    def spend(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise _Exhausted

    def faces(self, spec: DiceSpec) -> Dist:
        """Final natural face of one roll, applying the rerolls one at a time."""
        m = spec.sides
        self.spend(m * (1 + spec.reroll_cap))
        dist = {f: Fraction(1, m) for f in range(1, m + 1)}
        for _ in range(spec.reroll_cap):
            assert spec.reroll is not None
            lo, hi = spec.reroll
            new: Counter[int] = Counter()
            for f, p in dist.items():
                if lo <= f <= hi:
                    for g in range(1, m + 1):
                        new[g] += p / m
                else:
                    new[f] += p
            dist = dict(new)
        return dist

    @staticmethod
    def counts(spec: DiceSpec, value: int) -> int:
        if spec.success is None:
            return value
        return int(spec.success[0] <= value <= spec.success[1])

    def slot(self, spec: DiceSpec, faces: Dist) -> Dist:
        """What one die position adds, following its explosion chain to the cap."""
        chain: Dist = {}
        for level in range(MAX_EXPLOSIONS, -1, -1):
            out: Counter[int] = Counter()
            for f, p in faces.items():
                h = self.counts(spec, spec.clamp(f))
                boom = spec.explode is not None and spec.explode[0] <= f <= spec.explode[1]
                if boom and level < MAX_EXPLOSIONS:
                    self.spend(len(chain))
                    for k, q in chain.items():
                        out[h + k] += p * q
                else:
                    out[h] += p
            chain = dict(out)
        return chain

    def combine(self, op: int, a: Dist, b: Dist) -> Dist:
        self.spend(len(a) * len(b))
        out: Counter[int] = Counter()
        for ka, pa in a.items():
            for kb, pb in b.items():
                if op == ADD:
                    k = ka + kb
                elif op == SUB:
                    k = ka - kb
                elif op == MUL:
                    k = ka * kb
                else:
                    k = ka // kb
                out[k] += pa * pb
        return dict(out)

    def term(self, spec: DiceSpec) -> Dist:
        faces = self.faces(spec)
        if spec.keep is None:
            one = self.slot(spec, faces)
            total: Dist = {0: Fraction(1)}
            for _ in range(spec.count):
                total = self.combine(ADD, total, one)
            return total
        # Keep/drop: every ordered outcome of the pool, sorted as the roller sorts it.
        self.spend(len(faces) ** spec.count * spec.count)
        out: Counter[int] = Counter()
        pool: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
        for _ in range(spec.count):
            pool = [([*vs, spec.clamp(f)], p * q) for vs, p in pool for f, q in faces.items()]
        for values, p in pool:
            ordered = sorted(values, reverse=spec.keep in ("kh", "dh"))
            n = spec.keep_n
            kept = ordered[:n] if spec.keep in ("kh", "kl") else ordered[n:]
            out[sum(self.counts(spec, v) for v in kept)] += p
        return dict(out)

    def odds(self, expr: Expression) -> Dist:
        stack: list[Dist] = []
        for op, arg in expr.eval_program:
            if op == CONST:
                assert isinstance(arg, int)
                stack.append({arg: Fraction(1)})
            elif op == DICE:
                assert isinstance(arg, DiceSpec)
                stack.append(self.term(arg))
            elif op == NEG:
                stack[-1] = {-k: p for k, p in stack[-1].items()}
            else:
                b = stack.pop()
                stack[-1] = self.combine(op, stack[-1], b)
        return {k: p for k, p in stack[-1].items() if p}


@functools.cache
def reference_odds(expr: Expression) -> Dist | None:
    """The naive distribution, or None when computing it would not be cheap (kept: the
    corpus test and its guard below both ask)."""
    try:
        return _Reference().odds(expr)
    except _Exhausted:
        return None


def test_the_known_slow_expression_is_refused() -> None:
    # About 250 ms of event loop before: the static estimate saw only the narrow range after
    # the division, while the sparse sum inside was convolved pair by pair.
    with pytest.raises(DiceError) as info:
        exact_odds("(1d1000*5+1d1000)/10000")
    assert str(info.value) == TOO_COSTLY


@pytest.mark.parametrize(
    "expression", [*KNOWN_BAD[:5], "((2d20rr<5e20-(3d12dl1<6*285d3))/100000006)"]
)
def test_division_no_longer_hides_an_expensive_inner_part(expression: str) -> None:
    # The last one was found by the fuzzed corpus: 161 ms before.
    with pytest.raises(DiceError, match=TOO_COSTLY):
        exact_odds(expression)


def test_a_refusal_is_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    # Repeating a refused expression must not redo up to a budget of work each time.
    from bot.dice import odds

    runs = 0
    compute = odds._compute

    def counted(expr: Expression, meter: OddsMeter) -> Any:
        nonlocal runs
        runs += 1
        return compute(expr, meter)

    monkeypatch.setattr(odds, "_compute", counted)
    expr = parse("(1d1000*5+1d1000*7)/10000 [remembered]")
    for _ in range(3):
        with pytest.raises(DiceError, match=TOO_COSTLY):
            exact_odds(expr)
    assert runs == 1


def test_the_corpus_is_deterministic_and_legal() -> None:
    assert odds_corpus() == CORPUS
    assert odds_corpus(seed=16) != CORPUS
    assert len(set(CORPUS)) == len(CORPUS)
    for text in CORPUS:
        parse(text)  # every expression is one a player may type


def _sample_check(expr: Expression, odds: Dist, seed: int) -> None:
    """Rolls land only on totals with odds, and their mean sits within 6 standard errors."""
    rng = random.Random(seed)
    n = 200
    totals = [roll(expr, rng).total for _ in range(n)]
    assert all(odds.get(t, 0) > 0 for t in totals)
    mean = sum(k * p for k, p in odds.items())
    var = sum((k - mean) ** 2 * p for k, p in odds.items())
    assert (Fraction(sum(totals), n) - mean) ** 2 <= 36 * var / n


@pytest.mark.parametrize("index", range(len(CORPUS)))
def test_corpus_odds_are_exact_or_refused(index: int) -> None:
    text = CORPUS[index]
    expr = parse(text)
    try:
        odds = exact_odds(expr)
    except DiceError as error:
        assert str(error) in REFUSALS
        return
    assert sum(odds.values()) == 1
    assert all(p > 0 for p in odds.values())
    assert expr.minimum <= min(odds) and max(odds) <= expr.maximum
    expected = reference_odds(expr)
    if expected is not None:
        assert odds == expected
    _sample_check(expr, odds, index)


def test_the_reference_is_used_on_a_good_part_of_the_corpus() -> None:
    # Guard against the comparison above silently never running.
    compared = 0
    for text in CORPUS:
        expr = parse(text)
        try:
            exact_odds(expr)
        except DiceError:
            continue
        compared += reference_odds(expr) is not None
    assert compared >= 40


class _Recording(OddsMeter):
    """A meter that remembers the work it let through (``used`` minus any refused charge)."""

    __slots__ = ("done",)

    def __init__(self, budget: int, precheck: bool) -> None:
        super().__init__(budget, precheck=precheck)
        self.done = 0

    def charge(self, steps: int) -> None:
        super().charge(steps)
        self.done = self.used


def _lines_executed(expr: Expression, meter: OddsMeter) -> int:
    """Python lines run while computing the odds, in any module (Fraction's included)."""
    lines = 0
    this_file = __file__

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal lines
        if frame.f_code.co_filename == this_file:
            return None  # the recording meter's own lines are not the engine's work
        if event == "line":
            lines += 1
        return tracer

    sys.settrace(tracer)
    try:
        exact_odds(expr, meter)
    except DiceError as error:
        assert str(error) in REFUSALS
    finally:
        sys.settrace(None)
    return lines


#: Python lines one charged step may stand for (the corpus needs under 2). Big-integer
#: arithmetic runs inside single lines and is charged by its size instead (bench/dice.py
#: measures it). A few hundred lines are fixed overhead: the call, the cache, the refusal.
LINES_PER_STEP = 3
OVERHEAD_LINES = 500


@pytest.mark.parametrize(
    ("budget", "precheck"),
    [(MAX_ODDS_COST, True), (20_000, False)],
    ids=["as-served", "meter-alone"],
)
def test_the_meter_bounds_the_work_done_on_the_whole_corpus(budget: int, precheck: bool) -> None:
    # Without the static pre-check every expression reaches the meter: it alone must hold.
    busiest = 0
    for text in CORPUS:
        expr = parse(text)
        meter = _Recording(budget, precheck)
        lines = _lines_executed(expr, meter)
        # Charged before it runs: work let through never passes the budget, the refused
        # operation (the one step over) never starts.
        assert meter.done <= budget, text
        assert lines <= LINES_PER_STEP * meter.done + OVERHEAD_LINES, (text, lines, meter.done)
        busiest = max(busiest, meter.done)
    assert busiest > budget // 2  # the corpus does reach the budget


def test_the_default_budget_is_the_documented_one() -> None:
    meter = OddsMeter()
    assert meter.budget == MAX_ODDS_COST
    with pytest.raises(DiceError, match=TOO_COSTLY):
        meter.charge(MAX_ODDS_COST + 1)
