"""/groupsave (GM) and /contest: one public message, one transaction each."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import _autocomplete as ac
from bot.cogs._common import bot_of, caller_from, request_text
from bot.cogs._options import DifficultyChoice
from bot.cogs._respond import answer
from bot.render.groups import contest_embed, group_save_embed
from bot.services import groups


class GroupsCog(commands.Cog):
    """Group saves and contests."""

    @app_commands.command(name="groupsave", description="GM: the whole party saves at once")
    @app_commands.describe(
        ability="The ability the party saves with",
        dc="The DC (d20 check) or exact threshold (threshold)",
        difficulty="Threshold: a difficulty tier instead of dc",
    )
    @app_commands.autocomplete(ability=ac.ability)
    @app_commands.guild_only()
    async def groupsave(
        self,
        interaction: discord.Interaction[Any],
        ability: app_commands.Range[str, 1, 32],
        dc: app_commands.Range[int, 1, 100] | None = None,
        difficulty: DifficultyChoice | None = None,
    ) -> None:
        bot = bot_of(interaction)
        result = await groups.group_save(
            bot.db,
            bot.rng,
            caller_from(interaction),
            ability,
            request_text(interaction),
            dc=dc,
            difficulty=difficulty.replace("-", " ") if difficulty else None,
        )
        await answer(
            interaction,
            embed=group_save_embed(result),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @app_commands.command(name="contest", description="Characters contest an ability")
    @app_commands.describe(
        ability="The ability everyone rolls",
        characters="Names or @mentions, comma-separated, e.g. Sybilla, @bob",
    )
    @app_commands.autocomplete(ability=ac.ability)
    @app_commands.guild_only()
    async def contest(
        self,
        interaction: discord.Interaction[Any],
        ability: app_commands.Range[str, 1, 32],
        characters: app_commands.Range[str, 1, 1000],
    ) -> None:
        bot = bot_of(interaction)
        result = await groups.contest(
            bot.db,
            bot.rng,
            caller_from(interaction),
            ability,
            characters,
            request_text(interaction),
        )
        await answer(
            interaction,
            embed=contest_embed(result),
            allowed_mentions=discord.AllowedMentions.none(),
        )
