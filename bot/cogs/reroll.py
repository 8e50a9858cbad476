"""/reroll: reroll one d20 of an advantage or disadvantage roll (d20 check).

/reroll die:first|second on the caller's latest d20-check roll (a check, a save or an
attack) with two dice.
"""

from __future__ import annotations

from typing import Literal

from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._delivery import deliver
from bot.interaction import Interaction, answer
from bot.render.fair import rotation_text
from bot.render.rerolls import reroll_embed
from bot.render.secrecy import Delivery
from bot.services.rolling import rerolls
from bot.services.trust import secrecy
from bot.words import Visibility


class RerollCog(commands.Cog):
    """Rerolling one die when something in the game allows it."""

    @app_commands.command(
        name="reroll",
        description="d20 check: reroll one die of your latest advantage check, save or attack",
    )
    @app_commands.describe(
        die="Which of the two d20s to reroll (the campaign must allow rerolls)",
    )
    @app_commands.guild_only()
    async def reroll(self, interaction: Interaction, die: Literal["first", "second"]) -> None:
        bot = bot_of(interaction)
        done = await rerolls.reroll(
            bot.db, bot.rng, caller_from(interaction), die, request_text(interaction)
        )
        result = done.roll
        await deliver(
            interaction,
            Delivery.of(
                result,
                reroll_embed(done),
                roller=done.roller,
                what=done.title,
                gm_full=reroll_embed(done, gm_copy=True),
            ),
            roller_is_gm=secrecy.viewer_is_gm(result.campaign, caller_from(interaction)),
        )
        # Its seed was due: revealed to all, the new hash published (docs/fair-dice.md).
        if result.rotation is not None and result.visibility is not Visibility.SELF:
            await answer(interaction, rotation_text(result.rotation))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(RerollCog())
