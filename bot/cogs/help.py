"""/help [topic]: how to play, privately, where the player is.

/help: the topic's pages from bot/render/help.py, only to the asker, paged with buttons.

Each topic lists its commands as the bot's own command tree describes them.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.enums import AppCommandType
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from
from bot.cogs._views.noted import Noted
from bot.interaction import Interaction, answer, update_message
from bot.render.help import TOPIC_NAMES, CommandDoc, HelpTopic, help_pages
from bot.services.kit.errors import NoCampaign
from bot.services.store.campaigns import campaign_for_channel
from bot.tree import answer_error

#: Long enough to read a page; the help can always be asked again.
PAGER_TIMEOUT = 900


class PagerView(Noted, discord.ui.View):
    """Previous / Next through a topic's pages. The message is ephemeral, so only the asker
    sees the buttons; the pages hold nothing private, so they live in the view."""

    def __init__(self, pages: list[discord.Embed]) -> None:
        super().__init__(timeout=PAGER_TIMEOUT)
        self.pages = pages
        self.index = 0
        self._update()

    def _update(self) -> None:
        self.previous.disabled = self.index == 0
        self.next.disabled = self.index == len(self.pages) - 1

    async def _show(self, interaction: Interaction, step: int) -> None:
        self.index = max(0, min(len(self.pages) - 1, self.index + step))
        self._update()
        await update_message(interaction, embed=self.pages[self.index], view=self)

    @discord.ui.button(label="Previous", style=discord.ButtonStyle.secondary)
    async def previous(self, interaction: Interaction, _button: discord.ui.Button[Any]) -> None:
        await self._show(interaction, -1)

    @discord.ui.button(label="Next", style=discord.ButtonStyle.primary)
    async def next(self, interaction: Interaction, _button: discord.ui.Button[Any]) -> None:
        await self._show(interaction, 1)

    async def on_error(
        self, interaction: discord.Interaction[Any], error: Exception, _item: Any
    ) -> None:
        await answer_error(interaction, error)


def command_docs(tree: app_commands.CommandTree[Any]) -> list[CommandDoc]:
    """Every runnable command of ``tree``: each slash command by its full name with its own
    description, and each context menu by its label."""
    docs = [
        CommandDoc(command.qualified_name, command.description)
        for command in tree.walk_commands(type=AppCommandType.chat_input)
        if isinstance(command, app_commands.Command)
    ]
    for kind, menu in ((AppCommandType.message, "message"), (AppCommandType.user, "user")):
        docs.extend(CommandDoc(c.name, "", menu) for c in tree.get_commands(type=kind))
    return docs


async def _channel_system(interaction: Interaction) -> str | None:
    """The rule system of the channel's campaign (or its thread's parent's), if it has one."""
    caller = caller_from(interaction)
    if caller.guild_id is None:
        return None
    try:
        campaign = await campaign_for_channel(
            bot_of(interaction).db, caller.guild_id, caller.channel_id, caller.parent_channel_id
        )
    except NoCampaign:
        return None
    return campaign.system


class HelpCog(commands.Cog):
    """How to play, answered only to the one who asks."""

    @app_commands.command(
        name="help",
        description="How to play: first steps, GM quick start, the clock, posting, dice, secrets",
    )
    @app_commands.describe(topic="What to explain; leave it out for the list of topics")
    @app_commands.choices(
        topic=[app_commands.Choice(name=TOPIC_NAMES[t], value=t.value) for t in HelpTopic]
    )
    async def help_command(self, interaction: Interaction, topic: str | None = None) -> None:
        chosen = HelpTopic(topic) if topic else None
        system = await _channel_system(interaction) if chosen is HelpTopic.SYSTEM else None
        pages = help_pages(chosen, system, command_docs(bot_of(interaction).tree))
        if len(pages) == 1:
            await answer(interaction, embed=pages[0], ephemeral=True)
            return
        await answer(interaction, embed=pages[0], view=PagerView(pages), ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(HelpCog())
