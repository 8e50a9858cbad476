"""Threshold carry-over (ruling 4): stored, shown, used once, cleared by the GM."""

from __future__ import annotations

import pytest

from tests.bot.conftest import SEED, Table, make_character, message_text, start_campaign
from tests.bot.test_fortune import ScriptedRandom


@pytest.fixture
def rng() -> ScriptedRandom:
    return ScriptedRandom(SEED)


async def test_critical_leaves_plus_2_used_once_on_the_same_attribute(
    table: Table, rng: ScriptedRandom
) -> None:
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Mira", {"STR": 1})
    rng.faces.append(20)
    crit = await table.alice.slash(table.table, "check", ability="STR", dc=15)
    assert "+2 on the next STR test" in message_text(crit.response)
    sheet = await table.alice.slash(table.table, "character show")
    assert "Carry-over: +2 on the next STR test" in message_text(sheet.response)

    rng.faces.extend([10, 10])
    used = await table.alice.slash(table.table, "check", ability="STR", dc=15)
    text = message_text(used.response)
    assert "10 +1 STR +2 critical carry-over = **13**" in text
    again = await table.alice.slash(table.table, "check", ability="STR", dc=15)
    assert "critical carry-over" not in message_text(again.response)
    assert "= **11**" in message_text(again.response)


async def test_gm_clears_a_pending_penalty(table: Table, rng: ScriptedRandom) -> None:
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Mira", {"DEX": 2})
    rng.faces.append(1)
    await table.alice.slash(table.table, "check", ability="DEX", dc=5)
    refused = await table.alice.slash(table.table, "gm clear-modifier", character="Mira")
    assert refused.ephemeral and "Only the campaign's GM" in message_text(refused.response)

    cleared = await table.gm.slash(
        table.table, "gm clear-modifier", character="Mira", ability="dex"
    )
    assert "Cleared Mira's carry-over: −2 on the next DEX test" in message_text(cleared.response)
    nothing = await table.gm.slash(table.table, "gm clear-modifier", character="Mira")
    assert nothing.ephemeral and "no carry-over modifier" in message_text(nothing.response)

    rng.faces.append(10)
    after = await table.alice.slash(table.table, "check", ability="DEX", dc=5)
    assert "critical carry-over" not in message_text(after.response)
