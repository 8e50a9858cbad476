"""/catchup: what happened in this campaign since my last action (private).

/catchup: ephemeral, since it is shaped by what the caller may see.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from
from bot.interaction import Interaction
from bot.render.catchup import catchup_text
from bot.services.table import catchup


@app_commands.command(
    name="catchup", description="What happened here since your last action (only you see it)"
)
@app_commands.guild_only()
async def catchup_command(interaction: Interaction) -> None:
    found = await catchup.catch_up(bot_of(interaction).db, caller_from(interaction))
    await interaction.response.send_message(catchup_text(found), ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    if bot.tree.get_command("catchup") is None:
        bot.tree.add_command(catchup_command)
