"""Autocomplete callbacks shared by the cogs: names only, never anything about rolls."""

from __future__ import annotations

from discord import app_commands

from bot.cogs._caller import bot_of, caller_from
from bot.interaction import Interaction
from bot.services.table import sheets

Choices = list[app_commands.Choice[str]]


def _choices(names: list[str]) -> Choices:
    return [app_commands.Choice(name=n[:100], value=n[:100]) for n in names[:25]]


async def own_character(interaction: Interaction, current: str) -> Choices:
    """The caller's characters (all of the campaign's for the GM)."""
    bot = bot_of(interaction)
    return _choices(
        await sheets.character_names(bot.db, caller_from(interaction), current, own_only=True)
    )


async def any_character(interaction: Interaction, current: str) -> Choices:
    """Every character in the campaign."""
    bot = bot_of(interaction)
    return _choices(
        await sheets.character_names(bot.db, caller_from(interaction), current, own_only=False)
    )


async def ability(interaction: Interaction, current: str) -> Choices:
    """The campaign's ability names."""
    bot = bot_of(interaction)
    return _choices(await sheets.ability_names(bot.db, caller_from(interaction), current))


async def proficiency(interaction: Interaction, current: str) -> Choices:
    """Proficiencies on the caller's active character."""
    bot = bot_of(interaction)
    return _choices(await sheets.proficiency_names(bot.db, caller_from(interaction), current))


async def proficiency_value(interaction: Interaction, current: str) -> Choices:
    """Ranks or degrees for the campaign's system."""
    bot = bot_of(interaction)
    return _choices(await sheets.proficiency_values(bot.db, caller_from(interaction), current))
