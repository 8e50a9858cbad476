"""Fixtures for the dice engine tests: a hand-rolled copy of the documented draw procedure."""

from __future__ import annotations

import random
import struct
from collections.abc import Callable

import pytest

Draw = Callable[[random.Random, int, int], list[int]]


def _draw(rng: random.Random, sides: int, n: int) -> list[int]:
    """What docs/dice.md promises: one randbytes(8n), each little-endian word x -> x % s + 1.

    Rejection (x >= 2**64 - 2**64 % s) has probability below 1e-15; the tests assert it
    never happens for their seeds instead of reproducing it.
    """
    words = struct.unpack(f"<{n}Q", rng.randbytes(8 * n))
    limit = 2**64 - 2**64 % sides
    assert all(x < limit for x in words)
    return [x % sides + 1 for x in words]


@pytest.fixture
def draw() -> Draw:
    return _draw
