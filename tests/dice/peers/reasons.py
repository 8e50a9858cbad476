"""Why pbp-dice reads some peers' expressions differently, on purpose (docs/dice.md, "Coming
from another bot"). Every expression the corpus finds read differently must match one rule."""

from __future__ import annotations

import re

REASONS = {
    "d%": "d% is a d100 here, as in Roll20, Dice Maiden and rpg-dice-roller; Avrae's d20 rolls a "
    "tens die (0 to 90)",
    "k-literal": "k3 keeps the highest 3 here, as in Roll20, Dice Maiden and rpg-dice-roller; "
    "Avrae's d20 keeps the dice showing 3 (write k=3 for that)",
    "rr-cap": "rr rerolls at most 10 times here; the peer goes on (d20: up to 1,000 times)",
    "division": "division rounds down here (as Dice Maiden); Avrae's d20 and rpg-dice-roller "
    "keep the fraction",
    "keep-then-drop": "several keep/drop operations apply in turn here (as Avrae's d20); "
    "rpg-dice-roller applies each to all the dice",
    "r-once": "r rerolls once here (as Avrae's ro and Dice Maiden's r); Roll20 and "
    "rpg-dice-roller reroll until no die matches (write rr for that)",
}

RULES: list[tuple[str, re.Pattern[str], str]] = [
    ("d20", re.compile(r"d%"), "d%"),
    ("d20", re.compile(r"k\d"), "k-literal"),
    ("d20", re.compile(r"rr"), "rr-cap"),
    ("rpg-dice-roller", re.compile(r"/"), "division"),
    ("rpg-dice-roller", re.compile(r"kh\d+dl"), "keep-then-drop"),
    ("rpg-dice-roller", re.compile(r"r[<>=\d]"), "r-once"),
]


def reason(peer: str, expr: str) -> str | None:
    """The documented reason this expression reads differently, or None."""
    for who, pattern, key in RULES:
        if who == peer and pattern.search(expr):
            return key
    return None
