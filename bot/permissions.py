"""The Discord permissions the bot asks for when invited, each with what needs it.

Answering an interaction (a command, a button, the context menu), publicly or not, files
included, needs no permission of the bot: Discord checks none for interaction responses and
follow-ups. Only what the bot does on its own account does: the game clock's notices (a turn
passing at its deadline, a roll request closing, reminders, a round revealed), a hidden roll's
GM copy in the GM channel, a reveal posted in the campaign channel, a roll request updated in
place, reading a hidden roll's public stub back for /verify, and /post's webhook. Play by post
happens in threads and forum posts as much as in channels, and posting there is its own
permission (Send Messages in Threads).

tests/scenarios/test_permissions.py plays every such path, in a channel, a thread and a forum post,
and checks that the permissions Discord checks for the bot's requests are exactly
:data:`REQUIRED` and :data:`OPTIONAL`, and that each one is needed; the README's invite URL is
:func:`invite_url`'s. docs/deploying.md says what happens without each one.
"""

from __future__ import annotations

from collections.abc import Mapping

import discord

#: Every permission the bot needs (discord.py's names), and the operation that needs it.
REQUIRED: Mapping[str, str] = {
    "view_channel": "reach the campaign's channel, its threads and forum posts, and the GM channel",
    "send_messages": "post GM copies of hidden rolls in the GM channel, and clock notices, "
    "reveals and verdicts in the campaign channel",
    "send_messages_in_threads": "post the same in a thread or forum post (where a turn "
    "passes, a request closes or a round is revealed by its deadline); posting also reopens "
    "a thread Discord archived after a quiet day",
    "embed_links": "those posts are embeds, which Discord drops without it (the bot then "
    "posts them as plain text and tells the GM)",
    "read_message_history": "read a hidden roll's public stub back for /verify",
}
#: Permissions a feature uses when granted, and what it does without them.
OPTIONAL: Mapping[str, str] = {
    "manage_webhooks": "/post shows each post under the character's name and portrait; "
    "without it a post is the bot's own embed with the character's name as its author",
}
#: OAuth2 scopes: the bot user, and its slash commands.
SCOPES = ("bot", "applications.commands")

#: Each permission as Discord's settings name it, for messages to GMs and server admins.
LABELS: Mapping[str, str] = {
    "view_channel": "View Channels",
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "embed_links": "Embed Links",
    "read_message_history": "Read Message History",
    "manage_webhooks": "Manage Webhooks",
    "manage_threads": "Manage Threads",
}


def label(permission: str) -> str:
    """A permission's name as Discord's settings show it (``Send Messages in Threads``)."""
    return LABELS.get(permission, permission.replace("_", " ").title())


def bot_permissions() -> discord.Permissions:
    """The permissions of :data:`REQUIRED` and :data:`OPTIONAL`, and no other: the invite asks
    for both (a server admin may untick an optional one there)."""
    return discord.Permissions(**dict.fromkeys([*REQUIRED, *OPTIONAL], True))


def required_permissions() -> discord.Permissions:
    """The permissions of :data:`REQUIRED` alone: everything works, /post shows embeds."""
    return discord.Permissions(**dict.fromkeys(REQUIRED, True))


def invite_url(application_id: int | str) -> str:
    """The link that adds the bot to a server with exactly :func:`bot_permissions`."""
    return discord.utils.oauth_url(application_id, permissions=bot_permissions(), scopes=SCOPES)
