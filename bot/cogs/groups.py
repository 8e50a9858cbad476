"""/groupsave and /contest: the party's group mechanics, per the campaign's system.

/groupsave (GM) and /contest: one public message (a large party's with its full table
attached), one transaction each.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._delivery import announce_rotation, announce_rotations
from bot.cogs._options import (
    AbilityName,
    Bonus,
    Characters,
    Dc,
    DifficultyChoice,
    Name,
    RollMode,
    declared,
)
from bot.commands import ROLLING
from bot.interaction import Interaction, answer
from bot.render.groups import contest_embed, group_save_embed, group_save_file
from bot.services.rolling import groups
from bot.words import Visibility

GROUPSAVE, CONTEST = ROLLING["groupsave"], ROLLING["contest"]


class GroupsCog(commands.Cog):
    """Group saves and contests."""

    @app_commands.command(name=GROUPSAVE.leaf, description=GROUPSAVE.help)
    @declared(GROUPSAVE)
    async def groupsave(
        self,
        interaction: Interaction,
        ability: AbilityName,
        dc: Dc | None = None,
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
            file=group_save_file(result),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        await announce_rotations(interaction, result.rotations)

    @app_commands.command(name=CONTEST.leaf, description=CONTEST.help)
    @declared(CONTEST)
    async def contest(
        self,
        interaction: Interaction,
        ability: AbilityName,
        characters: Characters,
        first_proficiency: Name | None = None,
        first_bonus: Bonus | None = None,
        first_roll: RollMode | None = None,
        second_ability: AbilityName | None = None,
        second_proficiency: Name | None = None,
        second_bonus: Bonus | None = None,
        second_roll: RollMode | None = None,
    ) -> None:
        bot = bot_of(interaction)
        sides = (
            groups.ContestSide(
                proficiency=first_proficiency,
                bonus=first_bonus,
                advantage=first_roll == "advantage",
                disadvantage=first_roll == "disadvantage",
            ),
            groups.ContestSide(
                ability=second_ability,
                proficiency=second_proficiency,
                bonus=second_bonus,
                advantage=second_roll == "advantage",
                disadvantage=second_roll == "disadvantage",
            ),
        )
        result = await groups.contest(
            bot.db,
            bot.rng,
            caller_from(interaction),
            ability,
            characters,
            request_text(interaction),
            sides,
        )
        await answer(
            interaction,
            embed=contest_embed(result),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        await announce_rotation(interaction, result.rotation, Visibility.PUBLIC)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(GroupsCog())
