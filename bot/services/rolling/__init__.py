"""Rolling: every use case that rolls dice or reads their odds.

``/roll``, checks, attacks, group rolls and the party, ability generation, fortune dice at
the table, rerolls, pre-rolls, odds, dialects, the text of a roll (inline ``[[…]]`` and
macros), history and stats. Builds on the kit, the shared tables and trust; imports nothing
from the table.
"""
