"""What the bot says when it could not post somewhere, and the one change that fixes it.

Problems are the keys bot/cogs/_places.py reports (``gone``, ``locked``, ``private-thread``,
``unanswered``, ``permission:<name>``). Everything here names places by mention (``<#id>``,
which Discord shows as the channel's or thread's name) and never quotes what the message
said: a notice may be a hidden roll's GM copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import discord

from bot.permissions import label
from bot.render import style

#: What /campaign check and the GM's notes call each kind of place.
THREAD = "thread"


def _where(place_id: int, parent_id: int | None) -> str:
    if parent_id is None:
        return f"<#{place_id}>"
    return f"<#{place_id}> (a thread or post of <#{parent_id}>)"


def _settings_place(place_id: int, parent_id: int | None) -> str:
    """Where a permission is granted: a thread's come from its parent channel."""
    return f"<#{parent_id if parent_id is not None else place_id}>"


def reason(problem: str, place_id: int, parent_id: int | None = None) -> str:
    """Why a post could not be made there, in a GM's words."""
    where = _where(place_id, parent_id)
    if problem.startswith("permission:"):
        name = problem.removeprefix("permission:")
        if name == "embed_links":
            return f"I lack **{label(name)}** in {where}, so my posts there show as plain text"
        return f"I lack **{label(name)}** in {where}"
    return {
        "gone": f"{where} no longer exists (deleted)",
        "message-gone": f"my message in {where} was deleted",
        "locked": f"{where} is locked",
        "private-thread": f"{where} is a private thread I am not in",
        "unanswered": f"Discord did not answer when I posted in {where}, after several tries",
        "not-messageable": f"{where} is not a place messages can be posted in",
        "archived": f"{where} is archived, and Discord does not let my message there be edited",
    }.get(problem, f"Discord refused my post in {where}")


def fix(problem: str, place_id: int, parent_id: int | None, bot_name: str) -> str:
    """The one change that fixes it."""
    if problem.startswith("permission:"):
        name = label(problem.removeprefix("permission:"))
        settings = _settings_place(place_id, parent_id)
        return (
            f"give {bot_name} **{name}** in {settings} (Edit Channel → Permissions → "
            f"{bot_name}), or on its role (Server Settings → Roles)"
        )
    return {
        "gone": "run the command again where you play now (a turn order, a roll request or "
        "a round lives in the place it was started in)",
        "message-gone": "nothing to do: its result is in /gm request status and /catchup",
        "locked": "unlock it (the thread's ⋯ menu → Unlock), or go on in another thread",
        "private-thread": f"add {bot_name} to the thread: mention @{bot_name} in it",
        "unanswered": "nothing to change: Discord was unavailable; it is kept in /catchup",
        "archived": "post in the thread to reopen it; the result is in /catchup meanwhile",
    }.get(problem, f"check {bot_name}'s permissions there with /campaign check")


def reason_and_fix(problem: str, place_id: int, parent_id: int | None, bot_name: str) -> str:
    """ "I lack X in #place; to fix it, give …" in one sentence."""
    return (
        f"{reason(problem, place_id, parent_id)}; to fix it, "
        f"{fix(problem, place_id, parent_id, bot_name)}"
    )


def gm_notice(what: str, problem: str, place_id: int, parent_id: int | None, bot_name: str) -> str:
    """The note a GM gets, once per place and problem."""
    return (
        f"I could not post {what}: {reason(problem, place_id, parent_id)}. "
        f"To fix it, {fix(problem, place_id, parent_id, bot_name)}. "
        "What was not posted is listed in /catchup and /gm log; I say this once per place "
        "until it works again."
    )


def undelivered_line(what: str, problem: str, place_id: int) -> str:
    """One line of /catchup or /gm log about a post that did not get through."""
    return f"Not posted: {what} ({reason(problem, place_id)})"


def embeds_as_text(embeds: Sequence[discord.Embed]) -> str:
    """Embeds as the plain text of a message (for a place without Embed Links, where Discord
    would drop them): title in bold, description, each field, the footer in italics."""
    parts: list[str] = []
    for embed in embeds:
        if embed.author and embed.author.name:
            parts.append(embed.author.name)
        if embed.title:
            parts.append(f"**{embed.title}**")
        if embed.description:
            parts.append(embed.description)
        for item in embed.fields:
            parts.append(f"**{item.name}**\n{item.value}")
        if embed.footer and embed.footer.text:
            parts.append(f"*{embed.footer.text}*")
    return "\n".join(parts)


# --- /campaign check -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Capability:
    """One thing the bot does in a place: whether it can, and the problem when not."""

    what: str
    ok: bool
    problem: str
    optional: bool = False


@dataclass(frozen=True, slots=True)
class PlaceCheck:
    """A place of the campaign and what the bot can do there."""

    place_id: int
    kind: str
    parent_id: int | None
    capabilities: list[Capability] = field(default_factory=list)

    @property
    def gaps(self) -> list[Capability]:
        return [c for c in self.capabilities if not c.ok]


def check_embed(checks: Sequence[PlaceCheck], bot_name: str) -> discord.Embed:
    """/campaign check: one field per place, every gap with its fix."""
    needed = sum(1 for c in checks for g in c.gaps if not g.optional)
    summary = (
        "Everything the bot needs works in every place below."
        if needed == 0
        else f"{style.count(needed, 'gap', 'gaps')} to fix; each says the one change that fixes it."
    )
    embed = style.new_embed(
        "What the bot can do here",
        f"{summary} Threads and forum posts take their permissions from their channel.",
        style.INFO if needed == 0 else style.NEUTRAL,
    )
    for check in checks:
        lines: list[str] = []
        can = [c.what for c in check.capabilities if c.ok]
        if can:
            lines.append("✅ " + "; ".join(can))
        granted: list[str] = []
        for gap in check.gaps:
            mark = "➖" if gap.optional else "❌"
            if gap.problem.startswith("permission:"):
                name = label(gap.problem.removeprefix("permission:"))
                lines.append(f"{mark} {gap.what}: lacks **{name}**")
                granted.append(f"**{name}**")
            else:
                lines.append(
                    f"{mark} {gap.what}: {reason(gap.problem, check.place_id)}. "
                    f"Fix: {fix(gap.problem, check.place_id, check.parent_id, bot_name)}."
                )
        if granted:
            where = _settings_place(check.place_id, check.parent_id)
            lines.append(
                f"Fix: give {bot_name} {', '.join(dict.fromkeys(granted))} in {where} "
                f"(Edit Channel → Permissions → {bot_name}), or on its role."
            )
        style.add_field(embed, check.kind, f"<#{check.place_id}>\n" + "\n".join(lines))
    return embed
