"""The simulated server: "Play by Post" with #table and #gm, a GM and the players.

The GM owns the server (so has Manage Server and may run /campaign setup) and holds the "GM"
role; #gm is visible only to that role and the bot, the way a GM would set it up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import discord
from simcord import Env
from simcord.actors import MemberActor
from simcord.builders import ChannelHandle, GuildHandle, RoleHandle

from bot.play._parse import META_WORDS
from bot.play._print import Names

DEFAULT_GM = "gm"
DEFAULT_PLAYERS = ("alice", "bob", "carol")
_NAME = re.compile(r"^[a-z0-9_.-]{1,32}$")


def check_names(gm: str, players: list[str]) -> list[str]:
    """Problems with the chosen names, in the user's words (empty when they are fine)."""
    problems = []
    everyone = [gm, *players]
    for name in everyone:
        if not _NAME.match(name):
            problems.append(
                f"{name!r}: use 1-32 lowercase letters, digits, '_', '.' or '-' for a name"
            )
        elif name in (*META_WORDS, "click"):
            problems.append(f"{name!r} is a word of the table itself; pick another name")
    if len(set(everyone)) != len(everyone):
        problems.append("every person needs a different name")
    if not players:
        problems.append("the table needs at least one player")
    return problems


@dataclass
class World:
    """Handles to everything in the simulated server."""

    env: Env
    guild: GuildHandle
    table: ChannelHandle
    gm_channel: ChannelHandle
    gm_role: RoleHandle
    gm_name: str
    people: dict[str, MemberActor]

    # Directory (for USER / ROLE / CHANNEL options) -------------------------------------

    def member(self, name: str) -> MemberActor | None:
        return self.people.get(name.lower())

    def role(self, name: str) -> RoleHandle | None:
        return self.gm_role if name.lower() == self.gm_role.name.lower() else None

    def channel(self, name: str) -> ChannelHandle | None:
        return {"table": self.table, "gm": self.gm_channel}.get(name.lower())

    def member_names(self) -> list[str]:
        return list(self.people)

    def role_names(self) -> list[str]:
        return [self.gm_role.name]

    def channel_names(self) -> list[str]:
        return ["table", "gm"]

    # Names for printing ------------------------------------------------------------------

    def names(self) -> Names:
        users = {actor.id: name for name, actor in self.people.items()}
        bot_user = self.env.bot.user
        if bot_user is not None:
            users[bot_user.id] = BOT_NAME
        return Names(
            users=users,
            roles={self.gm_role.id: self.gm_role.name},
            channels={self.table.id: "table", self.gm_channel.id: "gm"},
            # Relative times ("in 12 hours") count from the table's simulated clock, which
            # `wait` moves (SimCord drives discord.py's utcnow, the bot's game clock too).
            now=lambda: discord.utils.utcnow().timestamp(),
        )

    def name_of(self, user_id: int) -> str:
        for name, actor in self.people.items():
            if actor.id == user_id:
                return name
        return BOT_NAME if self.env.bot.user and self.env.bot.user.id == user_id else "someone"


BOT_NAME = "pbp-dice"


def build_world(env: Env, gm: str = DEFAULT_GM, players: list[str] | None = None) -> World:
    """Create the server, its channels, the GM role, the GM and the players."""
    chosen = list(players) if players is not None else list(DEFAULT_PLAYERS)
    gm_user = env.create_user(gm)
    guild = env.create_guild("Play by Post", owner=gm_user)
    gm_role = guild.create_role("GM", permissions=discord.Permissions(manage_guild=True))
    gm_member = guild.add_member(gm_user, roles=[gm_role])
    table = guild.create_text_channel("table", topic="The game: roll here")
    overwrites: dict[Any, discord.PermissionOverwrite] = {
        guild.default_role: discord.PermissionOverwrite(view_channel=False),
        gm_role: discord.PermissionOverwrite(view_channel=True, send_messages=True),
    }
    bot_user = env.bot.user
    if bot_user is not None:
        overwrites[bot_user] = discord.PermissionOverwrite(
            view_channel=True, send_messages=True, embed_links=True
        )
    gm_channel = guild.create_text_channel("gm", overwrites=overwrites, topic="GM eyes only")
    people = {gm: gm_member}
    for name in chosen:
        people[name] = guild.add_member(env.create_user(name))
    return World(env, guild, table, gm_channel, gm_role, gm, people)
