"""Budgets against abuse through the real bot: a player's macro flooding the largest
legal roll is refused, only to them, with when to try again, while the table plays on; the
refusal records nothing; SimCord's virtual time refills the budget (no sleeping)."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from bot.db.models import ledger
from bot.dice import parse
from bot.services.kit.budgets import dice_work
from tests.fixtures.table import Table, message_text

BIG = "1000d20kh500"


async def _rows(table: Table) -> int:
    async with table.bot.db.engine.connect() as conn:
        return int((await conn.execute(select(func.count()).select_from(ledger))).scalar_one())


async def test_a_flood_of_large_rolls_is_refused_while_the_table_plays_on(table: Table) -> None:
    settings = table.bot.settings
    fits = int(settings.budget_user_burst // dice_work(parse(BIG)))
    for _ in range(fits):
        served = await table.alice.slash(table.table, "roll", dice=BIG)
        assert served.response is not None and not served.ephemeral
    before = await _rows(table)
    refused = await table.alice.slash(table.table, "roll", dice=BIG)
    assert refused.response is not None and refused.ephemeral  # only Alice is told
    text = refused.response.content
    assert "Nothing was rolled or recorded" in text
    when = re.search(r"try again <t:(\d+):R>", text)
    assert when is not None
    wait = int(when[1]) - table.env.now().timestamp()
    per_second = settings.budget_user_per_second
    assert abs(wait - dice_work(parse(BIG)) / per_second) <= 1
    assert await _rows(table) == before  # the refusal recorded nothing
    assert len(table.table.history(viewer=table.bob)) == fits  # and posted nothing
    # Bob and Carol are served meanwhile, large roll included.
    for player, dice in ((table.bob, "1d20+5"), (table.carol, "4d6kh3"), (table.bob, BIG)):
        answer = await player.slash(table.table, "roll", dice=dice)
        assert answer.response is not None and not answer.ephemeral, message_text(answer.response)
    # Once the named time has come, Alice rolls again.
    await table.env.advance_time(wait + 1)
    again = await table.alice.slash(table.table, "roll", dice=BIG)
    assert again.response is not None and not again.ephemeral
    assert await _rows(table) == before + 4  # three for Bob and Carol, one for Alice
