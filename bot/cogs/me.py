"""/me notify: how the game clock reaches me; /me dice: my dice notation's dialect.

/me notify <channel|dm|off>: where reminders and "your turn" pings reach a player.
/me dice <dialect>: which bot's habits the player's dice notation follows (docs/dice.md).
/me seed set|show: the player's own seed, part of every die they roll (docs/fair-dice.md).
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from
from bot.cogs._options import WordChoices
from bot.dice.dialects import DIALECT_NAMES, DIALECTS, differences
from bot.interaction import Interaction
from bot.render.fair import player_seed_text
from bot.services.rolling import dialects
from bot.services.table import notify
from bot.services.trust import fairness
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


_DIALECT_CHOICES = [
    app_commands.Choice(name=f"{value} ({DIALECT_NAMES[value]})", value=value) for value in DIALECTS
] + [app_commands.Choice(name="campaign (the campaign's default)", value=dialects.CAMPAIGN)]


def dialect_said(dialect: str | None) -> str:
    """What a dialect changes, in a few words a player can check against their habits."""
    if dialect is None:
        return "Your dice now follow the campaign's dialect (pbp outside campaigns)."
    changed = differences(dialect)
    if not changed:
        return (
            "Your dice are read the pbp-dice way; "
            "each answer says how it read a spelling other bots read differently."
        )
    lines = [f"- `{r.example}`: {r.meaning(dialect)}" for r in changed]
    return f"Your dice are read the {DIALECT_NAMES[dialect]} way:\n" + "\n".join(lines)


@me_group.command(name="dice", description="Read your dice notation like another bot does")
@app_commands.describe(dialect="pbp (default), avrae, roll20, dice-maiden, or the campaign's")
@app_commands.choices(dialect=_DIALECT_CHOICES)
async def me_dice(interaction: Interaction, dialect: str) -> None:
    chosen = await dialects.set_player(bot_of(interaction).db, caller_from(interaction), dialect)
    await interaction.response.send_message(dialect_said(chosen), ephemeral=True)


seed_group = app_commands.Group(
    name="seed", description="Your own dice seed, part of every die you roll", parent=me_group
)


@seed_group.command(name="set", description="Set your dice seed (any text), or a random one")
@app_commands.describe(text="Any words (kept private to you); leave out for a random seed")
async def me_seed_set(
    interaction: Interaction, text: app_commands.Range[str, 1, 200] | None = None
) -> None:
    chosen = await fairness.set_player_seed(bot_of(interaction).db, caller_from(interaction), text)
    await interaction.response.send_message(player_seed_text(chosen, changed=True), ephemeral=True)


@seed_group.command(name="show", description="Show your dice seed and the key your rolls record")
async def me_seed_show(interaction: Interaction) -> None:
    view = await fairness.player_seed(bot_of(interaction).db, caller_from(interaction))
    await interaction.response.send_message(player_seed_text(view, changed=False), ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    if bot.tree.get_command("me") is None:
        bot.tree.add_command(me_group)
