"""The real bot in SimCord: a server with #table and #gm, a GM and three players.

The bot is built only through `create_bot`, on a migrated SQLite file of the test, with a
seeded random source, so every outcome is reproducible.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import discord
import pytest
from simcord.actors import MemberActor
from simcord.builders import ChannelHandle, GuildHandle, RoleHandle

from bot.app import PbpBot, create_bot
from bot.config import Settings

SEED = 20261129


@pytest.fixture
def settings(database_url: str) -> Settings:
    return Settings(_env_file=None, database_url=database_url, shard_count=1)  # type: ignore[call-arg]


@pytest.fixture
def rng() -> random.Random:
    return random.Random(SEED)


@pytest.fixture
def simcord_bot(settings: Settings, rng: random.Random) -> PbpBot:
    return create_bot(settings, rng=rng)


@dataclass
class Table:
    """The simulated server every bot test plays in."""

    env: Any
    guild: GuildHandle
    table: ChannelHandle
    gm_channel: ChannelHandle
    gm_role: RoleHandle
    gm: MemberActor
    alice: MemberActor
    bob: MemberActor
    carol: MemberActor

    @property
    def bot(self) -> PbpBot:
        bot: PbpBot = self.env.bot
        return bot


@pytest.fixture
def table(simcord_env: Any) -> Table:
    env = simcord_env
    guild = env.create_guild("Play by Post")
    table = guild.create_text_channel("table")
    gm_channel = guild.create_text_channel("gm")
    gm_role = guild.create_role("GM", permissions=discord.Permissions.none())
    gm = guild.add_member(env.create_user("gm"), roles=[gm_role])
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    carol = guild.add_member(env.create_user("carol"))
    return Table(env, guild, table, gm_channel, gm_role, gm, alice, bob, carol)


def embed_text(embed: discord.Embed) -> str:
    """Everything an embed shows, as one string, for assertions."""
    parts = [embed.title or "", embed.description or ""]
    parts += [f"{f.name}: {f.value}" for f in embed.fields]
    parts.append(embed.footer.text or "")
    return "\n".join(parts)


def message_text(message: Any) -> str:
    """Content plus every embed of a message or interaction response."""
    return "\n".join([message.content or "", *(embed_text(e) for e in message.embeds)])
