"""The one base class for errors a player or GM can fix.

Anything raised as a :class:`UserError` has a ``str()`` that is safe to show in Discord: it
never contains a hidden roll's result, a token or a stack trace. The command tree's error
handler answers these ephemerally with their message; anything else is an incident.
"""

from __future__ import annotations


class UserError(Exception):
    """An error whose message is written for the player and safe to show them."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message
