"""Sealed declarations as Discord embeds: the round, each "has declared" stub, the reveal.

Before the reveal nothing here is given a declaration's text (the services never hand it
out); the reveal shows each text escaped (no markdown, no pings) and clipped to Discord's
limits, packed into as few messages as the limits allow.
"""

from __future__ import annotations

from datetime import datetime

import discord

from bot.quoting import escape
from bot.render import style
from bot.services.table.rounds import Declared, Revealed, RoundView, Status
from bot.words import RoundState

#: Discord allows ten embeds per message, and 6,000 characters across all of them.
EMBEDS_PER_MESSAGE = 10
MESSAGE_EMBEDS_TOTAL = 6000


def member(user_id: int) -> str:
    """A member as Discord shows them: a mention, which no nickname can imitate (it opens the
    one account); "a member" when unknown."""
    return f"<@{user_id}>" if user_id else "a member"


def _when(at: datetime) -> str:
    return f"<t:{int(at.timestamp())}:R>"


def _deadline(round_: RoundView) -> str:
    if round_.deadline_at is None:
        return "The GM reveals every declaration at once with /gm round reveal."
    return (
        f"It reveals itself {_when(round_.deadline_at)} (or sooner: /gm round reveal), "
        "every declaration at once."
    )


def opened_embed(round_: RoundView) -> discord.Embed:
    """The round is open: how to declare, and that nobody sees a declaration until the end."""
    embed = style.new_embed(
        f"Round {round_.id}: sealed declarations",
        "Declare your action with **/declare**. It is sealed: nobody, the GM included, sees "
        "it until the round is revealed; you may replace it until then. " + _deadline(round_),
        style.NEUTRAL,
    )
    style.set_footer(embed, f"round {round_.id} · who has declared: /gm round status")
    return embed


def declared_embed(declared: Declared) -> discord.Embed:
    """The channel's stub: who declared, the number and the commitment; never the text.

    The commitment is in a field named "Commitment", where /verify reads it back."""
    name = escape(declared.name)
    if declared.replaced is None:
        title = f"{name} has declared"
        body = f"Sealed declaration **#{declared.number}** for round {declared.round.id}."
    else:
        title = f"{name} has changed their declaration"
        body = (
            f"Sealed declaration **#{declared.number}** for round {declared.round.id} replaces "
            f"#{declared.replaced}, which stays sealed."
        )
    # The member by mention (an embed's mention pings nobody): a character's name or a
    # nickname is anyone's to choose, the account is not.
    body += f" Declared by {member(declared.user_id)}."
    embed = style.new_embed(title, body, style.INFO)
    style.add_field(embed, "Commitment (SHA-256)", f"`{declared.commitment}`")
    style.set_footer(
        embed, f"declaration #{declared.number} · after the reveal, check it with /verify"
    )
    return embed


def status_embed(status: Status, *, title: str | None = None) -> discord.Embed:
    """Who has declared in a round (never what)."""
    round_ = status.round
    lines = [
        f"**#{s.number}** · {escape(s.name)} ({member(s.user_id)}) · {_when(s.declared_at)}"
        for s in status.declared
    ]
    body = "\n".join(lines) if lines else "Nobody has declared yet."
    embed = style.new_embed(
        title or f"Round {round_.id}: {style.count(len(lines), 'declaration', 'declarations')}",
        body,
        style.INFO,
    )
    if round_.state == RoundState.OPEN:
        style.add_field(embed, "Reveal", _deadline(round_))
    style.set_footer(embed, f"round {round_.id} · declarations stay sealed until the reveal")
    return embed


def cancelled_embed(status: Status) -> discord.Embed:
    """A cancelled round: its declarations stay sealed for good."""
    return status_embed(
        status,
        title=f"Round {status.round.id} cancelled: its declarations stay sealed",
    )


def reveal_embeds(revealed: Revealed) -> list[list[discord.Embed]]:
    """The reveal: a heading, then one embed per declaration packed into messages (at most
    ten embeds and 6,000 characters each). Each declaration's text is escaped and clipped to
    an embed's description."""
    count = style.count(len(revealed.declarations), "declaration", "declarations")
    head = style.new_embed(
        f"Round {revealed.round.id} revealed {revealed.how}",
        f"{count}, all shown at once. Each was sealed when it was made: check any with "
        "/verify roll:<number>.",
        style.NEUTRAL,
    )
    if not revealed.declarations:
        head.description = "Nobody declared in this round."
    embeds: list[discord.Embed] = []
    for shown in revealed.declarations:
        embed = style.new_embed(
            f"#{shown.number} · {escape(shown.name)}",
            # As written: markdown and mentions kept (an embed pings nobody), within a
            # description's limit (a declaration is at most 4,000 characters).
            style.clip(shown.text, style.DESCRIPTION_LIMIT) or "—",
            style.NEUTRAL,
        )
        style.add_field(embed, "Declared by", member(shown.user_id), inline=True)
        style.set_footer(embed, f"/verify roll:{shown.number}")
        embeds.append(embed)
    # The heading alone first (a command's first answer carries one embed), then the
    # declarations packed.
    messages: list[list[discord.Embed]] = [[head]]
    packed: list[list[discord.Embed]] = []
    for embed in embeds:
        last = packed[-1] if packed else None
        if (
            last is not None
            and len(last) < EMBEDS_PER_MESSAGE
            and sum(len(e) for e in last) + len(embed) <= MESSAGE_EMBEDS_TOTAL
        ):
            last.append(embed)
        else:
            packed.append([embed])
    return messages + packed
