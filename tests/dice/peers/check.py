"""Read each peer expression with pbp-dice in that peer's dialect and compare with what its
origin means: the same, a flagged difference (the answer says how it was read), refused with a
hint (the message names what to type), or a silent misread.

What an origin means is stored as data, one of:

- ``peer``: the origin's totals on four forced dice sequences (``common.words_for``);
- ``cases``: faces forced in roll order and the total the origin's test expects;
- ``means``: the expression written in pbp-dice's own notation (read in the pbp dialect),
  compared by exact distribution, or on forced dice where exact odds are not available;
- ``origin: "refuses"``: the origin itself refuses it; counted apart, never in a share.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import bot.dice as engine
from bot.dice import DiceError, exact_odds, parse, parse_many, roll, roll_many
from tests.dice.peers.common import LENGTH, SEQUENCES, Words, words_for

HERE = Path(__file__).resolve().parent

#: peer -> (corpus file, the dialect its players would pick)
PEERS: dict[str, tuple[str, str]] = {
    "Avrae d20": ("d20.json", "avrae"),
    "rpg-dice-roller": ("rpg_dice_roller.json", "pbp"),
    "Dice Maiden": ("dice_maiden.json", "dice-maiden"),
    "Roll20": ("roll20.json", "roll20"),
    "GNOLL": ("gnoll.json", "pbp"),
    "Foundry VTT": ("foundry.json", "pbp"),
}
#: The name build.py's forced words were made under, per peer (kept from the first corpus).
WORDS_NAME = {"Avrae d20": "d20", "rpg-dice-roller": "rpg-dice-roller"}
VERDICTS = ("same", "flagged", "refused", "misread")
#: What a refusal says when it teaches what to type.
HINTS = (
    "write",
    "e.g.",
    "did you mean",
    "start a comment",
    "comments start",
    "put ",
    "use ",
    "expected",
    "as in",
    "at most",
    "the limit is",
    "only whole",
    "only standard",
    "try ",
)


@cache
def load(peer: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((HERE / PEERS[peer][0]).read_text())
    return entries


def _totals(batch: engine.Batch, rng: Any) -> Any:
    results = roll_many(batch, rng)
    return results[0].total if len(results) == 1 else [r.total for r in results]


def _forced(batch: engine.Batch, words: list[int]) -> Any:
    try:
        return _totals(batch, Words(words))
    except IndexError:
        return "OutOfDice"


def _faces(faces: list[int]) -> list[int]:
    """Words that force these faces on any die with at least that many sides (or Fate)."""
    return [f - 1 if f > 0 else f + 1 for f in faces]


def _distribution(text: str, dialect: str) -> Any:
    try:
        return exact_odds(parse(text, dialect))
    except DiceError:
        return None


def _mock_faces(mode: str, const: int) -> list[int]:
    """GNOLL's test mock (src/grammar/util/mocking.c): the face of each die it rolls."""
    if mode == "constant":
        return [const] * LENGTH
    if mode == "incrementing":
        return [const + k for k in range(LENGTH)]
    if mode == "decrementing":
        return [const - k for k in range(LENGTH)]
    if mode == "twice-then-one":
        return [const, const] + [1] * (LENGTH - 2)
    return []  # no mock: no die may be rolled


def _by_mock(entry: dict[str, Any], batch: engine.Batch) -> bool | None:
    total = entry["total"]
    if not isinstance(total, int) or isinstance(total, bool):
        return None  # a symbol or a list: GNOLL's own kinds of results
    faces = _mock_faces(*entry["mock"])
    words = Words(_faces(faces))
    try:
        got = _totals(batch, words)
    except IndexError:
        return False
    used = faces[: words.used]
    sides = min((t.sides for e, _ in batch.parts for t in e.terms), default=0)
    if used and (min(used) < 1 or max(used) > sides):
        return None  # the mock shows a face these dice do not have
    return bool(got == total)


def same_meaning(entry: dict[str, Any], batch: engine.Batch, peer: str) -> bool | None:
    expr = entry["expr"]
    if "mock" in entry:
        return _by_mock(entry, batch)
    if "peer" in entry:
        name = WORDS_NAME.get(peer, peer)
        mine = [_forced(batch, words_for(name, expr, k)) for k in range(SEQUENCES)]
        return bool(mine == entry["peer"])
    if "cases" in entry:
        return all(_forced(batch, _faces(faces)) == total for faces, total in entry["cases"])
    if entry["means"] is None:
        return False  # the origin's result is no whole number pbp-dice could give
    means = parse_many(entry["means"])
    if len(batch.parts) == 1 and batch.parts[0][1] == 1 and means.single is not None:
        ours, theirs = _distribution(expr, PEERS[peer][1]), _distribution(entry["means"], "pbp")
        if ours is not None and theirs is not None:
            return bool(ours == theirs)
    words = [words_for(peer, expr, k) for k in range(8)]
    return all(_forced(batch, w) == _forced(means, w) for w in words)


SAMPLES = 2000


def _critical(df: int) -> float:
    """Chi-square quantile with about 3e-6 above it (Wilson-Hilferty), so equal distributions
    pass and any difference a player would notice fails, with fixed seeds every run."""
    z = 4.5
    return float(df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3)


def _fits(counts: Counter[int], odds: dict[int, Any]) -> bool:
    """A sample's histogram against exact odds (chi-square, small bins merged)."""
    if any(k not in odds for k in counts):
        return False
    bins: list[tuple[float, int]] = []
    rest_e, rest_o = 0.0, 0
    for k, p in odds.items():
        e = SAMPLES * float(p)
        if e < 5:
            rest_e, rest_o = rest_e + e, rest_o + counts[k]
        else:
            bins.append((e, counts[k]))
    if rest_e > 0:
        bins.append((rest_e, rest_o))
    if len(bins) < 2:
        return True
    chi = sum((o - e) ** 2 / e for e, o in bins if e > 0)
    return chi <= _critical(len(bins) - 1)


def _same_samples(a: Counter[int], b: Counter[int]) -> bool:
    """Two histograms of SAMPLES each from one distribution? (chi-square, 2 x k)."""
    keys = sorted(set(a) | set(b))
    bins: list[tuple[int, int]] = []
    ra = rb = 0
    for k in keys:
        if a[k] + b[k] < 10:
            ra, rb = ra + a[k], rb + b[k]
        else:
            bins.append((a[k], b[k]))
    if ra + rb:
        bins.append((ra, rb))
    if len(bins) < 2:
        return True
    chi = sum((x - y) ** 2 / (x + y) for x, y in bins if x + y)
    return chi <= _critical(len(bins) - 1)


def _by_oracle(entry: dict[str, Any], batch: engine.Batch, peer: str) -> bool | None:
    """Dice Maiden: pbp-dice's reading against the oracle's samples, result by result."""
    from tests.dice.peers.dice_maiden_oracle import Unmodelled, samplers

    try:
        theirs = samplers(entry.get("expands") or entry["expr"])
    except Unmodelled:
        # The docs' own expansion may be prose ("4d6 with wrath die"): read the alias itself.
        try:
            theirs = samplers(entry["expr"])
        except Unmodelled:
            return None
    ours = [expr for expr, n in batch.parts for _ in range(n)]
    if len(ours) != len(theirs):
        return False
    for index, (expr, sample) in enumerate(zip(ours, theirs, strict=True)):
        rng = random.Random(f"{entry['expr']}|{index}")
        try:
            drawn = Counter(sample(rng) for _ in range(SAMPLES))
        except ZeroDivisionError:
            return None
        try:
            odds = exact_odds(expr)
        except DiceError:
            mine = random.Random(f"ours|{entry['expr']}|{index}")
            if not _same_samples(drawn, Counter(roll(expr, mine).total for _ in range(SAMPLES))):
                return False
            continue
        if not _fits(drawn, odds):
            return False
    return True


def classify(peer: str, entry: dict[str, Any]) -> str:
    """One of :data:`VERDICTS`, or ``origin refuses`` / ``refused, no hint``."""
    if entry.get("origin") == "refuses":
        return "origin refuses"
    try:
        batch = parse_many(entry["expr"], PEERS[peer][1])
    except DiceError as error:
        said = str(error).lower()
        return "refused" if any(h in said for h in HINTS) else "refused, no hint"
    if peer == "Dice Maiden":
        verdict = _by_oracle(entry, batch, peer)
        if verdict is None:
            return "meaning unknown"
        if verdict:
            return "same"
    else:
        verdict = same_meaning(entry, batch, peer)
        if verdict is None:
            return "meaning unknown"
        if verdict:
            return "same"
    return "flagged" if batch.notes else "misread"


@cache
def verdicts(peer: str) -> tuple[str, ...]:
    """:func:`classify` of each entry of the peer's corpus, in order. Worked out once per
    run: the verdicts are deterministic (seeded samples), and Dice Maiden's take half a minute,
    which every test of the corpus and the docs' table would otherwise pay again."""
    return tuple(classify(peer, entry) for entry in load(peer))


def tally(peer: str) -> Counter[str]:
    return Counter(verdicts(peer))


def misreads(peer: str) -> list[tuple[str, str]]:
    return [
        (e["expr"], e["source"])
        for e, verdict in zip(load(peer), verdicts(peer), strict=True)
        if verdict == "misread"
    ]


def notes_of(peer: str, entry: dict[str, Any]) -> tuple[str, ...]:
    """The notes pbp-dice's answer carries for this entry, in the peer's dialect."""
    return parse_many(entry["expr"], PEERS[peer][1]).notes


def quotes(note: str, expr: str) -> bool:
    """The note quotes (in backticks) a piece of ``expr`` as typed: case and spaces aside,
    and ``1d`` read as the ``d`` it may stand for."""
    typed = re.sub(r"\s+", "", expr.lower())
    for span in re.findall(r"`([^`]+)`", note):
        piece = re.sub(r"\s+", "", span.lower())
        if piece and (piece in typed or (piece.startswith("1d") and piece[1:] in typed)):
            return True
    return False
