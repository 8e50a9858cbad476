"""Every limit of the dice engine, in one place (documented in docs/dice.md)."""

from __future__ import annotations

#: Longest accepted expression, labels and comment included; checked before anything else.
MAX_LENGTH = 1_000
#: Dice rolled per expression in the worst case, counting every possible explosion and reroll.
MAX_DICE = 1_000
#: Most sides a die may have (Avrae's d20 and rpg-dice-roller roll any size; a face is one
#: 8-byte draw whatever the size, and exact odds price a die by its sides first).
MAX_SIDES = 10**15
#: Deepest nesting of parentheses.
MAX_DEPTH = 20
#: Most operators (binary and unary) in one expression.
MAX_OPERATIONS = 100
#: Largest magnitude of any number, literal or intermediate (statically bounded).
MAX_MAGNITUDE = 10**15
#: Most extra dice one die may explode into (a chain stops after this many).
MAX_EXPLOSIONS = 10
#: Most rerolls one die may get with ``rr`` (the last reroll stands).
MAX_REROLLS = 10
#: Most labels in one expression.
MAX_LABELS = 20
#: Budget of elementary steps for :func:`bot.dice.exact_odds` (about 45 ms at ~150 ns a step),
#: enforced while computing by ``bot.dice.odds.OddsMeter``: no expression gets more.
MAX_ODDS_COST = 300_000
#: Most items in one set, ``(a, b, …)kh1``.
MAX_SET_SIZE = 20
#: Most results one command shows: repeats (``6#4d6``) and rolls separated by ``;`` together.
MAX_ROLLS = 20
