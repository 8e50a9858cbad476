"""/odds: the same options as /check, /save, /luck and /roll; nothing is rolled or recorded."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import _autocomplete as ac
from bot.cogs._common import bot_of, caller_from
from bot.cogs._options import (
    CHECK_OPTION_NAMES,
    AbilityName,
    Bonus,
    Dc,
    DifficultyChoice,
    Name,
    RankBonus,
    check_options,
    option_help,
)
from bot.cogs._respond import answer
from bot.render.odds import odds_embed
from bot.services import odds
from bot.services.odds import OddsReport

PUBLIC = "Show the odds to the whole channel (default: only you)"


async def _answer(interaction: discord.Interaction[Any], report: OddsReport, public: bool) -> None:
    await answer(
        interaction,
        embed=odds_embed(report),
        ephemeral=not public,
        allowed_mentions=discord.AllowedMentions.none(),
    )


class OddsCog(commands.GroupCog, group_name="odds"):
    """Exact odds from the rules engine, for the caller's active character."""

    @app_commands.command(name="check", description="Odds of a /check with these options")
    @app_commands.describe(**option_help(*CHECK_OPTION_NAMES, public=PUBLIC))
    @app_commands.autocomplete(
        ability=ac.ability, proficiency=ac.proficiency, helper=ac.any_character
    )
    @app_commands.guild_only()
    async def check(
        self,
        interaction: discord.Interaction[Any],
        ability: AbilityName,
        proficiency: Name | None = None,
        dc: Dc | None = None,
        difficulty: DifficultyChoice | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        bonus: Bonus | None = None,
        rank_bonus: RankBonus | None = None,
        reliable: bool = False,
        unreliable: bool = False,
        helper: Name | None = None,
        public: bool = False,
    ) -> None:
        options = check_options(
            ability,
            proficiency=proficiency,
            dc=dc,
            difficulty=difficulty,
            advantage=advantage,
            disadvantage=disadvantage,
            bonus=bonus,
            rank_bonus=rank_bonus,
            reliable=reliable,
            unreliable=unreliable,
            helper=helper,
        )
        report = await odds.check_odds(bot_of(interaction).db, caller_from(interaction), options)
        await _answer(interaction, report, public)

    @app_commands.command(name="save", description="Odds of a /save with these options")
    @app_commands.describe(
        **option_help(
            "ability",
            "dc",
            "advantage",
            "disadvantage",
            "bonus",
            ability="The ability the save uses",
            dc="The DC (d20 check)",
            bonus="A situational bonus or penalty (d20 check)",
            public=PUBLIC,
        )
    )
    @app_commands.autocomplete(ability=ac.ability)
    @app_commands.guild_only()
    async def save(
        self,
        interaction: discord.Interaction[Any],
        ability: AbilityName,
        dc: Dc | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        bonus: Bonus | None = None,
        public: bool = False,
    ) -> None:
        options = check_options(
            ability, dc=dc, advantage=advantage, disadvantage=disadvantage, bonus=bonus
        )
        report = await odds.save_odds(bot_of(interaction).db, caller_from(interaction), options)
        await _answer(interaction, report, public)

    @app_commands.command(name="luck", description="Odds of a Pen & Dagger luck roll")
    @app_commands.describe(public=PUBLIC)
    @app_commands.guild_only()
    async def luck(self, interaction: discord.Interaction[Any], public: bool = False) -> None:
        report = await odds.luck_odds(bot_of(interaction).db, caller_from(interaction))
        await _answer(interaction, report, public)

    @app_commands.command(name="roll", description="Odds of a /roll expression's total")
    @app_commands.describe(
        dice="Dice notation, as for /roll: 1d20+5, 4d6kh3; all of it: /help topic:dice",
        at_least="Also give the chance of a total of at least this",
        public=PUBLIC,
    )
    async def roll(
        self,
        interaction: discord.Interaction[Any],
        dice: app_commands.Range[str, 1, 1000],
        at_least: app_commands.Range[int, -100000, 100000] | None = None,
        public: bool = False,
    ) -> None:
        await _answer(interaction, odds.dice_odds(dice, at_least), public)
