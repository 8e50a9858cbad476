"""Several rolls in one command: repeats (``6#4d6kh3``, Dice Maiden's ``6 4d6 k3``) and rolls
separated by ``;`` (``1d20+5 [attack]; 2d6+3 [damage]``), each with its own total and labels.

The static limits hold for the whole command: at most ``MAX_ROLLS`` results and ``MAX_DICE``
dice counting every repeat, explosion and reroll, all checked before any die is rolled.
"""

from __future__ import annotations

import dataclasses
import functools
import random
import re
from dataclasses import dataclass

from bot.dice.dialects import DEFAULT_DIALECT, switches
from bot.dice.errors import DiceError
from bot.dice.limits import MAX_DICE, MAX_LENGTH, MAX_ROLLS
from bot.dice.maiden import expand, unreadable
from bot.dice.parser import Expression, parse
from bot.dice.roller import RollResult, roll

# "6#4d6kh3" (no space before #: "20 # note" stays a comment on 20).
_HASH_REPEAT = re.compile(r"\s*(\d+)#(?=\s*\S)")
# Dice Maiden: a leading number and a space repeat what follows ("6 4d6", "2 d6", "3 +d20"),
# unless an operator follows ("3 + 4", "3 * 2"); "+d"/"-d" right after the space is its
# advantage spelling, so "3 +d20" is three rolls with advantage.
# Dice Maiden's display options before a roll: "s" simple, "nr" no results, "ul" unsorted.
_FLAGS = re.compile(r"\s*((?:(?:s|nr|ul)\s+)+)(?=\S)", re.IGNORECASE)
_PRIVATE = re.compile(r"\s*p\s+(?:(?:s|nr|ul)\s+)*(?=\S)", re.IGNORECASE)
_SPACE_REPEAT = re.compile(r"\s*(\d+)\s+(?=[^\s+\-*/)<>=!#;,\[%]|[+-][dD])")
# Dice Maiden's label before a roll, "(Attack) 1d20+5" (dicemaiden-rs parser.rs, LABEL_REGEX),
# and its comment after a "!", "1d20 ! Sneak attack".
_MAIDEN_LABEL = re.compile(r"\s*\(([^)]*)\)\s*(?=\S)")
_MAIDEN_COMMENT = re.compile(r"\s+!(?:\s+(.*))?$|^\s*!(?:\s+(.*))?$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Batch:
    """One command's rolls: each expression with how many times to roll it."""

    parts: tuple[tuple[Expression, int], ...]

    @property
    def count(self) -> int:
        """How many results the command shows."""
        return sum(n for _, n in self.parts)

    @property
    def text(self) -> str:
        """Canonical notation of the whole command."""
        return "; ".join(f"{n}#{e.text}" if n > 1 else e.text for e, n in self.parts)

    @property
    def max_dice(self) -> int:
        """The worst-case dice of the whole command, every repeat counted (limits.py)."""
        return sum(n * expr.max_dice for expr, n in self.parts)

    @property
    def notes(self) -> tuple[str, ...]:
        """How contested spellings were read, once each over every roll of the command."""
        return tuple(dict.fromkeys(note for expr, _ in self.parts for note in expr.notes))

    @property
    def single(self) -> Expression | None:
        """The expression when the command is one plain roll."""
        return self.parts[0][0] if len(self.parts) == 1 and self.parts[0][1] == 1 else None


def _split(text: str) -> list[str]:
    """Split on ``;`` outside [labels]."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif ch == ";" and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _repeat(segment: str, least: int = 1) -> tuple[int, str]:
    for pattern in (_HASH_REPEAT, _SPACE_REPEAT):
        m = pattern.match(segment)
        if m is not None:
            n = int(m.group(1)[:12])
            if pattern is _SPACE_REPEAT and n < least:  # Dice Maiden: 2 to 20 rolls
                raise DiceError(
                    f"'{m.group(1)[:12]} ' at the start rolls a set: write 2 to {MAX_ROLLS} "
                    "rolls, or the roll alone"
                )
            if not 1 <= n <= MAX_ROLLS:
                raise DiceError(
                    f"{m.group(1)[:12]} rolls: you can roll 1 to {MAX_ROLLS} at once "
                    f"(e.g. {MAX_ROLLS}#1d6)"
                )
            return n, segment[m.end() :]
    return 1, segment


def _maiden_label(segment: str) -> tuple[str, str]:
    """Dice Maiden's ``(Label) roll``: the label, when the parentheses hold words and not a
    part of the roll (``(1d6+2)*3`` stays arithmetic)."""
    m = _MAIDEN_LABEL.match(segment)
    if m is not None and not m.group(1).strip():
        return segment[m.end() :], "()"  # "() 2d6": an empty label (parser.rs LABEL_REGEX)
    if m is None or not re.search(r"[a-z]{2}", m.group(1), re.IGNORECASE):
        return segment, ""
    if re.fullmatch(r"[\sdD0-9+\-*/%()]*", m.group(1)):
        return segment, ""
    return segment[m.end() :], " ".join(m.group(1).split())[:100]


def _shortcut(text: str) -> tuple[Expression, int] | None:
    """One of Dice Maiden's shortcuts (bot/dice/maiden.py), its comment kept."""
    body, comment = text, None
    found = expand(body)  # "wng 4d6 !soak" is one shortcut (dicemaiden-rs parser.rs:83)
    m = _MAIDEN_COMMENT.search(text) if found is None else None
    if m is not None:
        body, comment = text[: m.start()], (m.group(1) or m.group(2) or "").strip() or None
        found = expand(body)
    if found is None:
        why = unreadable(body)
        if why is not None:
            raise DiceError(why)
        return None
    expr = parse(found.text, "dice-maiden")
    return dataclasses.replace(expr, comment=comment, notes=(found.note, *expr.notes)), found.repeat


@functools.lru_cache(maxsize=1024)
def _parse_many_cached(text: str, dialect: str) -> Batch:
    segments = _split(text)
    if len(segments) > 1 and not segments[-1].strip():
        segments.pop()  # a trailing ';'
    parts: list[tuple[Expression, int]] = []
    dice = 0
    for index, segment in enumerate(segments, start=1):
        if not segment.strip():
            raise DiceError(f"roll {index} is empty: write something between the ;")
        shown: tuple[str, ...] = ()
        if _PRIVATE.match(segment):
            raise DiceError(
                "'p' at the start is Dice Maiden's private roll: use /roll's secret option "
                "(e.g. secret:private) and write the dice without it"
            )
        flags = _FLAGS.match(segment) if "display-options" in switches(dialect) else None
        if flags is not None:  # Dice Maiden's display options: the total is the same
            shown = (
                f"Dice Maiden dialect: left out the display option{'s' * (' ' in flags[1].strip())}"
                f" `{' '.join(flags[1].split())}`",
            )
            segment = segment[flags.end() :]
        maiden = "shortcuts" in switches(dialect)
        label = ""
        if maiden:
            segment, label = _maiden_label(segment)
        n, rest = _repeat(segment, 2 if maiden else 1)
        if maiden and not label and n > 1:  # "3 (Stat Roll) 4d6 k3": the label after the count
            rest, label = _maiden_label(rest)
        if label == "()":
            shown += ("Dice Maiden dialect: read `()` as an empty label",)
            label = ""
        elif label:
            shown += (f"Dice Maiden dialect: read `({label})` as a label",)
        try:
            found = _shortcut(rest) if maiden else None
            if found is not None:
                expr, times = found
                if n > 1 and times > 1:
                    raise DiceError("a shortcut that rolls several times can't be repeated")
                n = max(n, times)
            else:
                expr = parse(rest, dialect)
            if maiden and label:
                comment = label if expr.comment is None else f"{label}: {expr.comment}"
                expr = dataclasses.replace(expr, comment=comment)
            if shown:
                expr = dataclasses.replace(expr, notes=shown + expr.notes)
        except DiceError as error:
            if len(segments) == 1:
                raise
            raise DiceError(f"roll {index}: {error}") from None
        parts.append((expr, n))
        dice += n * expr.max_dice
        if sum(k for _, k in parts) > MAX_ROLLS:
            raise DiceError(f"too many rolls at once: the limit is {MAX_ROLLS}")
        if dice > MAX_DICE:
            raise DiceError(
                f"too many dice: these rolls could roll up to {dice:,} dice counting every "
                f"repeat, explosion and reroll; the limit is {MAX_DICE:,}"
            )
    return Batch(tuple(parts))


def parse_many(text: str, dialect: str = DEFAULT_DIALECT) -> Batch:
    """Parse one command's rolls in ``dialect`` (bot/dice/dialects.py); DiceError (nothing
    rolled) on anything wrong."""
    if not isinstance(text, str):
        raise DiceError("a dice expression must be text")
    if len(text) > MAX_LENGTH:
        raise DiceError(
            f"that expression is too long ({len(text):,} characters; the limit is {MAX_LENGTH:,})"
        )
    return _parse_many_cached(text, dialect)


def roll_many(batch: Batch | str, rng: random.Random) -> tuple[RollResult, ...]:
    """Roll every part of ``batch`` in order, repeats one after the other."""
    parsed = batch if isinstance(batch, Batch) else parse_many(batch)
    return tuple(roll(expr, rng) for expr, n in parsed.parts for _ in range(n))
