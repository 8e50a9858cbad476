"""Posts as a character shown on Discord: the webhook's name and text, the embed used when the
bot may not manage webhooks, a post's history.

A post reads as its player wrote it: markdown kept (italics, bold, spoilers, quotes), mentions
shown as Discord renders them, each inline roll's total in bold in place, and a post longer
than one message continued in the next. What pings is decided by ``allowed_mentions`` alone:
a player mentioned in it, only where the GM allowed posts to ping players; @everyone, @here
and roles never.
"""

from __future__ import annotations

import re

import discord

from bot.quoting import clip_text, escape
from bot.render import style
from bot.render.inline import as_written
from bot.services.rolling.inline import InlineRolls
from bot.services.table.posts import PostHistory

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


def mentions(body: str, pingable: frozenset[int] = frozenset()) -> discord.AllowedMentions:
    """What a post may ping: the players it mentions among ``pingable`` (the campaign's
    players, when the GM allowed it), never @everyone, @here or a role. A mention of anyone
    else still shows as Discord renders it, without a ping."""
    users = [discord.Object(int(user)) for user in mentioned_users(body) if int(user) in pingable]
    return discord.AllowedMentions(everyone=False, roles=False, users=users, replied_user=False)


def mentioned_users(body: str) -> list[str]:
    """The ids of the users a text mentions (each once, in order)."""
    seen: dict[str, None] = {}
    for found in _USER.finditer(body):
        seen.setdefault(found[1], None)
    return list(seen)


def webhook_parts(text: str, rolls: InlineRolls) -> list[str]:
    """What the webhook sends: the post as written (bot/render/inline.py :func:`as_written`),
    one message of up to 2,000 characters, or as many as it takes."""
    return as_written(text, rolls, limit=CONTENT_LIMIT)


def fallback_embeds(
    name: str, avatar_url: str | None, text: str, rolls: InlineRolls
) -> list[discord.Embed]:
    """The post as the bot's own embeds, their author the character (no Manage Webhooks):
    one of up to 4,096 characters, or as many as it takes."""
    # An embed author's name shows no markdown and pings nobody: only clipped.
    author = clip_text(" ".join(name.split()), AUTHOR_LIMIT)
    embeds: list[discord.Embed] = []
    for part in as_written(text, rolls, limit=DESCRIPTION_LIMIT):
        embed = discord.Embed(description=part, colour=style.NEUTRAL)
        shown = author if not embeds else clip_text(f"{author} (continued)", AUTHOR_LIMIT)
        embed.set_author(name=shown, icon_url=avatar_url)
        embeds.append(embed)
    return embeds


def pings_content(parts: list[str], pingable: frozenset[int]) -> str | None:
    """An embed pings nobody: the players a fallback post may ping, named in its content."""
    users = [u for u in mentioned_users("\n".join(parts)) if int(u) in pingable]
    return " ".join(f"<@{user}>" for user in users) or None


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
