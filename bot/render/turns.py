"""Turn order as messages: the order with every initiative die, and each change's line."""

from __future__ import annotations

from datetime import timedelta

import discord

from bot.quoting import escape
from bot.render import style
from bot.services.kit.clock import format_duration
from bot.services.kit.commitments import TOMBSTONE_ID
from bot.services.table.turns import TurnEvent, TurnsView
from bot.words import NotifyMode, TurnOrderKind

ORDER_WORDS: dict[str, str] = {
    TurnOrderKind.LISTED: "as listed",
    TurnOrderKind.INITIATIVE: "by initiative",
    TurnOrderKind.RANDOM: "at random",
}


def order_embed(view: TurnsView) -> discord.Embed:
    """The order, whose turn it is (▶), who holds this round."""
    lines = []
    for i, entry in enumerate(view.entries):
        mark = "▶" if i == view.position and view.ended_at is None else f"{i + 1}."
        held = " *(holds this round)*" if i in view.held else ""
        roll = f" · {entry.roll}" if entry.roll else ""
        player = "an erased player" if entry.user_id == TOMBSTONE_ID else f"<@{entry.user_id}>"
        lines.append(f"{mark} **{escape(entry.name)}** ({player}){roll}{held}")
    title = f"Turn order · round {view.round}" + (" (ended)" if view.ended_at else "")
    embed = style.new_embed(title, style.clip("\n".join(lines), style.DESCRIPTION_LIMIT))
    footer = f"order {ORDER_WORDS.get(view.order_kind, view.order_kind)}"
    if view.turn_seconds:
        footer += f" · each turn passes after {format_duration_seconds(view.turn_seconds)}"
    style.set_footer(embed, footer)
    return embed


def format_duration_seconds(seconds: int) -> str:
    """``3600`` → ``1h``."""
    return format_duration(timedelta(seconds=seconds))


def whose_turn(view: TurnsView, mode: str | None) -> str:
    """ "It is @player's turn (Name)": a mention only for a player who wants channel pings."""
    entry = view.current
    erased = entry.user_id == TOMBSTONE_ID
    who = f"<@{entry.user_id}>'s" if mode == NotifyMode.CHANNEL and not erased else "their player's"
    line = f"Round {view.round}: it is {who} turn with **{escape(entry.name)}**."
    deadline = view.deadline_at
    if deadline is not None:
        epoch = int(deadline.timestamp())
        line += f" The turn passes by itself <t:{epoch}:R>."
    return line


def event_text(event: TurnEvent) -> str:
    """The public line of a change."""
    view = event.order
    actor = escape(event.actor)
    if event.what == "ended":
        return "The turn order ends."
    if event.what == "holds" and event.ping_mode is None:
        return f"**{actor}** holds this round and keeps their place for the next."
    head = {
        "started": f"Turn order started, {ORDER_WORDS.get(view.order_kind, view.order_kind)}.",
        "turn done": f"**{actor}** is done.",
        "holds": f"**{actor}** holds this round and keeps their place for the next.",
        "time is up": f"Time is up for **{actor}**: the turn passes automatically.",
    }.get(event.what, "")
    return f"{head} {whose_turn(view, event.ping_mode)}".strip()


def ping_mentions(event: TurnEvent) -> discord.AllowedMentions:
    """Only the player whose turn it is, and only if they want channel pings."""
    if event.ping_mode == NotifyMode.CHANNEL and event.order.ended_at is None:
        return discord.AllowedMentions(
            users=[discord.Object(event.order.current.user_id)], roles=False, everyone=False
        )
    return discord.AllowedMentions.none()


def dm_text(event: TurnEvent, link: str) -> str:
    """The DM of a player who chose ``/me notify dm``."""
    return (
        f"Your turn with **{escape(event.order.current.name)}** (round {event.order.round}): {link}"
    )
