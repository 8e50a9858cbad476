"""The word lists of bot/words.py: each word fits where it is stored, and the code names
ledger kinds by their LedgerKind member, never as a bare string that could drift."""

from __future__ import annotations

import ast
import enum
from pathlib import Path

import pytest
from sqlalchemy import Column, String

from bot import words
from bot.db.fortune_models import FortuneChoice
from bot.db.models import Campaign, LedgerRow, NotifySetting, ScheduledJob, TurnOrder
from bot.db.party_models import RollRequest, RollRequestTarget
from bot.db.round_models import Round
from bot.services.store.ledger import _KIND

BOT = Path(words.__file__).parent

#: Each word list and the columns storing its words.
STORED: list[tuple[type[enum.StrEnum], list[Column[str]]]] = [
    (words.RuleSystem, [Campaign.__table__.c.system, RollRequest.__table__.c.system]),
    (words.Visibility, [LedgerRow.__table__.c.visibility]),
    (words.LedgerKind, [LedgerRow.__table__.c.kind]),
    (words.RollChoice, [FortuneChoice.__table__.c.choice]),
    (words.JobKind, [ScheduledJob.__table__.c.kind]),
    (words.JobState, [ScheduledJob.__table__.c.state]),
    (words.NotifyMode, [NotifySetting.__table__.c.mode]),
    (
        words.DefaultAction,
        [RollRequest.__table__.c.default_action, RollRequestTarget.__table__.c.defaulted],
    ),
    (words.TurnOrderKind, [TurnOrder.__table__.c.order_kind]),
    (words.RoundState, [Round.__table__.c.state]),
]


@pytest.mark.parametrize(("word_list", "columns"), STORED, ids=lambda v: getattr(v, "__name__", ""))
def test_every_word_fits_its_column(
    word_list: type[enum.StrEnum], columns: list[Column[str]]
) -> None:
    # PostgreSQL refuses a value longer than a VARCHAR (SQLite would silently keep it).
    for column in columns:
        assert isinstance(column.type, String) and column.type.length is not None
        too_long = [w.value for w in word_list if len(w.value) > column.type.length]
        assert not too_long, f"{column}: {too_long}"


def test_every_ledger_kind_is_accepted_by_the_ledger() -> None:
    refused = [kind.value for kind in words.LedgerKind if not _KIND.match(kind.value)]
    assert not refused


def _bare_kinds(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, text) of each string literal given as a ledger kind: a ``kind=`` argument, or
    compared with (or tested for membership against) something's ``.kind``."""
    found: list[tuple[int, str]] = []

    def strings(node: ast.AST) -> list[ast.Constant]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [c for e in node.elts for c in strings(e)]
        return []

    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            if name == "describe":  # app_commands.describe(kind="…"): the option's help
                continue
            for keyword in node.keywords:
                if keyword.arg in ("kind", "kinds"):
                    found += [(c.lineno, c.value) for c in strings(keyword.value)]
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Attribute) and s.attr == "kind" for s in sides):
                found += [(c.lineno, c.value) for s in sides for c in strings(s)]
    return sorted(found)


def test_the_scan_finds_bare_kinds() -> None:
    source = (
        "record(kind='roll')\n"
        "if row.kind == 'turn': pass\n"
        "latest(kinds=('attempt', 'luck'))\n"
        "if row.kind in ('keep', 'trade'): pass\n"
        "record(kind=LedgerKind.ROLL)\n"
    )
    assert [text for _, text in _bare_kinds(ast.parse(source))] == [
        "roll",
        "turn",
        "attempt",
        "luck",
        "keep",
        "trade",
    ]


@pytest.mark.parametrize("layer", ["services", "render", "cogs"])
def test_ledger_kinds_are_named_by_their_member(layer: str) -> None:
    bare = [
        f"{path.relative_to(BOT.parent)}:{line}: {text!r}"
        + ("" if text in set(words.LedgerKind) else " (not even a LedgerKind)")
        for path in sorted((BOT / layer).rglob("*.py"))
        for line, text in _bare_kinds(ast.parse(path.read_text(), str(path)))
    ]
    assert not bare, "use the LedgerKind member instead:\n" + "\n".join(bare)
