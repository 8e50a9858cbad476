"""The one exception type the dice engine raises."""

from __future__ import annotations

from bot.errors import UserError


class DiceError(UserError):
    """A dice expression that cannot be parsed, is over a limit, or is too costly to analyse.

    Its message is shown to the player as-is, so it never echoes more than a short, sanitised
    fragment of their input.
    """
