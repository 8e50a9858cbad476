"""/preroll and /preroll-list: sealed d20s a player rolls in advance (docs/prerolls.md).

/preroll seals d20s for the caller's active character; /preroll-list lists those waiting
(/prerolls, its old name, until the release bot/render/renamed.py names).

The GM applies them with ``/gm check ... preroll:next`` (bot/cogs/gm.py).
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._delivery import announce_rotations
from bot.cogs._renamed import ran_as_old_name
from bot.interaction import Interaction, answer
from bot.render.prerolls import sealed_embed, waiting_embed
from bot.render.renamed import old_description
from bot.services.rolling import prerolls
from bot.services.trust import secrecy

_QUIET = discord.AllowedMentions.none()
_LIST = "The sealed pre-rolls waiting in this campaign"


class PrerollCog(commands.Cog):
    """Sealed pre-rolls: commit now, reveal when the GM applies them."""

    @app_commands.command(
        name="preroll", description="Seal d20s now that nobody sees until the GM applies one"
    )
    @app_commands.describe(
        count=f"How many d20s to seal (default 1; at most {prerolls.MAX_SEALED} may wait)"
    )
    @app_commands.guild_only()
    async def preroll(
        self,
        interaction: Interaction,
        count: app_commands.Range[int, 1, prerolls.MAX_SEALED] = 1,
    ) -> None:
        bot = bot_of(interaction)
        sealed = await prerolls.seal(
            bot.db, bot.rng, caller_from(interaction), count, request_text(interaction)
        )
        stub_id = await answer(interaction, embed=sealed_embed(sealed), allowed_mentions=_QUIET)
        if len(sealed.dice) == 1 and stub_id is not None and interaction.channel_id is not None:
            # /verify compares with the commitment as this message still shows it (one
            # commitment per stub message: a stub of several is compared with the stored ones).
            await secrecy.record_stub(bot.db, sealed.roll_ids[0], interaction.channel_id, stub_id)
        # The place sees the dice sealed: a seed they used up is revealed to it (each die is
        # blinded, so its face stays sealed).
        await announce_rotations(interaction, sealed.rotations)

    @app_commands.command(name="preroll-list", description=_LIST)
    @app_commands.guild_only()
    async def list_prerolls(self, interaction: Interaction) -> None:
        await _list(interaction)

    @app_commands.command(name="prerolls", description=old_description("prerolls", _LIST))
    @app_commands.guild_only()
    async def list_prerolls_old_name(self, interaction: Interaction) -> None:
        """One letter from /preroll, which seals: the old name of /preroll-list."""
        async with ran_as_old_name(interaction, "prerolls"):
            await _list(interaction)


async def _list(interaction: Interaction) -> None:
    """Only to the caller: the list names every character's sealed dice, never a face."""
    _, found = await prerolls.waiting(bot_of(interaction).db, caller_from(interaction))
    await answer(interaction, embed=waiting_embed(found), ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(PrerollCog())
