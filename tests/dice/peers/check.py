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
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import bot.dice as engine
from bot.dice import DiceError, exact_odds, parse, parse_many, roll_many
from tests.dice.peers.common import SEQUENCES, Words, words_for

HERE = Path(__file__).resolve().parent

#: peer -> (corpus file, the dialect its players would pick)
PEERS: dict[str, tuple[str, str]] = {
    "Avrae d20": ("d20.json", "avrae"),
    "rpg-dice-roller": ("rpg_dice_roller.json", "pbp"),
    "Dice Maiden": ("dice_maiden.json", "dice-maiden"),
    "Roll20": ("roll20.json", "roll20"),
    "GNOLL": ("gnoll.json", "pbp"),
    "python-dice": ("python_dice.json", "pbp"),
}
#: The name build.py's forced words were made under, per peer (kept from the first corpus).
WORDS_NAME = {"Avrae d20": "d20", "rpg-dice-roller": "rpg-dice-roller"}
VERDICTS = ("same", "flagged", "refused", "misread")
#: What a refusal says when it teaches what to type.
HINTS = ("write", "e.g.", "did you mean", "start a comment", "comments start", "put ", "use ")


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


def same_meaning(entry: dict[str, Any], batch: engine.Batch, peer: str) -> bool:
    expr = entry["expr"]
    if "peer" in entry:
        name = WORDS_NAME.get(peer, peer)
        mine = [_forced(batch, words_for(name, expr, k)) for k in range(SEQUENCES)]
        return bool(mine == entry["peer"])
    if "cases" in entry:
        return all(_forced(batch, _faces(faces)) == total for faces, total in entry["cases"])
    means = parse_many(entry["means"])
    if len(batch.parts) == 1 and batch.parts[0][1] == 1 and means.single is not None:
        ours, theirs = _distribution(expr, PEERS[peer][1]), _distribution(entry["means"], "pbp")
        if ours is not None and theirs is not None:
            return bool(ours == theirs)
    words = [words_for(peer, expr, k) for k in range(8)]
    return all(_forced(batch, w) == _forced(means, w) for w in words)


def classify(peer: str, entry: dict[str, Any]) -> str:
    """One of :data:`VERDICTS`, or ``origin refuses`` / ``refused, no hint``."""
    if entry.get("origin") == "refuses":
        return "origin refuses"
    try:
        batch = parse_many(entry["expr"], PEERS[peer][1])
    except DiceError as error:
        said = str(error).lower()
        return "refused" if any(h in said for h in HINTS) else "refused, no hint"
    if same_meaning(entry, batch, peer):
        return "same"
    return "flagged" if batch.notes else "misread"


def tally(peer: str) -> Counter[str]:
    return Counter(classify(peer, entry) for entry in load(peer))


def misreads(peer: str) -> list[tuple[str, str]]:
    return [(e["expr"], e["source"]) for e in load(peer) if classify(peer, e) == "misread"]
