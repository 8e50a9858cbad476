"""Turning a :class:`RollResult` into text, separately from evaluation.

``render_markdown`` is for Discord (struck-through dropped dice, bold natural maxima and
minima); ``render_plain`` is for terminals and logs. Both always fit ``max_length``: long dice
lists are shortened to "… N more dice", then dropped, then the comment goes, and the total is
always the last thing to be cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.dice.parser import CONST, DICE, GROUP, LABEL, NEG, DiceSpec
from bot.dice.roller import (
    CLAMPED_MAX,
    CLAMPED_MIN,
    DROPPED,
    EXPLODED,
    REROLLED,
    SUCCESS,
    RollResult,
    TermResult,
)

DISCORD_LIMIT = 2000

_BINARY = {3: " + ", 4: " - ", 5: " * ", 6: " / "}
#: Discord's messages write minus as U+2212, like every other number the bot shows (issue 19);
#: plain text keeps "-".
_MD_MINUS = "−"
_MD_SPECIAL = re.compile(r"([\\*_~`|>#\[\]()])")

DieFormat = Callable[[int, int, int, int], str]  # (face, value, flags, sides) -> text


def _md_escape(text: str) -> str:
    """Neutralise markdown and mentions in player-written labels and comments."""
    return _MD_SPECIAL.sub(r"\\\1", text).replace("@", "@\u200b")


def _md_die(face: int, value: int, flags: int, sides: int) -> str:
    if flags & (DROPPED | REROLLED):
        return f"~~{face}~~"
    text = f"**{face}**" if face in (1, sides) else str(face)
    if flags & (CLAMPED_MIN | CLAMPED_MAX):
        text += f"→{value}"
    if flags & EXPLODED:
        text += "!"
    if flags & SUCCESS:
        text += "✓"
    return text


def _plain_die(face: int, value: int, flags: int, sides: int) -> str:
    if flags & (DROPPED | REROLLED):
        return f"{face}x"
    text = str(face)
    if flags & (CLAMPED_MIN | CLAMPED_MAX):
        text += f"->{value}"
    if flags & EXPLODED:
        text += "!"
    if flags & SUCCESS:
        text += "*"
    return text


def _dice_list(term: TermResult, fmt: DieFormat, shown: int | None) -> str:
    sides = term.spec.sides
    n = len(term.faces)
    k = n if shown is None else min(n, shown)
    if term.flags is None:
        parts = [fmt(f, f, 0, sides) for f in term.faces[:k]]
    else:
        parts = [fmt(term.faces[i], term.values[i], term.flags[i], sides) for i in range(k)]
    if k < n:
        parts.append(f"… {n - k} more {'die' if n - k == 1 else 'dice'}" if k else f"{n} dice")
    return ", ".join(parts)


def _body(
    result: RollResult,
    fmt: DieFormat | None,
    escape: Callable[[str], str],
    shown: int | None,
    minus: str = "-",
) -> str:
    """The expression with each term's dice, e.g. ``1d20 (12) + 5``; fmt None omits dice."""
    stack: list[str] = []
    terms = iter(result.terms)
    for op, arg in result.parsed.program:
        if op == CONST:
            stack.append(str(arg))
        elif op == DICE:
            assert isinstance(arg, DiceSpec)
            term = next(terms)
            if fmt is None:
                stack.append(arg.text)
            else:
                stack.append(f"{arg.text} ({_dice_list(term, fmt, shown)})")
        elif op == NEG:
            stack[-1] = minus + stack[-1]
        elif op == GROUP:
            stack[-1] = "(" + stack[-1] + ")"
        elif op == LABEL:
            stack[-1] = f"{stack[-1]} [{escape(str(arg))}]"
        else:
            right = stack.pop()
            stack[-1] = stack[-1] + _BINARY[op].replace("-", minus) + right
    return stack[-1]


def _render(
    result: RollResult,
    max_length: int,
    fmt: DieFormat,
    escape: Callable[[str], str],
    minus: str = "-",
) -> str:
    if max_length < 1:
        raise ValueError("max_length must be at least 1")
    total_text = str(result.total).replace("-", minus)
    total = f" = {total_text}"
    comment = f" # {escape(result.comment)}" if result.comment else ""

    def line(body: str, with_comment: bool = True) -> str:
        return body + total + (comment if with_comment else "")

    full = line(_body(result, fmt, escape, None, minus))
    if len(full) <= max_length:
        return full
    # Largest number of dice per term that fits, by binary search.
    most = max((len(t.faces) for t in result.terms), default=0)
    lo, hi, best = 0, most - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        text = line(_body(result, fmt, escape, mid, minus))
        if len(text) <= max_length:
            best, lo = text, mid + 1
        else:
            hi = mid - 1
    if best is not None:
        return best
    for candidate in (
        line(_body(result, None, escape, None, minus)),
        line(_body(result, None, escape, None, minus), with_comment=False),
        total_text,
    ):
        if len(candidate) <= max_length:
            return candidate
    return total_text[: max_length - 1] + "…" if max_length > 1 else "…"


def render_markdown(result: RollResult, max_length: int = DISCORD_LIMIT) -> str:
    """Discord markdown, e.g. ``4d6kh3 (**6**, 4, ~~1~~, 3) = 13``, at most ``max_length``."""
    return _render(result, max_length, _md_die, _md_escape, _MD_MINUS)


def render_plain(result: RollResult, max_length: int = DISCORD_LIMIT) -> str:
    """Plain text, e.g. ``4d6kh3 (6, 4, 1x, 3) = 13`` (x: not counted), at most ``max_length``."""
    return _render(result, max_length, _plain_die, lambda s: s)
