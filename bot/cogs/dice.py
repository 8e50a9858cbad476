"""/roll: the generic dice roller.

/roll dice:<expression> [label]: works in any channel, no campaign needed.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._delivery import send_roll
from bot.cogs._options import Label, Notation, Secret, declared
from bot.commands import ROLLING
from bot.interaction import Interaction, answer
from bot.render.fair import rotation_text
from bot.services.rolling.rolls import roll_dice
from bot.words import Visibility

ROLL = ROLLING["roll"]


class DiceCog(commands.Cog):
    """The generic roller."""

    @app_commands.command(name=ROLL.leaf, description=ROLL.help)
    @declared(ROLL)
    async def roll(
        self,
        interaction: Interaction,
        dice: Notation,
        label: Label | None = None,
        secret: Secret | None = None,
    ) -> None:
        bot = bot_of(interaction)
        rolled = await roll_dice(
            bot.db,
            bot.rng,
            caller_from(interaction),
            dice,
            label=label,
            request=request_text(interaction),
            visibility=secret,
        )
        await send_roll(interaction, rolled)
        # Its seed was due: the old one is revealed to all, the new hash published (not after
        # a self roll, which the channel does not see happen: /campaign show has the hash).
        if rolled.rotation is not None and rolled.visibility is not Visibility.SELF:
            await answer(interaction, rotation_text(rolled.rotation))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(DiceCog())
