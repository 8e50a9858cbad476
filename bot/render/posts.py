"""Posts as a character shown on Discord: the webhook's name and text, the embed used when the
bot may not manage webhooks, a post's history.

Everything from the player is escaped by :func:`bot.render.inline.render_text` (so a name or a
text like `**@everyone**` shows as typed); a player mention survives only where the GM allowed
posts to ping players, and @everyone, @here and roles never do.
"""

from __future__ import annotations

import re

import discord

from bot.quoting import clip_text, escape
from bot.render import style
from bot.render.inline import render_text
from bot.services.inline import InlineRolls
from bot.services.posts import PostHistory

#: Discord's limits: a message's content, an embed's description, a webhook's name, an embed
#: author's name.
CONTENT_LIMIT = 2000
DESCRIPTION_LIMIT = 4096
USERNAME_LIMIT = 80
AUTHOR_LIMIT = 256

# Discord refuses a webhook name containing these words; a look-alike letter (Cyrillic) keeps
# the name readable and accepted.
_FORBIDDEN_NAMES = {"discord": "disc\u043erd", "clyde": "clyd\u0435"}
_FORBIDDEN = re.compile("|".join(_FORBIDDEN_NAMES), re.IGNORECASE)
# A player mention as escape() leaves it: `<@` zero-width space id `>`.
_ESCAPED_USER = re.compile(r"<@(!?)\u200b(\d+)>")
_USER = re.compile(r"<@!?(\d+)>")


def webhook_username(name: str) -> str:
    """A character's name as a webhook may show it: one line, 1 to 80 characters, without
    the words Discord refuses in one."""
    flat = " ".join(name.split()) or "Character"

    def _lookalike(found: re.Match[str]) -> str:
        word = found[0]
        swapped = _FORBIDDEN_NAMES[word.lower()]
        return "".join(s if w.islower() else s.upper() for w, s in zip(word, swapped, strict=True))

    return clip_text(_FORBIDDEN.sub(_lookalike, flat), USERNAME_LIMIT)


def mentions(body: str) -> discord.AllowedMentions:
    """What a rendered post may ping: the players left mentionable in it (see
    :func:`post_body`), never @everyone, @here or a role."""
    users = [discord.Object(int(user)) for user in mentioned_users(body)]
    return discord.AllowedMentions(everyone=False, roles=False, users=users, replied_user=False)


def post_body(text: str, rolls: InlineRolls, *, pingable: frozenset[int], limit: int) -> str:
    """The post's text, rolls in place and their lines below, within ``limit`` characters;
    a mention of a player in ``pingable`` is left live, every other one escaped."""
    body = render_text(text, rolls, limit=limit)
    if pingable:
        body = _ESCAPED_USER.sub(
            lambda m: f"<@{m[1]}{m[2]}>" if int(m[2]) in pingable else m[0], body
        )
    return body


def mentioned_users(body: str) -> list[str]:
    """The ids of the mentions left live in a rendered body (each once, in order)."""
    seen: dict[str, None] = {}
    for found in _USER.finditer(body):
        seen.setdefault(found[1], None)
    return list(seen)


def webhook_message(
    text: str, rolls: InlineRolls, *, pingable: frozenset[int]
) -> tuple[str | None, discord.Embed | None]:
    """What the webhook sends: the text as content, or, longer than a message holds, as an
    embed's description (up to 4,096 characters)."""
    full = post_body(text, rolls, pingable=pingable, limit=DESCRIPTION_LIMIT)
    if len(full) <= CONTENT_LIMIT:
        return full, None
    embed = discord.Embed(description=full, colour=style.NEUTRAL)
    return None, embed


def fallback_embed(
    name: str, avatar_url: str | None, text: str, rolls: InlineRolls, *, pingable: frozenset[int]
) -> discord.Embed:
    """The post as the bot's own embed, its author the character (no Manage Webhooks)."""
    embed = discord.Embed(
        description=post_body(text, rolls, pingable=pingable, limit=DESCRIPTION_LIMIT),
        colour=style.NEUTRAL,
    )
    # An embed author's name shows no markdown and pings nobody: only clipped.
    embed.set_author(name=clip_text(" ".join(name.split()), AUTHOR_LIMIT), icon_url=avatar_url)
    return embed


def webhook_hint(bot_name: str) -> str:
    """Said once per channel: how to let the bot post under characters' names."""
    return (
        f"To post under each character's name and portrait, {escape(bot_name)} needs the "
        "**Manage Webhooks** permission in this channel (Server Settings → Roles → "
        f"{escape(bot_name)}, or this channel's Edit Channel → Permissions). Until then posts "
        "show as an embed with the character's name. (Said once per channel.)"
    )


def posted_text(name: str, link: str | None, number: int, rolls: InlineRolls) -> str:
    """The poster's private confirmation."""
    where = f": {link}" if link else ""
    bound = ""
    if rolls.rolls:
        bound = "; rolls " + ", ".join(f"#{r.number}" for r in rolls.rolls) + " bound to it"
    return f"Posted as **{escape(clip_text(name, 64))}**{where} (ledger #{number}{bound})."


def history_embed(found: PostHistory) -> discord.Embed:
    """Every version of a post, oldest first, each with its ledger number."""
    post = found.post
    embed = style.new_embed(
        f"Post by {escape(clip_text(post.character_name, 64))}",
        f"{len(found.versions)} version(s); rolls are never rerolled by an edit.",
        style.INFO,
    )
    shown = found.versions[-(style.FIELDS_LIMIT - 1) :]
    # Escaping may double a text: each version gets an equal share of what an embed holds.
    share = max(60, min(480, (style.EMBED_TOTAL_LIMIT - 600) // (2 * len(shown) or 1)))
    for version in shown:
        when = f"<t:{int(version.created_at.timestamp())}:f>"
        label = "original" if version.version == 1 else f"edit {version.version - 1}"
        ledger_no = f" · ledger #{version.number}" if version.number is not None else ""
        style.add_field(
            embed,
            f"v{version.version} ({label}){ledger_no}",
            f"{when}\n{escape(clip_text(version.text, share))}",
        )
    return embed
