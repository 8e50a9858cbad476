"""How much SQLite is asked for one ``/check`` through the real bot: its campaign comes from
memory while the campaign's revision is one the process read, so a check reads its place and
character in one statement, records its row, and commits (docs/performance.md)."""

from __future__ import annotations

import random

import pytest

from bot.dice.fair import FairDice
from bot.words import Visibility
from tests.fixtures.table import Table, make_character, message_text, start_campaign
from tests.scenarios.test_roll_statements import _sqlite_only, seen_by_sqlite
from tests.scenarios.test_secrecy import _latest

#: A seeded source (what the benchmarks measure), and production's fair dice, whose draw is
#: one statement more.
pytestmark = pytest.mark.parametrize("rng", ["seeded", "fair"], indirect=True)


async def test_a_check_is_five_statements_six_with_fair_dice(
    table: Table, rng: random.Random
) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Aria", {"DEX": 14})
    with _sqlite_only(table) as db:
        await table.alice.slash(table.table, "check", ability="DEX")  # seed, chain, memory
        async with seen_by_sqlite(db) as seen:
            checked = await table.alice.slash(table.table, "check", ability="DEX", dc=12)
        assert checked.response is not None and checked.response.embeds
        assert "Aria" in str(checked.response.embeds[0].title)
        fair = isinstance(rng, FairDice)
        assert len(seen) <= 5 + fair, "\n".join(s[:160] for s in seen)
        # A settings change is seen by the next check (the campaign's revision moved, so it is
        # read afresh, one statement more): the GM makes checks blind.
        changed = await table.gm.slash(
            table.table, "campaign set secrecy", command="check", mode="blind"
        )
        assert changed.response is not None and "/check blind" in message_text(changed.response)
        async with seen_by_sqlite(db) as seen:
            await table.alice.slash(table.table, "check", ability="DEX", dc=12)
        assert (await _latest(table)).visibility is Visibility.BLIND
        # The roll's transaction (its stub's place is stored by another, after the answer).
        rolled = seen[: seen.index("COMMIT") + 1]
        assert len(rolled) == 5 + fair + 1, "\n".join(s[:160] for s in rolled)
