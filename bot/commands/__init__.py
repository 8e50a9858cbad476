"""The rolling commands, each declared once (:mod:`bot.commands.rolling`).

Pure data, below the services and the cogs: the slash commands' options, the inline and saved
roll grammar (``[[check DEX]]``), ``/help`` and ``docs/commands.md`` are all made from it, and
``tests/commands/`` fails, naming the command and option, when one of them disagrees with it.
No Discord, no database: it imports only the rules, the word lists and the errors.
"""

from __future__ import annotations

from bot.commands.rolling import (
    ROLLING,
    Complete,
    Kind,
    Option,
    RollingCommand,
    Rolls,
    Shape,
    Spelling,
    Where,
    Who,
    Word,
    secrecy_defaults,
    spelled,
)

__all__ = [
    "ROLLING",
    "Complete",
    "Kind",
    "Option",
    "RollingCommand",
    "Rolls",
    "Shape",
    "Spelling",
    "Where",
    "Who",
    "Word",
    "secrecy_defaults",
    "spelled",
]
