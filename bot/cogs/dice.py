"""/roll: the generic dice roller.

/roll dice:<expression> [label]: works in any channel, no campaign needed.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._delivery import send_roll
from bot.cogs._options import Secret
from bot.interaction import Interaction, answer
from bot.render.fair import rotation_text
from bot.services.rolling.rolls import roll_dice
from bot.words import Visibility


class DiceCog(commands.Cog):
    """The generic roller."""

    @app_commands.command(name="roll", description="Roll dice, e.g. 4d6kh3, 1d20+5, 2d20kl1 [fire]")
    @app_commands.describe(
        dice="Dice notation, e.g. 1d20+5, 4d6kh3, adv+3, 8d6 [fire]; all of it: /help topic:dice",
        label="What the roll is for (shown as the title)",
        secret="Who sees the result: public, gm (GM and you), blind (GM only), self (you only)",
    )
    async def roll(
        self,
        interaction: Interaction,
        dice: app_commands.Range[str, 1, 1000],
        label: app_commands.Range[str, 1, 100] | None = None,
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
