"""/fortune show | spend | give | take, the fortune-dice buttons on rolls, /gm clear-modifier.

/fortune show | spend | give | take (Pen & Dagger ruling 6) and /gm clear-modifier.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import _autocomplete as ac
from bot.cogs._caller import bot_of, caller_from
from bot.cogs._delivery import announce_rotation
from bot.cogs._gm import ensure_gm_group, gm_group
from bot.cogs._options import WordChoices
from bot.cogs._views.fortune import DYNAMIC_ITEMS, fortune_view
from bot.interaction import Interaction, answer
from bot.quoting import escape
from bot.render.fortune import (
    changed_text,
    cleared_text,
    reroll_embed,
    spent_text,
    status_text,
)
from bot.services.rolling import fortune_table
from bot.services.table import sheets
from bot.words import FortunePurpose, Visibility

Name = app_commands.Range[str, 1, 64]
PurposeChoice = app_commands.Transform[str, WordChoices(FortunePurpose)]
Count = app_commands.Range[int, 1, 4]


@app_commands.guild_only()  # every subcommand needs a server: none offered in DMs
class FortuneCog(commands.GroupCog, group_name="fortune"):
    """Fortune dice: players spend their own, the GM gives and takes."""

    @app_commands.command(
        name="show", description="Pen & Dagger: how many fortune dice a character holds"
    )
    @app_commands.describe(character="Whose dice (default: your active character)")
    @app_commands.autocomplete(character=ac.any_character)
    @app_commands.guild_only()
    async def show(self, interaction: Interaction, character: Name | None = None) -> None:
        status = await fortune_table.show(
            bot_of(interaction).db, caller_from(interaction), character
        )
        await answer(interaction, status_text(status), ephemeral=True)

    @app_commands.command(
        name="spend", description="Pen & Dagger: spend a fortune die (recorded with its purpose)"
    )
    @app_commands.describe(
        purpose="hint, escape (a social situation), item (a better find), or reroll your last roll",
        note="What for, in a few words (recorded)",
    )
    @app_commands.guild_only()
    async def spend(
        self,
        interaction: Interaction,
        purpose: PurposeChoice,
        note: app_commands.Range[str, 1, 500] | None = None,
    ) -> None:
        bot = bot_of(interaction)
        caller = caller_from(interaction)
        if purpose == FortunePurpose.REROLL:
            result = await fortune_table.reroll_latest(bot.db, bot.rng, caller)
            view = fortune_view(result.new_roll_id, result.final, result.fortune)
            await answer(
                interaction,
                embed=reroll_embed(
                    f"{escape(result.character_name)}: reroll of roll #{result.number}", result
                ),
                view=view or discord.utils.MISSING,
                allowed_mentions=discord.AllowedMentions.none(),
            )
            await announce_rotation(interaction, result.rotation, Visibility.PUBLIC)
            return
        spent = await fortune_table.spend(bot.db, caller, purpose, note)
        await answer(
            interaction,
            spent_text(spent, purpose, note),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @app_commands.command(name="give", description="Pen & Dagger GM: give a character fortune dice")
    @app_commands.describe(character="Who gets them", count="How many (default 1)")
    @app_commands.autocomplete(character=ac.any_character)
    @app_commands.guild_only()
    async def give(self, interaction: Interaction, character: Name, count: Count = 1) -> None:
        changed = await fortune_table.give(
            bot_of(interaction).db, caller_from(interaction), character, count
        )
        await answer(
            interaction,
            changed_text(changed, interaction.user.display_name),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @app_commands.command(
        name="take", description="Pen & Dagger GM: take fortune dice from a character"
    )
    @app_commands.describe(character="Whose dice", count="How many (default 1)")
    @app_commands.autocomplete(character=ac.any_character)
    @app_commands.guild_only()
    async def take(self, interaction: Interaction, character: Name, count: Count = 1) -> None:
        changed = await fortune_table.take(
            bot_of(interaction).db, caller_from(interaction), character, count
        )
        await answer(
            interaction,
            changed_text(changed, interaction.user.display_name),
            allowed_mentions=discord.AllowedMentions.none(),
        )


@gm_group.command(
    name="clear-modifier", description="Threshold: clear a character's carry-over modifier"
)
@app_commands.describe(
    character="Whose carry-over", ability="Only this attribute's (default: all of them)"
)
@app_commands.autocomplete(character=ac.any_character, ability=ac.ability)
async def clear_modifier(
    interaction: Interaction,
    character: Name,
    ability: app_commands.Range[str, 1, 32] | None = None,
) -> None:
    """Threshold ruling 4: the GM can clear a pending +2 / −2."""
    done = await sheets.clear_modifier(
        bot_of(interaction).db, caller_from(interaction), character, ability
    )
    # One from a hidden roll not yet revealed would tell the table it was a critical: GM only.
    await answer(
        interaction,
        cleared_text(done.name, done.cleared),
        ephemeral=done.secret,
        allowed_mentions=discord.AllowedMentions.none(),
    )


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(FortuneCog())
    bot.add_dynamic_items(*DYNAMIC_ITEMS)
    ensure_gm_group(bot)  # /gm clear-modifier is attached to it in _cog
