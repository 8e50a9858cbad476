"""/declare and /gm round open | status | reveal | cancel: sealed declarations (docs/rounds.md)."""

from __future__ import annotations

from discord.ext import commands

from bot.cogs._gm import ensure_gm_group
from bot.cogs._shared import DELIVERERS
from bot.cogs.rounds._cog import RoundsCog, deliver_reveal, round_group
from bot.services.rounds import Revealed


async def setup(bot: commands.Bot) -> None:
    assert round_group.parent is not None
    ensure_gm_group(bot)  # /gm round hangs off the shared /gm group
    await bot.add_cog(RoundsCog())
    DELIVERERS[Revealed] = deliver_reveal
