"""GM roll requests as embeds: the public message (updated in place) and the GM's view.

While a hidden DC is unrevealed the public message shows dice and totals only; pass/fail,
the DC and the group verdict appear only in the GM's view.
"""

from __future__ import annotations

from datetime import datetime

import discord

from bot.quoting import escape
from bot.render import style
from bot.render.groups import roll_line, verdict_colour
from bot.rules.systems import system_for
from bot.services.checks import SYSTEM_NAMES
from bot.services.groups import NOBODY_ROLLED
from bot.services.requests import DEFAULT_ACTION, GM_CLOSE_ROLL, Reminder, RequestView
from bot.services.secrecy import GM_CHANNEL_HINT
from bot.words import DefaultAction


def _what(request: RequestView) -> str:
    system = request.system
    ability = request.ability
    if request.proficiency:
        ability += f" ({escape(request.proficiency)})"
    return f"{ability} {'saving throw' if request.is_save else system_for(system).check_word}"


def _target_word(request: RequestView) -> str:
    """What the system calls the number to reach: a threshold (threshold), else a DC."""
    word = system_for(request.system).target_word
    return word[:1].upper() + word[1:]


def _target_line(request: RequestView, *, gm_view: bool) -> str:
    if request.difficulty:
        return f"Difficulty: {request.difficulty.title()}"
    if request.dc is None:
        return ""
    what = _target_word(request)
    if request.hidden and not gm_view:
        return f"{what}: hidden by the GM"
    suffix = " (hidden from the players)" if request.hidden else ""
    return f"{what} {request.dc}{suffix}"


#: What each default does, in the GM's words on the message.
DEFAULT_WORDS: dict[str, str] = {
    DefaultAction.ROLL: "whoever has not rolled rolls by default",
    DefaultAction.SKIP: "whoever has not rolled is left out",
    DefaultAction.FAIL: "whoever has not rolled counts as failed",
}


def _stamp(when: datetime) -> str:
    """A Discord timestamp: shown in each reader's time zone, with "in 2 hours"."""
    epoch = int(when.timestamp())
    return f"<t:{epoch}:f> (<t:{epoch}:R>)"


def deadline_line(request: RequestView) -> str:
    """ "Deadline: ... · then ..." while open; empty without a deadline."""
    if request.deadline_at is None or request.complete:
        return ""
    then = DEFAULT_WORDS.get(request.default_action or DEFAULT_ACTION, "")
    return f"Deadline: {_stamp(request.deadline_at)}; then {then}"


def request_content(request: RequestView) -> str:
    """The message text: pings the requested players once, when the request is posted."""
    players = " ".join(dict.fromkeys(f"<@{t.user_id}>" for t in request.targets))
    return f"{players}: the GM asks for a roll. Click **Roll** to roll with your own character."


def request_embed(request: RequestView, *, gm_view: bool = False) -> discord.Embed:
    """The request with each answer so far; pass/fail hidden from players under a hidden DC."""
    show = gm_view or not request.hidden
    lines = [
        line
        for line in (
            f"Roll: **{_what(request)}**",
            _target_line(request, gm_view=gm_view),
            (
                f"One d20 for the whole group: **{request.shared_roll}** (pass on ≤ score)"
                if request.shared_roll is not None
                else ""
            ),
            deadline_line(request),
        )
        if line
    ]
    verdict = request.verdict
    colour = verdict_colour(verdict) if show and verdict else style.NEUTRAL
    title = f"Roll request #{request.id}" + (" (GM view)" if gm_view else "")
    embed = style.new_embed(title, "\n".join(lines), colour)
    for target in request.targets:
        if target.defaulted == DefaultAction.SKIP:
            text = f"<@{target.user_id}> · no roll by the deadline: left out"
        elif target.defaulted == DefaultAction.FAIL:
            text = f"<@{target.user_id}> · no roll by the deadline: counts as failed"
        elif target.summary is None:
            text = f"<@{target.user_id}> · waiting for their roll"
        else:
            text = f"<@{target.user_id}> · {roll_line(target.summary, show_result=show)}"
            if target.rolled_by_default:
                text += f" · *{target.rolled_by_default}*"
        style.add_field(embed, escape(target.character_name), text)
    if verdict is not None:
        # Nobody rolled: no pass/fail exists to hide, only who was left out (shown above).
        if show or verdict == NOBODY_ROLLED:
            style.add_field(embed, "Group result", f"**{verdict.text}**")
        else:
            style.add_field(embed, "Group result", "Everyone has rolled; the GM will reveal.")
    else:
        done = len(request.targets) - len(request.waiting)
        style.set_footer(
            embed,
            f"{SYSTEM_NAMES[request.system]} · {done} of {len(request.targets)} rolled · "
            f"request #{request.id}",
        )
        return embed
    style.set_footer(embed, f"{SYSTEM_NAMES[request.system]} · request #{request.id}")
    return embed


def reveal_text(request: RequestView) -> str:
    """/gm request reveal's answer: the number that was hidden, as the system names it."""
    what = _target_word(request)
    what = what if what == "DC" else what.lower()
    return f"The GM reveals roll request #{request.id}: {what} {request.dc}."


def status_text(request: RequestView) -> str:
    """For the GM: who has not rolled yet."""
    if not request.waiting:
        return f"Roll request #{request.id}: everyone has rolled."
    names = ", ".join(f"{escape(t.character_name)} (<@{t.user_id}>)" for t in request.waiting)
    return f"Roll request #{request.id}: waiting for {names}."


def gm_undelivered_text(request: RequestView) -> str:
    """Told to the last player to roll when the GM's copy reached nobody (no result in it)."""
    return (
        f"Everyone has rolled for request #{request.id}, but the GM's copy (with pass/fail) "
        "could not be delivered: this campaign has no GM channel the bot can post in and the "
        "GMs could not be reached by direct message. Nothing is lost: the GM can see it with "
        f"/gm request status request:{request.id}. {GM_CHANNEL_HINT}"
    )


def closed_text(request: RequestView, how: str) -> str:
    """Posted when the deadline (or the GM) closes a request: who the default answered for."""
    by_default = [t for t in request.targets if t.defaulted]
    if not by_default:
        return f"Roll request #{request.id} closed {how}."
    what: dict[str, str] = {
        DefaultAction.ROLL: "rolled by default",
        GM_CLOSE_ROLL: "rolled by default",
        DefaultAction.SKIP: "left out",
        DefaultAction.FAIL: "counted as failed",
    }
    names = ", ".join(
        f"{escape(t.character_name)} ({what.get(t.defaulted or '', t.defaulted)})"
        for t in by_default
    )
    return f"Roll request #{request.id} closed {how}. No roll from: {names}."


def reminder_text(request: RequestView, reminder: Reminder, link: str | None) -> str:
    """The one reminder a player gets (in the channel, or by DM) while their roll is due."""
    names = ", ".join(escape(n) for n in reminder.character_names)
    when = f" before {_stamp(request.deadline_at)}" if request.deadline_at else ""
    where = f": {link}" if link else f" (roll request #{request.id})"
    return f"<@{reminder.user_id}>, reminder: the GM is waiting for {names} to roll{when}{where}"
