"""Party play as embeds: the party, group saves, contests, group ability generation.

One message per group roll: every member's dice and result, then the group's verdict. A party
larger than :data:`FIELD_MEMBERS` does not fit one embed (25 fields, 6,000 characters), so
its message names the members by result, failures first, and the full table (every member's
dice, modifiers and result) comes as a text file attached to the answer, which Discord lets
an interaction's answer carry without any permission of the bot.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

import discord

from bot.quoting import escape
from bot.render import style
from bot.render.checks import TONE_COLOURS
from bot.render.sheets import score_line
from bot.rules import d20_check
from bot.rules import pen_and_dagger as pd
from bot.rules.systems import Feature
from bot.services.rolling.checks import SYSTEM_NAMES
from bot.services.rolling.generation import GenerationResult
from bot.services.rolling.groups import ContestResult, GroupRollResult, RollSummary, Verdict
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView

#: Up to this many members a group message gives each their own field, with their player's
#: mention; past it, the summary by result and the attached table.
FIELD_MEMBERS = 20


def _dice(summary: RollSummary) -> str:
    if summary.kept not in summary.dice:
        # A system whose roll keeps no one d20 (registered elsewhere): every die as rolled.
        return "dice " + ", ".join(f"**{d}**" for d in summary.dice)
    if len(summary.dice) == 1:
        return f"d20 **{summary.kept}**"
    kept_at = summary.dice.index(summary.kept)
    shown = ", ".join(
        f"**{d}**" if i == kept_at else f"~~{d}~~" for i, d in enumerate(summary.dice)
    )
    return f"d20 {shown}"


def roll_line(summary: RollSummary, *, show_result: bool = True) -> str:
    """One member's roll: the dice, modifiers and total; the result unless it is hidden."""
    if summary.total is not None:
        terms = "".join(f" {style.signed(v)} {name}" for name, v in summary.modifiers)
        text = f"{_dice(summary)}{terms} = **{style.number(summary.total)}**"
    else:
        text = _dice(summary)
    if summary.note:
        text += f" {summary.note}"
    if show_result and summary.result:
        text += f" → **{summary.result}**"
    return text


_DROPPED = re.compile(r"~~([^~]*)~~")


def plain(text: str) -> str:
    """A line of Discord markdown as a text file shows it: bold marks gone, a struck die
    in brackets (``d20 [4], 17``)."""
    return _DROPPED.sub(r"[\1]", text).replace("**", "")


def names_within(names: Sequence[str], limit: int = style.FIELD_VALUE_LIMIT) -> str:
    """``Ann, Bo, Cy … and 12 more``: escaped names, as many as fit in ``limit``."""
    pieces = [escape(name) for name in names]
    text = ", ".join(pieces)
    if len(text) <= limit:
        return text or "—"
    shown: list[str] = []
    for position, piece in enumerate(pieces):
        after = len(pieces) - position - 1
        if len(", ".join([*shown, piece])) + len(f" … and {after} more") > limit:
            more = f" … and {len(pieces) - position} more"
            return (", ".join(shown) or style.clip(piece, limit - len(more))) + more
        shown.append(piece)
    return ", ".join(shown)


def result_groups(rows: Sequence[tuple[str, RollSummary]]) -> list[tuple[str, str]]:
    """Members by result, failures first, then results without pass/fail, then successes:
    ``("Failure · 38", "Ann, Bo, … and 30 more")``, each within one field."""
    groups: dict[str, list[str]] = {}
    rank: dict[str, int] = {}
    for name, summary in rows:
        word = summary.result or "Rolled"
        groups.setdefault(word, []).append(name)
        rank.setdefault(word, {False: 0, None: 1, True: 2}[summary.passed])
    ordered = sorted(groups, key=lambda word: rank[word])
    return [
        (f"{escape(word)} · {len(groups[word])}", names_within(groups[word])) for word in ordered
    ]


def text_file(filename: str, lines: Sequence[str]) -> discord.File:
    """A UTF-8 text attachment (Discord previews it under the message)."""
    return discord.File(io.BytesIO(("\n".join(lines) + "\n").encode()), filename=filename)


def verdict_colour(verdict: Verdict | None) -> discord.Colour:
    """Green / red where the system has a group result, neutral otherwise."""
    if verdict is None or verdict.succeeded is None:
        return style.NEUTRAL
    return style.SUCCESS if verdict.succeeded else style.FAILURE


def party_embed(campaign: CampaignView, members: list[CharacterView]) -> discord.Embed:
    """Each party member with the scores that matter for the campaign's system."""
    embed = style.new_embed(
        "The party",
        "" if members else "Nobody yet: add characters with /party add character:<name>.",
        style.INFO,
    )
    for character in members:
        lines = [
            score_line(campaign.system, a, character.scores[a])
            for a in campaign.ability_names
            if a in character.scores
        ]
        extra = ""
        if Feature.DEGREES in campaign.rules.features:
            bonus = d20_check.proficiency_bonus(character.level)
            extra = f"level {character.level} (proficiency {style.signed(bonus)})\n"
        if Feature.FORTUNE in campaign.rules.features:
            extra = f"fortune dice {character.fortune} of {character.fortune_max}\n"
        style.add_field(
            embed,
            escape(character.name),
            f"<@{character.user_id}>\n{extra}" + (" · ".join(lines) or "no scores yet"),
        )
    style.set_footer(embed, f"{SYSTEM_NAMES[campaign.system]} · {len(members)} in the party")
    return embed


def group_save_embed(result: GroupRollResult) -> discord.Embed:
    """A /groupsave: the shared d20 (roll-under) or every member's roll, then the verdict."""
    lines: list[str] = []
    if result.shared_roll is not None:
        lines.append(f"One d20 for the whole party: **{result.shared_roll}** (pass on ≤ score)")
    if result.dc is not None:
        word = result.campaign.rules.target_word
        what = word[:1].upper() + word[1:]
        lines.append(f"{what} {result.dc}")
    elif result.difficulty:
        lines.append(f"Difficulty: {result.difficulty.title()}")
    large = len(result.members) > FIELD_MEMBERS
    if large:
        lines.append(f"{len(result.members)} characters: each one's roll is in the attached file.")
    embed = style.new_embed(escape(result.title), "\n".join(lines), verdict_colour(result.verdict))
    if large:
        for name, value in result_groups([(m.name, m.summary) for m in result.members]):
            style.add_field(embed, name, value)
    else:
        for member in result.members:
            style.add_field(
                embed, escape(member.name), f"<@{member.user_id}> · {roll_line(member.summary)}"
            )
    style.add_field(embed, "Group result", f"**{result.verdict.text}**")
    system = SYSTEM_NAMES[result.campaign.system]
    style.set_footer(embed, f"{system} · {style.roll_ref(result.number, result.chain)}")
    return embed


def group_save_file(result: GroupRollResult) -> discord.File | None:
    """The full table of a large party's group roll (None up to :data:`FIELD_MEMBERS`: the
    message shows everyone)."""
    if len(result.members) <= FIELD_MEMBERS:
        return None
    head = [result.title]
    if result.shared_roll is not None:
        head.append(f"One d20 for the whole party: {result.shared_roll} (pass on <= score)")
    if result.dc is not None:
        head.append(f"{result.campaign.rules.target_word} {result.dc}")
    elif result.difficulty:
        head.append(f"Difficulty: {result.difficulty.title()}")
    head += [f"Group result: {plain(result.verdict.text)}", f"roll #{result.number}", ""]
    rows = [f"{m.name}: {plain(roll_line(m.summary))}" for m in result.members]
    return text_file(f"group-roll-{result.number}.txt", head + rows)


def contest_embed(result: ContestResult) -> discord.Embed:
    """A contest: every round (tie-breaks included), the ranking or the winner."""
    head, tone, lines = result.campaign.rules.explain_contest(result.outcome)
    embed = style.new_embed(f"{result.ability} contest", head, TONE_COLOURS[tone])
    # A roll-under contest's ranking is in the headline, before the rounds: a long run of
    # tie-breaks may outgrow Discord's field limit, and only the rounds may be cut.
    for label, text in lines:
        style.add_field(embed, label, text)
    system = SYSTEM_NAMES[result.campaign.system]
    style.set_footer(embed, f"{system} · {style.roll_ref(result.number, result.chain)}")
    return embed


def _die(die: pd.ScoreDie) -> str:
    # "alice 5", not "5 (alice)": the GM's name is already "Name (GM)".
    text = f"{escape(die.roller)} {die.value}"
    return f"~~{text}~~" if die.dropped else text


def generation_embed(result: GenerationResult) -> discord.Embed:
    """The six group scores, every d6 with the player who rolled it (ruling 8)."""
    gen = result.generation
    lines = [f"Rule: {gen.scheme.value} (4d6 drop the lowest each)."]
    if gen.gm_rolls:
        lines.append(f"With an odd number of players the GM rolls too: {escape(gen.gm)}.")
    lines.append("Turn order: " + ", ".join(escape(r) for r in gen.rollers))
    if len(gen.groups) > 1:
        for n, group in enumerate(gen.groups, start=1):
            scores = "1–3" if n == 1 else "4–6"
            lines.append(f"Group {n} (scores {scores}): {', '.join(escape(g) for g in group)}")
    values = ", ".join(str(v) for v in gen.values)
    lines.append(f"**Scores: {values}**")
    embed = style.new_embed("Group ability scores", "\n".join(lines), style.INFO)
    for n, score in enumerate(gen.scores, start=1):
        style.add_field(embed, f"Score {n}: {score.total}", " · ".join(_die(d) for d in score.dice))
    style.add_field(
        embed,
        "Assign them",
        "Each player: /abilities assign str:… dex:… con:… int:… wis:… cha:… "
        f"generation:{result.id} (each score once).",
    )
    style.set_footer(embed, f"generation #{result.id} · roll #{result.number}")
    return embed
