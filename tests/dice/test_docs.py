"""docs/dice.md is a test: every example in its tables rolls, on the dice shown, to the result
shown; every spelling in the first column is accepted."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.dice import parse_many
from bot.dice.batch import roll_many
from tests.scripted import ScriptedRandom

DOCS = Path(__file__).resolve().parents[2] / "docs" / "dice.md"
ROW = re.compile(
    r"^\| (`[^|]*`(?:, `[^|]*`)*) \| [^|]* \| `([^`]*)`( ×6)? → ([-\d, ]+)(?: each)? \|$"
)


def _rows() -> list[tuple[str, list[str], str, bool, str]]:
    rows = []
    for number, line in enumerate(DOCS.read_text().splitlines(), start=1):
        m = ROW.match(line)
        if m:
            spellings = re.findall(r"`([^`]+)`", m.group(1))
            rows.append((f"dice.md:{number}", spellings, m.group(2), bool(m.group(3)), m.group(4)))
    return rows


ROWS = _rows()


def test_the_docs_have_worked_examples():
    assert len(ROWS) >= 55


@pytest.mark.parametrize(
    ("where", "spellings", "faces", "six", "expected"), ROWS, ids=[r[0] for r in ROWS]
)
def test_doc_example(where, spellings, faces, six, expected):
    forced = [int(f) for f in faces.split(",") if f.strip()]
    if six:
        forced *= 6
    want = [int(x) for x in expected.split(",")]
    first = spellings[0]
    results = roll_many(first, ScriptedRandom(*forced))
    got = [r.total for r in results]
    assert got == (want * 6 if six else want), where
    for other in spellings[1:]:
        parse_many(other)  # every other spelling in the row is accepted
