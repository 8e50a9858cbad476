"""What features share with the game clock: the notice deliverers, waking it, a channel by id.

The clock (bot/cogs/clock) runs due jobs; the feature that scheduled a job registers here how
its notice is posted (``DELIVERERS``, filled in each feature's ``setup``) and calls ``wake``
after its commit. So no feature imports another's private cog module.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import discord

if TYPE_CHECKING:
    from bot.app import PbpBot

#: How each feature's notices are posted, by notice type.
DELIVERERS: dict[type, Callable[[PbpBot, Any], Awaitable[None]]] = {}


@runtime_checkable
class _Wakeable(Protocol):
    def wake(self, when: datetime) -> None: ...


def wake(bot: PbpBot, when: datetime | None) -> None:
    """Tell the clock a job of this process was scheduled for ``when`` (commands call this
    after their commit, so the loop need not poll often to be on time)."""
    cog = bot.get_cog("ClockCog")
    if when is not None and isinstance(cog, _Wakeable):
        cog.wake(when)


async def channel_of(bot: PbpBot, channel_id: int) -> discord.abc.Messageable | None:
    """The channel a notice goes to, from the cache or Discord; None if it is gone."""
    channel = bot.get_channel(channel_id)
    if channel is None:
        try:
            channel = await bot.fetch_channel(channel_id)
        except discord.HTTPException:
            return None
    return channel if isinstance(channel, discord.abc.Messageable) else None
