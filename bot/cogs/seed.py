"""/seed show | rotate: the dice's server seed of any place, campaign or not (docs/fair-dice.md).

/seed show | rotate, in a campaign's channel, a channel without a campaign or a DM with the
bot: every place that rolls has a seed, so every place can see and rotate it.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from
from bot.interaction import Interaction, answer
from bot.render.fair import rotation_text, seed_shown_text
from bot.services.trust import fairness

seed_group = app_commands.Group(
    name="seed", description="The dice's server seed here: its hash, and rotating it"
)


@seed_group.command(name="show", description="Show this place's dice seed hash (fixed before use)")
async def seed_show(interaction: Interaction) -> None:
    """Private: anyone may ask; the hash is public anyway (/campaign show, rotations)."""
    db, caller = bot_of(interaction).db, caller_from(interaction)
    shown = await fairness.show_here(db, caller, await fairness.campaign_here(db, caller))
    await answer(interaction, seed_shown_text(shown), ephemeral=True)


@seed_group.command(
    name="rotate",
    description=(
        "Start a new dice seed here; the old one is published to recheck its rolls "
        "(GM; Manage Channels)"
    ),
)
async def seed_rotate(interaction: Interaction) -> None:
    """Public: the revealed seed lets anyone recompute the rolls drawn from it."""
    db, caller = bot_of(interaction).db, caller_from(interaction)
    rotation = await fairness.rotate(db, caller, await fairness.campaign_here(db, caller))
    await answer(interaction, rotation_text(rotation))


async def setup(bot: commands.Bot) -> None:
    if bot.tree.get_command("seed") is None:
        bot.tree.add_command(seed_group)
