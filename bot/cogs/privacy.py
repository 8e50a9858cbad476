"""/privacy show | delete.

/privacy show | delete: what the bot stores about you, and erasing it (docs/privacy.md).
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of
from bot.cogs._views import ConfirmView
from bot.db.engine import Database
from bot.interaction import Interaction
from bot.render.privacy import DELETE_QUESTION, erased_text, stored_embed
from bot.services.trust import privacy


def _names(user: discord.abc.User) -> list[str]:
    """The names Discord shows for the user: server nickname, display name, username."""
    found = [user.display_name, user.name, getattr(user, "global_name", None)]
    if isinstance(user, discord.Member):
        found.append(user.nick)
    return sorted({n for n in found if n})


class PrivacyCog(commands.GroupCog, group_name="privacy"):
    """Your data: see it, erase it. Works in servers and in direct messages."""

    @app_commands.command(name="show", description="What the bot stores about you, per server")
    async def show(self, interaction: Interaction) -> None:
        bot = bot_of(interaction)
        data = await privacy.stored_data(bot.db, interaction.user.id)
        names = {
            server.guild_id: guild.name
            for server in data.servers
            if server.guild_id is not None and (guild := bot.get_guild(server.guild_id)) is not None
        }
        await interaction.response.send_message(embed=stored_embed(data, names), ephemeral=True)

    @app_commands.command(
        name="delete",
        description="Erase your data in this server (in a DM: everywhere); asks first",
    )
    async def delete(self, interaction: Interaction) -> None:
        user = interaction.user
        guild_id = interaction.guild_id
        where = "in this server" if guild_id is not None else "everywhere this bot runs"
        await interaction.response.send_message(
            DELETE_QUESTION.format(where=where, doc=privacy.DOC_URL),
            view=erase_view(bot_of(interaction).db, user.id, guild_id, _names(user)),
            ephemeral=True,
        )


def erase_view(db: Database, user_id: int, guild_id: int | None, names: list[str]) -> ConfirmView:
    """The confirmation of /privacy delete: only ``user_id`` can press it, and it erases them
    (in ``guild_id``; None: everywhere)."""

    async def confirmed(_click: Interaction) -> str:
        # ConfirmView lets only the asker click; the erasure is theirs, by their id.
        done = await privacy.erase_user(db, user_id, guild_id, names=names)
        return erased_text(done, everywhere=guild_id is None)

    return ConfirmView(user_id, "Erase my data", confirmed)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(PrivacyCog())
