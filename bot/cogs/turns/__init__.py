"""/turns start | show | next | hold | end: turn order, with per-turn deadlines."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs._shared import DELIVERERS
from bot.cogs.turns._cog import deliver_turn, turns_group
from bot.services.turns import TurnEvent


async def setup(bot: commands.Bot) -> None:
    if bot.tree.get_command("turns") is None:
        bot.tree.add_command(turns_group)
    DELIVERERS[TurnEvent] = deliver_turn
