"""/gm request roll | status | reveal, and the persistent "Roll" button of each request."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs._gm import ensure_gm_group
from bot.cogs._shared import DELIVERERS
from bot.cogs.requests._cog import (
    RequestListButton,
    RequestRollButton,
    deliver_closed,
    deliver_reminders,
    request_group,
)
from bot.services.requests import Closed, Reminders


async def setup(bot: commands.Bot) -> None:
    assert request_group.parent is not None
    ensure_gm_group(bot)
    bot.add_dynamic_items(RequestRollButton, RequestListButton)
    DELIVERERS[Closed] = deliver_closed
    DELIVERERS[Reminders] = deliver_reminders
