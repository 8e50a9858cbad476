"""The shared `/gm` command group: GM tools from several cogs hang off this one object.

Each cog that adds `/gm` subcommands attaches them to :data:`gm_group` (or a subgroup with
``parent=gm_group``) and calls :func:`ensure_gm_group` in its setup, which adds the group to
the bot's tree once.
"""

from __future__ import annotations

from discord import app_commands
from discord.ext import commands

# No ``default_permissions``: a GM is whoever holds one of the campaign's GM roles (or Manage
# Server), which no Discord permission expresses, so a default such as Manage Server would hide
# /gm from the GMs themselves. The services' checks decide; a server admin may still restrict
# the command in Server Settings → Integrations.
gm_group = app_commands.Group(
    name="gm",
    description="GM tools: hidden rolls, reveals, roll requests, the log",
    guild_only=True,
)


def ensure_gm_group(bot: commands.Bot) -> None:
    """Add `/gm` to the bot's command tree unless another cog already did."""
    if bot.tree.get_command("gm") is None:
        bot.tree.add_command(gm_group)
