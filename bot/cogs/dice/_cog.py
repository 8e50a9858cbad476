"""/roll dice:<expression> [label]: works in any channel, no campaign needed."""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.cogs._common import bot_of, caller_from, request_text
from bot.cogs._delivery import deliver
from bot.cogs._options import Secret
from bot.cogs._types import Interaction
from bot.render.dice import roll_embed
from bot.render.secrecy import stub_embed
from bot.services.rolls import roll_dice


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
        name = interaction.user.display_name
        await deliver(
            interaction,
            full=roll_embed(name, rolled),
            stub=stub_embed(
                name, label or "dice", rolled.number, rolled.visibility, rolled.commitment
            ),
            visibility=rolled.visibility,
            gm_targets=rolled.gm_targets,
            roll_id=rolled.roll_id,
            number=rolled.number,
            commitment=rolled.commitment,
        )
