"""Which clicks and form submits one of the bot's views or persistent buttons took.

discord.py hands a click to the view or persistent button that owns its custom id, and
only then tells ``on_interaction`` listeners about it; it has no public way to ask whether
anything took it. So every view, form and persistent button of the bot notes the
interaction in its ``interaction_check`` (discord.py's public hook, called before the
callback), and the stale cog answers the clicks nobody noted.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any
from weakref import WeakKeyDictionary

import discord

from bot.tree import take_in_hand

#: How many noted ids each client keeps: far more than can arrive in the moment between a
#: view taking a click and the stale cog looking.
KEEP = 4096

_noted: WeakKeyDictionary[discord.Client, OrderedDict[int, None]] = WeakKeyDictionary()


def note(interaction: discord.Interaction[Any]) -> None:
    """Record that one of the bot's own views or buttons took this interaction."""
    seen = _noted.setdefault(interaction.client, OrderedDict())
    seen[interaction.id] = None
    while len(seen) > KEEP:
        seen.popitem(last=False)


def taken(interaction: discord.Interaction[Any]) -> bool:
    """Whether a view or button noted this interaction (forgotten once asked)."""
    seen = _noted.get(interaction.client)
    return seen is not None and seen.pop(interaction.id, "absent") is None


class Noted:
    """Mixin for a View, Modal or DynamicItem: notes each interaction it is handed, takes it
    in hand for operations, then asks :meth:`allowed` (override that, not
    ``interaction_check``)."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        note(interaction)
        # First in the task that runs the click: in flight, timed, counted, with log context;
        # refused while the bot shuts down, so nothing changes (bot/ops).
        if not await take_in_hand(interaction):
            return False
        return await self.allowed(interaction)

    async def allowed(self, interaction: discord.Interaction[Any], /) -> bool:
        """Whether this person may use it; answer them yourself when not."""
        return True
