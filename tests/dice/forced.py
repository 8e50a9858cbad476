"""Forced dice for the engine: a random source that yields chosen faces, and exhaustive
enumeration of every face sequence (the reference for exact odds and for peers' meanings).

The engine turns each 8-byte little-endian word ``x`` into the face ``x % sides + 1``
(docs/dice.md, "Randomness"), so the word ``face - 1`` forces ``face`` on any die with at
least that many sides.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any


class Exhausted(Exception):
    """The roll wanted more dice than were forced."""


class Forced:
    """Yields the given faces in order to the engine's ``randbytes`` draws."""

    def __init__(self, faces: Sequence[int]) -> None:
        self.faces = list(faces)
        self.used = 0

    def randbytes(self, n: int) -> bytes:
        k = n // 8
        if self.used + k > len(self.faces):
            raise Exhausted
        chunk = self.faces[self.used : self.used + k]
        self.used += k
        return b"".join((f - 1).to_bytes(8, "little") for f in chunk)


def enumerate_outcomes(
    run: Callable[[Forced], Any], sides: int, max_dice: int = 12
) -> Counter[Any]:
    """Probability of each result of ``run`` over every sequence of fair ``sides``-sided
    faces (all dice the same size), extending a sequence one die at a time as rolls ask."""
    dist: Counter[Any] = Counter()
    stack: list[tuple[int, ...]] = [()]
    while stack:
        prefix = stack.pop()
        rng = Forced(prefix)
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
