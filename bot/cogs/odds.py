"""/odds check | save | luck | roll: exact odds before anyone rolls.

/odds: the same options as /check, /save, /luck and /roll; nothing is rolled or recorded.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from
from bot.cogs._options import (
    AbilityName,
    Ac,
    Against,
    AtLeast,
    Bonus,
    CritAt,
    Dc,
    DifficultyChoice,
    Magic,
    Name,
    Notation,
    Quality,
    RankBonus,
    School,
    attack_options,
    check_options,
    declared,
)
from bot.commands import ROLLING
from bot.interaction import Interaction, answer
from bot.render.odds import odds_embed
from bot.services.rolling import attacks, dialects, odds
from bot.services.rolling.odds import OddsReport

CHECK, SAVE, LUCK = ROLLING["odds check"], ROLLING["odds save"], ROLLING["odds luck"]
ATTACK, ROLL = ROLLING["odds attack"], ROLLING["odds roll"]


async def _answer(interaction: Interaction, report: OddsReport, public: bool) -> None:
    await answer(
        interaction,
        embed=odds_embed(report),
        ephemeral=not public,
        allowed_mentions=discord.AllowedMentions.none(),
    )


class OddsCog(commands.GroupCog, group_name="odds"):
    """Exact odds from the rules engine, for the caller's active character."""

    @app_commands.command(name=CHECK.leaf, description=CHECK.help)
    @declared(CHECK)
    async def check(
        self,
        interaction: Interaction,
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
        helper_needs_proficiency: bool = False,
        crit_success_at: CritAt | None = None,
        crit_failure_at: CritAt | None = None,
        public: bool = False,
    ) -> None:
        options = check_options(CHECK, locals())
        report = await odds.check_odds(bot_of(interaction).db, caller_from(interaction), options)
        await _answer(interaction, report, public)

    @app_commands.command(name=SAVE.leaf, description=SAVE.help)
    @declared(SAVE)
    async def save(
        self,
        interaction: Interaction,
        ability: AbilityName | None = None,
        dc: Dc | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        bonus: Bonus | None = None,
        against: Against | None = None,
        source: Name | None = None,
        school: School | None = None,
        public: bool = False,
    ) -> None:
        options = check_options(SAVE, locals())
        report = await odds.save_odds(bot_of(interaction).db, caller_from(interaction), options)
        await _answer(interaction, report, public)

    @app_commands.command(name=LUCK.leaf, description=LUCK.help)
    @declared(LUCK)
    async def luck(self, interaction: Interaction, public: bool = False) -> None:
        report = await odds.luck_odds(bot_of(interaction).db, caller_from(interaction))
        await _answer(interaction, report, public)

    @app_commands.command(name=ATTACK.leaf, description=ATTACK.help)
    @declared(ATTACK)
    async def attack(
        self,
        interaction: Interaction,
        ac: Ac,
        ability: AbilityName = "STR",
        proficiency: bool = True,
        advantage: bool = False,
        disadvantage: bool = False,
        bonus: Bonus | None = None,
        weapon_quality: Quality | None = None,
        magic_bonus: Magic | None = None,
        target: Name | None = None,
        armour_quality: Quality | None = None,
        armour_magic: Magic | None = None,
        public: bool = False,
    ) -> None:
        options = attack_options(ATTACK, locals())
        found = await attacks.attack_odds(bot_of(interaction).db, caller_from(interaction), options)
        report = OddsReport(found.title, attacks.odds_rows(found), found.odds.hit, "Chance to hit")
        await _answer(interaction, report, public)

    @app_commands.command(name=ROLL.leaf, description=ROLL.help)
    @declared(ROLL)
    async def roll(
        self,
        interaction: Interaction,
        dice: Notation,
        at_least: AtLeast | None = None,
        public: bool = False,
    ) -> None:
        caller = caller_from(interaction)
        dialect = await dialects.resolve(bot_of(interaction).db, caller)
        report = await odds.roll_odds(caller, dice, at_least, dialect)
        await _answer(interaction, report, public)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(OddsCog())
