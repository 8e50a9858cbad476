"""The Discord permissions the bot asks for when invited, each with what needs it (issue 22).

Answering an interaction (a command, a button), publicly or not, files included, needs no
permission of the bot: Discord checks none for interaction responses and follow-ups. Only what
the bot does on its own account does: posting the GM copy of a hidden roll in the GM channel
and a reveal in the campaign channel, and reading a hidden roll's public stub back for
/verify. tests/bot/test_permissions.py plays every such path with exactly these permissions
and checks that each one is needed; the README's invite URL is :func:`invite_url`'s.
"""

from __future__ import annotations

from collections.abc import Mapping

import discord

#: Every permission the bot uses (discord.py's names), and the operation that needs it.
REQUIRED: Mapping[str, str] = {
    "view_channel": "reach the GM channel and the campaign channel it posts in",
    "send_messages": "post a hidden roll's GM copy in the GM channel, and reveals in the "
    "campaign channel",
    "embed_links": "those posts are embeds, which Discord drops without it",
    "read_message_history": "read a hidden roll's public stub back for /verify",
}
#: OAuth2 scopes: the bot user, and its slash commands.
SCOPES = ("bot", "applications.commands")


def bot_permissions() -> discord.Permissions:
    """The permissions of :data:`REQUIRED`, and no other."""
    return discord.Permissions(**dict.fromkeys(REQUIRED, True))


def invite_url(application_id: int | str) -> str:
    """The link that adds the bot to a server with exactly :func:`bot_permissions`."""
    return discord.utils.oauth_url(application_id, permissions=bot_permissions(), scopes=SCOPES)
