"""/attack and /gm attack: d20-check attack rolls, with the campaign's critical rules.

/attack with the caller's active character; /gm attack for a character or a monster.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._delivery import send_attack
from bot.cogs._gm import ensure_gm_group, gm_group
from bot.cogs._options import (
    AbilityName,
    Ac,
    Bonus,
    Dice,
    Magic,
    Name,
    Quality,
    Secret,
    attack_options,
    declared,
)
from bot.commands import ROLLING
from bot.interaction import Interaction, answer
from bot.render.fair import rotation_text
from bot.services.rolling import attacks
from bot.services.rolling.attacks import AttackResult
from bot.words import Visibility


async def announce_rotation(interaction: Interaction, result: AttackResult) -> None:
    """Its seed was due: revealed to all, the new hash published (docs/fair-dice.md); not
    after a self roll, which the channel does not see happen."""
    if result.rotation is not None and result.visibility is not Visibility.SELF:
        await answer(interaction, rotation_text(result.rotation))


ATTACK, GM_ATTACK = ROLLING["attack"], ROLLING["gm attack"]


class AttackCog(commands.Cog):
    """d20 check attack rolls."""

    @app_commands.command(name=ATTACK.leaf, description=ATTACK.help)
    @declared(ATTACK)
    async def attack(
        self,
        interaction: Interaction,
        ac: Ac | None = None,
        ability: AbilityName = "STR",
        proficiency: bool = True,
        advantage: bool = False,
        disadvantage: bool = False,
        bonus: Bonus | None = None,
        damage: Dice | None = None,
        weapon_quality: Quality | None = None,
        magic_bonus: Magic | None = None,
        target: Name | None = None,
        armour_quality: Quality | None = None,
        armour_magic: Magic | None = None,
        secret: Secret | None = None,
    ) -> None:
        options = attack_options(ATTACK, locals())
        bot = bot_of(interaction)
        result = await attacks.perform_attack(
            bot.db,
            bot.rng,
            caller_from(interaction),
            options,
            request_text(interaction),
            visibility=secret,
        )
        await send_attack(interaction, result)
        await announce_rotation(interaction, result)


@gm_group.command(name=GM_ATTACK.leaf, description=GM_ATTACK.help)
@declared(GM_ATTACK)
async def gm_attack(
    interaction: Interaction,
    ac: Ac | None = None,
    character: Name | None = None,
    attacker_bonus: Bonus | None = None,
    monster: Name | None = None,
    ability: AbilityName = "STR",
    proficiency: bool = True,
    advantage: bool = False,
    disadvantage: bool = False,
    bonus: Bonus | None = None,
    damage: Dice | None = None,
    weapon_quality: Quality | None = None,
    magic_bonus: Magic | None = None,
    target: Name | None = None,
    armour_quality: Quality | None = None,
    armour_magic: Magic | None = None,
    secret: Secret | None = None,
) -> None:
    options = attack_options(GM_ATTACK, locals())
    bot = bot_of(interaction)
    result = await attacks.perform_gm_attack(
        bot.db,
        bot.rng,
        caller_from(interaction),
        options,
        request_text(interaction),
        character_name=character,
        monster_name=monster,
        visibility=secret,
    )
    await send_attack(interaction, result, by_gm=True)
    await announce_rotation(interaction, result)


async def setup(bot: commands.Bot) -> None:
    ensure_gm_group(bot)  # /gm attack is attached to it in _cog
    await bot.add_cog(AttackCog())
