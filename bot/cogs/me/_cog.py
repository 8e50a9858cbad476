"""/me notify <channel|dm|off>: where reminders and "your turn" pings reach a player."""

from __future__ import annotations

from discord import app_commands

from bot.cogs._common import bot_of, caller_from
from bot.cogs._options import WordChoices
from bot.cogs._types import Interaction
from bot.services import notify
from bot.words import NotifyMode

me_group = app_commands.Group(name="me", description="Your own settings")

_SAID: dict[str, str] = {
    NotifyMode.CHANNEL: "Reminders and turn pings will mention you in the game's channel.",
    NotifyMode.DM: (
        "Reminders and turn pings will come by direct message (the channel if DMs are closed)."
    ),
    NotifyMode.OFF: (
        "No more reminders or turn pings for you. Turn it back on with /me notify channel."
    ),
}


@me_group.command(name="notify", description="How the game clock reminds you: channel, DM, or off")
@app_commands.describe(how="channel (default): a ping where the game is; dm; off: no pings")
async def me_notify(
    interaction: Interaction, how: app_commands.Transform[str, WordChoices(NotifyMode)]
) -> None:
    mode = await notify.set_mode(bot_of(interaction).db, caller_from(interaction), how)
    await interaction.response.send_message(_SAID[mode], ephemeral=True)
