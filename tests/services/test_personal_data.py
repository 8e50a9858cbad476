"""Every column that holds a person's id or their words is declared by a feature
(bot/services/kit/personal.py, docs/privacy.md "Declaring a feature's data").

The schema (bot/db metadata) is read, not a list: a table added later with a ``user_id``, a GM's
id, a name or free text fails here, naming the table and column, until a feature's
declaration says what an erasure does to it or, column by column, why it is not personal.
"""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import JSON, BigInteger, Column, MetaData, String, Table, Text

from bot.db.schema import metadata
from bot.services.kit import personal
from bot.services.kit.personal import PersonalData

#: Id columns by name: a user id, a list of them, a GM's, the person who opened something.
ID_SUFFIXES = ("user_id", "user_ids", "player_ids", "opened_by", "author_id", "gm_id")
#: A ``String`` this long or longer can hold what someone typed (a name is 64).
LONG_STRING = 32


def personal_columns(table: Table) -> list[str]:
    """The columns of ``table`` that identify a person or may hold their words."""
    found = []
    for column in table.columns:
        kind = getattr(column.type, "impl", column.type)
        typed = isinstance(kind, Text | JSON) or (
            isinstance(kind, String) and (kind.length or LONG_STRING) >= LONG_STRING
        )
        if column.name.endswith(ID_SUFFIXES) or typed:
            found.append(column.name)
    return found


def undeclared(schema: MetaData, declared: tuple[PersonalData, ...]) -> list[str]:
    """``table.column`` for each personal column no declaration covers: its table's rows are
    deleted, the erasure changes it, or a declaration says why it is not personal."""
    changes: dict[str, set[str]] = {}
    for data in declared:
        for holding in data.holdings:
            changes.setdefault(holding.table, set()).update(holding.changes)
    kept = {name for data in declared for name in data.not_personal}
    missing = []
    for table in schema.sorted_tables:
        allowed = changes.get(table.name, set())
        if "*" in allowed or table.name in kept:
            continue
        for column in personal_columns(table):
            if column not in allowed and f"{table.name}.{column}" not in kept:
                missing.append(f"{table.name}.{column}")
    return missing


def test_every_personal_column_is_declared() -> None:
    assert undeclared(metadata, personal.declarations()) == []


def test_a_new_table_with_an_id_or_text_is_named() -> None:
    """The check above can fail: a table no feature declares is reported, column by column."""
    schema = MetaData()
    for table in metadata.sorted_tables:
        table.to_metadata(schema)
    Table(
        "diary_entries",
        schema,
        Column("id", BigInteger, primary_key=True),
        Column("author_user_id", BigInteger),
        Column("title", String(100)),
        Column("body", Text),
        Column("mood", String(8)),
    )
    assert undeclared(schema, personal.declarations()) == [
        "diary_entries.author_user_id",
        "diary_entries.title",
        "diary_entries.body",
    ]


def test_a_declared_table_leaves_no_other_personal_column_unsaid() -> None:
    """Declaring a table covers only the columns its erasure changes."""
    partial = PersonalData(
        "diary",
        holdings=(personal.holding("ledger", "user_id", "user_id"),),
    )
    missing = undeclared(metadata, (partial,))
    assert "ledger.request" in missing and "ledger.user_id" not in missing


def test_each_table_is_declared_by_one_feature_and_exists() -> None:
    names = {t.name for t in metadata.sorted_tables}
    declared = Counter(
        name.partition(".")[0]
        for data in personal.declarations()
        for name in {h.table for h in data.holdings}
        | {n.partition(".")[0] for n in data.not_personal if "." not in n}
    )
    assert sorted(set(declared) - names) == []  # nothing stale
    assert [t for t, n in declared.items() if n > 1] == []


def test_a_feature_declares_once() -> None:
    """A second declaration under a taken name is refused, not silently merged."""
    with pytest.raises(ValueError, match="posts"):
        personal.declare(PersonalData("posts"))
