"""A click on a button, or a form sent, that no view of the bot handles any more.

Buttons that must outlive the process (a roll request's Roll, the fortune choices) are
persistent: their custom ids name what they act on, and every process handles them. Others
(a pager, a confirmation, "post again") live in memory for a while; after they expire or the
bot restarts, Discord would show the clicker "This interaction failed". Instead, the clicker
is told privately what happened and what to type; a form's text comes back as a file, so
nothing a player wrote is lost.
"""

from __future__ import annotations

import io
import logging
from typing import Any

import discord
from discord.ext import commands

log = logging.getLogger(__name__)

STALE_BUTTON = (
    "This button has expired (the bot keeps buttons like it for a while, and not across a "
    "restart), so nothing happened. Run the command again to get a fresh one."
)
STALE_FORM = (
    "This form expired before it was sent, so nothing was posted or saved. Your text is "
    "attached (your-text.txt): run the command again and paste it in."
)


def _handled(store: Any, interaction: discord.Interaction[Any]) -> bool:
    """Whether one of the bot's views or persistent items takes this interaction."""
    data: dict[str, Any] = interaction.data or {}  # type: ignore[assignment]
    custom_id = str(data.get("custom_id", ""))
    if interaction.type is discord.InteractionType.modal_submit:
        return custom_id in store._modals
    if any(pattern.fullmatch(custom_id) for pattern in store._dynamic_items):
        return True
    key = (int(data.get("component_type", 0)), custom_id)
    message_id = interaction.message.id if interaction.message is not None else None
    return key in store._views.get(message_id, {}) or key in store._views.get(None, {})


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


class StaleCog(commands.Cog):
    """Answers what nothing else answers."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type not in (
            discord.InteractionType.component,
            discord.InteractionType.modal_submit,
        ):
            return
        store = self.bot._connection._view_store
        if _handled(store, interaction) or interaction.response.is_done():
            return
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
