"""/reroll (d20 check): "you can reroll only one of the dice. You choose which one."

Tests bot/cogs/reroll.py, bot/services/rolling/rerolls.py and bot/render/rerolls.py.
"""

from __future__ import annotations

import asyncio
import random

from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue
from bot.services.rolling import rerolls
from bot.services.store import ledger
from bot.services.store.campaigns import campaign_for_channel
from tests.fixtures.table import Table, make_character, message_text, start_campaign


async def _rows(table: Table) -> list[ledger.RollView]:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return await ledger.latest_rolls(table.bot.db, campaign.id, limit=20)


async def _campaign(table: Table, rerolls: bool = True) -> None:
    await start_campaign(table, "d20-check")
    if rerolls:
        done = await table.gm.slash(table.table, "campaign set rerolls", on=True)
        assert done.response is not None and "Reroll one d20 of an advantage roll: on" in (
            message_text(done.response)
        )
    await make_character(table, table.alice, "Keegan", {"DEX": 14})


async def test_reroll_the_chosen_die_of_a_disadvantage_roll(table: Table) -> None:
    # Disadvantage, 17 and 5: the 5 counts (5 + 2 = 7 against DC 12, a failure). Rerolling the
    # second die gives 15: now 17 and 15, the lower 15 counts: 17, a success.
    await _campaign(table)
    table.dice(17, 5)
    first = await table.alice.slash(table.table, "check", ability="DEX", dc=12, disadvantage=True)
    assert first.response is not None and "**Failure**" in message_text(first.response)
    original = (await _rows(table))[0]
    table.dice(15)
    result = await table.alice.slash(table.table, "reroll", die="second")
    assert result.response is not None and not result.ephemeral
    text = message_text(result.response)
    assert f"DEX check, second die rerolled (roll #{original.number})" in text
    assert "~~17~~, **15** (disadvantage)" in text
    assert "15 +2 DEX = **17**" in text and "**Success**" in text
    assert f"second die 5 → **15** (roll #{original.number} stays in the log" in text
    rows = await _rows(table)
    assert [r.kind for r in rows[:2]] == ["d20-reroll", "check"]
    assert rows[0].outcome["original_id"] == original.id
    assert rows[0].outcome["original_number"] == original.number
    assert rows[0].dice == [15]
    # The original row is untouched: still the 5, still a failure.
    assert rows[1].outcome == original.outcome and rows[1].dice == [17, 5]
    # A die is rerolled once: the latest roll is now the reroll.
    again = await table.alice.slash(table.table, "reroll", die="first")
    assert again.ephemeral and again.response is not None
    assert "already a reroll" in again.response.content
    assert len(await _rows(table)) == 2


async def test_concurrent_rerolls_of_one_roll_reroll_it_once(table: Table) -> None:
    # Four /reroll of the same roll at once (a double-tap, two devices): a die is rerolled
    # once, so one succeeds and the others are told the latest roll is already a reroll.
    await _campaign(table)
    table.dice(17, 5)
    await table.alice.slash(table.table, "check", ability="DEX", dc=12, disadvantage=True)

    def caller(i: int) -> Caller:
        return Caller(
            user_id=table.alice.id,
            channel_id=table.table.id,
            guild_id=table.guild.id,
            interaction_id=990000 + i,
        )

    results = await asyncio.gather(
        *(
            rerolls.reroll(table.bot.db, random.Random(i), caller(i), "second", "/reroll")
            for i in range(4)
        ),
        return_exceptions=True,
    )
    done = [r for r in results if isinstance(r, rerolls.RerollResult)]
    refused = [r for r in results if isinstance(r, InvalidValue)]
    assert len(done) == 1 and len(refused) == 3
    assert all("already a reroll" in str(r) for r in refused)
    assert [r.kind for r in await _rows(table)] == ["d20-reroll", "check"]


async def test_reroll_the_first_die_with_advantage(table: Table) -> None:
    await _campaign(table)
    table.dice(3, 8)
    await table.alice.slash(table.table, "save", ability="DEX", dc=15, advantage=True)
    table.dice(19)
    result = await table.alice.slash(table.table, "reroll", die="first")
    assert result.response is not None
    text = message_text(result.response)
    assert "DEX saving throw, first die rerolled" in text
    assert "**19**, ~~8~~ (advantage)" in text and "**Success**" in text


async def test_bad_rerolls_are_refused_and_record_nothing(table: Table) -> None:
    await _campaign(table, rerolls=False)
    table.dice(4, 13)
    await table.alice.slash(table.table, "check", ability="DEX", advantage=True)
    off = await table.alice.slash(table.table, "reroll", die="first")
    assert off.ephemeral and off.response is not None
    assert "/campaign set rerolls on:true" in off.response.content
    done = await table.gm.slash(table.table, "campaign set rerolls", on=True)
    assert done.response is not None
    table.dice(9)
    await table.alice.slash(table.table, "check", ability="DEX", dc=10)
    single = await table.alice.slash(table.table, "reroll", die="first")
    assert single.ephemeral and single.response is not None
    assert "without advantage or disadvantage" in single.response.content
    # Another player has rolled nothing.
    none = await table.bob.slash(table.table, "reroll", die="first")
    assert none.ephemeral and none.response is not None
    assert "no d20-check roll" in none.response.content
    assert [r.kind for r in await _rows(table)] == ["check", "check"]


async def test_reroll_is_a_d20_check_rule(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 14})
    result = await table.alice.slash(table.table, "reroll", die="first")
    assert result.ephemeral and result.response is not None
    assert "This campaign plays Pen & Dagger; /reroll is for d20 check" in result.response.content


async def test_a_hidden_rolls_reroll_stays_hidden(table: Table) -> None:
    await _campaign(table)
    table.dice(17, 5)
    await table.alice.slash(
        table.table, "check", ability="DEX", dc=12, disadvantage=True, secret="gm"
    )
    table.dice(15)
    result = await table.alice.slash(table.table, "reroll", die="second")
    assert result.response is not None
    row = (await _rows(table))[0]
    assert row.kind == "d20-reroll" and row.visibility.value == "gm"
    public = [message_text(m) for m in table.table.history(viewer=table.bob)]
    stubs = [t for t in public if "second die rerolled" in t]
    assert len(stubs) == 1 and "in secret" in stubs[0]
    assert "Success" not in stubs[0] and "15" not in stubs[0].split("Commitment")[0]
