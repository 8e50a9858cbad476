"""Exhaustive enumeration of every face sequence (the reference for exact odds and for peers'
meanings), forcing the engine's dice through the tests' one scripted source (tests/scripted.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from tests.scripted import Exhausted, ScriptedRandom


def enumerate_outcomes(
    run: Callable[[ScriptedRandom], Any], sides: int, max_dice: int = 12
) -> Counter[Any]:
    """Probability of each result of ``run`` over every sequence of fair ``sides``-sided
    faces (all dice the same size), extending a sequence one die at a time as rolls ask."""
    dist: Counter[Any] = Counter()
    stack: list[tuple[int, ...]] = [()]
    while stack:
        prefix = stack.pop()
        rng = ScriptedRandom(*prefix)
        try:
            outcome = run(rng)
        except Exhausted:
            if len(prefix) >= max_dice:
                raise AssertionError(f"more than {max_dice} dice") from None
            stack.extend((*prefix, f) for f in range(1, sides + 1))
            continue
        assert rng.used == len(prefix)
        dist[outcome] += Fraction(1, sides ** len(prefix))
    return dist
