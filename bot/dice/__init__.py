"""Generic dice notation: parse, roll, exact odds, and rendering of results.

Pure code: no Discord, no database, no I/O, no module-level random source. Every roll takes a
``random.Random``-compatible ``rng`` (``secrets.SystemRandom()`` in production, a seeded
``random.Random`` in tests). See docs/dice.md for the notation and its limits.
"""

from __future__ import annotations

from bot.dice.batch import Batch, parse_many, roll_many
from bot.dice.errors import DiceError
from bot.dice.odds import exact_odds
from bot.dice.parser import DiceSpec, Expression, parse
from bot.dice.roller import Die, RollResult, TermResult, roll
from bot.dice.stringify import reading_notes, render_markdown, render_plain

__all__ = [
    "Batch",
    "DiceError",
    "DiceSpec",
    "Die",
    "Expression",
    "RollResult",
    "TermResult",
    "exact_odds",
    "parse",
    "parse_many",
    "reading_notes",
    "render_markdown",
    "render_plain",
    "roll",
    "roll_many",
]
