"""Provably fair dice: every face derived from a committed server seed and the player's seed.

The roller (bot/dice/roller.py) takes 8-byte little-endian words from ``rng.randbytes`` and
turns each word ``x`` into a face with rejection sampling (``x < 2**64 - 2**64 % sides`` kept,
else the next word), so no face is favoured. :class:`FairRandom` is a ``random.Random`` whose
byte stream is::

    block(j) = HMAC-SHA256(key=server seed,
                           msg=DOMAIN | scope | roll number | player key | blinding | j)

where the fields are length-prefixed (see :func:`message`), and the stream is ``block(0) ||
block(1) || ...``: word ``k`` (the k-th die the roll draws, rejections included, in the
engine's documented order) is bytes ``8k .. 8k+8`` of it. Given the revealed server seed and
the roll's recorded inputs, anyone recomputes every face (docs/fair-dice.md; the stand-alone
tools/verify_fair.py does it with the standard library only).

Pure: no I/O, no clock; the seeds come from the caller.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
import struct
from collections.abc import Iterator, Sequence
from typing import Any

#: Versioned domain tag: a later derivation gets a new tag, never a new meaning for this one.
DOMAIN = b"pbp-dice/fair/v1"
#: Tag of the player key: ``SHA-256(PLAYER_DOMAIN | player seed text)``.
PLAYER_DOMAIN = b"pbp-dice/player-seed/v1"
#: The tag of a seedless player's key (:func:`no_seed_key`).
NO_SEED_DOMAIN = b"pbp-dice/no-seed/v1"
#: Tag of a player's key in one scope: ``HMAC(player key, SCOPE_DOMAIN | scope)``.
SCOPE_DOMAIN = b"pbp-dice/player-scope/v1"
#: Tag of a hidden roll's blinding value: ``HMAC(hidden key, BLIND_DOMAIN | scope | number)``.
BLIND_DOMAIN = b"pbp-dice/blind/v1"
SEED_BYTES = 32
_WORD = 8
_BLOCK = 32
_TWO64 = 1 << 64
_FATE = re.compile(r"d\s*F", re.IGNORECASE)


def seed_hash(seed: bytes) -> str:
    """The published commitment to a server seed: its SHA-256, in hex."""
    return hashlib.sha256(seed).hexdigest()


def player_key(text: str) -> bytes:
    """The key a player's seed text enters the derivation as. Only this digest is recorded
    with a roll, so erasing the text leaves every roll recomputable."""
    return hashlib.sha256(PLAYER_DOMAIN + b"|" + text.encode("utf-8")).digest()


def no_seed_key(user_id: int) -> bytes:
    """The key of a player who set no seed: their own (from their user id), so two players
    without seeds never share draw numbers, nor faces (docs/fair-dice.md)."""
    return hashlib.sha256(NO_SEED_DOMAIN + b"|" + str(user_id).encode("ascii")).digest()


def scoped_key(player: bytes, scope: str) -> bytes:
    """The key a roll records and draws with: the player's key salted with the roll's scope,
    so the same player's rolls in two campaigns (or servers) record unrelated keys."""
    return hmac.new(player, _fields(SCOPE_DOMAIN, scope.encode("utf-8")), hashlib.sha256).digest()


def blinding(hidden_key: bytes, scope: str, number: int) -> bytes:
    """A hidden roll's blinding value: secret until the roll is revealed, so a revealed server
    seed alone never recomputes a hidden roll."""
    msg = _fields(BLIND_DOMAIN, scope.encode("utf-8"), number.to_bytes(8, "big"))
    return hmac.new(hidden_key, msg, hashlib.sha256).digest()


def _fields(*parts: bytes) -> bytes:
    """Length-prefixed concatenation: no two different inputs give the same message."""
    return b"".join(len(p).to_bytes(4, "big") + p for p in parts)


def message(scope: str, number: int, player: bytes, blind: bytes = b"") -> bytes:
    """The HMAC message before the block counter (8 bytes, big-endian) is appended."""
    return _fields(DOMAIN, scope.encode("utf-8"), number.to_bytes(8, "big"), player, blind)


def stream(
    seed: bytes, scope: str, number: int, player: bytes, blind: bytes = b""
) -> Iterator[int]:
    """The roll's words in order (unbounded): what :class:`FairRandom` hands the roller."""
    base = hmac.new(seed, message(scope, number, player, blind), hashlib.sha256)
    j = 0
    while True:
        h = base.copy()
        h.update(j.to_bytes(8, "big"))
        yield from struct.unpack("<4Q", h.digest())
        j += 1


def face(words: Iterator[int], sides: int) -> int:
    """One face from the stream with rejection sampling: words at or above the largest
    multiple of ``sides`` are skipped, so each face has exactly ``(2**64 // sides)`` words."""
    limit = _TWO64 - _TWO64 % sides
    x = next(words)
    while x >= limit:
        x = next(words)
    return x % sides + 1


def d20(words: Iterator[int]) -> int:
    """One d20 as the rules draw it (``random.Random.randint(1, 20)`` on this stream: 5 bits
    of a word, i.e. ``x mod 32``, skipped when 20 or more; also unbiased)."""
    r = next(words) & 31
    while r >= 20:
        r = next(words) & 31
    return r + 1


def preimages(sides: int) -> dict[int, int]:
    """How many accepted 64-bit words map to a face → how many faces have that many (the bias
    proof: one entry, so every face has the same number of words)."""
    limit = _TWO64 - _TWO64 % sides
    q, r = divmod(limit, sides)
    counts = {q + 1: r, q: sides - r}
    return {k: v for k, v in counts.items() if v}


class FairRandom(random.Random):
    """A ``random.Random`` drawing from one roll's HMAC stream, behind the interface the
    engine already uses (``randbytes``; ``random``/``getrandbits`` for rules that pick).

    ``words`` counts the 8-byte words handed out (the dice drawn, rejections included).
    """

    def __init__(
        self, seed: bytes, scope: str, number: int, player: bytes, blind: bytes = b""
    ) -> None:
        self._base = hmac.new(seed, message(scope, number, player, blind), hashlib.sha256)
        self._block = 0
        self._buffer = b""
        self.inputs = (scope, number, player, blind)
        super().__init__(0)

    def seed(self, a: Any = None, version: int = 2) -> None:
        """Fixed by the construction: reseeding would break the derivation, so it is a no-op
        (``random.Random.__init__`` calls it once)."""

    def getstate(self) -> Any:
        return (self._block, self._buffer)

    def setstate(self, state: Any) -> None:
        self._block, self._buffer = state

    @property
    def words(self) -> int:
        """How many 8-byte words were handed out so far."""
        return (self._block * _BLOCK - len(self._buffer)) // _WORD

    def _more(self, n: int) -> bytes:
        have = len(self._buffer)
        if have >= n:
            out = self._buffer
        else:
            base = self._base
            first = self._block
            blocks = -(-(n - have) // _BLOCK)
            parts = [self._buffer]
            for j in range(first, first + blocks):
                h = base.copy()
                h.update(j.to_bytes(8, "big"))
                parts.append(h.digest())
            self._block = first + blocks
            out = b"".join(parts)
        self._buffer = out[n:]
        return out[:n]

    def randbytes(self, n: int) -> bytes:
        """The next ``n`` bytes, rounded up to whole words so every die is one word."""
        whole = -(-n // _WORD) * _WORD
        return self._more(whole)[:n]

    def getrandbits(self, k: int) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k == 0:
            return 0
        x = int.from_bytes(self.randbytes(-(-k // 8)), "little")
        return x & ((1 << k) - 1)

    def random(self) -> float:
        """53 bits of the next word, as ``random.Random`` does."""
        return (int.from_bytes(self.randbytes(8), "little") >> 11) * (1.0 / (1 << 53))


class FairDice(random.SystemRandom):
    """The bot's source: says "roll from the committed seeds". A service that records a roll
    draws its dice from :class:`FairRandom` instead; anything else it is handed (a test's
    scripted source) is used as it is, so tests can still force faces."""


def replay(
    seed: bytes, scope: str, number: int, player: bytes, blind: bytes, terms: Sequence[Any]
) -> list[list[int]]:
    """The faces each recorded term must show, recomputed (``terms``: the ledger's records,
    with ``count``, ``sides`` and ``dice`` with their ``source``; see tools/verify_fair.py,
    which is the same walk without the bot)."""
    words = stream(seed, scope, number, player, blind)
    out: list[list[int]] = []
    for term in terms:
        out.append(term_faces(words, term))
    return out


def is_fate(term: Any) -> bool:
    """A fate term (dF: a d3 read as -1, 0, +1), known by its notation."""
    return int(term["sides"]) == 3 and _FATE.search(str(term.get("notation", ""))) is not None


def term_faces(words: Iterator[int], term: Any) -> list[int]:
    """One term's faces in its recorded order, drawn in the roller's order: the term's first
    dice as one block (a rejected word is replaced after the block, in place order), then the
    rerolled, exploded and added dice in the order they were recorded."""
    sides = int(term["sides"])
    dice = term["dice"]
    fate = is_fate(term)
    limit = _TWO64 - _TWO64 % sides
    count = int(term["count"])
    block = [next(words) for _ in range(count)]
    first = [x % sides + 1 if x < limit else -1 for x in block]
    first = [f if f > 0 else face(words, sides) for f in first]
    if fate:
        first = [f - 2 for f in first]
    it = iter(first)
    faces: list[int] = []
    for die in dice:
        if die.get("source", -1) < 0 and "added" not in die.get("flags", ()):
            faces.append(next(it))
        else:
            faces.append(face(words, sides))
    return faces


def below(words: Iterator[int], n: int) -> int:
    """``random.Random.randrange(n)`` on this stream, as the rules draw any die or pick
    (``randint(1, 6)`` is ``below(6) + 1``, a shuffle's swaps are ``below(i + 1)``): the low
    ``n.bit_length()`` bits of a word, skipped when ``n`` or more (no value favoured)."""
    mask = (1 << n.bit_length()) - 1
    r = next(words) & mask
    while r >= n:
        r = next(words) & mask
    return r
