"""The real bot in SimCord: a server with #table and #gm, a GM and three players.

The bot is built only through `create_bot`, on a migrated SQLite file of the test, with a
seeded random source, so every outcome is reproducible.
"""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import discord
import pytest
from simcord.actors import MemberActor
from simcord.builders import ChannelHandle, GuildHandle, RoleHandle

from bot.app import PbpBot, create_bot
from bot.config import Settings
from bot.tree import user_message
from tests.scripted import ScriptedRandom

SEED = 20261129


@pytest.fixture
def settings(clean_db_url: str) -> Settings:
    """Every bot test runs on SQLite, and again on PostgreSQL when TEST_DATABASE_URL is set."""
    return Settings(_env_file=None, database_url=clean_db_url, shard_count=1)  # type: ignore[call-arg]


@pytest.fixture
def rng() -> ScriptedRandom:
    return ScriptedRandom(seed=SEED)


@pytest.fixture
async def simcord_bot(settings: Settings, rng: random.Random) -> AsyncIterator[PbpBot]:
    bot = create_bot(settings, rng=rng)
    yield bot
    await close_after_simcord(bot)


async def close_after_simcord(bot: PbpBot) -> None:
    """Close the bot's database once SimCord has detached it (SimCord does not close the
    bot): otherwise its pooled aiosqlite connection is garbage-collected during a later test,
    and aiosqlite's worker thread then fails on that test's closed event loop."""
    await bot.close_database()


@dataclass
class Table:
    """The simulated server every bot test plays in."""

    env: Any
    guild: GuildHandle
    #: The server owner: has Manage Server, so may set up campaigns (and is a GM of every one).
    admin: MemberActor
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

    def dice(self, *faces: int) -> None:
        """Script the next d20s the bot rolls."""
        rng = self.bot.rng
        assert isinstance(rng, ScriptedRandom)
        rng.queue(*faces)


@pytest.fixture
def table(simcord_env: Any) -> Iterator[Table]:
    """The world; at teardown, errors the bot answered with a user-facing message are fine,
    anything else (an incident) fails the test."""
    env = simcord_env
    owner = env.create_user("admin")
    guild = env.create_guild("Play by Post", owner=owner)
    admin = guild.add_member(owner)
    table = guild.create_text_channel("table")
    gm_channel = guild.create_text_channel("gm")
    gm_role = guild.create_role("GM", permissions=discord.Permissions.none())
    gm = guild.add_member(env.create_user("gm"), roles=[gm_role])
    alice = guild.add_member(env.create_user("alice"))
    bob = guild.add_member(env.create_user("bob"))
    carol = guild.add_member(env.create_user("carol"))
    yield Table(env, guild, admin, table, gm_channel, gm_role, gm, alice, bob, carol)
    unacknowledged = env.errors_since(env._errors_acknowledged)
    _ = env.errors  # acknowledges what SimCord captured; the line below decides what fails
    unexpected = [e for e in unacknowledged if user_message(e) is None]
    if unexpected:
        raise ExceptionGroup("the bot raised unexpected errors", unexpected)
    broken = answering_violations(env.backend.transcript)
    assert broken == [], "\n".join(broken)


_CALLBACK = re.compile(r"^POST /interactions/(\d+)/([^/]+)/callback$")
_WEBHOOK = re.compile(r"^(POST|PATCH) /webhooks/\d+/([^/?]+)(/messages/@original)?$")
_DEFERRED = 5  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: "thinking…"


def answering_violations(transcript: list[tuple[str, str, Any]]) -> list[str]:
    """How the bot broke Discord's rules for answering, in every test:

    - a REST call while an interaction was still unanswered (it must answer, or defer, within
      three seconds; anything it asks Discord first eats into them);
    - a deferred "thinking…" answered by a followup instead of editing the original response
      (Discord documents that use of the first followup as deprecated).
    """
    found: list[str] = []
    waiting: str | None = None
    thinking: set[str] = set()  # tokens of deferred interactions whose answer is still due
    for kind, name, payload in transcript:
        if kind == "GATEWAY" and name == "INTERACTION_CREATE":
            waiting = str(payload["id"])
            continue
        if kind != "HTTP":
            continue
        callback = _CALLBACK.match(name)
        if callback and callback.group(1) == waiting:
            waiting = None
            if isinstance(payload, dict) and payload.get("type") == _DEFERRED:
                thinking.add(callback.group(2))
            continue
        if waiting is not None:
            found.append(f"{name}: before interaction {waiting} was answered")
        webhook = _WEBHOOK.match(name)
        if webhook and webhook.group(2) in thinking:
            thinking.discard(webhook.group(2))
            if webhook.group(3) is None:
                found.append(f"{name}: a followup in place of the deferred response")
    return found


async def start_campaign(table: Table, system: str) -> None:
    """The server owner binds #table to a campaign whose GM role is the table's GM role."""
    result = await table.admin.slash(
        table.table,
        "campaign setup",
        system=system,
        gm_role=table.gm_role,
        gm_channel=table.gm_channel,
    )
    assert result.response is not None and "Campaign created" in result.response.content


async def make_character(
    table: Table, player: MemberActor, name: str, scores: dict[str, int]
) -> None:
    """`player` creates `name` and sets each score through the real commands."""
    created = await player.slash(table.table, "character create", name=name)
    assert created.response is not None and name in created.response.content
    for ability, value in scores.items():
        done = await player.slash(
            table.table, "character set", ability=ability, value=value, character=name
        )
        assert done.response is not None and "Score saved" in done.response.content


def embed_text(embed: discord.Embed) -> str:
    """Everything an embed shows, as one string, for assertions."""
    parts = [embed.title or "", embed.description or ""]
    parts += [f"{f.name}: {f.value}" for f in embed.fields]
    parts.append(embed.footer.text or "")
    return "\n".join(parts)


def message_text(message: Any) -> str:
    """Content plus every embed of a message or interaction response."""
    return "\n".join([message.content or "", *(embed_text(e) for e in message.embeds)])


def final_answer(result: Any) -> Any:
    """The message that answers an interaction as the caller sees it at the end: the
    response, or, when a public "thinking…" response was removed to answer privately (an
    error after a public deferral, bot/interaction.py), the private followup."""
    if result.response is not None:
        return result.response
    assert result.followups, f"no answer at all: {result!r}"
    return result.followups[-1]


def answered_ephemeral(result: Any) -> bool:
    """Whether only the caller sees :func:`final_answer`."""
    return bool(final_answer(result).ephemeral)


# Discord's thread rules SimCord lacks, for the tests that play in threads
# (tests/scenarios/places.py).
from tests.scenarios.places import discord_thread_rules  # noqa: E402, F401
