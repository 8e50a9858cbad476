"""/groupsave and /contest: the party's group mechanics, per the campaign's system.

/groupsave (GM) and /contest: one public message (a large party's with its full table
attached), one transaction each.
"""

from __future__ import annotations

from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import _autocomplete as ac
from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._delivery import announce_rotation, announce_rotations
from bot.cogs._options import Bonus, DifficultyChoice, Name
from bot.interaction import Interaction, answer
from bot.render.groups import contest_embed, group_save_embed, group_save_file
from bot.services.rolling import groups
from bot.words import Visibility

RollMode = Literal["advantage", "disadvantage"]


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
        interaction: Interaction,
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
            file=group_save_file(result),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        await announce_rotations(interaction, result.rotations)

    @app_commands.command(
        name="contest", description="Roll-under, d20 check: characters contest an ability"
    )
    @app_commands.describe(
        ability="The ability everyone rolls (d20 check: the first character's)",
        characters="Names or @mentions, comma-separated, e.g. Sybilla, @bob",
        first_proficiency="d20 check: a proficiency on the first character's sheet",
        first_bonus="d20 check: the first character's bonus or penalty",
        first_roll="d20 check: the first character rolls with advantage or disadvantage",
        second_ability="d20 check: the second character's ability, if not the same",
        second_proficiency="d20 check: a proficiency on the second character's sheet",
        second_bonus="d20 check: the second character's bonus or penalty",
        second_roll="d20 check: the second character rolls with advantage or disadvantage",
    )
    @app_commands.autocomplete(
        ability=ac.ability,
        second_ability=ac.ability,
        first_proficiency=ac.proficiency,
        second_proficiency=ac.proficiency,
    )
    @app_commands.guild_only()
    async def contest(
        self,
        interaction: Interaction,
        ability: app_commands.Range[str, 1, 32],
        characters: app_commands.Range[str, 1, 1000],
        first_proficiency: Name | None = None,
        first_bonus: Bonus | None = None,
        first_roll: RollMode | None = None,
        second_ability: app_commands.Range[str, 1, 32] | None = None,
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
