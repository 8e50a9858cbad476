"""Views more than one feature shows: here, so no cog imports another feature's private module."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import discord

from bot.cogs._views.noted import Noted
from bot.interaction import Interaction, answer, update_message
from bot.tree import answer_error


class ConfirmView(Noted, discord.ui.View):
    """A "do it" / "cancel" pair only the person who asked can click.

    The question is asked ephemerally, so nobody else sees the buttons; the check here is a
    second line of defence. It times out after two minutes and then does nothing.
    """

    def __init__(
        self,
        owner_id: int,
        confirm_label: str,
        on_confirm: Callable[[Interaction], Awaitable[str]],
    ) -> None:
        super().__init__(timeout=120)
        self.owner_id = owner_id
        self.on_confirm = on_confirm
        self.confirm.label = confirm_label

    async def allowed(self, interaction: discord.Interaction[Any], /) -> bool:
        if interaction.user.id != self.owner_id:
            await answer(interaction, "Only the person who asked can answer this.", ephemeral=True)
            return False
        return True

    @discord.ui.button(label="Confirm", style=discord.ButtonStyle.danger)
    async def confirm(self, interaction: Interaction, _button: discord.ui.Button[Any]) -> None:
        self.stop()
        message = await self.on_confirm(interaction)
        await update_message(interaction, content=message, view=None)

    @discord.ui.button(label="Cancel", style=discord.ButtonStyle.secondary)
    async def cancel(self, interaction: Interaction, _button: discord.ui.Button[Any]) -> None:
        self.stop()
        await update_message(interaction, content="Cancelled: nothing changed.", view=None)

    async def on_error(
        self, interaction: discord.Interaction[Any], error: Exception, _item: Any
    ) -> None:
        await answer_error(interaction, error)
