"""Issue 18, sealed pre-rolls: a player seals d20s nobody sees; the GM applies the oldest to a
check (`/gm check ... preroll:next`), which shows when it was sealed, and /verify proves it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.services import ledger
from bot.services.campaigns import campaign_for_channel
from bot.services.prerolls import MAX_SEALED
from tests.bot.conftest import (
    Table,
    answered_ephemeral,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)

SCORES = {
    "pen-and-dagger": {"DEX": 12},
    "roll-under": {"AGI": 14},
    "threshold": {"DEX": 2},
    "d20-check": {"DEX": 14},
}
ABILITY = {"pen-and-dagger": "DEX", "roll-under": "AGI", "threshold": "DEX", "d20-check": "DEX"}
#: Options each system's check needs besides the ability.
NEEDS = {"threshold": {"dc": 12}}


async def _setup(table: Table, system: str = "d20-check") -> None:
    await start_campaign(table, system)
    await make_character(table, table.alice, "Ayla", SCORES[system])


async def _rows(table: Table) -> list[ledger.RollView]:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return list(reversed(await ledger.latest_rolls(table.bot.db, campaign.id, limit=100)))


def _numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"#(\d+)", text)]


async def test_sealed_die_applied_by_the_gm_then_verified(table: Table) -> None:
    await _setup(table)
    table.dice(17)
    sealed = await table.alice.slash(table.table, "preroll")
    stub = message_text(final_answer(sealed))
    assert not answered_ephemeral(sealed)
    assert "Ayla seals 1 d20" in stub and re.search(r"`[0-9a-f]{64}`", stub)
    assert "17" not in stub
    (row,) = [r for r in await _rows(table) if r.kind == "preroll"]
    assert row.dice == [17] and row.revealed_at is None

    # Before it is applied: /verify shows only the commitment, to anyone, the roller included.
    for member in (table.alice, table.gm, table.bob):
        early = message_text(final_answer(await member.slash(table.table, "verify", roll=row.number)))
        assert "sealed pre-roll" in early and row.commitment is not None
        assert row.commitment in early and "17" not in early.replace(str(row.number), "")

    table.dice(3)  # a fresh die would show 3: the check must use the sealed 17
    check = await table.gm.slash(
        table.table, "gm check", character="Ayla", ability="DEX", dc=15, preroll="next"
    )
    shown = message_text(final_answer(check))
    assert not answered_ephemeral(check)
    assert "Success" in shown and "**17**" in shown
    assert f"roll **#{row.number}**" in shown and "before this check was chosen" in shown
    assert row.commitment in shown
    rows = await _rows(table)
    applied = rows[-1]
    assert applied.kind == "check" and applied.dice == [17]
    assert applied.outcome["prerolls"] == [row.number]
    assert applied.visibility.value == "public"
    assert list(table.bot.rng.script) == [3]  # type: ignore[attr-defined]  # no fresh die

    verified = message_text(
        final_answer(await table.bob.slash(table.table, "verify", roll=row.number))
    )
    assert "the commitment matches" in verified
    assert "the commitment in the stub message" in verified  # compared with the stub as shown

    # Used once: no pre-roll is left.
    again = await table.gm.slash(
        table.table, "gm check", character="Ayla", ability="DEX", dc=15, preroll="next"
    )
    assert answered_ephemeral(again)
    assert "no sealed pre-roll left" in message_text(final_answer(again))
