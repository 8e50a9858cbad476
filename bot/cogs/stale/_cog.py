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


def _handled(store: Any, data: dict[str, Any]) -> bool:
    """Whether one of the bot's views or persistent items takes this interaction (its raw
    payload, read before discord.py dispatches it: a view may stop itself once it ran)."""
    inner: dict[str, Any] = data.get("data") or {}
    custom_id = str(inner.get("custom_id", ""))
    if data.get("type") == discord.InteractionType.modal_submit.value:
        return custom_id in store._modals
    if any(pattern.fullmatch(custom_id) for pattern in store._dynamic_items):
        return True
    key = (int(inner.get("component_type", 0)), custom_id)
    message = data.get("message") or {}
    message_id = int(message["id"]) if "id" in message else None
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


_KINDS = (discord.InteractionType.component.value, discord.InteractionType.modal_submit.value)


class StaleCog(commands.Cog):
    """Answers what nothing else answers."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        #: Interactions no view took, noted as they arrived (before any view could stop).
        self._stale: set[int] = set()
        self._original: Any = None

    async def cog_load(self) -> None:
        state = self.bot._connection
        original = state.parsers["INTERACTION_CREATE"]

        def parse(data: dict[str, Any]) -> None:
            if data.get("type") in _KINDS and not _handled(state._view_store, data):
                self._stale.add(int(data["id"]))
            original(data)

        self._original = original
        state.parsers["INTERACTION_CREATE"] = parse

    async def cog_unload(self) -> None:
        if self._original is not None:
            self.bot._connection.parsers["INTERACTION_CREATE"] = self._original

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.id not in self._stale:
            return
        self._stale.discard(interaction.id)
        if interaction.response.is_done():
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
