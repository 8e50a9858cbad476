"""/macro save | run | list | delete: saved rolls (docs/posting.md).

/macro: a character's saved rolls, run as the command they stand for would run.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._delivery import answer_for
from bot.interaction import Interaction, answer
from bot.render.macros import deleted_text, list_embed, saved_text
from bot.services.rolling import macros

MacroName = app_commands.Range[str, 1, 32]
RollText = app_commands.Range[str, 1, 1000]


async def macro_name(interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
    """The caller's active character's saved rolls (nobody else's)."""
    names = await macros.macro_names(bot_of(interaction).db, caller_from(interaction), current)
    return [app_commands.Choice(name=n, value=n) for n in names]


@app_commands.guild_only()  # every subcommand needs a server: none offered in DMs
class MacroCog(commands.GroupCog, group_name="macro"):
    """Saved rolls, per character."""

    @app_commands.command(name="save", description="Save a roll under a name, for your character")
    @app_commands.describe(
        name="One word, e.g. sneak; then /macro run name:sneak or [[sneak]] in a post",
        roll="What you would type after a slash, e.g. check DEX Stealth adv, roll 2d6+3 [fire]",
    )
    @app_commands.guild_only()
    async def save(self, interaction: Interaction, name: MacroName, roll: RollText) -> None:
        saved = await macros.save_macro(
            bot_of(interaction).db, caller_from(interaction), name, roll
        )
        await answer(interaction, saved_text(saved), ephemeral=True)

    @app_commands.command(name="run", description="Roll one of your character's saved rolls")
    @app_commands.describe(
        name="The saved roll's name", extra="Options added to it, e.g. dc:15 or bonus:2"
    )
    @app_commands.autocomplete(name=macro_name)
    @app_commands.guild_only()
    async def run(
        self,
        interaction: Interaction,
        name: MacroName,
        extra: app_commands.Range[str, 1, 200] | None = None,
    ) -> None:
        bot = bot_of(interaction)
        result = await macros.run_macro(
            bot.db,
            bot.rng,
            caller_from(interaction),
            name,
            request_text(interaction),
            extra=extra,
        )
        await answer_for(interaction, result)

    @app_commands.command(name="list", description="Your active character's saved rolls")
    @app_commands.guild_only()
    async def list_(self, interaction: Interaction) -> None:
        listed = await macros.list_macros(bot_of(interaction).db, caller_from(interaction))
        await answer(interaction, embed=list_embed(listed), ephemeral=True)

    @app_commands.command(name="delete", description="Delete one of your character's saved rolls")
    @app_commands.describe(name="The saved roll's name")
    @app_commands.autocomplete(name=macro_name)
    @app_commands.guild_only()
    async def delete(self, interaction: Interaction, name: MacroName) -> None:
        gone = await macros.delete_macro(bot_of(interaction).db, caller_from(interaction), name)
        await answer(interaction, deleted_text(gone), ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(MacroCog())
