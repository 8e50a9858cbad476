"""/groupcheck: the GM calls for a group ability check, skills included.

/groupcheck (GM): every party member makes the check with their own stats and skill.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._delivery import announce_rotations
from bot.cogs._options import AbilityName, Dc, DifficultyChoice, Name, declared
from bot.commands import ROLLING
from bot.interaction import Interaction, answer
from bot.render.groups import group_save_embed, group_save_file
from bot.services.rolling import groups

GROUPCHECK = ROLLING["groupcheck"]


class GroupCheckCog(commands.Cog):
    """Group ability checks."""

    @app_commands.command(name=GROUPCHECK.leaf, description=GROUPCHECK.help)
    @declared(GROUPCHECK)
    async def groupcheck(
        self,
        interaction: Interaction,
        ability: AbilityName,
        proficiency: Name | None = None,
        dc: Dc | None = None,
        difficulty: DifficultyChoice | None = None,
    ) -> None:
        bot = bot_of(interaction)
        result = await groups.group_check(
            bot.db,
            bot.rng,
            caller_from(interaction),
            ability,
            request_text(interaction),
            proficiency=proficiency,
            dc=dc,
            difficulty=difficulty.replace("-", " ") if difficulty else None,
        )
        await answer(
            interaction,
            embed=group_save_embed(result),
            file=group_save_file(result),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        await announce_rotations(interaction, result.rotations)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(GroupCheckCog())
