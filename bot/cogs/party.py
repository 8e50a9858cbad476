"""/party add | remove | show.

/party add | remove | show: who the GM's group rolls include.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.cogs import _autocomplete as ac
from bot.cogs._caller import bot_of, caller_from
from bot.interaction import Interaction, answer
from bot.quoting import escape
from bot.render.groups import party_embed
from bot.services.rolling import party

Name = app_commands.Range[str, 1, 64]


@app_commands.guild_only()  # every subcommand needs a server: none offered in DMs
class PartyCog(commands.GroupCog, group_name="party"):
    """The party: the GM adds any character, a player their own."""

    @app_commands.command(name="add", description="Add a character to the party")
    @app_commands.describe(character="The character's name")
    @app_commands.autocomplete(character=ac.own_character)
    @app_commands.guild_only()
    async def add(self, interaction: Interaction, character: Name) -> None:
        found, changed = await party.add(
            bot_of(interaction).db, caller_from(interaction), character
        )
        text = (
            f"**{escape(found.name)}** joins the party."
            if changed
            else f"{escape(found.name)} is already in the party."
        )
        await answer(interaction, text, ephemeral=not changed)

    @app_commands.command(
        name="add-all", description="GM: every character of the campaign joins the party"
    )
    @app_commands.guild_only()
    async def add_all(self, interaction: Interaction) -> None:
        _, joined = await party.add_everyone(bot_of(interaction).db, caller_from(interaction))
        if not joined:
            await answer(interaction, "Every character is in the party already.", ephemeral=True)
            return
        names = ", ".join(f"**{escape(name)}**" for name in joined)
        await answer(interaction, f"{names} join the party.")

    @app_commands.command(name="remove", description="Take a character out of the party")
    @app_commands.describe(character="The character's name")
    @app_commands.autocomplete(character=ac.own_character)
    @app_commands.guild_only()
    async def remove(self, interaction: Interaction, character: Name) -> None:
        found, changed = await party.remove(
            bot_of(interaction).db, caller_from(interaction), character
        )
        text = (
            f"**{escape(found.name)}** leaves the party."
            if changed
            else f"{escape(found.name)} is not in the party."
        )
        await answer(interaction, text, ephemeral=not changed)

    @app_commands.command(name="show", description="The party, with the scores that matter")
    @app_commands.guild_only()
    async def show(self, interaction: Interaction) -> None:
        campaign, members = await party.show(bot_of(interaction).db, caller_from(interaction))
        await answer(interaction, embed=party_embed(campaign, members), ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(PartyCog())
