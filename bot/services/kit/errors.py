"""Errors the player or GM can fix; each message is safe to show in Discord."""

from __future__ import annotations

from bot.errors import UserError
from bot.quoting import escape


class NoCampaign(UserError):
    """The channel (or the thread's parent channel) has no campaign."""

    def __init__(self) -> None:
        super().__init__("No campaign in this channel: a GM can run /campaign setup.")


class NotFound(UserError):
    """A campaign, character or roll that does not exist (any more)."""


class AlreadyExists(UserError):
    """Something unique (a campaign in a channel, a character name) is already taken."""


class InvalidValue(UserError):
    """A value outside what the campaign's rule system allows."""


class TooLarge(UserError):
    """Something too big for where it must go (a file over Discord's upload limit)."""


class NotAllowed(UserError):
    """The user may not do this (for example use another player's character)."""


class NoFortuneLeft(UserError):
    """Spending or taking a fortune die from a character that has none."""

    def __init__(self, name: str | None = None) -> None:
        who = f"{escape(name)} has" if name else "You have"
        super().__init__(f"{who} no fortune dice left.")


class FortuneAtMaximum(UserError):
    """Gaining or giving a fortune die to a character already at their maximum."""

    def __init__(self, maximum: int, name: str | None = None) -> None:
        who = f"{escape(name)} already has" if name else "You already have"
        super().__init__(f"{who} the maximum of {maximum} fortune dice.")


class AlreadyRevealed(UserError):
    """Revealing a hidden roll a second time."""

    def __init__(self) -> None:
        super().__init__("That roll has already been revealed.")


class StorageUnavailable(UserError):
    """The database cannot be reached or is locked for too long; trying again later helps."""

    def __init__(self) -> None:
        super().__init__(
            "The dice ledger is unavailable right now, so nothing was recorded; please try "
            "again in a moment."
        )
