"""Read each peer expression with pbp-dice: the same (same totals on the same forced dice),
different (accepted, other totals), or refused (a DiceError naming what to type)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.dice.peers.common import SEQUENCES, Words, words_for

HERE = Path(__file__).resolve().parent
PEERS = {"d20": "d20.json", "rpg-dice-roller": "rpg_dice_roller.json"}


def load(peer: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = json.loads((HERE / PEERS[peer]).read_text())
    return entries


def ours(expr: str, words: list[int], engine: Any) -> Any:
    """pbp-dice's total (a list for several rolls), or None if refused. ``engine`` is the
    bot.dice module (main's has no parse_many: it reads one expression)."""
    many = getattr(engine, "parse_many", None)
    try:
        parsed = many(expr) if many else engine.parse(expr)
    except engine.DiceError:
        return None
    rng = Words(words)
    if many is None:
        return engine.roll(parsed, rng).total
    results = engine.roll_many(parsed, rng)
    return results[0].total if len(results) == 1 else [r.total for r in results]


def classify(peer: str, entry: dict[str, Any], engine: Any) -> str:
    expr = entry["expr"]
    mine = [ours(expr, words_for(peer, expr, k), engine) for k in range(SEQUENCES)]
    if mine[0] is None:
        return "refused"
    return "same" if mine == entry["peer"] else "different"
