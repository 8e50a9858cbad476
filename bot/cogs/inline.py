"""The message context-menu command "Roll the dice in this message" (docs/posting.md).

Apps menu → "Roll the dice in this message": every `[[…]]` of one's own message rolled.

A context-menu interaction carries its target message, content included, so no privileged
message-content intent is needed. Only the caller's own message: rolling someone else's words
would make their rolls for them.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from
from bot.cogs._delivery import announce_rotations
from bot.errors import UserError
from bot.interaction import Interaction, answer
from bot.quoting import escape
from bot.render.inline import MESSAGE_LIMIT, as_written
from bot.services.rolling import inline

MENU_NAME = "Roll the dice in this message"


class NotYourMessage(UserError):
    """The context-menu command on a message somebody else wrote."""


class InlineCog(commands.Cog):
    """Inline rolls in a message, rolled on request."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        self.menu = app_commands.ContextMenu(name=MENU_NAME, callback=self.roll_message)
        self.menu.guild_only = True

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.menu)

    async def cog_unload(self) -> None:
        self.bot.tree.remove_command(self.menu.name, type=self.menu.type)

    async def roll_message(self, interaction: Interaction, message: discord.Message) -> None:
        """Roll every `[[…]]` of the caller's own message; reply with the results and a link."""
        if message.author.id != interaction.user.id:
            raise NotYourMessage(
                f"That message is {escape(message.author.display_name)}'s: you can only roll "
                "the dice in your own messages. Nothing was rolled."
            )
        bot = bot_of(interaction)
        rolled = await inline.roll_text(
            bot.db,
            caller_from(interaction),
            message.content,
            bot.rng,
            bound_to=f"message {message.jump_url}",
            message_id=message.id,
        )
        head = f"{escape(interaction.user.display_name)} rolls the dice in {message.jump_url}:"
        # The message as written (markdown, mentions that ping nobody), each total in place;
        # what does not fit one message continues in the next.
        parts = as_written(
            message.content, rolled, limit=MESSAGE_LIMIT, first_limit=MESSAGE_LIMIT - len(head) - 1
        )
        quiet = discord.AllowedMentions.none()
        await answer(interaction, f"{head}\n{parts[0]}", allowed_mentions=quiet)
        for part in parts[1:]:
            await interaction.followup.send(part, allowed_mentions=quiet)
        await announce_rotations(interaction, rolled.rotations)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(InlineCog(bot))
