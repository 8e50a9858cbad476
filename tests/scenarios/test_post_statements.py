"""How much SQLite is asked for one ``/post`` through the real bot, with production's provably
fair dice: every `[[…]]` is prepared before any is rolled, and the post's campaign, its author
and each helper are read once for all of them, so a post with five inline checks reads what a
post with one reads; only each roll's own writes (its draw, its row) grow with them."""

from __future__ import annotations

import random
import re

import pytest
from sqlalchemy import func, select

from bot.db.post_models import post_rolls
from bot.dice.fair import FairDice
from bot.services.kit.sql import transaction
from tests.scenarios.conftest import Table, make_character, start_campaign
from tests.scenarios.test_roll_statements import _sqlite_only, seen_by_sqlite

ONE = "Ayla braces [[check STR helper:Bram]]."
FIVE = (
    "Ayla braces [[check STR helper:Bram]], slips [[check DEX dc:12]], looks "
    "[[check WIS helper:Bram adv]], dodges [[save DEX dc:13]] and heaves [[check STR bonus:1]]."
)
_WRITE = re.compile(r"^\s*(WITH\b.*?\)\s*)?(INSERT|UPDATE|DELETE|REPLACE)\b", re.I | re.S)


@pytest.fixture
def rng() -> random.Random:
    """Production's dice: each roll's draw is part of its statements."""
    return FairDice()


def _reads(seen: list[str]) -> list[str]:
    return [s for s in seen if re.match(r"^\s*(SELECT|WITH)\b", s, re.I) and not _WRITE.match(s)]


def _writes(seen: list[str]) -> list[str]:
    return [s for s in seen if _WRITE.match(s)]


def _table(statement: str) -> str:
    """The table a read reads (its first FROM)."""
    found = re.search(r"\bFROM\s+(\w+)", statement, re.I)
    return found.group(1) if found else statement[:40]


async def _post(table: Table, text: str) -> list[str]:
    """What SQLite runs for one /post of ``text``; the post went out with all its rolls."""
    with _sqlite_only(table) as db:
        async with seen_by_sqlite(db) as seen:
            result = await table.alice.slash(table.table, "post", text=text)
    assert result.response is not None and "Posted as **Ayla**" in result.response.content
    async with transaction(table.bot.db) as session:
        last = select(func.max(post_rolls.c.post_id)).scalar_subquery()
        bound = select(func.count()).where(post_rolls.c.post_id == last)
        assert (await session.execute(bound)).scalar_one() == text.count("[[")
    return seen


async def test_a_post_reads_its_campaign_and_characters_once_however_many_checks(
    table: Table,
) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.bob, "Bram", {"STR": 12})
    await make_character(table, table.alice, "Ayla", {"STR": 14, "DEX": 16, "WIS": 10})
    await _post(table, ONE)  # the seed, the chain and the channel's first post exist now
    one = await _post(table, ONE)
    five = await _post(table, FIVE)
    # The reads: the campaign, Ayla, the post's settings and Bram (the helper), once each,
    # whether the post holds one check or five.
    assert [_table(s) for s in _reads(one)] == [_table(s) for s in _reads(five)]
    assert sorted(_table(s) for s in _reads(five)) == [
        "campaigns",
        "characters",
        "characters",
        "post_settings",
    ], "\n".join(s[:160] for s in _reads(five))
    # Only the writes grow: each roll's fair draw and ledger row (and its copy on the post).
    assert len(_writes(five)) > len(_writes(one))
    for seen, rolls in ((one, 1), (five, 5)):
        assert len([s for s in seen if "INTO fair_draws" in s]) == rolls
        assert len([s for s in seen if s.startswith("INSERT INTO ledger ")]) == rolls + 1
