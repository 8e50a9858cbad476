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


def classify_dice_maiden(expr: str, cases: Any, engine: Any) -> str:
    """Dice Maiden's entries: the forced faces give the totals its README describes?"""
    from tests.scripted import ScriptedRandom

    many = getattr(engine, "parse_many", None)
    try:
        parsed = many(expr) if many else engine.parse(expr)
    except engine.DiceError:
        return "refused"
    if cases is None:
        return "different"  # accepted, but Dice Maiden means something we don't do
    for faces, expected in cases:
        rng = ScriptedRandom(*faces)
        try:
            if many is None:
                got: Any = engine.roll(parsed, rng).total
            else:
                results = engine.roll_many(parsed, rng)
                got = results[0].total if len(results) == 1 else [r.total for r in results]
        except Exception:
            return "different"
        if got != expected or rng.used != len(faces):
            return "different"
    return "same"
