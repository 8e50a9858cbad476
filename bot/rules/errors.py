"""The rules engine's user-facing error."""

from __future__ import annotations

from bot.errors import UserError


class RulesError(UserError):
    """A request the rules do not allow, explained in the player's words."""
