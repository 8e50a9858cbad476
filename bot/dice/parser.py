"""Tokenizer and precedence-climbing parser for dice notation.

The parser emits a postfix program instead of a tree: evaluation, exact odds and rendering all
walk it with an explicit stack, so nothing recurses on user input except parentheses and sets
(at most ``MAX_DEPTH`` levels). Every limit is checked here, before any die is rolled, and every
subexpression's minimum and maximum is bounded statically, so no oversized number is ever built.

Spellings from other bots are read the way their bot of origin reads them where that can be
told from the text (docs/dice.md, "Coming from another bot"): a modifier separated from its
dice by a space is Dice Maiden's (``3d6 e6`` explodes once on 6 or more), ``p`` and ``k<3`` are
Avrae's, ``!`` / ``!!`` / ``!p`` Roll20's. Where two bots disagree and the text cannot tell
which one the player meant, the expression is refused with the spellings to type instead.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import functools
import itertools
import re
from dataclasses import dataclass
from typing import Any

from bot.dice.dialects import DEFAULT_DIALECT, DIALECT_NAMES, switches
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
    MAX_SET_SIZE,
    MAX_SIDES,
)


class Op(enum.IntEnum):
    """Program opcodes (postfix): what one instruction does with the stack.

    An ``IntEnum`` so a program reads by name in a debugger or a failing test, while each
    instruction stays the plain ``(op, arg)`` tuple the evaluators walk.
    """

    CONST = 0  # arg: int
    DICE = 1  # arg: DiceSpec
    NEG = 2
    ADD = 3
    SUB = 4
    MUL = 5
    DIV = 6
    GROUP = 7  # rendering only: parentheses around the top of the stack
    LABEL = 8  # rendering only: arg is the label text, attached to the top of the stack
    SET = 9  # arg: SetSpec; pops its elements, pushes the sum of the kept ones
    CMP = 10  # arg: comparison operator; pops two values, pushes 1 (pass) or 0 (fail)
    MOD = 11  # the remainder, rounding down as ``/`` does (Python's %)
    TDIV = 12  # Avrae's ``/``: true division (the total drops the fraction at the end)


# The opcodes by bare name, as the evaluators (roller, odds, stringify) import them.
CONST = Op.CONST
DICE = Op.DICE
NEG = Op.NEG
ADD = Op.ADD
SUB = Op.SUB
MUL = Op.MUL
DIV = Op.DIV
GROUP = Op.GROUP
LABEL = Op.LABEL
SET = Op.SET
CMP = Op.CMP
MOD = Op.MOD
TDIV = Op.TDIV

Instruction = tuple[Op, object]
Mod = tuple[str, Any]  # (slot, value) of one modifier as written

_BINARY_SYMBOL = {ADD: "+", SUB: "-", MUL: "*", DIV: "/", MOD: "%", TDIV: "/"}
_NEVER = MAX_MAGNITUDE + 1  # an interval end no face can reach
#: Comparison operators of totals, with the symbol shown in results.
COMPARE_SYMBOL = {"==": "=", "!=": "≠", ">=": "≥", "<=": "≤", ">": ">", "<": "<"}

#: Every modifier word, longest first so a run of letters splits greedily (``kh3dl1``).
_WORDS = (
    "irg",
    "adv",
    "dis",
    "min",
    "max",
    "kh",
    "kl",
    "km",
    "dh",
    "dl",
    "ph",
    "pl",
    "rr",
    "rg",
    "tl",
    "ro",
    "ra",
    "ie",
    "im",
    "ir",
    "mi",
    "ma",
    "cs",
    "cf",
    "sa",
    "sd",
    "xo",
    "k",
    "p",
    "d",
    "r",
    "e",
    "t",
    "f",
    "s",
    "b",
    "x",
    "c",
    "i",
)

#: The words in the order of :data:`_WORDS` (the first that fits wins, as in a loop).
_WORD = re.compile("|".join(_WORDS))

_TOKEN_TEXT = r"""
    (?P<ws>\s+)
    |(?P<num>[0-9]+)
    |(?P<label>\[[^\]]*\])
    |(?P<comment>\#.*)
    |(?P<ccomment>/\*.*)
    |(?P<letters>[a-z]+)
    |(?P<cmp>==|!=|<>|>=|<=|>|<|=)
    |(?P<bang>!o(?![a-z])|!!?p?)
    |(?P<slash>//)
    |(?P<op>[-+*/(){},%])
    """
_TOKEN = re.compile(_TOKEN_TEXT, re.ASCII | re.IGNORECASE | re.VERBOSE | re.DOTALL)
#: Avrae's d20 reads decimals (``1.5``, ``.5``, ``3.``).
_TOKEN_DECIMAL = re.compile(
    _TOKEN_TEXT.replace("(?P<num>[0-9]+)", r"(?P<num>[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)"),
    re.ASCII | re.IGNORECASE | re.VERBOSE | re.DOTALL,
)

# Keep/drop words: (action, selector kind) with k = keep, p = drop; h/l/m highest, lowest,
# middle. ``k3`` keeps the highest 3 (Roll20, Dice Maiden); ``p3`` drops dice showing 3 (Avrae).
_KEEP_WORDS = {
    "kh": ("k", "h"),
    "kl": ("k", "l"),
    "km": ("k", "m"),
    "k": ("k", "h"),
    "dh": ("p", "h"),
    "dl": ("p", "l"),
    "d": ("p", "l"),
    "ph": ("p", "h"),
    "pl": ("p", "l"),
    "p": ("p", "="),
}

Selector = tuple[str, int, int]  # ("h"|"l"|"m", n, 0) or ("v", low, high)
Selection = tuple[str, tuple[Selector, ...]]  # ("k"|"p", selectors united)


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
    values; ``None`` means the modifier is absent. ``keep``/``keep_n`` hold a single highest or
    lowest keep/drop; anything else (several, selectors, middle) is in ``selects``.
    """

    count: int
    sides: int
    text: str
    keep: str | None = None  # "kh", "kl", "dh" or "dl"
    keep_n: int = 0
    reroll: tuple[int, int] | None = None
    reroll_cap: int = 0  # 1 for r/ro (once), MAX_REROLLS for rr
    explode: tuple[int, int] | None = None
    explode_cap: int = MAX_EXPLOSIONS  # 1 for Dice Maiden's "e" (once)
    explode_mode: str = ""  # "" separate dice, "compound" (!!), "penetrate" (!p), "both"
    implode: tuple[int, int] | None = None  # im: roll again and subtract, chained like "!"
    reroll_add: tuple[int, int] | None = None  # ra: one extra die if any die matches
    min_face: int | None = None
    max_face: int | None = None
    success: tuple[int, int] | None = None
    more_successes: tuple[tuple[int, int], ...] = ()  # each met one adds another success
    failure: tuple[int, int] | None = None  # each met one takes a success away
    selects: tuple[Selection, ...] = ()
    fate: bool = False  # faces -1, 0, +1
    tens: bool = False  # Avrae's d%: a d10 whose face f counts 10 × (f − 1)
    crit_success: tuple[int, int] | None = None  # cs: display only
    crit_failure: tuple[int, int] | None = None  # cf: display only
    sort: str = ""  # "a" or "d": display only
    #: Dice Maiden's advantage before explosions (2d6 ie6 adv1): (extra dice, "h" keeps the
    #: highest / "l" the lowest) dropped from ``count`` dice before any explodes.
    adv_first: tuple[int, str] | None = None
    plain: bool = True
    worst_dice: int = 0
    minimum: int = 0
    maximum: int = 0
    mods: tuple[Mod, ...] = ()  # as written, to extend (``(4d6)kh3``)

    @property
    def counting(self) -> bool:
        """The term counts successes (and failures) instead of adding values."""
        return self.success is not None or self.failure is not None

    def clamp(self, face: int) -> int:
        """The value a face counts as after ``mi``/``ma`` (a tens die: 0 … 90)."""
        if self.tens:
            return 10 * (face - 1)
        if self.min_face is not None and face < self.min_face:
            return self.min_face
        if self.max_face is not None and face > self.max_face:
            return self.max_face
        return face

    def score(self, value: int) -> int:
        """Successes (minus failures) one kept die of this value scores."""
        n = 0
        if self.success is not None and self.success[0] <= value <= self.success[1]:
            n = 1
        if self.more_successes:
            # Each further target counts on its own, as exact odds (bot/dice/odds.py) and
            # Dice Maiden's count_dice_matching do: `=2 tl2` counts a 1 once and a 2 twice.
            for lo, hi in self.more_successes:
                if lo <= value <= hi:
                    n += 1
        if self.failure is not None and self.failure[0] <= value <= self.failure[1]:
            n -= 1
        return n


@dataclass(frozen=True, slots=True)
class SetSpec:
    """A set ``(a, b, c)kh1``: ``size`` elements, the total of those the selection keeps."""

    size: int
    selects: tuple[Selection, ...]
    suffix: str  # the selection as written canonically, e.g. "kh1"
    braces: bool = False
    #: rpg-dice-roller's ``{4d6, 2d10}>10f<3``: count the kept items above (and below) instead
    #: of adding them.
    success: tuple[int, int] | None = None
    failure: tuple[int, int] | None = None

    def score(self, value: int) -> int:
        """What one kept item adds: its value, or +1 / -1 when the set counts."""
        if self.success is None:
            return value
        n = 1 if self.success[0] <= value <= self.success[1] else 0
        if self.failure is not None and self.failure[0] <= value <= self.failure[1]:
            n -= 1
        return n


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
    compare: str | None = None  # the total is compared: 1 pass, 0 fail
    #: How contested spellings were read, one short line each, shown with every answer.
    notes: tuple[str, ...] = ()
    dialect: str = DEFAULT_DIALECT
    #: Avrae's decimals and true division: worked out in floats as its d20 does, the total
    #: truncated toward zero at the end (``int()``).
    truncate: bool = False

    def __str__(self) -> str:
        return self.text


def _interval(op: str, n: int) -> tuple[int, int]:
    """The closed interval of integers satisfying ``x <op> n``."""
    if op in ("=", "=="):
        return (n, n)
    if op == ">=":
        return (n, _NEVER)
    if op == ">":
        return (n + 1, _NEVER)
    if op == "<=":
        return (-_NEVER, n)
    return (-_NEVER, n - 1)  # "<"


def _clamped(face: int, low: int | None, high: int | None) -> int:
    """A face after ``mi``/``ma`` (the minimum first)."""
    if low is not None:
        face = max(face, low)
    return face if high is None else min(face, high)


def _tens_face(op: str, n: int) -> tuple[str, int]:
    """A condition on Avrae's tens die (values 0, 10, … 90) as one on its d10's faces
    (value = 10 × (face − 1))."""
    if op in ("=", "=="):
        return ("=", n // 10 + 1) if n % 10 == 0 else ("=", 0)  # face 0: never
    if op == ">":
        op, n = ">=", n + 1
    elif op == "<":
        op, n = "<=", n - 1
    if op == ">=":
        return ">=", -(-n // 10) + 1
    return "<=", n // 10 + 1


def _cond_text(op: str, n: int) -> str:
    return f"{n}" if op in ("=", "==") else f"{op}{n}"


def _selector_text(action: str, sel: Selector) -> str:
    kind, a, b = sel
    if kind == "v":
        if a == b:
            cond = f"={a}"
        elif b >= _NEVER:
            cond = f">={a}"
        else:
            cond = f"<={b}"
        return ("k" if action == "k" else "p") + cond
    if action == "k":
        return f"k{kind}{a}"
    return f"d{kind}{a}"


def selection_text(selects: tuple[Selection, ...]) -> str:
    """Canonical text of keep/drop operations, e.g. ``kh3dl1``."""
    return "".join(_selector_text(action, sel) for action, sels in selects for sel in sels)


def kept_bounds(selects: tuple[Selection, ...], low: int, high: int) -> tuple[int, int]:
    """How few and how many of ``low``..``high`` items survive the selections."""
    for action, sels in selects:
        ranked = [n for kind, n, _ in sels if kind != "v"]
        by_value = any(kind == "v" for kind, _, _ in sels)
        if action == "k":
            top = high if by_value else min(high, sum(ranked))
            bottom = 0 if by_value and not ranked else min(low, max(ranked, default=0))
            low, high = bottom, top
        else:
            bottom = 0 if by_value else max(0, low - sum(ranked))
            top = max(0, high - max(ranked, default=0))
            low, high = bottom, top
    return low, high


def set_bounds(selects: tuple[Selection, ...], bounds: list[tuple[int, int]]) -> tuple[int, int]:
    """Safe bounds of a set's total: the sum of between ``low`` and ``high`` of its items."""
    low, high = kept_bounds(selects, len(bounds), len(bounds))
    lows = sorted(b[0] for b in bounds)
    highs = sorted((b[1] for b in bounds), reverse=True)
    lo = sum(x for x in lows[:high] if x < 0) if lows[0] < 0 else sum(lows[:low])
    hi = sum(x for x in highs[:high] if x > 0) if highs[0] > 0 else sum(highs[:low])
    return lo, hi


class _Parser:
    """One parse of one string; tokens are (kind, lowercased text, 1-based position, spaced),
    ``spaced`` telling whether whitespace came right before the token."""

    def __init__(self, source: str, dialect: str = DEFAULT_DIALECT) -> None:
        self.dialect = dialect
        self.sw = switches(dialect)
        self.notes: dict[str, str] = {}
        self.floor_div: set[int] = set()  # positions of Avrae's // (integer division)
        self.had_mul = False
        self.faces = (1, 1)  # the faces of the dice term being read
        self.decimal = False  # Avrae's decimals or true division: the total is truncated
        self.decimals = "decimals" in self.sw  # the dialect reads 1.5
        self.tens = False  # reading the modifiers of Avrae's tens die (d%): values 0 … 90
        self.typed: dict[str, str] = {}  # modifiers of the current term as typed, for notes
        self.after_plus = False  # reading the term after a "+" (Dice Maiden's added dice)
        self.source = source
        self.tokens: list[tuple[str, str, int, bool]] = []
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
        match = (_TOKEN_DECIMAL if self.decimals else _TOKEN).match
        spaced = False
        while pos < n:
            m = match(source, pos)
            if m is None:
                ch = source[pos]
                if ch == "[":
                    raise DiceError(f"the [label] at position {pos + 1} is never closed with ]")
                if ch == "." and self.tokens and self.tokens[-1][1] == "f":
                    if source[pos : pos + 2] == ".2" and not source[pos + 2 : pos + 3].isdigit():
                        pos += 2  # rpg-dice-roller's dF.2 is the standard Fate die: dF
                        continue
                    raise DiceError(
                        f"'.' at position {pos + 1}: only standard Fate dice (dF, dF.2) are "
                        "supported"
                    )
                if ch == ".":
                    raise DiceError(f"'.' at position {pos + 1}: only whole numbers are supported")
                if ch == ";":
                    raise DiceError("several rolls (separated by ;) are not possible here")
                raise DiceError(f"unexpected character {_describe_char(ch)} at position {pos + 1}")
            kind = m.lastgroup or ""
            text = m.group()
            if kind == "comment":
                self.comment = text[1:].strip() or None
                break
            if kind == "ccomment":  # rpg-dice-roller's /* … */
                self.comment = text[2:].removesuffix("*/").strip() or None
                break
            if kind == "cmp" and text == "<>":
                text = "!="  # rpg-dice-roller's spelling of "not equal"
            if kind == "slash":
                rest = source[m.end() :].lstrip()
                if rest[:1].isdigit() or rest[:1] in ("(", "d", "D", "-", "+", "."):
                    kind, text = "op", "/"  # Avrae's // (integer division) is our /
                    self.floor_div.add(pos + 1)
                else:
                    self.comment = rest.strip() or None  # "// fire": a comment
                    break
            if (
                kind == "bang"
                and text == "!"
                and spaced
                and source[m.end() : m.end() + 1]
                in (
                    " ",
                    "\t",
                    "",
                )
            ):
                # Dice Maiden: "4d6 ! Damage roll" is a comment.
                self.comment = source[m.end() :].strip() or None
                break
            if kind == "label":
                self.tokens.append((kind, text[1:-1].strip(), pos + 1, spaced))
            elif kind == "letters":
                self._split_word(text.lower(), pos, spaced, source)
            elif kind != "ws":
                self.tokens.append((kind, text.lower(), pos + 1, spaced))
            spaced = kind == "ws"
            pos = m.end()

    def _split_word(self, letters: str, pos: int, spaced: bool, source: str) -> None:
        """Split a run of letters into known words, longest first (``kh3`` has no run; ``khdl``
        is kh + dl); an unknown run is blamed from its first letter."""
        at = 0
        out: list[tuple[str, str, int, bool]] = []
        known = _WORD.match
        while at < len(letters):
            found = known(letters, at)
            if found is not None:
                word = found.group()
                out.append(("word", word, pos + at + 1, spaced and at == 0))
                at += len(word)
            else:
                shown = letters if len(letters) <= 20 else letters[:19] + "…"
                hint = ""
                if letters in ("cod", "wod", "sr", "df", "wh", "yz", "ed", "ex", "sp", "snm"):
                    hint = (
                        " (Dice Maiden's game-system shortcuts are not supported here: write "
                        "the dice, e.g. 4d10 t8 ie10 for 4cod, or pick the dice-maiden dialect)"
                    )
                elif letters in ("nr", "ul"):
                    hint = " (a Dice Maiden display option: write the roll without it)"
                elif letters.startswith("dd"):
                    hint = " (write the dice out, e.g. 1d3*10+1d4)"
                if not hint and spaced and len(letters) > 2:
                    hint = " (start a comment with #)"
                if not hint:
                    close = difflib.get_close_matches(letters, _WORDS, n=1, cutoff=0.6)
                    if close:
                        hint = f" (did you mean '{close[0]}'?)"
                    else:
                        hint = " (modifiers are e.g. kh3, dl1, r1, e, mi2; comments start with #)"
                raise DiceError(f"unknown word '{shown}' at position {pos + 1}{hint}")
        self.tokens.extend(out)

    # --- readings: dialects and notes (bot/dice/dialects.py) ------------------------------

    def _note(self, key: str, text: str) -> None:
        """Say in the answer how a contested spelling was read (once per kind)."""
        self.notes.setdefault(key, text)

    def _said(self, text: str) -> str:
        """A note for a reading the player's dialect changed: it names the dialect."""
        return f"{DIALECT_NAMES[self.dialect]} dialect: {text}"

    def _point(self, word: str, op: str, n: int) -> str:
        """A comparison point on dice (``>4`` successes, ``!>5``, ``r<2``): strict here, as in
        Avrae and rpg-dice-roller; Roll20 includes the number (the ``roll20`` dialect)."""
        if op not in (">", "<"):
            return op
        wide = op + "="
        more = "more" if op == ">" else "less"
        if "inclusive" in self.sw:
            self._note("inclusive", self._said(f"read `{word}{op}{n}` as {n} or {more}"))
            return wide
        self._note(
            "inclusive",
            f"read `{word}{op}{n}` as {more} than {n}; Roll20 counts {n} too: "
            f"write `{word}{wide}{n}`",
        )
        return op

    # --- token helpers -------------------------------------------------------------------

    def _peek(self, ahead: int = 0) -> tuple[str, str, int, bool] | None:
        j = self.i + ahead
        return self.tokens[j] if j < len(self.tokens) else None

    def _unexpected(self, tok: tuple[str, str, int, bool] | None, wanted: str) -> DiceError:
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
        if "." in text:
            raise DiceError(
                f"'{text[:20]}': a whole number is needed here (e.g. {int(float(text))})"
            )
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
            raise DiceError(
                "numbers get too large: results must stay within ±10^15 (use smaller numbers)"
            )
        return lo, hi

    # --- grammar ---------------------------------------------------------------------------

    def parse(self) -> Expression:
        if not self.tokens:
            raise DiceError("there is no dice expression to roll: try 1d20+5")
        self._dice_maiden_advantage()
        start = len(self.prog)
        lo, hi = self._sum(0)
        compare: str | None = None
        tok = self._peek()
        if tok is not None and tok[0] == "cmp":
            compare = self._comparison(tok, start)
            lo, hi = 0, 1
            tok = self._peek()
        if tok is not None:
            if tok[1] == ")":
                raise DiceError(f"unmatched ')' at position {tok[2]}")
            if tok[1] in ("adv", "dis"):
                raise DiceError(
                    f"put {tok[1]} right after a single die or on its own: "
                    f"{tok[1]}+5 or 1d20 {tok[1]}+5"
                )
            if tok[0] == "cmp":
                raise DiceError(
                    f"only one comparison per roll (the second is at position {tok[2]}): write "
                    "each comparison as its own roll, separated by ;"
                )
            if tok[0] == "num" and tok[3]:
                raise DiceError(
                    f"unexpected number at position {tok[2]}: to roll several times write "
                    "6#4d6 (or 6 4d6 at the start), to separate rolls use ;"
                )
            if tok[0] == "word" and tok[3]:
                raise DiceError(
                    f"unexpected '{tok[1]}' at position {tok[2]}: put modifiers right after "
                    "their dice, and start a comment with #"
                )
            raise self._unexpected(tok, "an operator (+ - * /) or the end")
        program = tuple(self.prog)
        eval_program = tuple(ins for ins in program if ins[0] not in (GROUP, LABEL))
        fast: tuple[DiceSpec, int] | None = None
        if self.decimal:
            pass  # rolled through the program, the total truncated at the end
        elif len(eval_program) == 1 and eval_program[0][0] == DICE:
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
        if any(t.counting for t in self.terms) and any(
            ins[0] in (ADD, SUB, MUL, DIV, MOD, NEG) for ins in eval_program
        ):
            self._note(
                "successes-added",
                "counted the successes and worked them into the total like any number",
            )
        if self.decimal:  # the total is truncated toward zero, as Avrae's int(total)
            lo, hi = int(lo), int(hi)
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
            compare=compare,
            notes=tuple(self.notes.values()),
            dialect=self.dialect,
            truncate=self.decimal,
        )

    def _dice_maiden_advantage(self) -> None:
        """Dice Maiden's ``+d20`` / ``-d20`` at the start: advantage / disadvantage."""
        first, second, third = self._peek(), self._peek(1), self._peek(2)
        if "unary-sign" in self.sw:
            if (
                first is not None
                and first[1] in ("+", "-")
                and second is not None
                and second[1] == "d"
                and third is not None
                and third[1] in ("20", "%")
            ):
                shown = f"{first[1]}d{third[1]}"
                self._note("unary-sign", self._said(f"read `{shown}` as one die with a sign"))
            return
        if (
            first is not None
            and first[1] in ("+", "-")
            and second is not None
            and second[1] == "d"
            and not second[3]
            and third is not None
            and not third[3]
        ):
            if third[1] == "20":
                self.tokens[self.i : self.i + 3] = [
                    ("word", "adv" if first[1] == "+" else "dis", first[2], first[3])
                ]
            elif third[1] == "%":
                raise DiceError(
                    f"{first[1]}d% is Dice Maiden's percentile "
                    f"{'advantage' if first[1] == '+' else 'disadvantage'}: write it out, e.g. "
                    f"(2d10{'kl1' if first[1] == '+' else 'kh1'}-1)*10+1d10"
                )

    def _comparison(self, tok: tuple[str, str, int, bool], start: int) -> str:
        """A comparison of totals (``1d20+5 >= 15``): 1 if it holds, 0 if not."""
        op = tok[1]
        if op == "=":
            raise DiceError(
                f"'=' at position {tok[2]}: write == to compare the total (a single = counts "
                "dice, right after them: 4d6=6)"
            )
        lone = self.prog[start:]
        if "total-comparison" in self.sw:
            self._note("total-comparison", self._said(f"compared the total with `{op}`"))
        elif (
            len(lone) == 1
            and lone[0][0] == DICE
            and isinstance(lone[0][1], DiceSpec)
            and (lone[0][1].count > 1 or lone[0][1].keep is not None)
            and op not in ("==", "!=")
        ):
            spec = lone[0][1]
            raise DiceError(
                f"{spec.text} {op} … could count dice or compare the total: write "
                f"{spec.text}{op}N (no space) to count the dice that are {op}N, or "
                f"({spec.text}) {op} N to compare the total"
            )
        self.i += 1
        self._count_op()
        self._sum(0)
        self.prog.append((CMP, op))
        return op

    def _sum(self, depth: int) -> tuple[int, int]:
        if "left-to-right" in self.sw:
            return self._left_to_right(depth)
        lo, hi = self._product(depth)
        while (tok := self._peek()) is not None and tok[1] in ("+", "-"):
            self.i += 1
            self._count_op()
            blo, bhi = self._product(depth)
            if self.had_mul:
                self._note(
                    "left-to-right",
                    "worked out `*` and `/` before `+` and `-`; Dice Maiden goes left to right: "
                    "add parentheses to choose",
                )
            lo, hi = self._additive(tok[1], lo, hi, blo, bhi)
        return lo, hi

    def _additive(self, op: str, lo: int, hi: int, blo: int, bhi: int) -> tuple[int, int]:
        if op == "+":
            self.prog.append((ADD, None))
            return self._check(lo + blo, hi + bhi)
        self.prog.append((SUB, None))
        return self._check(lo - bhi, hi - blo)

    def _left_to_right(self, depth: int) -> tuple[int, int]:
        """Dice Maiden's arithmetic: every operator in turn, left to right (``1+2*3`` = 9)."""
        lo, hi = self._unary(depth)
        additive = False
        while (tok := self._peek()) is not None and tok[1] in ("+", "-", "*", "/", "%"):
            if tok[1] in ("+", "-"):
                self.i += 1
                self._count_op()
                self.after_plus = tok[1] == "+"
                blo, bhi = self._unary(depth)
                self.after_plus = False
                lo, hi = self._additive(tok[1], lo, hi, blo, bhi)
                additive = True
                continue
            if additive:
                self._note("left-to-right", self._said("worked out left to right: (1+2)*3 = 9"))
            lo, hi = self._multiplicative(tok, lo, hi, depth)
        return lo, hi

    def _product(self, depth: int) -> tuple[int, int]:
        lo, hi = self._unary(depth)
        had_mul = False
        while (tok := self._peek()) is not None and tok[1] in ("*", "/", "%"):
            lo, hi = self._multiplicative(tok, lo, hi, depth)
            had_mul = True
        self.had_mul = had_mul
        return lo, hi

    def _multiplicative(
        self, tok: tuple[str, str, int, bool], lo: int, hi: int, depth: int
    ) -> tuple[int, int]:
        """One ``*`` or ``/`` and its right operand (the operator is the next token)."""
        self.i += 1
        self._count_op()
        start = len(self.prog)
        blo, bhi = self._unary(depth)
        true_div = tok[1] == "/" and tok[2] not in self.floor_div and "decimals" in self.sw
        if tok[1] == "/" and tok[2] not in self.floor_div and not blo == bhi == 1:
            if true_div:
                self._note(
                    "division",
                    self._said(
                        "`/` keeps the fraction and the total drops it at the end: 7/2*2 is 7"
                    ),
                )
            else:
                self._note(
                    "division",
                    "`/` rounds down (7/2 is 3); Avrae and rpg-dice-roller keep the fraction",
                )
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
                raise DiceError(
                    f"division by zero is possible: {shown} can be 0 (the '{tok[1]}' at "
                    f"position {tok[2]}; divide by something that can't be 0)"
                )
            if tok[1] == "%":
                # The remainder has the divisor's sign (it rounds down, like /).
                self.prog.append((MOD, None))
                if lo < 0:
                    self._note(
                        "remainder",
                        "`%` rounds down as `/` does (-7 % 2 is 1); Roll20 and "
                        "rpg-dice-roller keep the dividend's sign",
                    )
                if self.decimal:  # a remainder of decimals lies between 0 and the divisor
                    return (0, bhi) if blo > 0 else (blo, 0)
                return (0, bhi - 1) if blo > 0 else (blo + 1, 0)
            if true_div:  # the divisor can't be 0 (refused above): extremes at the corners
                self.decimal = True
                self.prog.append((TDIV, None))
                ratios = (lo / blo, lo / bhi, hi / blo, hi / bhi)  # floats, as in Avrae
                return self._check(min(ratios), max(ratios))  # type: ignore[arg-type]
            corners = (lo // blo, lo // bhi, hi // blo, hi // bhi)
            self.prog.append((DIV, None))
        return self._check(min(corners), max(corners))

    def _unary(self, depth: int) -> tuple[int, int]:
        negate = False
        while (tok := self._peek()) is not None and tok[1] in ("+", "-"):
            self.i += 1
            self._count_op()
            if tok[1] == "-":
                negate = not negate
            after, pct = self._peek(), self._peek(1)
            if (
                after is not None
                and after[1] == "d"
                and pct is not None
                and pct[1] == "%"
                and "unary-sign" not in self.sw
            ):
                raise DiceError(
                    f"'{tok[1]}d%' at position {tok[2]} is Dice Maiden's percentile "
                    f"{'advantage' if tok[1] == '+' else 'disadvantage'}: write the dice out, "
                    f"e.g. {'+' if tok[1] == '+' else '-'}1d100 for one d100"
                )
        lo, hi = self._atom(depth)
        if negate:
            self.prog.append((NEG, None))
            return -hi, -lo
        return lo, hi

    def _atom(self, depth: int) -> tuple[int, int]:
        tok = self._peek()
        if tok is None:
            raise self._unexpected(tok, "a number, dice or '('")
        kind, text, _, _ = tok
        if text in ("(", "{"):
            if depth >= MAX_DEPTH:
                raise DiceError(f"too many nested parentheses: the limit is {MAX_DEPTH}")
            shut = self._peek(1)
            if shut is not None and shut[1] == ")" and text == "(" and "empty-set" in self.sw:
                self.i += 2
                self._selections()  # Avrae's ()k1: keeping or dropping nothing leaves nothing
                self._note("empty-set", self._said("read `()` as an empty set: 0"))
                self.prog.append((CONST, 0))
                lo, hi = 0, 0
            elif shut is not None and shut[1] == (")" if text == "(" else "}"):
                raise DiceError(
                    f"empty {'parentheses' if text == '(' else 'braces'} at position {tok[2]}: "
                    "write something inside, e.g. (1d6)"
                )
            else:
                self.i += 1
                lo, hi = self._group(depth, text)
        elif kind == "num" and self.decimals and "." in text:
            self.i += 1
            if len(text) > 40:
                raise DiceError("number too large: numbers can be at most 10^15")
            number = float(text)  # as Avrae's d20 computes: Python floats, the total truncated
            if abs(number) > MAX_MAGNITUDE:
                raise DiceError("number too large: numbers can be at most 10^15")
            self.decimal = True
            nxt = self._peek()
            if nxt is not None and nxt[1] == "d" and not nxt[3]:
                raise DiceError(f"'{text[:20]}d': the number of dice must be a whole number")
            self.prog.append((CONST, number))
            lo = hi = number  # type: ignore[assignment]
        elif kind == "num":
            self.i += 1
            value = self._int(text)
            nxt = self._peek()
            if nxt is not None and nxt[1] in ("x", "xo") and not nxt[3] and nxt[0] == "word":
                rest = self.source[nxt[2] + len(nxt[1]) - 1 :].split(";")[0].strip()[:30]
                raise DiceError(
                    f"'x' at position {nxt[2]}: to roll {value} times write "
                    f"{value}#{rest or '4d6kh3'}"
                )
            if nxt is not None and nxt[1] == "d":
                if nxt[3]:
                    raise DiceError(
                        f"'{value} d' at position {tok[2]}: write {value}d… without a space for "
                        f"{value} dice added up, or {value}#d… to roll {value} times"
                    )
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
            lo, hi = self._add_term(self._build(2, 20, [("keep", keep)]))
        elif text in ("max", "min") and (nxt := self._peek(1)) is not None and nxt[1] == "(":
            # rpg-dice-roller's max(a, b) / min(a, b): the set (a, b)kh1 / (a, b)kl1
            if depth >= MAX_DEPTH:
                raise DiceError(f"too many nested parentheses: the limit is {MAX_DEPTH}")
            self.i += 2
            lo, hi = self._group(depth, "(", ("k", (("h" if text == "max" else "l", 1, 0),)))
        elif kind == "word":
            raise DiceError(
                f"unexpected '{text}' at position {tok[2]}: a roll starts with dice or a "
                "number, e.g. 1d20+5 (for a game-system shortcut such as 4cod, write its dice: "
                "4d10 t8 ie10)"
            )
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

    def _group(self, depth: int, opener: str, function: Selection | None = None) -> tuple[int, int]:
        """``( … )`` groups; with commas (or braces) it is a set whose elements keep/drop
        select, as in Avrae ``(1d4, 2+2, 3d6kl1)kh1`` and Roll20 ``{4d10*2, 5d6+10}k1``."""
        closer = ")" if opener == "(" else "}"
        bounds: list[tuple[int, int]] = []
        starts: list[int] = []
        comma = False
        while True:
            tok = self._peek()
            if tok is not None and tok[1] == closer and (comma or opener == "{") and bounds:
                break
            starts.append(len(self.prog))
            bounds.append(self._sum(depth + 1))
            if len(bounds) > MAX_SET_SIZE:
                raise DiceError(f"too many items in a set: the limit is {MAX_SET_SIZE}")
            tok = self._peek()
            if tok is not None and tok[1] == ",":
                self.i += 1
                comma = True
                continue
            break
        close = self._peek()
        if close is None or close[1] != closer:
            raise self._unexpected(close, f"'{closer}'")
        self.i += 1
        if not comma and opener == "(" and self._computed_count():
            segment = self.prog[starts[0] :]
            shown = canonical_text(tuple(segment))
            if any(ins[0] == DICE for ins in segment):
                at = self.tokens[self.i][2]
                raise DiceError(
                    f"'({shown[:30]})d' at position {at}: the number of dice can't be rolled "
                    f"(every limit is checked before rolling); write a number of dice, or "
                    f"({shown[:30]})dl{self.tokens[self.i + 1][1]} to drop the lowest"
                )
            count = bounds[0][0]  # no dice: a constant, its bounds equal
            del self.prog[starts[0] :]
            self.i += 1
            return self._dice(count)
        picked = self.i
        selects = self._selections()
        if function is not None and comma:  # max(a, b): the set (a, b)kh1
            if selects:
                raise self._unexpected(self.tokens[picked], "an operator after max(…)/min(…)")
            selects = (function,)
        while (sort := self._peek()) is not None and sort[1] in ("s", "sa", "sd") and not sort[3]:
            self.i += 1  # rpg-dice-roller's {4d6, 2d10}s: sorting is display only
        nxt = self._peek()
        success = failure = None
        counted = ""
        count_mods: list[Mod] = []
        typed_count = ""
        if nxt is not None and nxt[0] == "cmp" and not nxt[3] and (comma or opener == "{"):
            # rpg-dice-roller: {4d6, 2d10}>10f<3 counts the items over 10, less those under 3
            if nxt[1] in ("=", "==", "!="):
                raise DiceError(
                    f"'{closer}{nxt[1]}' at position {nxt[2]}: count the items of a set with "
                    f"> or <, e.g. {closer}>10; to compare the total put a space before {nxt[1]}"
                )
            count_start = self.i
            self.i += 1
            n = self._number(f"a number after '{nxt[1]}'")
            op = self._point("", nxt[1], n)
            success = _interval(op, n)
            counted = f"{op}{n}"
            count_mods.append(("success", (op, n)))
            fail = self._peek()
            if fail is not None and fail[1] == "f" and not fail[3]:
                self.i += 1
                self.faces = (-_NEVER, _NEVER)
                fop, fn = self._condition("f", None)
                failure = _interval(fop, fn)
                counted += "f" + _cond_text(fop, fn)
                count_mods.append(("failure", (fop, fn)))
            typed_count = self._typed(count_start)
        lone_term = self._lone_dice(starts[0]) if not comma else None
        if success is not None and lone_term is not None:
            if "group-dice" in self.sw:  # Roll20: {5d6!!}>8 counts the dice over 8
                self._note("group-dice", self._said(f"read `{typed_count}` as counting each die"))
                del self.prog[starts[0] :]
                self.terms.pop()
                self.dice -= lone_term.worst_dice
                group_mods: list[Mod] = [("break", None)]
                group_mods += [("select", (a, sel)) for a, sels in selects for sel in sels]
                folded = self._rebuild(lone_term, group_mods + count_mods)
                inner = f"({lone_term.text})" if opener == "(" else "{" + lone_term.text + "}"
                text = inner + selection_text(selects) + counted
                return self._add_term(dataclasses.replace(folded, text=text))
            self._note(
                "group-dice",
                f"read `{typed_count}` as counting the group's total once; Roll20 counts each die "
                "of a lone roll in braces",
            )
        if not comma and success is None:
            segment = self.prog[starts[0] :]
            if selects:
                lone = [ins for ins in segment if ins[0] == DICE]
                if len(segment) - sum(ins[0] == GROUP for ins in segment) == 1 and lone:
                    # (10d6kh5)kl2, {4d6}k1: a lone dice term takes the operations (Avrae,
                    # Roll20), after its own keep/drop
                    spec = lone[0][1]
                    assert isinstance(spec, DiceSpec)
                    del self.prog[starts[0] :]
                    self.terms.pop()
                    self.dice -= spec.worst_dice
                    # Applied after the term's own keep/drop, never united with them.
                    extra: list[Mod] = [("break", None)]
                    extra += [("select", (a, sel)) for a, sels in selects for sel in sels]
                    folded = self._rebuild(spec, extra)
                    inner = f"({spec.text})" if opener == "(" else "{" + spec.text + "}"
                    text = inner + selection_text(selects)
                    return self._add_term(dataclasses.replace(folded, text=text))
            else:
                self.prog.append((GROUP, None))
                return bounds[0]
        size = len(bounds)
        fixed: list[Selection] = []
        for action, sels in selects:
            kept_sels: list[Selector] = []
            for sel in sels:
                if sel[0] != "v" and sel[1] < 1:
                    raise DiceError(
                        f"{selection_text(((action, (sel,)),))}: keep or drop at least one item "
                        f"(e.g. {selection_text(((action, ((sel[0], 1, 0),)),))})"
                    )
                if sel[0] != "v" and sel[1] > size - (action == "p"):
                    # rpg-dice-roller: keeping more items than there are keeps them all,
                    # dropping as many drops them all.
                    typed = self._typed(picked) if self.i > picked else ""
                    what = "kept" if action == "k" else "dropped"
                    self._note(
                        "set-overflow",
                        f"read `{typed}` on a set of {size} as every item {what}",
                    )
                    sel = (sel[0], min(sel[1], size), 0)
                kept_sels.append(sel)
            fixed.append((action, tuple(kept_sels)))
        selects = tuple(fixed)
        suffix = selection_text(selects) + counted
        if not selects:
            selects = (("k", (("h", size, 0),)),)  # {a, b}: the sum of all
        self._count_op()
        if success is not None:
            top = kept_bounds(selects, size, size)[1]
            lo, hi = (-top if failure is not None else 0), top
        else:
            lo, hi = set_bounds(selects, bounds)
        spec = SetSpec(size, selects, suffix, opener == "{", success, failure)
        self.prog.append((SET, spec))
        return self._check(lo, hi)

    def _lone_dice(self, start: int) -> DiceSpec | None:
        """The dice term that is all of ``self.prog[start:]`` (parentheses aside), if any."""
        segment = [ins for ins in self.prog[start:] if ins[0] != GROUP]
        if len(segment) == 1 and segment[0][0] == DICE:
            spec = segment[0][1]
            assert isinstance(spec, DiceSpec)
            return spec
        return None

    def _computed_count(self) -> bool:
        """``(2+3)d6``: right after ``)``, a ``d`` and the sides, with no space."""
        d, sides = self._peek(), self._peek(1)
        return (
            d is not None
            and d[1] == "d"
            and not d[3]
            and sides is not None
            and not sides[3]
            and (sides[0] == "num" or sides[1] in ("%", "f"))
        )

    def _selections(self) -> tuple[Selection, ...]:
        """Keep/drop operations right after a set: ``kh1``, ``k>3``, ``p<2``…"""
        picks: list[tuple[str, Selector]] = []
        while (tok := self._peek()) is not None and tok[0] == "word" and tok[1] in _KEEP_WORDS:
            after = self._peek(1)
            if tok[1] == "d" and after is not None and after[1] in ("(", "{"):
                raise DiceError(
                    f"'d(' at position {tok[2]}: the number of dice and of sides must be "
                    "plain numbers, e.g. 3d6"
                )
            self.i += 1
            _, pick = self._keep(tok[1], tok[3])
            assert isinstance(pick, tuple)
            picks.append(pick)
        return self._merged(picks)

    def _merged(self, picks: list[tuple[str, Selector]]) -> tuple[Selection, ...]:
        """Keep/drop operations as this dialect combines them, said when bots differ."""
        unite = "united-drops" in self.sw
        if unite and any(a == b == "p" for (a, _), (b, _) in itertools.pairwise(picks)):
            self._note("united-drops", self._said("drops in a row are one drop (a die goes once)"))
        selects = _merge(picks, unite)
        if len(selects) > 1:
            parts = " then ".join(f"`{selection_text((sel,))}`" for sel in selects)
            self._note(
                "several",
                f"applied {parts} one after the other; rpg-dice-roller applies each to all "
                "the dice",
            )
        return selects

    def _dice(self, count: int) -> tuple[int, int]:
        tok = self._peek()
        fate = False
        tens = False
        follows = bool(self.prog)  # another term came before: "3d6-1d4 k1"
        if tok is not None and tok[1] == "%":
            self.i += 1
            sides = 100
            if "tens-die" in self.sw:  # Avrae's d20: d% is a tens die, 0 to 90
                sides, tens = 10, True
        elif tok is not None and tok[1] == "f" and tok[0] == "word":
            self.i += 1
            sides, fate = 3, True
        else:
            sides = self._number("the number of sides after 'd' (e.g. d20)")
        name = f"{count}d{'F' if fate else sides}"
        self.faces = (-1, 1) if fate else (1, sides)
        after = self._peek()
        if (
            count == 0
            and "zero-dice" in self.sw
            and not (after is not None and after[0] in ("word", "cmp", "bang") and not after[3])
        ):
            self.prog.append((CONST, 0))  # Avrae's 0d6: no dice, 0
            self._note("zero-dice", self._said(f"read `{name}` as no dice: 0"))
            return 0, 0
        if count < 1:
            raise DiceError(
                f"{name}: roll at least one die (write e.g. 1d{'F' if fate else sides})"
            )
        if count > MAX_DICE:
            raise DiceError(f"{name}: at most {_fmt(MAX_DICE)} dice can be rolled")
        if sides < 1:
            raise DiceError(f"{name}: a die needs at least one side")
        if sides > MAX_SIDES:
            raise DiceError(f"{name}: dice can have at most {_fmt(MAX_SIDES)} sides")
        mods: list[Mod] = []
        if fate:
            mods.append(("fate", ("=", 1)))
        self.tens = tens
        self.typed = {}
        try:
            self._modifiers(count, sides, name, mods, follows)
        finally:
            self.tens = False
        if tens:
            if any(slot in ("min", "max") for slot, _ in mods):
                raise DiceError(
                    f"{name}: mi/ma on Avrae's tens die (d%) is not supported; write it out, "
                    f"e.g. ({count}d10mi2-{count})*10"
                )
            # Avrae's d20: each die counts 0, 10, … 90 (its face 1 … 10, less one, tens).
            mods.insert(0, ("tens", None))
            shown = "a tens die" if count == 1 else "tens dice"
            self._note("tens-die", self._said(f"read `{count}d%` as {shown}: 0, 10, … 90"))
        if "maiden-modifiers" in self.sw and follows and self.terms:
            mods = self._maiden_added(name, mods)
        if not mods:  # most terms: plain dice, their bounds known at once
            self.dice += count
            if self.dice > MAX_DICE:
                raise DiceError(
                    f"too many dice: this could roll up to {_fmt(self.dice)} dice counting "
                    f"every possible explosion and reroll; the limit is {_fmt(MAX_DICE)}"
                )
            spec = DiceSpec(
                count, sides, name, worst_dice=count, minimum=count, maximum=count * sides
            )
            self.terms.append(spec)
            self.prog.append((DICE, spec))
            return count, count * sides
        slots = {slot for slot, _ in mods}
        once_explode = all(v[3] for slot, v in mods if slot == "explode")  # Dice Maiden's e
        if (
            "implode" in slots
            and any(slot == "implode" and len(v) > 2 for slot, v in mods)
            and (slots & {"select", "keep"} or ("explode" in slots and not once_explode))
        ):
            raise DiceError(
                f"{name}: Dice Maiden's implosion (i) keeps its dice apart from keep/drop and "
                "from explosions that go on (ie); write the implosion as its own roll, "
                "separated by ;"
            )
        extra = [value for slot, value in mods if slot == "adv"] if "adv" in slots else []
        if (
            len(extra) == 1
            and extra[0][1]
            and "explode" in slots
            and not slots & {"reroll", "implode"}
        ):
            # Dice Maiden drops its advantage dice first, then the kept ones explode
            # (roll_syntax.md, "Advantage"): the extra dice are rolled and set aside.
            at = next(i for i, (slot, _) in enumerate(mods) if slot == "adv")
            pick = mods[at + 1][1]
            assert isinstance(pick, tuple)
            high = pick[1][0]
            spec = self._build(count, sides, mods[:at] + mods[at + 3 :])
            n = extra[0][0]
            return self._add_term(
                dataclasses.replace(
                    spec,
                    count=count + n,
                    text=f"{spec.text} {'adv' if high == 'h' else 'dis'}{n}",
                    adv_first=(n, high),
                    worst_dice=spec.worst_dice + n,
                    plain=False,
                )
            )
        if any(first for _, first in extra) and slots & {"reroll", "explode", "implode"}:
            raise DiceError(
                f"{name}: Dice Maiden drops advantage dice before rerolling or exploding, which "
                "this bot can't do in one roll; roll the dice and keep them with k, e.g. "
                f"{count + extra[0][0]}d{sides}k{count}"
            )
        if extra:
            count += sum(n for n, _ in extra)
            mods = [m for m in mods if m[0] != "adv"]
        return self._add_term(self._build(count, sides, mods))

    def _modifiers(self, count: int, sides: int, name: str, mods: list[Mod], follows: bool) -> None:
        """A dice term's modifiers, as written, into ``mods``."""
        while (tok := self._peek()) is not None and tok[0] in ("word", "cmp", "bang"):
            kind, word, _, spaced = tok
            if kind == "cmp" and word == "!=" and not spaced:
                # rpg-dice-roller's d6!=6 explodes on 6; Avrae's 1d20!=1 compares the total.
                raise DiceError(
                    f"'!=' at position {tok[2]} is read differently by bots: write !6 (or e6) "
                    "to explode on 6, or put a space before != to compare the total"
                )
            if kind == "cmp" and (spaced or word == "=="):
                break  # a comparison of totals, not a success count
            # Dice Maiden: "1d20 ie20 + 1d4 ie4": modifiers after "+ dice" are those dice's.
            added = "maiden-modifiers" in self.sw and self.after_plus
            if spaced and follows and kind == "word" and not added:
                raise DiceError(
                    f"'{word}' at position {tok[2]}: bots read a modifier after a space in a "
                    f"roll of several terms differently; write it right after its dice with no "
                    f"space (e.g. {name}{word}…), or roll the parts separately with ;"
                )
            self.i += 1
            if kind == "cmp":
                n = self._number(f"a number after '{word}'")
                mods.append(("success", (self._point("", word, n), n)))
            elif word == "d" and self._double_success(mods):
                pass
            elif word in _KEEP_WORDS:
                mods.append(self._keep(word, spaced))
            elif word in ("adv", "dis") and "maiden-modifiers" in self.sw:
                # Dice Maiden's adv2 / dis2: roll 2 more dice and drop the lowest / highest 2
                # first, before anything else (roll_syntax.md, "Advantage").
                level = self._peek()
                extra = 1
                if level is not None and level[0] == "num" and not level[3]:
                    self.i += 1
                    extra = self._int(level[1])
                if not 1 <= extra <= MAX_DICE:
                    raise DiceError(f"{word}{extra}: write {word}1 to {word}{MAX_DICE}")
                if any(slot == "adv" for slot, _ in mods):
                    raise DiceError(
                        f"'{word}' at position {tok[2]}: Dice Maiden nets advantage and "
                        "disadvantage; write the difference once (e.g. adv1 for adv2 dis1)"
                    )
                # Dice Maiden drops its extra dice first, wherever adv is written
                # (2d6 ie6 adv1): read as if written right after the dice.
                mods[:0] = [
                    ("adv", (extra, True)),
                    ("select", ("k", ("h" if word == "adv" else "l", count, 0))),
                    ("break", None),
                ]
                count += extra
                name = f"{count}d{sides}"
            elif word in ("adv", "dis"):
                if count != 1 or mods:
                    raise DiceError(
                        f"{word} only applies to a single die, as in 1d20 {word}+5 or 1d8{word}"
                    )
                pick = "kh1" if word == "adv" else "kl1"
                better = "better" if word == "adv" else "worse"
                if sides != 20 and "advantage-d20" in self.sw:
                    raise DiceError(
                        f"'{word}' at position {tok[2]}: Avrae's advantage applies to d20s; "
                        f"write 2d{sides}{pick} for the {better} of two d{sides}"
                    )
                if sides != 20:
                    self._note(
                        "advantage-d20",
                        f"read `1d{sides}{word}` as the {better} of two d{sides} (2d{sides}{pick});"
                        f" Avrae's {word} only applies to d20s",
                    )
                count = 2
                name = f"2d{sides}"
                mods.append(("adv", (1, False)))  # the term rolls two dice
                mods.append(("keep", ("kh" if word == "adv" else "kl", 1)))
            elif word in ("r", "rr", "ro", "ir"):
                mods.append(self._reroll(word, spaced, sides))
            elif word in ("rg", "irg"):
                # Dice Maiden: rg5 rerolls dice at or above 5 once, irg5 again and again.
                op, n = self._condition(word, None, ">=", on_face=True)
                mods.append(("reroll", (("rr" if word == "irg" else "r") + op, n)))
            elif word == "i":
                # Dice Maiden's implosion: each die at or below N (1) rolls one more die,
                # subtracted; that die does not implode again.
                op, n = self._condition(word, 1, "<=", on_face=True)
                mods.append(("implode", (op, n, True)))
            elif word == "tl":
                # Dice Maiden's tl4: successes are dice at or below 4 (tl4ds2: 2 or less twice).
                n = self._number("a target after 'tl', e.g. tl4")
                mods.append(("target", ("<=", n)))
                ds, face = self._peek(), self._peek(1)
                if ds is not None and ds[1] == "d" and not ds[3] and face and face[1] == "s":
                    self.i += 2
                    at = self._peek()
                    if at is not None and at[0] == "num" and not at[3]:
                        self.i += 1
                        n = self._int(at[1])
                    mods.append(("target", ("<=", n)))
            elif word in ("e", "ie", "x", "xo") or kind == "bang":
                mods.append(self._explode(word, spaced, sides))
            elif word == "im":
                op, n = self._condition(word, 1, on_face=True)
                mods.append(("implode", (op, n)))
            elif word == "ra":
                op, n = self._condition(word, None, on_face=True)
                mods.append(("reroll_add", (op, n)))
            elif word in ("mi", "ma", "min", "max"):
                slot = "min" if word.startswith("mi") else "max"
                sign = self._peek()
                negative = sign is not None and sign[1] == "-" and not sign[3]
                if negative:  # rpg-dice-roller's max-12
                    self.i += 1
                n = self._number(f"a face number after '{word}', e.g. {word}2")
                mods.append((slot, ("=", -n if negative else n)))
            elif word == "t":
                mods.append(("target", (">=", self._number("a target after 't', e.g. t8"))))
            elif word == "f":
                if not spaced and "maiden-modifiers" in self.sw:
                    spaced = True
                    self._note(
                        "maiden-modifiers", self._said("read `r`, `e` and `f` as Dice Maiden does")
                    )
                start = self.i - 1
                op, n = self._condition(word, None, "<=" if spaced else "=")
                if spaced:
                    mods.append(("failure", (op, n)))
                else:  # failures after a target; GNOLL's filter without one (see _build)
                    mods.append(("ffilter", (op, n, self._typed(start))))
            elif word == "c":
                if "maiden-modifiers" in self.sw:
                    raise DiceError(
                        f"'c' at position {tok[2]}: Dice Maiden's cancel (10s cancel 1s) is not "
                        "supported; count failures with f1 (e.g. 5d10 t8 f1)"
                    )
                mods.append(("count", None))  # GNOLL: how many dice are left
            elif word in ("cs", "cf"):
                if "maiden-modifiers" in self.sw:
                    raise DiceError(
                        f"'{word}' at position {tok[2]}: in Dice Maiden cs is the Cypher System "
                        "(a level N task needs 3N or more): write the target, e.g. 1d20 t15 for "
                        "level 5"
                    )
                op, n = self._condition(word, None)
                if "inclusive" not in self.sw:  # outside Roll20's own dialect
                    self._note(
                        "crit-range",
                        f"read `{word}` as Roll20's critical range: it marks dice and counts "
                        f"nothing (Foundry counts them: write {'>' if word == 'cs' else '<'}N "
                        "right after the dice)",
                    )
                mods.append(("crit_success" if word == "cs" else "crit_failure", (op, n)))
            elif word in ("s", "sa", "sd"):
                mods.append(("sort", ("d" if word == "sd" else "a", 0)))
            elif word == "b" and "maiden-modifiers" in self.sw:
                # Dice Maiden's botches (dice at or below N, 1) are shown beside the total or
                # the successes, which they don't change.
                start = self.i - 1
                self._condition(word, 1, "<=", on_face=True)
                self._note(
                    "botch",
                    f"left out `{self._typed(start)}`: Dice Maiden also counts botches (dice "
                    "at or below it), which don't change the result",
                )
            elif word == "b":
                raise DiceError(
                    f"'b' at position {tok[2]}: Dice Maiden's botch count is not supported; "
                    "count failures with f1 (e.g. 4d6>=5f1)"
                )
            else:
                raise self._unexpected(tok, "a modifier")

    def _maiden_added(self, name: str, mods: list[Mod]) -> list[Mod]:
        """Dice Maiden's dice added to a roll (``7d6 t4 + 1d6 ie6``): the first dice's success
        target counts over them too, and their own target does not count (dicemaiden-rs
        roller.rs: added dice join the kept dice the target counts; only their total is
        added); dice taken away change the total, never the successes."""
        counting = ("success", "target", "failure", "ffilter", "count")
        base = self.terms[0]
        inherited = [m for m in base.mods if m[0] in counting]
        own = [m for m in mods if m[0] in counting]
        if not self.after_plus:
            if inherited:
                raise DiceError(
                    f"{name}: Dice Maiden takes these dice from the total, not from the "
                    "successes; write them as their own roll, separated by ;"
                )
            if own:
                raise DiceError(
                    f"{name}: Dice Maiden ignores a target on dice taken away; write them "
                    "as their own roll, separated by ;"
                )
            return mods
        if own and not inherited:
            raise DiceError(
                f"{name}: Dice Maiden only counts a target written on the first dice; write it "
                f"there (e.g. {base.text} t…), or roll these dice separately with ;"
            )
        if inherited:
            self._note(
                "maiden-added",
                self._said(
                    f"counted the first dice's target over `{name}` too, as Dice Maiden does"
                    + (" (their own target is left out)" if own else "")
                ),
            )
        return [m for m in mods if m[0] not in counting] + inherited

    def _double_success(self, mods: list[Mod]) -> bool:
        """Dice Maiden's ``t7ds10``: after a target, ``ds`` (optionally a face) counts each die
        that high twice (the target's face by default). The ``d`` was just read."""
        nxt = self._peek()
        targets = [v for slot, v in mods if slot == "target"]
        if not targets or nxt is None or nxt[1] != "s" or nxt[3]:
            return False
        self.i += 1
        face = self._peek()
        n = targets[-1][1]
        if face is not None and face[0] == "num" and not face[3]:
            self.i += 1
            n = self._int(face[1])
        mods.append(("target", (">=", n)))
        return True

    def _condition(
        self, word: str, default: int | None, bare: str = "=", on_face: bool = False
    ) -> tuple[str, int]:
        """``<cmp>N`` or ``N`` (exactly N, or ``bare``) after a modifier word; ``on_face``: a
        condition rerolls and explosions test on the die's face (a tens die's 0 … 90 are
        faces 1 … 10)."""
        at = self.i
        op, n = self._condition_typed(word, default, bare)
        if on_face and self.tens and self.i > at:
            return _tens_face(op, n)
        return op, n

    def _condition_typed(self, word: str, default: int | None, bare: str = "=") -> tuple[str, int]:
        nxt = self._peek()
        if nxt is not None and nxt[0] == "cmp" and not nxt[3] and nxt[1] == "!=":
            self.i += 1
            n = self._number(f"a number after '{word}!='")
            return self._not_equal(word, n)
        if nxt is not None and nxt[0] == "cmp" and not nxt[3]:
            self.i += 1
            n = self._number(f"a number after '{word}{nxt[1]}'")
            return self._point(word, "=" if nxt[1] == "==" else nxt[1], n), n
        if nxt is not None and nxt[0] == "num" and not nxt[3]:
            self.i += 1
            return bare, self._int(nxt[1])
        if default is not None:
            return "=", default
        raise self._unexpected(nxt, f"a face number after '{word}', e.g. {word}1 or {word}<3")

    def _not_equal(self, word: str, n: int) -> tuple[str, int]:
        """``r!=1`` (GNOLL, rpg-dice-roller's ``<>``): every face but N, when those faces are
        one range (N is the lowest or highest face, or no face at all)."""
        low, high = self.faces
        if not low <= n <= high:
            return ">=", low
        if n == low and n < high:
            return ">=", n + 1
        if n == high and n > low:
            return "<=", n - 1
        raise DiceError(
            f"'{word}!={n}': only a range of faces can be given here; write {word}<{n} or "
            f"{word}>{n} (or both faces' ranges as separate rolls)"
        )

    def _keep(self, word: str, spaced: bool) -> Mod:
        action, kind = _KEEP_WORDS[word]
        nxt = self._peek()
        if nxt is not None and nxt[0] == "cmp" and not nxt[3] and nxt[1] not in ("==", "!="):
            if word not in ("k", "p", "d"):
                at = self.tokens[self.i - 1][2]
                raise DiceError(
                    f"'{word}{nxt[1]}' at position {at}: write k{nxt[1]}N to keep or "
                    f"p{nxt[1]}N to drop the dice that are {nxt[1]}N"
                )
            self.i += 1
            op = nxt[1]
            n = self._number(f"a number after '{word}{op}'")
            lo, hi = _interval(op, n)
            return ("select", (action, ("v", lo, hi)))
        if nxt is not None and nxt[0] == "num" and not nxt[3]:
            self.i += 1
            n = self._int(nxt[1])
            if word == "k" and "keep-face" in self.sw:
                self._note(
                    "keep-face",
                    self._said(
                        f"read `k{n}` as keep the dice showing {n} (`kh{n}` keeps the highest {n})"
                    ),
                )
                return ("select", ("k", ("v", n, n)))
        else:
            if kind == "=":
                raise self._unexpected(nxt, "what to drop after 'p', e.g. p1, ph1, pl1 or p<3")
            n = 1
        if kind == "=":
            return ("select", (action, ("v", n, n)))
        return ("select", (action, (kind, n, 0)))

    def _typed(self, start: int) -> str:
        """The text as typed from token ``start`` to the last token read (for notes)."""
        first, last = self.tokens[start], self.tokens[self.i - 1]
        return self.source[first[2] - 1 : last[2] - 1 + len(last[1])]

    def _cap_note(self, typed: str, op: str, n: int, what: str) -> None:
        """Say so when a repeated reroll or explosion can plausibly reach this bot's cap:
        other bots go on much longer (Avrae's d20: up to 1,000 dice a roll)."""
        low, high = self.faces
        a, b = _interval(op, n)
        hit = min(b, high) - max(a, low) + 1
        if hit > 0 and (hit / (high - low + 1)) ** MAX_REROLLS >= 1e-4:
            self._note(
                f"cap-{what}",
                f"read `{typed}` as at most {MAX_REROLLS} {what} a die (then the last roll "
                "stands); other bots go on longer",
            )

    def _reroll(self, word: str, spaced: bool, sides: int) -> Mod:
        start = self.i - 1
        if word == "r" and not spaced and "maiden-modifiers" in self.sw:
            self._note("maiden-modifiers", self._said("read `r`, `e` and `f` as Dice Maiden does"))
            spaced = True
        if word == "ir" or (word == "r" and spaced):
            # Dice Maiden: r2 rerolls dice <= 2 once, ir2 again and again.
            op, n = self._condition(word, None, "<=", on_face=True)
            self.typed["reroll"] = self._typed(start)
            return ("reroll", (("rr" if word == "ir" else "r") + op, n))
        nxt = self._peek()
        pool = nxt is not None and nxt[1] == "==" and not nxt[3]
        # rpg-dice-roller: a bare "r" rerolls the lowest face.
        op, n = self._condition(word, self.faces[0] if word in ("r", "ro") else None, on_face=True)
        typed = self._typed(start)
        self.typed["reroll"] = typed
        if pool and self.dialect == DEFAULT_DIALECT:
            self._note(
                "reroll-pool",
                f"read `{typed}` as reroll each die showing {n}; GNOLL rerolls the whole roll "
                f"while its total is {n}",
            )
        if word == "rr":
            self._cap_note(typed, op, n, "rerolls")
        if word == "rr" and op not in ("=", "==") and self.dialect == DEFAULT_DIALECT:
            self._note(
                "reroll-until",
                f"read `{typed}` as reroll while the die is {_cond_text(op, n)}; GNOLL rerolls "
                f"until it is {_cond_text(op, n)}",
            )
        if word == "r":
            if "reroll-repeats" in self.sw:
                self._note(
                    "reroll-repeats",
                    self._said(f"read `{typed}` as reroll until none is left (at most 10 times)"),
                )
                return ("reroll", ("rr" + op, n))
            self._note(
                "reroll-repeats",
                f"read `{typed}` as reroll once; Roll20 and rpg-dice-roller reroll until none is "
                f"left: write `r{typed}`",
            )
        return ("reroll", (("rr" if word == "rr" else "r") + op, n))

    def _explode(self, word: str, spaced: bool, sides: int) -> Mod:
        if word == "e" and not spaced and "maiden-modifiers" in self.sw:
            self._note("maiden-modifiers", self._said("read `r`, `e` and `f` as Dice Maiden does"))
            spaced = True
        dice_maiden = word == "ie" or (word == "e" and spaced)
        start = self.i - 1
        op, n = self._condition(word, sides, ">=" if dice_maiden else "=", on_face=True)
        mode = {"!!": "compound", "!p": "penetrate", "!!p": "both"}.get(word, "")
        if not ((word == "e" and spaced) or word in ("xo", "!o")):
            self._cap_note(self._typed(start), op, n, "explosions")
        if mode in ("penetrate", "both"):
            self._note(
                "penetrate",
                f"read `{word}` as Roll20's penetrating dice: each extra die counts one less",
            )
        # Dice Maiden's e explodes once, ie indefinitely; Foundry's xo (GNOLL's !o) explodes
        # once, x again.
        once = (word == "e" and spaced) or word in ("xo", "!o")
        return ("explode", (op, n, mode, once))

    def _rebuild(self, spec: DiceSpec, extra: list[Mod]) -> DiceSpec:
        return self._build(spec.count, spec.sides, [*spec.mods, *extra])

    def _build(self, count: int, sides: int, mods: list[Mod]) -> DiceSpec:
        """Validate a dice term's modifiers and compute its bounds and worst-case dice."""
        fate = any(slot == "fate" for slot, _ in mods)
        tens = bool(mods) and mods[0][0] == "tens"  # put first by _dice
        name = f"{count}d{'F' if fate else '%' if tens else sides}"
        text = name
        lo_face, hi_face = (-1, 1) if fate else (1, sides)
        seen: set[str] = set()
        reroll = explode = success = failure = reroll_add = implode = None
        explode_once = implode_once = False
        crit_s = crit_f = None
        more: list[tuple[int, int]] = []
        reroll_cap = 0
        explode_cap = MAX_EXPLOSIONS
        mode = ""
        min_face = max_face = None
        sort = ""
        picks: list[tuple[str, Selector]] = []
        more_text: list[str] = []
        texts: dict[str, str] = {}
        keep_simple: tuple[str, int] | None = None

        def face_text(op: str, n: int) -> str:
            """A condition on faces as typed (a tens die's faces 1 … 10 are 0 … 90)."""
            return _cond_text(op, 10 * (n - 1) if tens else n)

        targeted = False  # a success target came before: an unspaced f counts failures
        if ("count", None) in mods and (
            sum(slot in ("success", "target", "count") for slot, _ in mods) > 1
        ):
            raise DiceError(
                f"{name}: c counts the dice that are left, so it can't follow or precede a "
                f"success target (write {name}c, or {name}>=8 to count successes)"
            )
        for slot, value in mods:
            if slot in ("fate", "tens"):
                continue
            targeted = targeted or slot in ("success", "target")
            if slot == "ffilter":
                op, n, typed = value
                if targeted:
                    slot, value = "failure", (op, n)
                else:
                    # GNOLL's filter keeps the dice that meet it; Roll20 and Dice Maiden
                    # count failures, after a success target.
                    self._note(
                        "filter",
                        f"read `{typed}` as GNOLL's filter: keep the dice that are "
                        f"{_cond_text(op, n)} (failures need a success target first, e.g. "
                        f">=8{typed})",
                    )
                    picks.append(("k", ("v", *_interval(op, n))))
                    continue
            if slot == "count":
                slot, value = "success", (">=", -_NEVER)
            if slot == "select":
                assert isinstance(value, tuple)
                picks.append(value)
                continue
            if slot == "break":
                picks.append(("|", ("v", 0, 0)))
                continue
            if slot == "keep":
                assert isinstance(value, tuple)
                word, n = value
                picks.append(("k" if word[0] == "k" else "p", (word[1], n, 0)))
                continue
            if slot == "target":
                if "success" in seen:
                    more.append(_interval(*value))
                    more_text.append(f"{'tl' if value[0] == '<=' else 't'}{value[1]}")
                    continue
                slot = "success"
            if slot in seen:
                raise DiceError(
                    f"{name}: only one {slot.replace('_', ' ')} modifier per dice term "
                    "(write it once)"
                )
            seen.add(slot)
            if fate and slot in ("reroll", "explode", "implode", "min", "max", "reroll_add"):
                raise DiceError(
                    f"{name}: Fate dice can't be rerolled, exploded or clamped (write {name} "
                    "without that modifier)"
                )
            if slot == "reroll":
                op, n = value
                repeat = op.startswith("rr")
                op = op[2:] if repeat else op[1:]
                reroll = _interval(op, n)
                reroll_cap = MAX_REROLLS if repeat else 1
                texts[slot] = ("rr" if repeat else "r") + face_text(op, n)
                if repeat and reroll[0] <= 1 and reroll[1] >= sides:
                    raise DiceError(
                        f"{name}rr{face_text(op, n)}: every face would be rerolled forever "
                        f"(reroll fewer faces, e.g. {name}rr1)"
                    )
            elif slot == "explode":
                op, n, mode, once = value
                explode = _interval(op, n)
                explode_cap = 1 if once else MAX_EXPLOSIONS
                explode_once = bool(once)
                sign = {"compound": "!!", "penetrate": "!p", "both": "!!p"}.get(mode, "e")
                if once:
                    shown = face_text(op, n)
                    texts[slot] = f" e{shown[2:]}" if op == ">=" else "xo" + shown
                else:
                    texts[slot] = sign + face_text(op, n)
                if explode[0] <= 1 and explode[1] >= sides and not once:
                    raise DiceError(
                        f"{name}e{face_text(op, n)}: every face explodes, so it would never stop "
                        + (
                            f"(explode on fewer faces, e.g. {name}e{sides})"
                            if sides > 1
                            else "(a one-sided die always shows 1: leave the explosion out)"
                        )
                    )
            elif slot == "implode":
                op, n, *once_ = value
                implode = _interval(op, n)
                if once_:  # Dice Maiden's i: once
                    explode_cap = 1
                    implode_once = True
                    texts[slot] = f" i{n}" if op == "<=" else " i" + face_text(op, n)
                else:
                    texts[slot] = "im" + face_text(op, n)
                if implode[0] <= 1 and implode[1] >= sides and not once_:
                    raise DiceError(
                        f"{name}im{face_text(op, n)}: every face implodes, so it would never stop "
                        f"(implode on fewer faces, e.g. {name}im1)"
                    )
            elif slot == "reroll_add":
                op, n = value
                reroll_add = _interval(op, n)
                texts[slot] = "ra" + face_text(op, n)
            elif slot == "min":
                # Beyond the faces (Avrae's 10d6mi10, rpg-dice-roller's min-12), every die
                # counts as the minimum.
                min_face = value[1]
            elif slot == "max":
                max_face = value[1]
            elif slot == "success":
                op, n = value
                success = _interval(op, n)
                texts[slot] = "c" if n == -_NEVER else f"{op}{n}"
            elif slot == "failure":
                op, n = value
                failure = _interval(op, n)
                texts[slot] = "f" + _cond_text(op, n)
            elif slot == "crit_success":
                crit_s = _interval(*value)
                texts[slot] = "cs" + _cond_text(*value)
            elif slot == "crit_failure":
                crit_f = _interval(*value)
                texts[slot] = "cf" + _cond_text(*value)
            elif slot == "sort":
                sort = value[0]
        if min_face is not None and max_face is not None and max_face < min_face:
            raise DiceError(f"{name}: the maximum (ma) is below the minimum (mi)")
        # Canonical text, in the order the term is worked out.
        text += texts.get("reroll", "") + texts.get("explode", "") + texts.get("implode", "")
        text += texts.get("reroll_add", "")
        if min_face is not None:
            text += f"mi{min_face}"
        if max_face is not None:
            text += f"ma{max_face}"
        selects = self._merged(picks)
        if reroll is not None and explode is not None:
            shown = self.typed.get("reroll", texts["reroll"])
            self._note(
                "reroll-explode",
                f"read `{shown}` as rerolling exploded dice too; Dice Maiden rerolls only the "
                "first dice",
            )
        order = [slot for slot, _ in mods] if min_face is not None or max_face is not None else []
        late = [
            i for i, slot in enumerate(order) if slot in ("min", "max") and "select" in order[:i]
        ]
        if late:
            # Avrae's d20 applies operations in the order written; here mi/ma come first.
            slot, value = mods[late[0]]
            shown = f"{'mi' if slot == 'min' else 'ma'}{value[1]}"
            self._note(
                "clamp-order",
                f"worked out `{shown}` before the keep/drop written before it; Avrae applies "
                "them in the order written",
            )
        for action, sels in selects:
            for kind, n, _ in sels:
                if kind == "v":
                    continue
                if action == "k":
                    if n < 1:
                        raise DiceError(f"{name}k{kind}{n}: keep at least one die")
                    if n > count:
                        raise DiceError(
                            f"{name}k{kind}{n}: you can keep at most {_fmt(count)} "
                            f"{'die' if count == 1 else 'dice'}"
                        )
                elif n >= count:
                    raise DiceError(
                        f"{name}d{kind}{n}: you can drop at most {_fmt(count - 1)} "
                        f"{'die' if count == 2 else 'dice'}"
                    )
        if len(selects) == 1 and len(selects[0][1]) == 1 and selects[0][1][0][0] in ("h", "l"):
            action, ((kind, n, _),) = selects[0]
            keep_simple = (("k" if action == "k" else "d") + kind, n)
        text += selection_text(selects)
        if more and success is None:
            raise DiceError(f"{name}: a second success target needs a first one")
        if failure is not None and success is None:
            # GNOLL's f<4 keeps dice, Dice Maiden's lone f1 counts negative successes: refused.
            raise DiceError(
                f"{name}{texts['failure']}: failures count against successes, so write a "
                f"target first (e.g. {name}>=8{texts['failure']}); to keep dice by value "
                "write k<4"
            )
        text += texts.get("success", "") + "".join(more_text) + texts.get("failure", "")
        text += texts.get("crit_success", "") + texts.get("crit_failure", "")
        if sort:
            text += "sd" if sort == "d" else "s"

        def hits(interval: tuple[int, int] | None) -> bool:
            return interval is not None and interval[0] <= hi_face and interval[1] >= lo_face

        if (
            explode is not None
            and implode is not None
            and not (
                "maiden-modifiers" in self.sw
                and explode_once == implode_once
                and mode not in ("compound", "penetrate", "both")
                and (explode[1] < implode[0] or implode[1] < explode[0])
            )
        ):
            # Dice Maiden's 1d10 e10 i1 and the Witcher's 1d10 ie10 im1 (both once, or both
            # again and again, on different faces) are one term.
            raise DiceError(
                f"{name}: a term can explode or implode, not both; write them as two rolls, "
                "separated by ;"
            )
        booms = explode_cap if hits(explode) or hits(implode) else 0
        rolls_per_slot = 1 + booms
        dice_per_roll = 1 + (reroll_cap if hits(reroll) else 0)
        added = 1 if hits(reroll_add) else 0
        worst = (count * rolls_per_slot + added) * dice_per_roll

        # Bounds: every counted value lies in [vlo, vhi]; the pool holds pool_min..pool_max.
        if tens:
            vlo, vhi = 0, 10 * (sides - 1)
        elif min_face is None and max_face is None:
            vlo, vhi = lo_face, hi_face
        else:
            vlo, vhi = _clamped(lo_face, min_face, max_face), _clamped(hi_face, min_face, max_face)
        if explode is not None and mode in ("penetrate", "both") and booms:
            vlo = min(vlo, 0)
        if booms and implode is not None:
            vlo = -vhi  # an implosion die subtracts its face
        if mode in ("compound", "both") and booms:
            vhi = vhi * rolls_per_slot
            pool_min, pool_max = count, count + added
        else:
            pool_min, pool_max = count, count * rolls_per_slot + added
        kept_min, kept_max = kept_bounds(selects, pool_min, pool_max)
        if success is not None or failure is not None:
            per_hi = 0 if success is None else 1 + len(more)
            per_lo = -1 if failure is not None else 0
            lo, hi = kept_max * per_lo, kept_max * per_hi
        else:
            lo = min(kept_min * vlo, kept_max * vlo)
            hi = max(kept_min * vhi, kept_max * vhi)
        plain = not mods
        return DiceSpec(
            count=count,
            sides=sides,
            text=text,
            keep=keep_simple[0] if keep_simple else None,
            keep_n=keep_simple[1] if keep_simple else 0,
            reroll=reroll,
            reroll_cap=reroll_cap,
            explode=explode,
            explode_cap=explode_cap,
            explode_mode=mode,
            implode=implode,
            reroll_add=reroll_add,
            min_face=min_face,
            max_face=max_face,
            success=success,
            more_successes=tuple(more),
            failure=failure,
            selects=selects,
            fate=fate,
            tens=tens,
            crit_success=crit_s,
            crit_failure=crit_f,
            sort=sort,
            plain=plain,
            worst_dice=worst,
            minimum=lo,
            maximum=hi,
            mods=tuple(mods),
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


def _merge(picks: list[tuple[str, Selector]], unite_drops: bool = False) -> tuple[Selection, ...]:
    """Consecutive keeps unite their selections, as in Avrae: ``kh1kl1`` keeps the highest
    and the lowest. Every other operation applies to the dice the previous ones left, one
    after the other: ``4d6dl1dl1`` drops two dice even when they tie (docs/dice.md, "Keep and
    drop"). ``unite_drops`` reads consecutive drops as Avrae's d20 does (one united drop)."""
    out: list[tuple[str, list[Selector]]] = []
    fresh = True
    for action, sel in picks:
        if action == "|":
            fresh = True
            continue
        unites = action == "k" or unite_drops
        if out and out[-1][0] == action and not fresh and unites:
            out[-1][1].append(sel)
        else:
            out.append((action, [sel]))
        fresh = False
    return tuple((action, tuple(sels)) for action, sels in out)


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
        elif op == SET:
            assert isinstance(arg, SetSpec)
            items = stack[len(stack) - arg.size :]
            del stack[len(stack) - arg.size :]
            inner = ", ".join(items)
            stack.append(("{" + inner + "}" if arg.braces else f"({inner})") + arg.suffix)
        elif op == CMP:
            right = stack.pop()
            stack[-1] = f"{stack[-1]} {arg} {right}"
        else:
            right = stack.pop()
            stack[-1] = stack[-1] + _BINARY_SYMBOL[op] + right
    return stack[-1] if stack else ""


@functools.lru_cache(maxsize=4096)
def _parse_cached(expression: str, dialect: str) -> Expression:
    try:
        return _Parser(expression, dialect).parse()
    except DiceError:
        if "trailing-text" not in switches(dialect):
            raise
        found = _with_trailing_comment(expression, dialect)
        if found is None:
            raise
        return found


_BOUNDARY = re.compile(r"\s+(?=[A-Za-z*`_]|=(?!=))")
#: Longest text, and most word boundaries, tried when reading trailing words as a comment.
_TRAILING_TEXT = 300
_TRAILING_TRIES = 40


def _with_trailing_comment(expression: str, dialect: str) -> Expression | None:
    """Avrae's and Roll20's reading of ``1d20+5 sneak attack``: the longest start that is a
    roll, the words after it a comment (said in the answer). Bounded: a short text, and a
    few dozen tries."""
    if len(expression) > _TRAILING_TEXT:
        return None
    cuts = [m.start() for m in _BOUNDARY.finditer(expression)][:_TRAILING_TRIES]
    for cut in reversed(cuts):
        head, rest = expression[:cut], expression[cut:].strip()
        if re.match(r"[a-z]+", rest.lower()) and rest.lower().split()[0] in _WORDS:
            continue  # "1d20+5 adv": a misplaced modifier, refused with its own hint
        try:
            expr = _Parser(head, dialect).parse()
        except DiceError:
            continue
        shown = rest if len(rest) <= 30 else rest[:29] + "…"
        note = f"{DIALECT_NAMES[dialect]} dialect: read `{shown}` as a comment"
        comment = rest if expr.comment is None else f"{rest} {expr.comment}"
        return dataclasses.replace(expr, comment=comment, notes=(note, *expr.notes))
    return None


def parse(expression: str, dialect: str = DEFAULT_DIALECT) -> Expression:
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
    if _REPEAT.match(expression):
        raise DiceError("several rolls (6#4d6) are not possible here: one roll at a time")
    return _parse_cached(expression, dialect)


_REPEAT = re.compile(r"\s*\d+#(?=\s*\S)")
