"""Inline rolls shown in their text: each `[[…]]` replaced by its total in bold, and one
compact line per roll below (`#12 check DEX Stealth adv: d20 …`).

Everything from the player (the text, each roll's source) is escaped, so `**@everyone**`
shows as typed and pings nobody, and the whole fits the limit it is given (Discord's message
content, 2,000 characters; an embed description, 4,096).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.quoting import clip_text, escape
from bot.render import style
from bot.services.rolling.inline import InlineRoll, InlineRolls

# As bot/quoting.py: @everyone, @here, <@id>, <@&id>, <#id>.
_MENTION = re.compile(r"@(everyone|here)|<(@[!&]?|#)(\d+)>")

#: Discord's limit on a message's content.
MESSAGE_LIMIT = 2000
#: Each compact line at most (a long damage roll is cut, the number and total stay).
LINE_LIMIT = 300


def roll_line(roll: InlineRoll) -> str:
    """`#12 check DEX Stealth adv: DEX (Stealth) check: d20 14 +3 DEX = 17`."""
    source = escape(clip_text(" ".join(roll.span.source.split()), 80))
    detail = escape(clip_text(roll.detail, LINE_LIMIT))
    return f"`#{roll.number}` {source}: {detail}"


def render_text(
    text: str, rolls: InlineRolls, *, limit: int = MESSAGE_LIMIT, markdown: bool = False
) -> str:
    """``text`` with each rolled `[[…]]` as its bold total, then a line per roll.

    The lines of the rolls always fit (they are what the ledger recorded); the prose is clipped
    first when both do not. ``markdown``: the prose keeps its markdown (a post's *italics*),
    mentions are still defused; by default it is escaped entirely.
    """
    lines = "\n".join(roll_line(r) for r in rolls.rolls)
    room = limit - len(lines) - (2 if lines else 0)
    if room < 0:  # twenty rolls with long details: shorten each line instead
        share = max(20, limit // max(1, len(rolls.rolls)) - 1)
        lines = "\n".join(clip_text(roll_line(r), share) for r in rolls.rolls)
        lines = clip_text(lines, limit)
        room = max(0, limit - len(lines) - 2)
    parts: list[tuple[str, bool]] = []  # (text, is a bold total: kept whole or dropped)
    position = 0
    for roll in rolls.rolls:
        parts.append((text[position : roll.span.start], False))
        parts.append((f"**{escape(roll.total)}**", True))
        position = roll.span.end
    parts.append((text[position:], False))
    body = _fit(parts, room, escape if not markdown else defuse_mentions).strip()
    if not lines:
        return style.clip(body, limit)
    return f"{body}\n\n{lines}" if body else lines


def as_written(
    text: str, rolls: InlineRolls, *, limit: int = MESSAGE_LIMIT, first_limit: int | None = None
) -> list[str]:
    """``text`` as the player wrote it, markdown and mentions kept, each rolled `[[…]]`
    replaced in place by its total in bold, then one line per roll; in as many messages of
    at most ``limit`` characters (the first: ``first_limit``) as it takes, cut at a paragraph,
    a line, a sentence or a space, never inside a total or a roll's line.

    Nothing is escaped: what may ping is decided by the message's ``allowed_mentions`` (an
    embed pings nobody), so a mention shows as Discord renders it, not as a raw id.
    """
    pieces: list[tuple[str, bool]] = []  # (text, may be cut)
    position = 0
    for roll in rolls.rolls:
        pieces.append((text[position : roll.span.start], True))
        pieces.append((f"**{escape(roll.total)}**", False))
        position = roll.span.end
    pieces.append((text[position:].rstrip(), True))
    for index, roll in enumerate(rolls.rolls):
        gap = "\n" if index else "\n\n"
        pieces.append((gap + clip_text(roll_line(roll), min(limit, LINE_LIMIT * 2) - 2), False))
    return _split(pieces, limit, first_limit or limit)


#: Where a long text is cut, best first: a paragraph, a line, a sentence, a word.
_BREAKS = ("\n\n", "\n", ". ", "! ", "? ", "; ", ", ", " ")


def _cut(piece: str, room: int) -> int:
    """Where to cut ``piece`` to fit ``room``: after the best break that keeps a fair share
    of the room, else after any break; 0 when there is none."""
    for floor in (room // 3, 1):
        for mark in _BREAKS:
            at = piece.rfind(mark, 0, room - len(mark) + 1)
            if at >= 0 and at + len(mark) >= floor:
                return at + len(mark)
    return 0


def _split(pieces: list[tuple[str, bool]], limit: int, first: int) -> list[str]:
    chunks: list[str] = []
    current = ""

    def flush() -> None:
        nonlocal current
        if current.strip():
            chunks.append(current.rstrip())
        current = ""

    for piece, cuttable in pieces:
        while piece:
            room = (first if not chunks else limit) - len(current)
            if len(piece) <= room:
                current += piece
                break
            if not cuttable:
                if current.strip():
                    flush()
                    piece = piece.lstrip("\n")
                    continue
                current, piece = piece[:room], piece[room:]  # longer than a message: cut
                flush()
                continue
            cut = _cut(piece, room)
            if cut == 0 and current.strip():
                flush()
                piece = piece.lstrip("\n ")
                continue
            cut = cut or room
            current += piece[:cut]
            piece = piece[cut:].lstrip("\n ")
            flush()
    flush()
    return chunks or [""]


def defuse_mentions(text: str) -> str:
    """``text`` with its markdown, but no mention that pings (@everyone, @here, <@id>, <#id>)."""
    return _MENTION.sub(
        lambda m: f"@\u200b{m.group(1)}" if m.group(1) else f"<{m.group(2)}\u200b{m.group(3)}>",
        text,
    )


def _fit(parts: list[tuple[str, bool]], room: int, show: Callable[[str], str]) -> str:
    """The parts escaped, cut to ``room`` characters with "…" (never inside an escape or a
    bold total: a cut there would leave markdown open)."""
    out: list[str] = []
    used = 0
    for raw, whole in parts:
        piece = raw if whole else show(raw)
        if used + len(piece) <= room:
            out.append(piece)
            used += len(piece)
            continue
        left = room - used - 1  # room for "…"
        if not whole and left > 0:
            low, high = 0, len(raw)  # the longest prefix whose escaped form fits
            while low < high:
                middle = (low + high + 1) // 2
                if len(show(raw[:middle])) <= left:
                    low = middle
                else:
                    high = middle - 1
            out.append(show(raw[:low]))
        if room - used >= 1:
            out.append("…")
        break
    return "".join(out)
