"""GM roll requests as embeds: the public message (updated in place) and the GM's view.

While a hidden DC is unrevealed the public message shows dice and totals only; pass/fail,
the DC and the group verdict appear only in the GM's view.

A request for more than :data:`~bot.render.groups.FIELD_MEMBERS` characters names them by
where they stand (waiting, rolled, or by result once it may be shown) and its full table is
a file the "Full list" button and /gm request status attach to their answers (an
interaction's answer needs no permission of the bot; the bot's own posts carry no file).
"""

from __future__ import annotations

from datetime import datetime

import discord

from bot.quoting import escape
from bot.render import style
from bot.render.groups import (
    FIELD_MEMBERS,
    names_within,
    plain,
    result_groups,
    roll_line,
    text_file,
    verdict_colour,
)
from bot.rules.systems import system_for
from bot.services.rolling.checks import SYSTEM_NAMES
from bot.services.rolling.groups import NOBODY_ROLLED
from bot.services.table.requests import (
    DEFAULT_ACTION,
    FAILED_BY_DEFAULT,
    GM_CLOSE_ROLL,
    Reminder,
    RequestView,
    TargetView,
)
from bot.services.trust.secrecy import GM_CHANNEL_HINT
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


_ASK = ": the GM asks for a roll. Click **Roll** to roll with your own character."


def request_pings(request: RequestView) -> list[str]:
    """The messages that ping the requested players once, when the request is posted: the
    request's own text with as many mentions as fit Discord's 2,000 characters, then the
    others' mentions in as few more messages as need be (a hundred players need two)."""
    mentions = list(dict.fromkeys(f"<@{t.user_id}>" for t in request.targets))
    texts: list[str] = []
    current: list[str] = []
    room = style.MESSAGE_LIMIT - len(_ASK)
    for mention in mentions:
        if current and len(" ".join([*current, mention])) > room:
            texts.append(" ".join(current))
            current, room = [], style.MESSAGE_LIMIT
        current.append(mention)
    texts.append(" ".join(current))
    texts[0] += _ASK
    return texts


def request_content(request: RequestView) -> str:
    """The message text: pings the requested players (as many as fit; see
    :func:`request_pings`)."""
    return request_pings(request)[0]


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
    large = len(request.targets) > FIELD_MEMBERS
    if large:
        lines.append(f"{len(request.targets)} characters: **Full list** shows each one's roll.")
    embed = style.new_embed(title, "\n".join(lines), colour)
    for name, value in _standing(request, show=show) if large else ():
        style.add_field(embed, name, value)
    for target in () if large else request.targets:
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


def _standing(request: RequestView, *, show: bool) -> list[tuple[str, str]]:
    """A large request's fields: who is waiting, who was left out, and who rolled: by result
    where it may be shown (failures first), else only that they rolled."""
    waiting = [t.character_name for t in request.targets if not t.answered]
    skipped = [t.character_name for t in request.targets if t.defaulted == DefaultAction.SKIP]
    rolled = [
        (t.character_name, FAILED_BY_DEFAULT if t.defaulted == DefaultAction.FAIL else t.summary)
        for t in request.targets
        if t.summary is not None or t.defaulted == DefaultAction.FAIL
    ]
    fields: list[tuple[str, str]] = []
    if waiting:
        fields.append((f"Waiting for their roll · {len(waiting)}", names_within(waiting)))
    if skipped:
        fields.append(
            (f"No roll by the deadline: left out · {len(skipped)}", names_within(skipped))
        )
    if show:
        fields += result_groups([(name, s) for name, s in rolled if s is not None])
    else:
        # A failed-by-default character rolled nothing: that is no hidden result.
        failed = [name for name, s in rolled if s is FAILED_BY_DEFAULT]
        done = [name for name, s in rolled if s is not FAILED_BY_DEFAULT]
        if done:
            fields.append((f"Rolled · {len(done)}", names_within(done)))
        if failed:
            label = f"No roll by the deadline: counts as failed · {len(failed)}"
            fields.append((label, names_within(failed)))
    return fields


def target_line(target: TargetView, *, show: bool) -> str:
    """One character's standing in a request, as plain text (the full list's line)."""
    if target.defaulted == DefaultAction.SKIP:
        return "no roll by the deadline: left out"
    if target.defaulted == DefaultAction.FAIL:
        return "no roll by the deadline: counts as failed"
    if target.summary is None:
        return "waiting for their roll"
    text = plain(roll_line(target.summary, show_result=show))
    return text + (f" ({target.rolled_by_default})" if target.rolled_by_default else "")


def request_file(request: RequestView, *, gm_view: bool = False) -> discord.File:
    """Every character's roll in the request as a text file, shown as the embed would show
    it: under a hidden DC, dice and totals only, unless ``gm_view``."""
    show = gm_view or not request.hidden
    head = [f"Roll request #{request.id}: {plain(_what(request))}"]
    target = _target_line(request, gm_view=gm_view)
    if target:
        head.append(target)
    if request.shared_roll is not None:
        head.append(f"One d20 for the whole group: {request.shared_roll} (pass on <= score)")
    verdict = request.verdict
    if verdict is not None and (show or verdict == NOBODY_ROLLED):
        head.append(f"Group result: {plain(verdict.text)}")
    rows = [f"{t.character_name}: {target_line(t, show=show)}" for t in request.targets]
    suffix = "-gm" if gm_view else ""
    return text_file(f"roll-request-{request.id}{suffix}.txt", [*head, "", *rows])


def reveal_text(request: RequestView) -> str:
    """/gm request reveal's answer: the number that was hidden, as the system names it."""
    what = _target_word(request)
    what = what if what == "DC" else what.lower()
    return f"The GM reveals roll request #{request.id}: {what} {request.dc}."


def status_text(request: RequestView) -> str:
    """For the GM: who has not rolled yet."""
    if not request.waiting:
        return f"Roll request #{request.id}: everyone has rolled."
    head = f"Roll request #{request.id}: waiting for "
    if len(request.targets) > FIELD_MEMBERS:
        names = names_within([t.character_name for t in request.waiting], 1800 - len(head))
        return f"{head}{names}."
    names = ", ".join(f"{escape(t.character_name)} (<@{t.user_id}>)" for t in request.waiting)
    return style.clip(f"{head}{names}.", style.MESSAGE_LIMIT)


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
    head = f"Roll request #{request.id} closed {how}. No roll from: "
    names = names_within(
        [f"{t.character_name} ({what.get(t.defaulted or '', t.defaulted)})" for t in by_default],
        1800 - len(head),
    )
    return f"{head}{names}."


def reminder_text(request: RequestView, reminder: Reminder, link: str | None) -> str:
    """The one reminder a player gets (in the channel, or by DM) while their roll is due."""
    names = ", ".join(escape(n) for n in reminder.character_names)
    when = f" before {_stamp(request.deadline_at)}" if request.deadline_at else ""
    where = f": {link}" if link else f" (roll request #{request.id})"
    return f"<@{reminder.user_id}>, reminder: the GM is waiting for {names} to roll{when}{where}"
