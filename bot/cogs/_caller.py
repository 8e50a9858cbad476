"""Who is calling and what they typed, read once from the interaction for every cog."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import discord

from bot.cogs._scope import read_check
from bot.interaction import Interaction
from bot.services.kit.context import Caller

if TYPE_CHECKING:
    from bot.app import PbpBot


def bot_of(interaction: Interaction) -> PbpBot:
    """The bot that received the interaction."""
    return interaction.client


def caller_from(interaction: Interaction) -> Caller:
    """Plain data about the caller for the services: ids, roles, Manage Server, and where
    they can read (asked of Discord only when a service needs it)."""
    channel = interaction.channel
    parent_id = None
    if isinstance(channel, discord.Thread):
        parent_id = channel.parent_id
    user = interaction.user
    roles: frozenset[int] = frozenset()
    manage = manage_channels = False
    if isinstance(user, discord.Member):
        roles = frozenset(role.id for role in user.roles)
        manage = user.guild_permissions.manage_guild
        # Resolved in the command's channel (its overwrites count), as Discord sent them.
        manage_channels = interaction.permissions.manage_channels
    return Caller(
        user_id=user.id,
        channel_id=interaction.channel_id or 0,
        guild_id=interaction.guild_id,
        parent_channel_id=parent_id,
        role_ids=roles,
        manage_guild=manage,
        manage_channels=manage_channels,
        interaction_id=interaction.id,
        display_name=user.display_name,
        bot_names=_bot_names(interaction),
        can_read=read_check(interaction),
        budget=getattr(interaction.client, "budgets", None),
    )


def _bot_names(interaction: Interaction) -> tuple[str, ...]:
    """The bot's names as members see them here: user name, global name, server nickname."""
    me = interaction.client.user
    if me is None:
        return ()
    names = [me.name, getattr(me, "global_name", None)]
    guild = interaction.guild
    member = guild.me if guild is not None else None
    if member is not None:
        names.append(member.display_name)
    return tuple(dict.fromkeys(n for n in names if n))


def _option_pairs(options: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    path: list[str] = []
    pairs: list[str] = []
    for option in options:
        if option.get("type") in (1, 2):  # subcommand, subcommand group
            path.append(str(option["name"]))
            sub_path, sub_pairs = _option_pairs(option.get("options") or [])
            path += sub_path
            pairs += sub_pairs
        else:
            pairs.append(f"{option['name']}:{option.get('value')}")
    return path, pairs


def request_text(interaction: Interaction) -> str:
    """The command as the user typed it, e.g. `/check ability:DEX advantage:True`."""
    data = cast("dict[str, Any]", interaction.data or {})
    path, pairs = _option_pairs(list(data.get("options") or []))
    return " ".join([f"/{data.get('name', '?')}", *path, *pairs])[:4000]
