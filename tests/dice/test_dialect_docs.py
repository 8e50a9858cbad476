"""docs/dice.md's dialect tables and per-peer shares are the generated ones: what the table
that drives the parser says, and what the peers corpus measures (tests/dice/dialect_docs.py)."""

from __future__ import annotations

from bot.dice.dialects import DIALECTS, READINGS, markdown
from tests.dice.dialect_docs import DOCS, block
from tests.dice.peers.report import table

TEXT = DOCS.read_text()


def test_the_dialect_tables_are_generated_from_the_readings_table():
    assert block(TEXT, "dialects") == markdown()
    for reading in READINGS:
        assert f"`{reading.example}`" in TEXT
    for dialect in DIALECTS:
        assert f"dialect:{dialect}" in TEXT


def test_the_peer_shares_are_the_measured_ones():
    assert block(TEXT, "peers") == table()
