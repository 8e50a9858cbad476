"""Provably fair dice (docs/fair-dice.md): faces derived from the seeds, recomputable, unbiased."""

from __future__ import annotations

import hashlib
import hmac
import math
import random
import struct
from collections import Counter
from collections.abc import Iterator

import pytest

from bot.dice import roll, roll_many
from bot.dice.batch import parse_many
from bot.dice.fair import (
    FairRandom,
    blinding,
    face,
    message,
    player_key,
    preimages,
    replay,
    seed_hash,
    stream,
    term_faces,
)
from bot.dice.limits import MAX_SIDES
from bot.dice.roller import _draw

SEED = bytes(range(32))
OTHER = bytes(range(1, 33))
PLAYER = player_key("my lucky socks")
TWO64 = 1 << 64


def _faces(rec: dict[str, object]) -> list[list[int]]:
    return [[d["face"] for d in t["dice"]] for t in rec["terms"]]  # type: ignore[attr-defined]


def test_first_word_is_the_documented_hmac() -> None:
    """Word 0 of a roll is the first 8 bytes (little-endian) of HMAC(seed, message | 0)."""
    digest = hmac.new(
        SEED, message("campaign:7", 3, PLAYER) + (0).to_bytes(8, "big"), hashlib.sha256
    ).digest()
    x = int.from_bytes(digest[:8], "little")
    rolled = roll("1d20", FairRandom(SEED, "campaign:7", 3, PLAYER))
    assert rolled.total == x % 20 + 1
    assert next(stream(SEED, "campaign:7", 3, PLAYER)) == x


def test_same_inputs_same_faces_and_any_input_changes_them() -> None:
    base = roll("20d1000", FairRandom(SEED, "campaign:7", 3, PLAYER)).terms[0].faces
    again = roll("20d1000", FairRandom(SEED, "campaign:7", 3, PLAYER)).terms[0].faces
    assert base == again
    for other in (
        FairRandom(OTHER, "campaign:7", 3, PLAYER),
        FairRandom(SEED, "campaign:8", 3, PLAYER),
        FairRandom(SEED, "campaign:7", 4, PLAYER),
        FairRandom(SEED, "campaign:7", 3, player_key("new socks")),
        FairRandom(SEED, "campaign:7", 3, PLAYER, b"\x00" * 32),
    ):
        assert roll("20d1000", other).terms[0].faces != base


def test_fields_are_length_prefixed() -> None:
    """Moving bytes between fields never gives the same message (no ambiguity to exploit)."""
    assert message("ab", 1, b"c") != message("a", 1, b"bc")
    assert message("a", 1, b"", b"x") != message("a", 1, b"x", b"")


@pytest.mark.parametrize(
    "notation",
    [
        "4dF",
        "1d%",
        "d%",
        "3d1000000000000",
        f"2d{MAX_SIDES}",
        "10d6e6",
        "10d10e1",
        "5d6!!",
        "6d6!p",
        "4d6r1",
        "4d6rr<3",
        "2d6ro<3",
        "2d6ra1",
        "3d6im1",
        "4d6kh3+1d20-1d4",
        "(1d8e8, 1d6e6)kh1",
        "10d6>4",
        "1d20+5 >= 15",
    ],
)
def test_every_die_kind_recomputes_from_the_record(notation: str) -> None:
    """What the ledger records is enough to recompute each face, whatever the notation drew
    (first dice, rerolls, explosions, added dice) across many rolls."""
    for number in range(40):
        rec = roll(notation, FairRandom(SEED, "channel:5", number, PLAYER)).to_record()
        assert replay(SEED, "channel:5", number, PLAYER, b"", rec["terms"]) == _faces(rec)


def test_explosions_draw_more_dice_in_order() -> None:
    """An exploding d2 term keeps drawing words from the same stream, in order."""
    for number in range(20):
        rolled = roll("3d2e2", FairRandom(SEED, "s", number, PLAYER)).terms[0]
        words = stream(SEED, "s", number, PLAYER)
        first = [next(words) % 2 + 1 for _ in range(3)]
        later = [next(words) % 2 + 1 for _ in range(len(rolled.faces) - 3)]
        assert sorted(rolled.faces) == sorted(first + later)
        assert sum(f == 2 for f in first + later) == sum(f == 2 for f in rolled.faces)


def test_several_rolls_of_one_command_share_the_stream() -> None:
    """6#4d6kh3 and 1d20; 2d6: each roll continues where the previous stopped."""
    for text in ("6#4d6kh3", "1d20+5; 2d6e6"):
        results = roll_many(parse_many(text), FairRandom(SEED, "s", 1, PLAYER))
        terms = [t for r in results for t in r.to_record()["terms"]]
        want = [f for r in results for f in _faces(r.to_record())]
        assert replay(SEED, "s", 1, PLAYER, b"", terms) == want


class _Words(random.Random):
    """Hands the roller given 64-bit words, as FairRandom would."""

    def __init__(self, words: list[int]) -> None:
        super().__init__(0)
        self.left = list(words)

    def randbytes(self, n: int) -> bytes:
        take, self.left = self.left[: n // 8], self.left[n // 8 :]
        return struct.pack(f"<{len(take)}Q", *take)


def test_rejected_words_are_skipped_the_same_way_by_roller_and_verifier() -> None:
    """A word at or above the largest multiple of the sides is skipped: the roller redraws it
    after the term's first block, and the recomputation does the same."""
    sides = 6
    limit = TWO64 - TWO64 % sides
    words = [limit, 4, limit + 1, 0, 2, limit, 1, 3, 5]
    term = roll("4d6e6", _Words(words)).to_record()["terms"][0]
    assert term_faces(iter(words), term) == [d["face"] for d in term["dice"]]
    # 4 then 0 are the 2nd and 4th first dice; the rejected 1st and 3rd take 2 and (after
    # one more rejection) 1: faces 3, 5, 2, 1, no six, no explosion.
    assert [d["face"] for d in term["dice"]] == [3, 5, 2, 1]


@pytest.mark.parametrize("sides", [2, 3, 6, 7, 20, 100, 1000, 10**15, MAX_SIDES, (1 << 63) + 1])
def test_rejection_sampler_has_zero_bias_by_construction(sides: int) -> None:
    """Every face has exactly the same number of accepted 64-bit words: the accepted range is
    the largest multiple of ``sides``; the first rejected word and the last accepted one sit
    where the proof says."""
    counts = preimages(sides)
    assert list(counts.values()) == [sides]
    (per_face,) = counts
    limit = per_face * sides
    assert TWO64 - sides < limit <= TWO64
    assert face(iter([limit - 1]), sides) == sides
    assert face(iter([limit, 0]), sides) == 1  # limit itself is skipped
    if TWO64 % sides:
        # Plain modulo over every word would favour the low faces: what rejection removes.
        low, high = TWO64 // sides + 1, TWO64 // sides
        assert low * (TWO64 % sides) + high * (sides - TWO64 % sides) == TWO64


def _chi_square_limit(df: int, z: float = 3.090232) -> float:
    """Wilson-Hilferty: the chi-square value exceeded with probability 0.001."""
    k = 2 / (9 * df)
    return float(df * (1 - k + z * math.sqrt(k)) ** 3)


@pytest.mark.parametrize("sides", [4, 6, 20, 100, 1000])
def test_a_million_faces_are_uniform(sides: int) -> None:
    """10^6 faces through the engine's own draw: chi-square below its 0.1% critical value."""
    n = 10**6
    rng = FairRandom(SEED, f"uniform:{sides}", 1, PLAYER)
    counts = Counter(_draw(rng, sides, n))
    assert set(counts) == set(range(1, sides + 1))
    expected = n / sides
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, sides + 1))
    assert chi2 < _chi_square_limit(sides - 1)


def test_chi_square_catches_a_loaded_die() -> None:
    """The uniformity check is not blind: one face a little more likely fails it."""
    n = 10**6
    sides = 20
    base = _draw(FairRandom(SEED, "loaded", 1, PLAYER), sides, n)
    loaded = [20 if f == 1 and i % 20 == 0 else f for i, f in enumerate(base)]
    counts = Counter(loaded)
    expected = n / sides
    chi2 = sum((counts[f] - expected) ** 2 / expected for f in range(1, sides + 1))
    assert chi2 > _chi_square_limit(sides - 1)


def test_rules_that_pick_with_randint_are_deterministic_too() -> None:
    a = FairRandom(SEED, "s", 1, PLAYER)
    b = FairRandom(SEED, "s", 1, PLAYER)
    picks = [a.randint(1, 20) for _ in range(50)] + [a.random() for _ in range(5)]
    assert picks == [b.randint(1, 20) for _ in range(50)] + [b.random() for _ in range(5)]
    assert all(0.0 <= p < 1.0 for p in picks[50:])
    a.seed(123)  # reseeding cannot steer the stream
    assert a.randint(1, 20) == b.randint(1, 20)


def test_words_counts_the_dice_drawn() -> None:
    rng = FairRandom(SEED, "s", 1, PLAYER)
    rolled = roll("10d6e6", rng)
    assert rng.words == len(rolled.terms[0].faces)


def test_blinding_hides_a_roll_from_the_seed_alone() -> None:
    """With a blinding value the faces differ from the unblinded ones: the revealed server
    seed without the (secret) blinding recomputes nothing of a hidden roll."""
    blind = blinding(b"k" * 32, "campaign:7", 3)
    hidden = roll("10d20", FairRandom(SEED, "campaign:7", 3, PLAYER, blind)).terms[0].faces
    bare = roll("10d20", FairRandom(SEED, "campaign:7", 3, PLAYER)).terms[0].faces
    assert hidden != bare
    assert blinding(b"k" * 32, "campaign:7", 4) != blind


def test_seed_hash_is_sha256_hex() -> None:
    assert seed_hash(SEED) == hashlib.sha256(SEED).hexdigest()
    assert player_key("a") != player_key("b")


def _consume(words: Iterator[int], n: int) -> list[int]:
    return [next(words) for _ in range(n)]


def test_randbytes_rounds_to_whole_words() -> None:
    """Every die is one whole word, even when a caller asks for odd byte counts."""
    rng = FairRandom(SEED, "s", 1, PLAYER)
    rng.randbytes(3)
    assert rng.words == 1
    words = stream(SEED, "s", 1, PLAYER)
    _consume(words, 1)
    assert int.from_bytes(rng.randbytes(8), "little") == next(words)
