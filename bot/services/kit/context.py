"""Who is asking, and where: plain data the cogs build from an interaction.

Services decide permissions from this, never from a Discord object, so they stay testable
without Discord and the data flow stays one way (cog → service).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.services.kit.budgets import Budgets

#: Whether the caller can read a channel or thread (by id), by Discord's permissions at the time
#: of asking: True or False, or None when the server has no such channel (deleted, or of another
#: server). Built by the cog (bot/cogs/_scope.py); see bot/services/trust/scope.py for its use.
ReadCheck = Callable[[int], Awaitable[bool | None]]


@dataclass(frozen=True, slots=True)
class Caller:
    """The user behind a command and the place they used it."""

    user_id: int
    channel_id: int
    guild_id: int | None = None
    #: The parent channel when the command was used in a thread or forum post.
    parent_channel_id: int | None = None
    role_ids: frozenset[int] = field(default_factory=frozenset)
    #: Discord's Manage Server permission: such members are GMs of every campaign here.
    manage_guild: bool = False
    #: Discord's Manage Channels permission in the place of the command: outside campaigns,
    #: such members rotate the channel's dice seed (bot/services/trust/fairness.py).
    manage_channels: bool = False
    #: The Discord interaction id; the ledger refuses to record one twice.
    interaction_id: int | None = None
    display_name: str = ""
    #: The names the bot shows under here (user name, display name, server nickname): nobody
    #: may name a character after them (bot/services/kit/names.py).
    bot_names: tuple[str, ...] = ()
    #: Where the caller can read; None trusts the caller everywhere (the offline table, tests
    #: of services). Answers about rolls only cover readable places.
    can_read: ReadCheck | None = field(default=None, compare=False, repr=False)
    #: The process's budgets of expensive work (bot/services/kit/budgets.py); None: unlimited.
    budget: Budgets | None = field(default=None, compare=False, repr=False)
