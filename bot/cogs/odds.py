"""/odds check | save | luck | roll: exact odds before anyone rolls.

/odds: the same options as /check, /save, /luck and /roll; nothing is rolled or recorded.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import _autocomplete as ac
from bot.cogs._caller import bot_of, caller_from
from bot.cogs._options import (
    ATTACK_HELP,
    CHECK_OPTION_NAMES,
    SAVE_HELP,
    AbilityName,
    Ac,
    Against,
    Bonus,
    CritAt,
    Dc,
    DifficultyChoice,
    Magic,
    Name,
    Quality,
    RankBonus,
    School,
    check_options,
    option_help,
    save_options,
)
from bot.interaction import Interaction, answer
from bot.render.odds import odds_embed
from bot.services.rolling import attacks, dialects, odds
from bot.services.rolling.attacks import AttackOptions
from bot.services.rolling.odds import OddsReport

PUBLIC = "Show the odds to the whole channel (default: only you)"


async def _answer(interaction: Interaction, report: OddsReport, public: bool) -> None:
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
            helper_needs_proficiency=helper_needs_proficiency,
            crit_success_at=crit_success_at,
            crit_failure_at=crit_failure_at,
        )
        report = await odds.check_odds(bot_of(interaction).db, caller_from(interaction), options)
        await _answer(interaction, report, public)

    @app_commands.command(
        name="save", description="Odds of a /save with these options (d20 check, roll-under)"
    )
    @app_commands.describe(**SAVE_HELP, public=PUBLIC)
    @app_commands.autocomplete(ability=ac.ability, source=ac.any_character)
    @app_commands.rename(source="from")
    @app_commands.guild_only()
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
        options = save_options(
            ability,
            dc=dc,
            advantage=advantage,
            disadvantage=disadvantage,
            bonus=bonus,
            against=against,
            source=source,
            school=school,
        )
        report = await odds.save_odds(bot_of(interaction).db, caller_from(interaction), options)
        await _answer(interaction, report, public)

    @app_commands.command(name="luck", description="Odds of a Pen & Dagger luck roll")
    @app_commands.describe(public=PUBLIC)
    @app_commands.guild_only()
    async def luck(self, interaction: Interaction, public: bool = False) -> None:
        report = await odds.luck_odds(bot_of(interaction).db, caller_from(interaction))
        await _answer(interaction, report, public)

    @app_commands.command(
        name="attack", description="d20 check: odds of an /attack: hit, critical, fumble"
    )
    @app_commands.describe(
        **{k: v for k, v in ATTACK_HELP.items() if k not in ("damage", "secret")}, public=PUBLIC
    )
    @app_commands.autocomplete(ability=ac.ability, target=ac.any_character)
    @app_commands.guild_only()
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
        options = AttackOptions(
            ac=ac,
            ability=ability,
            proficiency=proficiency,
            advantage=advantage,
            disadvantage=disadvantage,
            bonus=bonus,
            weapon_quality=weapon_quality,
            magic_bonus=magic_bonus,
            target=target,
            armour_quality=armour_quality,
            armour_magic=armour_magic,
        )
        found = await attacks.attack_odds(bot_of(interaction).db, caller_from(interaction), options)
        report = OddsReport(found.title, attacks.odds_rows(found), found.odds.hit, "Chance to hit")
        await _answer(interaction, report, public)

    @app_commands.command(name="roll", description="Odds of a /roll expression's total")
    @app_commands.describe(
        dice="Dice notation, as for /roll: 1d20+5, 4d6kh3; all of it: /help topic:dice",
        at_least="Also give the chance of a total of at least this",
        public=PUBLIC,
    )
    async def roll(
        self,
        interaction: Interaction,
        dice: app_commands.Range[str, 1, 1000],
        at_least: app_commands.Range[int, -100000, 100000] | None = None,
        public: bool = False,
    ) -> None:
        caller = caller_from(interaction)
        dialect = await dialects.resolve(bot_of(interaction).db, caller)
        report = await odds.roll_odds(caller, dice, at_least, dialect)
        await _answer(interaction, report, public)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(OddsCog())
