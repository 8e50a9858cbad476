"""Turning a :class:`RollResult` into text, separately from evaluation.

``render_markdown`` is for Discord (struck-through dropped dice, bold natural maxima and
minima); ``render_plain`` is for terminals and logs. Both always fit ``max_length``: long dice
lists are shortened to "… N more dice", then dropped, then the comment goes, and the total is
always the last thing to be cut.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.dice.parser import (
    CMP,
    COMPARE_SYMBOL,
    CONST,
    DICE,
    GROUP,
    LABEL,
    NEG,
    SET,
    DiceSpec,
    SetSpec,
)
from bot.dice.roller import (
    ADDED,
    CLAMPED_MAX,
    CLAMPED_MIN,
    DROPPED,
    EXPLODED,
    FAILURE,
    FOLDED,
    FROM_EXPLOSION,
    FROM_IMPLOSION,
    IMPLODED,
    REROLLED,
    SUCCESS,
    RollResult,
    TermResult,
)

DISCORD_LIMIT = 2000

_BINARY = {3: " + ", 4: " - ", 5: " * ", 6: " / ", 11: " % ", 12: " / "}
#: Discord's messages write minus as U+2212, like every other number the bot shows;
#: plain text keeps "-".
_MD_MINUS = "−"
_MD_SPECIAL = re.compile(r"([\\*_~`|>#\[\]()])")
_FATE = {-1: "−", 0: "0", 1: "+"}

DieFormat = Callable[[int, int, int, DiceSpec], str]  # (face, value, flags, spec) -> text


def _md_escape(text: str) -> str:
    """Neutralise markdown and mentions in player-written labels and comments."""
    return _MD_SPECIAL.sub(r"\\\1", text).replace("@", "@\u200b")


def _extreme(face: int, spec: DiceSpec) -> bool:
    """Bold this face: a natural 1 or maximum, or Roll20's cs/cf ranges when given."""
    if spec.fate:
        return False
    if spec.crit_success is not None or spec.crit_failure is not None:
        for span in (spec.crit_success, spec.crit_failure):
            if span is not None and span[0] <= face <= span[1]:
                return True
        return False
    return face in (1, spec.sides)


def _penetrated(flags: int, spec: DiceSpec) -> bool:
    """A penetrating explosion's die (counts one less than its face)."""
    return bool(flags & FROM_EXPLOSION) and spec.explode_mode in ("penetrate", "both")


def _face_text(face: int, spec: DiceSpec) -> str:
    if spec.tens:
        return str(10 * (face - 1))  # Avrae's tens die shows 0, 10, … 90
    return _FATE[face] if spec.fate else str(face)


def _md_die(face: int, value: int, flags: int, spec: DiceSpec) -> str:
    shown = _face_text(face, spec)
    if flags & (DROPPED | REROLLED):
        return f"~~{shown}~~"
    text = f"**{shown}**" if _extreme(face, spec) else shown
    if flags & FOLDED:
        text = "+" + text
    if flags & ADDED:
        text = "+" + text
    if flags & FROM_IMPLOSION:
        text = "−" + text
    if flags & IMPLODED:
        text += "¡"
    if flags & (CLAMPED_MIN | CLAMPED_MAX) or _penetrated(flags, spec):
        text += f"→{value}"
    if flags & EXPLODED:
        text += "!"
    if flags & SUCCESS:
        text += "✓"
    if flags & FAILURE:
        text += "✗"
    return text


def _plain_die(face: int, value: int, flags: int, spec: DiceSpec) -> str:
    shown = "-" if spec.fate and face < 0 else _face_text(face, spec)
    if flags & (DROPPED | REROLLED):
        return f"{shown}x"
    text = shown
    if flags & (FOLDED | ADDED):
        text = "+" + text
    if flags & FROM_IMPLOSION:
        text = "-" + text
    if flags & IMPLODED:
        text += "i"
    if flags & (CLAMPED_MIN | CLAMPED_MAX) or _penetrated(flags, spec):
        text += f"->{value}"
    if flags & EXPLODED:
        text += "!"
    if flags & SUCCESS:
        text += "*"
    if flags & FAILURE:
        text += "-"
    return text


def _die_texts(term: TermResult, fmt: DieFormat) -> list[str]:
    """Every die of a term as text, in roll order (sorted if the term asks for it)."""
    spec = term.spec
    if term.flags is None:  # unmodified dice: the common, large case, formatted inline
        if fmt is _md_die:
            top = spec.sides
            texts = [f"**{f}**" if f == 1 or f == top else str(f) for f in term.faces]
        else:
            texts = [str(f) for f in term.faces]
    else:
        values, flags = term.values, term.flags
        texts = [fmt(f, values[i], flags[i], spec) for i, f in enumerate(term.faces)]
    if spec.sort:
        order = sorted(range(len(texts)), key=lambda i: term.values[i], reverse=spec.sort == "d")
        texts = [texts[i] for i in order]
    return texts


class _Layout:
    """A result laid out once: the text around each term's dice list and every die's text,
    so any number of shown dice per term costs one join, and its length is arithmetic."""

    def __init__(
        self,
        result: RollResult,
        fmt: DieFormat,
        escape: Callable[[str], str],
        minus: str = "-",
    ) -> None:
        self.pieces: list[str | int] = []  # text, or the index of a term's dice list
        self.dice: list[list[str]] = []
        self.prefix: list[list[int]] = []  # prefix[t][k]: length of the first k dice joined
        stack: list[list[str | int]] = []
        terms = iter(result.terms)
        sets = iter(result.sets)
        for op, arg in result.parsed.program:
            if op == CONST:
                stack.append([str(arg)])
            elif op == DICE:
                assert isinstance(arg, DiceSpec)
                texts = _die_texts(next(terms), fmt)
                index = len(self.dice)
                self.dice.append(texts)
                acc = [0]
                total = 0
                for k, t in enumerate(texts):
                    total += len(t) + (2 if k else 0)
                    acc.append(total)
                self.prefix.append(acc)
                stack.append([arg.text, index])
            elif op == NEG:
                stack[-1] = [minus, *stack[-1]]
            elif op == GROUP:
                stack[-1] = ["(", *stack[-1], ")"]
            elif op == LABEL:
                stack[-1] = [*stack[-1], f" [{escape(str(arg))}]"]
            elif op == SET:
                assert isinstance(arg, SetSpec)
                kept = next(sets, ())
                items = stack[len(stack) - arg.size :]
                del stack[len(stack) - arg.size :]
                out: list[str | int] = ["{" if arg.braces else "("]
                for j, item in enumerate(items):
                    if j:
                        out.append(", ")
                    if j < len(kept) and not kept[j]:  # an item the set dropped
                        if fmt is not _md_die:
                            out.extend([*item, "x"])
                        elif any(isinstance(p, int) or "~~" in p for p in item):
                            out.extend([*item, " (dropped)"])  # ~~ cannot nest
                        else:
                            out.extend(["~~", *item, "~~"])
                    else:
                        out.extend(item)
                out.append(("}" if arg.braces else ")") + arg.suffix)
                stack.append(out)
            elif op == CMP:
                right = stack.pop()
                stack[-1] = [*stack[-1], f" {arg} ", *right]
            else:
                right = stack.pop()
                stack[-1] = [*stack[-1], _BINARY[op].replace("-", minus), *right]
        self.pieces = stack[-1]
        self.fixed = sum(len(p) for p in self.pieces if isinstance(p, str))

    def _tail(self, index: int, shown: int) -> str:
        n = len(self.dice[index])
        if shown >= n:
            return ""
        rest = n - shown
        if shown:
            return f", … {rest} more {'die' if rest == 1 else 'dice'}"
        return f"{n} dice"

    def length(self, shown: int | None) -> int:
        """Length of :meth:`text` for ``shown``, without building it."""
        total = self.fixed
        for index, texts in enumerate(self.dice):
            k = len(texts) if shown is None else min(shown, len(texts))
            total += 3 + self.prefix[index][k] + len(self._tail(index, k))
        return total

    def text(self, shown: int | None) -> str:
        """The expression with at most ``shown`` dice per list (None: all)."""
        out: list[str] = []
        for piece in self.pieces:
            if isinstance(piece, str):
                out.append(piece)
                continue
            texts = self.dice[piece]
            k = len(texts) if shown is None else min(shown, len(texts))
            out.append(" (" + ", ".join(texts[:k]) + self._tail(piece, k) + ")")
        return "".join(out)

    def bare(self) -> str:
        """The expression without any dice lists."""
        return "".join(p for p in self.pieces if isinstance(p, str))


def _number(value: int, minus: str) -> str:
    return str(value).replace("-", minus)


def _ending(result: RollResult, minus: str = "-") -> str:
    if result.compared is not None:
        left, right = result.compared
        op = result.parsed.compare or "=="
        verdict = "pass" if result.total else "fail"
        return f" → {_number(left, minus)} {COMPARE_SYMBOL[op]} {_number(right, minus)}: {verdict}"
    return f" = {_number(result.total, minus)}"


def _short(result: RollResult, minus: str = "-") -> str:
    if result.compared is not None:
        return "pass" if result.total else "fail"
    return _number(result.total, minus)


def _render(
    result: RollResult,
    max_length: int,
    fmt: DieFormat,
    escape: Callable[[str], str],
    minus: str = "-",
) -> str:
    if max_length < 1:
        raise ValueError("max_length must be at least 1")
    total = _ending(result, minus)
    comment = f" # {escape(result.comment)}" if result.comment else ""
    layout = _Layout(result, fmt, escape, minus)
    room = max_length - len(total) - len(comment)
    if layout.length(None) <= room:
        return layout.text(None) + total + comment
    # Largest number of dice per term that fits, by binary search on arithmetic lengths.
    most = max((len(t) for t in layout.dice), default=0)
    lo, hi, best = 0, most - 1, -1
    while lo <= hi:
        mid = (lo + hi) // 2
        if layout.length(mid) <= room:
            best, lo = mid, mid + 1
        else:
            hi = mid - 1
    if best >= 0:
        return layout.text(best) + total + comment
    bare = layout.bare()
    for candidate in (bare + total + comment, bare + total, _short(result, minus)):
        if len(candidate) <= max_length:
            return candidate
    short = _short(result, minus)
    return short[: max_length - 1] + "…" if max_length > 1 else "…"


def reading_notes(results: tuple[RollResult, ...] | list[RollResult]) -> tuple[str, ...]:
    """How the rolls' contested spellings were read, each line once (docs/dice.md,
    "Dialects"): every answer shows them, so a player never gets a silent misreading."""
    return tuple(dict.fromkeys(note for r in results for note in r.parsed.notes))


def render_markdown(result: RollResult, max_length: int = DISCORD_LIMIT) -> str:
    """Discord markdown, e.g. ``4d6kh3 (**6**, 4, ~~1~~, 3) = 13``, at most ``max_length``."""
    return _render(result, max_length, _md_die, _md_escape, _MD_MINUS)


def render_plain(result: RollResult, max_length: int = DISCORD_LIMIT) -> str:
    """Plain text, e.g. ``4d6kh3 (6, 4, 1x, 3) = 13`` (x: not counted), at most ``max_length``."""
    return _render(result, max_length, _plain_die, lambda s: s)
