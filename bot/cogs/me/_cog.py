"""/me notify <channel|dm|off>: where reminders and "your turn" pings reach a player."""

from __future__ import annotations

from typing import Literal

from discord import app_commands

from bot.cogs._common import bot_of, caller_from
from bot.cogs._types import Interaction
from bot.services import notify

me_group = app_commands.Group(name="me", description="Your own settings")

_SAID = {
    "channel": "Reminders and turn pings will mention you in the game's channel.",
    "dm": "Reminders and turn pings will come by direct message (the channel if DMs are closed).",
    "off": "No more reminders or turn pings for you. Turn it back on with /me notify channel.",
}


@me_group.command(name="notify", description="How the game clock reminds you: channel, DM, or off")
@app_commands.describe(how="channel (default): a ping where the game is; dm; off: no pings")
async def me_notify(interaction: Interaction, how: Literal["channel", "dm", "off"]) -> None:
    mode = await notify.set_mode(bot_of(interaction).db, caller_from(interaction), how)
    await interaction.response.send_message(_SAID[mode], ephemeral=True)
