"""/check, /save and /luck: the campaign system's core rolls.

/check, /save, /luck with the caller's active character.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._delivery import send_check
from bot.cogs._options import (
    AbilityName,
    Against,
    Bonus,
    CritAt,
    Dc,
    DifficultyChoice,
    Name,
    RankBonus,
    School,
    Secret,
    check_options,
    declared,
)
from bot.commands import ROLLING
from bot.interaction import Interaction, answer
from bot.render.fair import rotation_text
from bot.services.rolling import checks
from bot.services.rolling.checks import CheckResult
from bot.words import Visibility

CHECK, SAVE, LUCK = ROLLING["check"], ROLLING["save"], ROLLING["luck"]


class ChecksCog(commands.Cog):
    """The core roll of each rule system."""

    async def _send(self, interaction: Interaction, result: CheckResult) -> None:
        await send_check(interaction, result)
        # Its seed was due: revealed to all, the new hash published (docs/fair-dice.md); not
        # after a self roll, which the channel does not see happen.
        if result.rotation is not None and result.visibility is not Visibility.SELF:
            await answer(interaction, rotation_text(result.rotation))

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
        secret: Secret | None = None,
    ) -> None:
        options = check_options(CHECK, locals())
        bot = bot_of(interaction)
        result = await checks.perform_check(
            bot.db,
            bot.rng,
            caller_from(interaction),
            options,
            request_text(interaction),
            visibility=secret,
        )
        await self._send(interaction, result)

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
        secret: Secret | None = None,
    ) -> None:
        options = check_options(SAVE, locals())
        bot = bot_of(interaction)
        result = await checks.perform_save(
            bot.db,
            bot.rng,
            caller_from(interaction),
            options,
            request_text(interaction),
            visibility=secret,
        )
        await self._send(interaction, result)

    @app_commands.command(name=LUCK.leaf, description=LUCK.help)
    @declared(LUCK)
    async def luck(self, interaction: Interaction, secret: Secret | None = None) -> None:
        bot = bot_of(interaction)
        result = await checks.perform_luck(
            bot.db,
            bot.rng,
            caller_from(interaction),
            request_text(interaction),
            visibility=secret,
        )
        await self._send(interaction, result)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(ChecksCog())
