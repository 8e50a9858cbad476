"""docs/dice.md's dialect tables are the generated ones: what the table that drives the parser
says (tests/dice/dialect_docs.py). Its per-peer shares are checked with the peers corpus, in
tests/dice/peers/test_peers.py, so the corpus is read once."""

from __future__ import annotations

from bot.dice.dialects import DIALECTS, READINGS, markdown
from tests.dice.dialect_docs import DOCS, block

TEXT = DOCS.read_text()


def test_the_dialect_tables_are_generated_from_the_readings_table():
    assert block(TEXT, "dialects") == markdown()
    for reading in READINGS:
        assert f"`{reading.example}`" in TEXT
    for dialect in DIALECTS:
        assert f"dialect:{dialect}" in TEXT
