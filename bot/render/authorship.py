"""The answer to "Who posted this?": the member behind a post, named so no nickname can hide
them (a mention resolves to the one account, whatever it is called)."""

from __future__ import annotations

from bot.quoting import escape
from bot.services.trust.authorship import Authorship


def authorship_text(found: Authorship) -> str:
    """``Posted by @member as **Ayla** (post 12, game log #34), <time>; edited: version 2.``"""
    when = f"<t:{int(found.posted_at.timestamp())}:f>"
    log = f", game log #{found.number}" if found.number else ""
    text = (
        f"Posted by <@{found.user_id}> (user id {found.user_id}) as "
        f"**{escape(found.character_name)}** (post {found.post_id}{log}), {when}."
    )
    if found.edited_at is not None:
        text += (
            f" Edited <t:{int(found.edited_at.timestamp())}:R>: version {found.version}; "
            "/post-history shows every version to the GM and the author."
        )
    return text
