"""What features share with the game clock: the notice deliverers, and waking it.

The clock (bot/cogs/clock) runs due jobs; the feature that scheduled a job registers here how
its notice is posted (``DELIVERERS``, filled in each feature's ``setup``) and calls ``wake``
after its commit. So no feature imports another's private cog module.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from bot.app import PbpBot

#: How each feature's notices are posted, by notice type: called with the bot, the notice and
#: the id of the job that made it; True when everything it posts got through (bot/cogs/_notices.py
#: keeps and reports what did not).
DELIVERERS: dict[type, Callable[[PbpBot, Any, int | None], Awaitable[bool]]] = {}


@runtime_checkable
class _Wakeable(Protocol):
    def wake(self, when: datetime) -> None: ...


def wake(bot: PbpBot, when: datetime | None) -> None:
    """Tell the clock a job of this process was scheduled for ``when`` (commands call this
    after their commit, so the loop need not poll often to be on time)."""
    cog = bot.get_cog("ClockCog")
    if when is not None and isinstance(cog, _Wakeable):
        cog.wake(when)
