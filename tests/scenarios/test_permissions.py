"""The bot asks for the permissions it uses and no more (docs/deploying.md, "Permissions").

What the code needs is read off its own requests: a session that walks every path on which
the bot acts on its own account (a hidden roll's GM copy, /verify reading the stub back, a
roll request updated in place, campaign set-up checking who reads the GM channel, /history's
scope, an export, a clock notice in a thread, /post through a webhook in a thread) is played
in SimCord, and each request the bot sent maps to the permission Discord checks for it. That
set must be :data:`bot.permissions.REQUIRED` and :data:`bot.permissions.OPTIONAL`; the same
session played with exactly those permissions in every channel must work, and without any
one of the permissions SimCord enforces, must visibly fail. The README's invite link must ask
for them.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import discord
import pytest
from simcord.backend.models import Overwrite
from simcord.enums import OverwriteType

from bot.permissions import OPTIONAL, REQUIRED, SCOPES, bot_permissions, invite_url
from tests.fixtures.places import open_thread
from tests.fixtures.table import Table, make_character, message_text, start_campaign

pytestmark = pytest.mark.usefixtures("discord_thread_rules")
README = Path(__file__).resolve().parents[2] / "README.md"
#: Requests that answer an interaction or sync commands: Discord checks no bot permission.
_FREE = re.compile(r"^/(interactions|webhooks|applications)/|^/users/@me|^/gateway")
#: A request on a channel needs View Channel there, and, by route, one more permission.
_CHANNEL = re.compile(r"^/channels/(?P<id>\d+)(?P<rest>/.*)?$")
_GUILD_FREE = re.compile(r"^/guilds/\d+(/members/\d+|/channels|/roles)?$")


def needed(method: str, path: str, body: Any, threads: Collection[int] = ()) -> set[str]:
    """The permissions Discord checks for one request of the bot (discord.py's names);
    ``threads``: the ids of threads and forum posts (posting there is its own permission)."""
    if _FREE.search(path) or (method == "GET" and _GUILD_FREE.match(path)):
        return set()
    channel = _CHANNEL.match(path)
    if channel is None:
        raise AssertionError(f"the bot sent {method} {path}: say which permission it needs")
    rest = channel["rest"] or ""
    if method == "GET" and rest == "":
        return {"view_channel"}
    if method == "POST" and rest == "/messages":
        embeds = isinstance(body, dict) and bool(body.get("embeds") or body.get("embed"))
        send = "send_messages_in_threads" if int(channel["id"]) in threads else "send_messages"
        return {"view_channel", send, *(["embed_links"] if embeds else [])}
    if rest == "/webhooks" and method in ("GET", "POST"):
        return {"view_channel", "manage_webhooks"}
    if method == "GET" and re.fullmatch(r"/messages/\d+", rest):
        return {"view_channel", "read_message_history"}
    if method == "PATCH" and re.fullmatch(r"/messages/\d+", rest):
        return {"view_channel"}  # its own message: no Manage Messages
    if method == "GET" and re.fullmatch(r"/thread-members/\d+", rest):
        return {"view_channel"}
    raise AssertionError(f"the bot sent {method} {path}: say which permission it needs")


def restrict_bot(table: Table, channel: Any, permissions: discord.Permissions) -> None:
    """The bot has exactly ``permissions`` in ``channel`` (a member overwrite of its own)."""
    allow = permissions.value
    deny = discord.Permissions.all().value & ~allow
    bot_id = table.bot.user.id if table.bot.user else 0
    table.env.backend.set_overwrite(
        channel.id, Overwrite(bot_id, OverwriteType.MEMBER, allow=allow, deny=deny)
    )


def every_permission() -> discord.Permissions:
    """A bot invited with everything but Administrator (which would skip every check)."""
    broad = discord.Permissions.all()
    broad.administrator = False
    return broad


async def session(table: Table, permissions: discord.Permissions) -> dict[str, bool]:
    """Every path on which the bot acts on its own account; what worked."""
    gm_channel = table.guild.create_text_channel(
        "gm-only",
        overwrites={
            table.guild.default_role: discord.PermissionOverwrite(view_channel=False),
            table.gm_role: discord.PermissionOverwrite(view_channel=True),
        },
    )
    for channel in (table.table, gm_channel):
        restrict_bot(table, channel, permissions)
    await start_campaign(table, "d20-check")
    done = await table.gm.slash(table.table, "campaign set gm-channel", channel=gm_channel)
    assert done.response is not None and "Setting saved" in done.response.content
    await make_character(table, table.alice, "Ayla", {"DEX": 14})
    await make_character(table, table.bob, "Bram", {"DEX": 12})
    worked: dict[str, bool] = {}
    # A blind roll: the stub in #table, the GM copy posted in the GM channel.
    await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="blind")
    copies = [m for m in gm_channel.history() if m.embeds]
    worked["GM copy in the GM channel"] = len(copies) == 1
    # Revealed, /verify reads the public stub back, as Discord shows it.
    number = re.search(r"roll #(\d+)", message_text(table.table.history()[-1]))
    assert number is not None
    await table.gm.slash(table.table, "reveal", roll=int(number[1]))
    checked = await table.bob.slash(table.table, "verify", roll=int(number[1]))
    assert checked.response is not None
    worked["/verify reads the stub"] = "stub message, as Discord shows it" in message_text(
        checked.response
    )
    # A roll request with a hidden DC, answered, then revealed: its message is updated in place.
    await table.gm.slash(
        table.table, "gm request roll", ability="DEX", characters="Ayla", hidden_dc=10
    )
    request = table.table.history()[-1]
    table.dice(17)
    await table.alice.click(request, label="Roll")
    await table.gm.slash(table.table, "gm request reveal")
    updated = next(m for m in table.table.history() if m.id == request.id)
    worked["request updated in place"] = "DC 10" in message_text(updated)
    # Answers that need no permission: /history (its scope check), an export (a file).
    shown = await table.bob.slash(table.table, "history")
    worked["/history"] = shown.response is not None and bool(shown.response.embeds)
    exported = await table.gm.slash(table.table, "campaign export")
    files = [m for m in (exported.response, *exported.followups) if m and m.attachments]
    worked["/campaign export"] = len(files) == 1
    # In a thread of the campaign: a turn passes at its deadline (a post of the bot's own).
    scene = open_thread(table, table.table, "Scene")
    await table.gm.slash(scene, "turns start", characters="Ayla, Bram", deadline="1h")
    await table.env.advance_time(3700)
    worked["clock notice in a thread"] = any(
        "Time is up" in message_text(m) for m in scene.history()
    )
    # /post in the thread: through the channel's webhook, under the character's name.
    await table.alice.slash(scene, "post", text="Ayla draws her blade.")
    worked["/post under the character's name"] = any(
        m.webhook_id and "Ayla draws" in (m.content or "") for m in scene.history()
    )
    return worked


async def test_the_permissions_asked_for_are_exactly_those_the_code_uses(table: Table) -> None:
    start = len(table.env.http_requests)
    worked = await session(table, every_permission())
    assert all(worked.values()), worked
    threads = {c.id for c in table.env.backend.channels.values() if c.is_thread}
    used: set[str] = set()
    for request in table.env.http_requests[start:]:
        used |= needed(request.method, request.path, request.json, threads)
    assert used == set(REQUIRED) | set(OPTIONAL)
    assert bot_permissions() == discord.Permissions(**dict.fromkeys(used, True))


async def test_the_bot_works_with_exactly_the_permissions_it_asks_for(table: Table) -> None:
    worked = await session(table, bot_permissions())
    assert all(worked.values()), worked


@pytest.mark.parametrize(
    ("missing", "breaks"),
    [
        ("send_messages", "GM copy in the GM channel"),
        ("read_message_history", "/verify reads the stub"),
        ("view_channel", "GM copy in the GM channel"),
        ("send_messages_in_threads", "clock notice in a thread"),
        ("manage_webhooks", "/post under the character's name"),
    ],
)
async def test_each_permission_asked_for_is_needed(table: Table, missing: str, breaks: str) -> None:
    # Embed Links is not enforced by SimCord (Discord drops the embeds); the first test shows
    # the bot's own posts carry embeds.
    fewer = bot_permissions()
    setattr(fewer, missing, False)
    worked = await session(table, fewer)
    assert not worked[breaks], worked


def test_the_readme_invite_link_asks_for_exactly_these_permissions() -> None:
    links = re.findall(r"https://discord\.com/oauth2/authorize\?[^\s)>`\]]+", README.read_text())
    assert len(links) == 1, links
    query = parse_qs(urlparse(links[0]).query)
    assert int(query["permissions"][0]) == bot_permissions().value
    assert query["scope"][0].split() == list(SCOPES)
    assert urlparse(links[0]).query == urlparse(invite_url(query["client_id"][0])).query
