"""The core tables keep impossible values out on their own, whatever code or hand-written
UPDATE tries: a level outside 1-20 refused by the database itself, CHECK lists that quote
their words, per-command secrecy defaults checked both ways.

Tests bot/db/models.py.
"""

from __future__ import annotations

import pytest
from sqlalchemy import update
from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import IntegrityError

from bot.db.engine import Database
from bot.db.models import SecrecyDefaults, characters, sql_in
from bot.services.store.characters import CharacterView


def test_a_check_list_quotes_each_word() -> None:
    assert sql_in("system", ["d20-check", "it's"]) == "system IN ('d20-check', 'it''s')"


def test_secrecy_defaults_are_checked_in_and_out_and_kept_in_order() -> None:
    column, dialect = SecrecyDefaults(), sqlite.dialect()
    stored = column.process_bind_param({"save": "self", "check": "blind"}, dialect)
    assert list(stored) == ["check", "save"]
    assert column.process_bind_param(None, dialect) == {}
    with pytest.raises(ValueError, match="invalid secrecy default 'check': 'loud'"):
        column.process_bind_param({"check": "loud"}, dialect)


async def test_the_database_refuses_a_level_outside_1_to_20(
    db: Database, hero: CharacterView
) -> None:
    with pytest.raises(IntegrityError):
        async with db.engine.begin() as connection:
            await connection.execute(
                update(characters).where(characters.c.id == hero.id).values(level=21)
            )
