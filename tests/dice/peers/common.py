"""What the peers corpus shares between building it and checking it: the forced dice."""

from __future__ import annotations

import random
import struct

#: Forced dice sequences per expression.
SEQUENCES = 4
#: Words per sequence: enough for the largest roll either engine makes of a corpus expression.
LENGTH = 1200


def words_for(peer: str, expr: str, k: int) -> list[int]:
    """The ``k``-th forced dice sequence for ``expr``: words below 2**62, so pbp-dice never
    rejects one (its rejection starts above 2**64 - 10,000)."""
    rng = random.Random(f"{peer}\x00{expr}\x00{k}")
    return [rng.getrandbits(62) for _ in range(LENGTH)]


class Words:
    """pbp-dice's random source answering with forced words (``randbytes`` is all it uses)."""

    def __init__(self, words: list[int]) -> None:
        self.words = words
        self.used = 0

    def randbytes(self, n: int) -> bytes:
        k = n // 8
        chunk = self.words[self.used : self.used + k]
        if len(chunk) < k:
            raise IndexError("out of forced dice")
        self.used += k
        return struct.pack(f"<{k}Q", *chunk)
