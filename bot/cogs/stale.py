"""Buttons and forms whose message outlived what the bot remembers: answered, not ignored.

A click on a button, or a form sent, that no view of the bot handles any more.

Buttons that must outlive the process (a roll request's Roll, the fortune choices) are
persistent: their custom ids name what they act on, and every process handles them. Others
(a pager, a confirmation, "post again") live in memory for a while; after they expire or the
bot restarts, Discord would show the clicker "This interaction failed". Instead, the clicker
is told privately what happened and what to type; a form's text comes back as a file, so
nothing a player wrote is lost. Every view and button of the bot notes what it takes
(``bot/cogs/_views/noted.py``); what none noted, and nobody answered, is stale.
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Any

import discord
from discord.ext import commands

from bot.cogs._views.noted import taken
from bot.tree import count_unhandled

log = logging.getLogger(__name__)

STALE_BUTTON = (
    "This button has expired (the bot keeps buttons like it for a while, and not across a "
    "restart), so nothing happened. Run the command again to get a fresh one."
)
STALE_FORM = (
    "This form expired before it was sent, so nothing was posted or saved. Your text is "
    "attached (your-text.txt): run the command again and paste it in."
)


def _form_text(data: dict[str, Any]) -> str:
    """Every text a form's fields held, in order."""
    texts: list[str] = []

    def walk(nodes: list[dict[str, Any]]) -> None:
        for node in nodes:
            if isinstance(node.get("value"), str) and node["value"]:
                texts.append(node["value"])
            walk(node.get("components", []))
            if isinstance(node.get("component"), dict):
                walk([node["component"]])

    walk(data.get("components", []))
    return "\n\n".join(texts)


_KINDS = (discord.InteractionType.component, discord.InteractionType.modal_submit)
#: How long a click may wait for a view to take it: discord.py hands it to the view before
#: telling listeners, so this is a margin, well inside the three seconds Discord gives.
WAIT_STEPS = 10
STEP_SECONDS = 0.1


class StaleCog(commands.Cog):
    """Answers what nothing else answers."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type not in _KINDS:
            return
        for _ in range(WAIT_STEPS):
            if taken(interaction) or interaction.response.is_done():
                return
            await asyncio.sleep(STEP_SECONDS)
        if taken(interaction) or interaction.response.is_done():
            return
        count_unhandled(interaction)
        try:
            if interaction.type is discord.InteractionType.modal_submit:
                text = _form_text(interaction.data or {})  # type: ignore[arg-type]
                file = discord.File(io.BytesIO(text.encode("utf-8")), filename="your-text.txt")
                await interaction.response.send_message(
                    STALE_FORM,
                    file=file,
                    ephemeral=True,
                    allowed_mentions=discord.AllowedMentions.none(),
                )
            else:
                await interaction.response.send_message(
                    STALE_BUTTON, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
                )
        except (discord.HTTPException, discord.InteractionResponded) as exc:
            log.info("stale interaction %s not answered: %s", interaction.id, exc)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(StaleCog(bot))
