"""The message context-menu command "Who posted this?": a post's player, for anyone.

Apps menu → "Who posted this?": the member behind a post sent as a character.

A webhook message carries no trace of the member who had the bot send it, so a post could be
passed off as someone else's; this names the player (privately, to whoever asks). The
interaction carries the target message, so the bot needs no permission to read it.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from
from bot.interaction import Interaction, answer
from bot.render.authorship import authorship_text
from bot.services.trust import authorship

MENU_NAME = "Who posted this?"


class WhoPostedCog(commands.Cog):
    """Who is behind a post."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.menu = app_commands.ContextMenu(name=MENU_NAME, callback=self.who_posted)
        self.menu.guild_only = True

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.menu)

    async def cog_unload(self) -> None:
        self.bot.tree.remove_command(self.menu.name, type=self.menu.type)

    async def who_posted(self, interaction: Interaction, message: discord.Message) -> None:
        """Answer privately with the post's player and character."""
        found = await authorship.who_posted(
            bot_of(interaction).db, caller_from(interaction), message.channel.id, message.id
        )
        await answer(
            interaction,
            authorship_text(found),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(WhoPostedCog(bot))
