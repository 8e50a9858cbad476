"""Tokenizer and precedence-climbing parser for dice notation.

The parser emits a postfix program instead of a tree: evaluation, exact odds and rendering all
walk it with an explicit stack, so nothing recurses on user input except parentheses (at most
``MAX_DEPTH`` levels). Every limit is checked here, before any die is rolled, and every
subexpression's exact minimum and maximum is known statically, so no oversized number is ever
built.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from bot.dice.errors import DiceError
from bot.dice.limits import (
    MAX_DEPTH,
    MAX_DICE,
    MAX_EXPLOSIONS,
    MAX_LABELS,
    MAX_LENGTH,
    MAX_MAGNITUDE,
    MAX_OPERATIONS,
    MAX_REROLLS,
    MAX_SIDES,
)

# Program opcodes (postfix).
CONST = 0  # arg: int
DICE = 1  # arg: DiceSpec
NEG = 2
ADD = 3
SUB = 4
MUL = 5
DIV = 6
GROUP = 7  # rendering only: parentheses around the top of the stack
LABEL = 8  # rendering only: arg is the label text, attached to the top of the stack

Instruction = tuple[int, object]

_BINARY_SYMBOL = {ADD: "+", SUB: "-", MUL: "*", DIV: "/"}
_NEVER = MAX_MAGNITUDE + 1  # an interval end no face can reach

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
    |(?P<num>[0-9]+)
    |(?P<label>\[[^\]]*\])
    |(?P<comment>\#.*)
    |(?P<word>adv|dis|kh|kl|dh|dl|rr|mi|ma|k|d|r|e)
    |(?P<cmp>>=|<=|>|<|=)
    |(?P<op>[-+*/()%])
    """,
    re.ASCII | re.IGNORECASE | re.VERBOSE | re.DOTALL,
)

_KEEP_WORDS = {"kh": "kh", "kl": "kl", "dh": "dh", "dl": "dl", "k": "kh", "d": "dl"}


def _fmt(n: int) -> str:
    """Format a count for a message: 1,000 not 1000."""
    return f"{n:,}"


def _describe_char(ch: str) -> str:
    """A safe, readable name for one unexpected character."""
    if " " < ch < "\x7f" and ch not in "`\\":
        return f"'{ch}'"
    return f"U+{ord(ch):04X}"


@dataclass(frozen=True, slots=True)
class DiceSpec:
    """One dice term, e.g. ``4d6kh3``, with its modifiers resolved to face intervals.

    Conditions (explode, reroll, success) are closed intervals ``(low, high)`` of faces or
    values; ``None`` means the modifier is absent.
    """

    count: int
    sides: int
    text: str
    keep: str | None = None  # "kh", "kl", "dh" or "dl"
    keep_n: int = 0
    reroll: tuple[int, int] | None = None
    reroll_cap: int = 0  # 1 for r (once), MAX_REROLLS for rr
    explode: tuple[int, int] | None = None
    min_face: int | None = None
    max_face: int | None = None
    success: tuple[int, int] | None = None
    plain: bool = True
    worst_dice: int = 0
    minimum: int = 0
    maximum: int = 0

    def clamp(self, face: int) -> int:
        """The value a face counts as after ``mi``/``ma``."""
        if self.min_face is not None and face < self.min_face:
            return self.min_face
        if self.max_face is not None and face > self.max_face:
            return self.max_face
        return face


@dataclass(frozen=True, slots=True)
class Expression:
    """A parsed, validated dice expression, ready to roll any number of times."""

    text: str  # canonical notation, labels included
    program: tuple[Instruction, ...]  # full postfix program, for rendering
    eval_program: tuple[Instruction, ...]  # without GROUP/LABEL, for rolling
    terms: tuple[DiceSpec, ...]
    labels: tuple[str, ...]
    comment: str | None
    minimum: int
    maximum: int
    max_dice: int
    fast: tuple[DiceSpec, int] | None  # single dice term plus a constant: rolled directly

    def __str__(self) -> str:
        return self.text


def _interval(op: str, n: int) -> tuple[int, int]:
    """The closed interval of integers satisfying ``x <op> n``."""
    if op == "=":
        return (n, n)
    if op == ">=":
        return (n, _NEVER)
    if op == ">":
        return (n + 1, _NEVER)
    if op == "<=":
        return (-_NEVER, n)
    return (-_NEVER, n - 1)  # "<"


def _cond_text(op: str, n: int) -> str:
    return f"{n}" if op == "=" else f"{op}{n}"


class _Parser:
    """One parse of one string; tokens are (kind, lowercased text, 1-based position)."""

    def __init__(self, source: str) -> None:
        self.tokens: list[tuple[str, str, int]] = []
        self.comment: str | None = None
        self._tokenize(source)
        self.i = 0
        self.prog: list[Instruction] = []
        self.terms: list[DiceSpec] = []
        self.labels: list[str] = []
        self.operations = 0
        self.dice = 0

    def _tokenize(self, source: str) -> None:
        pos = 0
        n = len(source)
        match = _TOKEN.match
        while pos < n:
            m = match(source, pos)
            if m is None:
                ch = source[pos]
                if ch == "[":
                    raise DiceError(f"the [label] at position {pos + 1} is never closed with ]")
                raise DiceError(f"unexpected character {_describe_char(ch)} at position {pos + 1}")
            kind = m.lastgroup or ""
            text = m.group()
            if kind == "comment":
                self.comment = text[1:].strip() or None
                break
            if kind == "label":
                self.tokens.append((kind, text[1:-1].strip(), pos + 1))
            elif kind != "ws":
                self.tokens.append((kind, text.lower(), pos + 1))
            pos = m.end()

    # --- token helpers -------------------------------------------------------------------

    def _peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def _unexpected(self, tok: tuple[str, str, int] | None, wanted: str) -> DiceError:
        if tok is None:
            return DiceError(f"the expression ends too early: expected {wanted}")
        shown = tok[1] if tok[0] != "label" else "[label]"
        return DiceError(f"unexpected '{shown[:20]}' at position {tok[2]}: expected {wanted}")

    def _number(self, what: str) -> int:
        tok = self._peek()
        if tok is None or tok[0] != "num":
            raise self._unexpected(tok, what)
        self.i += 1
        return self._int(tok[1])

    @staticmethod
    def _int(text: str) -> int:
        digits = text.lstrip("0") or "0"
        if len(digits) > 16 or int(digits) > MAX_MAGNITUDE:
            raise DiceError("number too large: numbers can be at most 10^15")
        return int(digits)

    def _count_op(self) -> None:
        self.operations += 1
        if self.operations > MAX_OPERATIONS:
            raise DiceError(f"too many operations: the limit is {MAX_OPERATIONS}")

    @staticmethod
    def _check(lo: int, hi: int) -> tuple[int, int]:
        if lo < -MAX_MAGNITUDE or hi > MAX_MAGNITUDE:
            raise DiceError("numbers get too large: results must stay within ±10^15")
        return lo, hi

    # --- grammar ---------------------------------------------------------------------------

    def parse(self) -> Expression:
        if not self.tokens:
            raise DiceError("there is no dice expression to roll: try 1d20+5")
        lo, hi = self._sum(0)
        tok = self._peek()
        if tok is not None:
            if tok[1] == ")":
                raise DiceError(f"unmatched ')' at position {tok[2]}")
            if tok[1] in ("adv", "dis"):
                raise DiceError(
                    f"put {tok[1]} right after a single d20 or on its own: "
                    f"{tok[1]}+5 or 1d20 {tok[1]}+5"
                )
            raise self._unexpected(tok, "an operator (+ - * /) or the end")
        program = tuple(self.prog)
        eval_program = tuple(ins for ins in program if ins[0] not in (GROUP, LABEL))
        fast: tuple[DiceSpec, int] | None = None
        if len(eval_program) == 1 and eval_program[0][0] == DICE:
            fast = (self.terms[0], 0)
        elif (
            len(eval_program) == 3
            and eval_program[0][0] == DICE
            and eval_program[1][0] == CONST
            and eval_program[2][0] in (ADD, SUB)
        ):
            offset = eval_program[1][1]
            assert isinstance(offset, int)
            fast = (self.terms[0], offset if eval_program[2][0] == ADD else -offset)
        return Expression(
            text=canonical_text(program),
            program=program,
            eval_program=eval_program,
            terms=tuple(self.terms),
            labels=tuple(self.labels),
            comment=self.comment,
            minimum=lo,
            maximum=hi,
            max_dice=self.dice,
            fast=fast,
        )

    def _sum(self, depth: int) -> tuple[int, int]:
        lo, hi = self._product(depth)
        while (tok := self._peek()) is not None and tok[1] in ("+", "-"):
            self.i += 1
            self._count_op()
            blo, bhi = self._product(depth)
            if tok[1] == "+":
                lo, hi = self._check(lo + blo, hi + bhi)
                self.prog.append((ADD, None))
            else:
                lo, hi = self._check(lo - bhi, hi - blo)
                self.prog.append((SUB, None))
        return lo, hi

    def _product(self, depth: int) -> tuple[int, int]:
        lo, hi = self._unary(depth)
        while (tok := self._peek()) is not None and tok[1] in ("*", "/"):
            self.i += 1
            self._count_op()
            start = len(self.prog)
            blo, bhi = self._unary(depth)
            if tok[1] == "*":
                corners = (lo * blo, lo * bhi, hi * blo, hi * bhi)
                self.prog.append((MUL, None))
            else:
                if blo <= 0 <= bhi:
                    shown = canonical_text(tuple(self.prog[start:]))
                    if len(shown) > 40:
                        shown = shown[:39] + "…"
                    if blo == bhi == 0:
                        raise DiceError("division by zero")
                    raise DiceError(f"division by zero is possible: {shown} can be 0")
                corners = (lo // blo, lo // bhi, hi // blo, hi // bhi)
                self.prog.append((DIV, None))
            lo, hi = self._check(min(corners), max(corners))
        return lo, hi

    def _unary(self, depth: int) -> tuple[int, int]:
        negate = False
        while (tok := self._peek()) is not None and tok[1] in ("+", "-"):
            self.i += 1
            self._count_op()
            if tok[1] == "-":
                negate = not negate
        lo, hi = self._atom(depth)
        if negate:
            self.prog.append((NEG, None))
            return -hi, -lo
        return lo, hi

    def _atom(self, depth: int) -> tuple[int, int]:
        tok = self._peek()
        if tok is None:
            raise self._unexpected(tok, "a number, dice or '('")
        kind, text, _ = tok
        if text == "(":
            if depth >= MAX_DEPTH:
                raise DiceError(f"too many nested parentheses: the limit is {MAX_DEPTH}")
            self.i += 1
            lo, hi = self._sum(depth + 1)
            close = self._peek()
            if close is None or close[1] != ")":
                raise self._unexpected(close, "')'")
            self.i += 1
            self.prog.append((GROUP, None))
        elif kind == "num":
            self.i += 1
            value = self._int(text)
            nxt = self._peek()
            if nxt is not None and nxt[1] == "d":
                self.i += 1
                lo, hi = self._dice(value)
            else:
                self.prog.append((CONST, value))
                lo, hi = value, value
        elif text == "d":
            self.i += 1
            lo, hi = self._dice(1)
        elif text in ("adv", "dis"):
            self.i += 1
            keep = ("kh" if text == "adv" else "kl", 1)
            lo, hi = self._add_term(self._build(2, 20, {"keep": keep}))
        else:
            raise self._unexpected(tok, "a number, dice or '('")
        while (lab := self._peek()) is not None and lab[0] == "label":
            self.i += 1
            if len(self.labels) >= MAX_LABELS:
                raise DiceError(f"too many labels: the limit is {MAX_LABELS}")
            if lab[1]:
                self.labels.append(lab[1])
                self.prog.append((LABEL, lab[1]))
        return lo, hi

    def _dice(self, count: int) -> tuple[int, int]:
        tok = self._peek()
        if tok is not None and tok[1] == "%":
            self.i += 1
            sides = 100
        else:
            sides = self._number("the number of sides after 'd' (e.g. d20)")
        name = f"{count}d{sides}"
        if count < 1:
            raise DiceError(f"{name}: roll at least one die")
        if count > MAX_DICE:
            raise DiceError(f"{name}: at most {_fmt(MAX_DICE)} dice can be rolled")
        if sides < 1:
            raise DiceError(f"{name}: a die needs at least one side")
        if sides > MAX_SIDES:
            raise DiceError(f"{name}: dice can have at most {_fmt(MAX_SIDES)} sides")
        mods: dict[str, tuple[str, int]] = {}
        while (tok := self._peek()) is not None and tok[0] in ("word", "cmp"):
            kind, word, _ = tok
            self.i += 1
            if kind == "cmp":
                slot, value = "success", (word, self._number(f"a number after '{word}'"))
            elif word in _KEEP_WORDS:
                nxt = self._peek()
                n = self._number("") if nxt is not None and nxt[0] == "num" else 1
                slot, value = "keep", (_KEEP_WORDS[word], n)
            elif word in ("adv", "dis"):
                if count != 1 or sides != 20 or "keep" in mods:
                    raise DiceError(f"{word} only applies to a single d20, as in 1d20 {word}+5")
                count = 2
                slot, value = "keep", ("kh" if word == "adv" else "kl", 1)
            elif word in ("r", "rr", "e"):
                nxt = self._peek()
                op = "="
                if nxt is not None and nxt[0] == "cmp":
                    op = nxt[1]
                    self.i += 1
                elif word == "e" and (nxt is None or nxt[0] != "num"):
                    op = "max"
                if op == "max":
                    n = sides
                    op = "="
                else:
                    n = self._number(f"a face number after '{word}', e.g. {word}1 or {word}<3")
                slot, value = ("explode" if word == "e" else "reroll"), (op, n)
                if word == "rr":
                    value = ("rr" + op, n)
            else:  # mi / ma
                slot = "min" if word == "mi" else "max"
                value = ("=", self._number(f"a face number after '{word}', e.g. {word}2"))
            if slot in mods:
                raise DiceError(f"{name}: only one {slot} modifier per dice term")
            mods[slot] = value
        return self._add_term(self._build(count, sides, mods))

    def _build(self, count: int, sides: int, mods: dict[str, tuple[str, int]]) -> DiceSpec:
        """Validate a dice term's modifiers and compute its bounds and worst-case dice."""
        name = f"{count}d{sides}"
        text = name
        reroll = explode = success = None
        reroll_cap = 0
        min_face = max_face = None
        if "reroll" in mods:
            op, n = mods["reroll"]
            repeat = op.startswith("rr")
            op = op[2:] if repeat else op
            reroll = _interval(op, n)
            reroll_cap = MAX_REROLLS if repeat else 1
            if repeat and reroll[0] <= 1 and reroll[1] >= sides:
                raise DiceError(
                    f"{name}rr{_cond_text(op, n)}: every face would be rerolled forever"
                )
            text += ("rr" if repeat else "r") + _cond_text(op, n)
        if "explode" in mods:
            op, n = mods["explode"]
            explode = _interval(op, n)
            if explode[0] <= 1 and explode[1] >= sides:
                raise DiceError(
                    f"{name}e{_cond_text(op, n)}: every face explodes, so it would never stop"
                )
            text += "e" + _cond_text(op, n)
        if "min" in mods:
            min_face = mods["min"][1]
            if not 1 <= min_face <= sides:
                raise DiceError(f"{name}mi{min_face}: the minimum must be a face from 1 to {sides}")
            text += f"mi{min_face}"
        if "max" in mods:
            max_face = mods["max"][1]
            if not 1 <= max_face <= sides:
                raise DiceError(f"{name}ma{max_face}: the maximum must be a face from 1 to {sides}")
            if min_face is not None and max_face < min_face:
                raise DiceError(f"{name}: the maximum (ma) is below the minimum (mi)")
            text += f"ma{max_face}"
        keep: str | None = None
        keep_n = 0
        if "keep" in mods:
            keep, keep_n = mods["keep"]
            if keep in ("kh", "kl"):
                if keep_n < 1:
                    raise DiceError(f"{name}{keep}{keep_n}: keep at least one die")
                if keep_n > count:
                    raise DiceError(
                        f"{name}{keep}{keep_n}: you can keep at most {_fmt(count)} "
                        f"{'die' if count == 1 else 'dice'}"
                    )
            elif keep_n >= count:
                raise DiceError(
                    f"{name}{keep}{keep_n}: you can drop at most {_fmt(count - 1)} "
                    f"{'die' if count == 2 else 'dice'}"
                )
            text += f"{keep}{keep_n}"
        if "success" in mods:
            op, n = mods["success"]
            success = _interval(op, n)
            text += f"{op}{n}"

        def hits(interval: tuple[int, int] | None) -> bool:
            return interval is not None and interval[0] <= sides and interval[1] >= 1

        rolls_per_slot = 1 + (MAX_EXPLOSIONS if hits(explode) else 0)
        dice_per_roll = 1 + (reroll_cap if hits(reroll) else 0)
        worst = count * rolls_per_slot * dice_per_roll
        # Bounds: every value lies in [vlo, vhi]; the pool holds count..pool_max counted dice.
        vlo = 1 if min_face is None else min_face
        vhi = sides if max_face is None else max_face
        pool_max = count * rolls_per_slot
        if keep in ("kh", "kl"):
            kept_min, kept_max = keep_n, keep_n
        elif keep is not None:
            kept_min, kept_max = count - keep_n, pool_max - keep_n
        else:
            kept_min, kept_max = count, pool_max
        if success is not None:
            lo, hi = 0, kept_max
        else:
            lo, hi = kept_min * vlo, kept_max * vhi
        plain = len(mods) == 0
        return DiceSpec(
            count=count,
            sides=sides,
            text=text,
            keep=keep,
            keep_n=keep_n,
            reroll=reroll,
            reroll_cap=reroll_cap,
            explode=explode,
            min_face=min_face,
            max_face=max_face,
            success=success,
            plain=plain,
            worst_dice=worst,
            minimum=lo,
            maximum=hi,
        )

    def _add_term(self, spec: DiceSpec) -> tuple[int, int]:
        self.dice += spec.worst_dice
        if self.dice > MAX_DICE:
            raise DiceError(
                f"too many dice: this could roll up to {_fmt(self.dice)} dice counting every "
                f"possible explosion and reroll; the limit is {_fmt(MAX_DICE)}"
            )
        self.terms.append(spec)
        self.prog.append((DICE, spec))
        return spec.minimum, spec.maximum


def canonical_text(program: tuple[Instruction, ...]) -> str:
    """Rebuild normalised notation from a postfix program (the parser kept the parentheses)."""
    stack: list[str] = []
    for op, arg in program:
        if op == CONST:
            stack.append(str(arg))
        elif op == DICE:
            assert isinstance(arg, DiceSpec)
            stack.append(arg.text)
        elif op == NEG:
            stack[-1] = "-" + stack[-1]
        elif op == GROUP:
            stack[-1] = "(" + stack[-1] + ")"
        elif op == LABEL:
            stack[-1] = f"{stack[-1]} [{arg}]"
        else:
            right = stack.pop()
            stack[-1] = stack[-1] + _BINARY_SYMBOL[op] + right
    return stack[-1] if stack else ""


@functools.lru_cache(maxsize=4096)
def _parse_cached(expression: str) -> Expression:
    return _Parser(expression).parse()


def parse(expression: str) -> Expression:
    """Parse and validate ``expression``; raise :class:`DiceError` on anything wrong.

    The length is checked first, in O(1), so hostile megabyte strings cost nothing.
    """
    if not isinstance(expression, str):
        raise DiceError("a dice expression must be text")
    if len(expression) > MAX_LENGTH:
        raise DiceError(
            f"that expression is too long ({_fmt(len(expression))} characters; "
            f"the limit is {_fmt(MAX_LENGTH)})"
        )
    return _parse_cached(expression)
