"""Fortune dice as players see them: a natural 20 kept or traded, a reroll with every die,
a die spent, given or taken, the boon, a carry-over cleared."""

from __future__ import annotations

import discord

from bot.quoting import escape
from bot.render import style
from bot.render.checks import breakdown, colour, result_text
from bot.services.rolling.checks import SYSTEM_NAMES
from bot.services.rolling.fortune_table import (
    BoonResult,
    ChoiceResult,
    FortuneStatus,
    PdOutcome,
    RerollResult,
)
from bot.services.store.fortune import FortuneView
from bot.words import FortunePurpose, RollChoice

#: Discord shows at most 1,024 characters per field; long reroll runs show both ends.
_SHOWN_REROLLS = 12

PURPOSE_WORDS: dict[str, str] = {
    FortunePurpose.HINT: "a hint",
    FortunePurpose.ESCAPE: "an escape from a social situation",
    FortunePurpose.ITEM: "a better item",
    FortunePurpose.REROLL: "a reroll",
}


def dice_word(count: int) -> str:
    """ "1 fortune die" / "2 fortune dice"."""
    return f"{count} fortune {'die' if count == 1 else 'dice'}"


def holding(fortune: int, maximum: int) -> str:
    """Say "1 of 2 fortune dice"."""
    return f"{fortune} of {maximum} fortune {'die' if maximum == 1 else 'dice'}"


def _one_line(outcome: PdOutcome) -> str:
    """The kept die and the result, e.g. `**17**, ~~4~~ (advantage) → Major Success`."""
    dice = breakdown(outcome)[0][1]
    return f"{dice} → {result_text(outcome)}"


def _apply_breakdown(embed: discord.Embed, outcome: PdOutcome) -> None:
    for label, text in breakdown(outcome):
        style.add_field(embed, label, text, inline=label in {"d20", "Rank"})


def choice_embed(title: str, result: ChoiceResult) -> discord.Embed:
    """The roll's message after its natural-20 choice (ruling 5)."""
    outcome = result.outcome
    embed = style.new_embed(title, f"**{result_text(outcome)}**", colour(outcome))
    _apply_breakdown(embed, outcome)
    if result.choice == RollChoice.KEEP:
        style.add_field(embed, "Natural 20", "kept as a critical")
    style.add_field(embed, "Fortune dice", holding(result.fortune, result.fortune_max), inline=True)
    style.set_footer(
        embed,
        f"{SYSTEM_NAMES[result.system]} · roll #{result.number} · {result.choice} "
        f"{style.roll_ref(result.new_number, result.chain)}",
    )
    return embed


def reroll_lines(rerolls: tuple[PdOutcome, ...]) -> str:
    """Every reroll in order, numbered; a very long run shows its start and its end."""
    lines = [f"{i}. {_one_line(r)}" for i, r in enumerate(rerolls, 1)]
    if len(lines) > _SHOWN_REROLLS:
        head, tail = lines[: _SHOWN_REROLLS - 3], lines[-3:]
        lines = [*head, f"… {len(lines) - len(head) - len(tail)} more rerolls …", *tail]
    return "\n".join(lines)


def reroll_embed(title: str, result: RerollResult) -> discord.Embed:
    """A fortune-die reroll (ruling 6): the original, every reroll, the one that counts."""
    final = result.final
    original: PdOutcome = result.reroll.original
    embed = style.new_embed(
        title,
        f"**{result_text(final)}** — {escape(result.character_name)} spent a fortune die to reroll "
        "until better.",
        colour(final),
    )
    style.add_field(embed, "Original", _one_line(original))
    count = len(result.reroll.rerolls)
    style.add_field(
        embed, f"Reroll{'s' if count > 1 else ''} ({count})", reroll_lines(result.reroll.rerolls)
    )
    _apply_breakdown(embed, final)
    style.add_field(
        embed, "Fortune dice", f"{holding(result.fortune, result.fortune_max)} left", inline=True
    )
    style.set_footer(
        embed,
        f"{SYSTEM_NAMES[result.system]} · roll #{result.number} · reroll "
        f"{style.roll_ref(result.new_number, result.chain)}",
    )
    return embed


def status_text(status: FortuneStatus) -> str:
    """`/fortune show`: "Angus has 1 of 2 fortune dice."."""
    boon = " (double fortune dice boon)" if status.boon else ""
    return f"**{escape(status.name)}** has {holding(status.fortune, status.maximum)}{boon}."


def spent_text(view: FortuneView, purpose: str, note: str | None) -> str:
    """A die spent on a hint, an escape or an item, with the player's note."""
    said = f": {escape(style.clip(note, 500))}" if note else "."
    return (
        f"**{escape(view.name)}** spends a fortune die on "
        f"{PURPOSE_WORDS.get(purpose, purpose)}{said}\n"
        f"{holding(view.fortune, view.maximum)} left."
    )


def changed_text(view: FortuneView, gm_name: str) -> str:
    """The GM gave or took dice."""
    verb = "gives" if view.changed > 0 else "takes"
    to = "to" if view.changed > 0 else "from"
    return (
        f"{gm_name} {verb} {dice_word(abs(view.changed))} {to} **{escape(view.name)}**: "
        f"now {holding(view.fortune, view.maximum)}."
    )


def boon_text(result: BoonResult) -> str:
    """The double-fortune boon given or removed."""
    if result.boon:
        return (
            f"**{escape(result.name)}** has the double fortune dice boon: up to {result.maximum} "
            f"fortune dice (now {result.fortune})."
        )
    lost = f" and loses {dice_word(result.lost)} above the maximum" if result.lost else ""
    return (
        f"**{escape(result.name)}** no longer has the double fortune dice boon{lost}: "
        f"now {holding(result.fortune, result.maximum)}."
    )


def cleared_text(name: str, cleared: dict[str, int]) -> str:
    """The GM cleared carry-over modifiers (threshold ruling 4)."""
    what = ", ".join(f"{style.signed(v)} on the next {a} test" for a, v in sorted(cleared.items()))
    return f"Cleared {escape(name)}'s carry-over: {what}."


__all__ = [
    "PURPOSE_WORDS",
    "boon_text",
    "changed_text",
    "choice_embed",
    "cleared_text",
    "dice_word",
    "holding",
    "reroll_embed",
    "reroll_lines",
    "spent_text",
    "status_text",
]
