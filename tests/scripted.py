"""The tests' one scripted random source: the dice a test states, then nothing (or a seed).

``ScriptedRandom(17, 4)`` is strict: the next two dice show 17 and 4, and a third die fails
the test (the code rolled more than the test says). ``ScriptedRandom(seed=SEED)`` is what a
simulated bot gets: ``queue(17, 4)`` scripts its next dice, and unscripted ones come from the
seeded generator. ``ScriptedRandom(15, then=10)`` shows 15, then 10 on every later die.

A scripted face serves either way the code rolls: the rules' ``randint(a, b)`` (checked to lie
in ``a..b``), or the dice engine's ``randbytes`` draws, where the engine turns each 8-byte
little-endian word ``x`` into the face ``x % sides + 1`` (docs/dice.md, "Randomness"), so the
word ``face - 1`` forces ``face`` on any die with at least that many sides.

``WorldRandom(seed)`` keeps the two apart, for differential tests whose worlds roll different
numbers of dice: ``faces`` script only ``randint`` d20s, ``byte_faces`` only single dice of
the engine, so an extra die in one world never eats another world's scripted d20.
"""

from __future__ import annotations

import random
from collections import deque


class Exhausted(Exception):
    """The dice engine wanted more dice than were scripted (strict source)."""


class ScriptedRandom(random.Random):
    """A ``random.Random`` whose next dice are scripted; see the module docstring."""

    def __init__(self, *faces: int, seed: int | None = None, then: int | None = None) -> None:
        super().__init__(0 if seed is None else seed)
        #: Faces not rolled yet, in order.
        self.faces: deque[int] = deque(faces)
        #: Scripted faces rolled so far.
        self.used = 0
        #: The face of every ``randint`` die after the script (brought into its range), if any.
        self.then = then
        self.strict = seed is None and then is None

    def queue(self, *faces: int) -> None:
        """Script the next dice (after any still waiting)."""
        self.faces.extend(faces)

    def randint(self, a: int, b: int) -> int:
        if self.faces:
            face = self.faces.popleft()
            self.used += 1
            assert a <= face <= b, f"scripted {face} is not in {a}..{b}"
            return face
        assert not self.strict, "the code rolled more dice than the test scripted"
        if self.then is not None:
            return min(max(self.then, a), b)
        return super().randint(a, b)

    def randbytes(self, n: int) -> bytes:
        words = n // 8
        if len(self.faces) < words:
            if self.strict:
                raise Exhausted
            return super().randbytes(n)
        chunk = [self.faces.popleft() for _ in range(words)]
        self.used += words
        return b"".join((face - 1).to_bytes(8, "little") for face in chunk)


class WorldRandom(ScriptedRandom):
    """Seeded; the next d20s (``randint``, from ``faces``) and the next single dice of /roll
    (``randbytes``, from ``byte_faces``; see bot/dice/roller.py) are scripted apart."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed=seed)
        #: Faces of the engine's next single dice (8-byte draws), apart from ``faces``.
        self.byte_faces: deque[int] = deque()

    def randbytes(self, n: int) -> bytes:
        if self.byte_faces and n == 8:
            self.used += 1
            return (self.byte_faces.popleft() - 1).to_bytes(8, "little")
        return random.Random.randbytes(self, n)
