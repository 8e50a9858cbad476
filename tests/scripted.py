"""A random source that rolls exactly the d20s a rules test states."""

from __future__ import annotations

import random
from collections.abc import Iterable


class ScriptedRandom(random.Random):
    """A random source whose d20 rolls are the given sequence, and nothing else."""

    def __init__(self, rolls: Iterable[int]) -> None:
        super().__init__(0)
        self.rolls = list(rolls)

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 20), "only d20 rolls are scripted"
        assert self.rolls, "the rules rolled more dice than the script holds"
        return self.rolls.pop(0)
