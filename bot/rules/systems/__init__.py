"""The rule-system registry: one object per system, registered once (docs/rules/README.md).

How to add a system is in docs/rules/README.md, "Adding a fifth system".

Adding a system: a module in ``bot/rules/`` for its dice, an adapter here satisfying
:class:`System`, one :func:`register` call, ``docs/rules/`` and tests. The services and
renderers find it by the key a campaign stores (:func:`system_for`), or by an outcome's type
(:func:`read`).
"""

from __future__ import annotations

from bot.rules.systems.base import (
    SYSTEMS,
    CheckOptions,
    Feature,
    Plan,
    Reading,
    Sheet,
    System,
    Table,
    Tone,
    UnknownSystem,
    View,
    contest_line,
    explain,
    one_line,
    outcome_from_record,
    read,
    register,
    summarize,
    system_for,
    system_of,
    unregister,
)
from bot.rules.systems.d20 import D20
from bot.rules.systems.pen_and_dagger import PEN_AND_DAGGER
from bot.rules.systems.roll_under import ROLL_UNDER
from bot.rules.systems.threshold import THRESHOLD

# Registration order is the order /campaign setup offers them.
for _system in (PEN_AND_DAGGER, ROLL_UNDER, THRESHOLD, D20):
    register(_system)

__all__ = [
    "SYSTEMS",
    "CheckOptions",
    "Feature",
    "Plan",
    "Reading",
    "Sheet",
    "System",
    "Table",
    "Tone",
    "UnknownSystem",
    "View",
    "contest_line",
    "explain",
    "one_line",
    "outcome_from_record",
    "read",
    "register",
    "summarize",
    "system_for",
    "system_of",
    "unregister",
]
