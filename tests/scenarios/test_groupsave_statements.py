"""How much SQLite is asked for one ``/groupsave`` through the real bot, with production's
provably fair dice: the party's read, its draws, its rows and their names, its carry-overs
each take one statement whatever the party's size, so a party of 20 costs what 6 cost."""

from __future__ import annotations

import pytest

from bot.services.kit.context import Caller
from bot.services.store import characters
from bot.services.trust import access
from tests.fixtures.table import Table, final_answer, message_text, start_campaign
from tests.scenarios.test_roll_statements import _sqlite_only, seen_by_sqlite

#: Production's dice: the members' draws are part of the statements.
pytestmark = pytest.mark.fair_dice


async def _join(table: Table, first: int, last: int, scores: dict[str, int]) -> None:
    """Players ``first``..``last``, each with a character (``Hero 007`` …) in the party
    (through the services, as tests/scenarios/test_big_parties.py makes big parties)."""
    caller = Caller(user_id=table.gm.id, channel_id=table.table.id, guild_id=table.guild.id)
    campaign = await access.campaign_here(table.bot.db, caller)
    for n in range(first, last + 1):
        player = table.guild.add_member(table.env.create_user(f"player{n:03d}"))
        character = await characters.create_character(
            table.bot.db, campaign.id, player.id, f"Hero {n:03d}"
        )
        for ability, value in scores.items():
            await characters.set_score(table.bot.db, character.id, ability, value)
    await characters.party_add_all(table.bot.db, campaign.id)


async def _group_save_statements(table: Table, size: int, ability: str) -> list[str]:
    """What SQLite runs for a /groupsave of the party, now ``size`` strong."""
    with _sqlite_only(table) as db:
        async with seen_by_sqlite(db) as seen:
            result = await table.gm.slash(table.table, "groupsave", ability=ability, dc=12)
    text = message_text(final_answer(result))
    assert f"of {size} " in text and "Hero 001" in text, text
    return seen


@pytest.mark.parametrize(("system", "ability"), [("d20-check", "CON"), ("threshold", "DEX")])
async def test_a_group_save_costs_the_same_statements_for_6_and_20(
    table: Table, system: str, ability: str
) -> None:
    await start_campaign(table, system)
    await _join(table, 1, 6, {ability: 10})
    await table.gm.slash(table.table, "groupsave", ability=ability, dc=12)  # seed and chain
    six = await _group_save_statements(table, 6, ability)
    await _join(table, 7, 20, {ability: 10})
    twenty = await _group_save_statements(table, 20, ability)
    # A critical (threshold ruling 4) leaves carry-overs: one statement stores them all,
    # whether one member rolled it or many, and none runs when nobody did.
    stored = [
        [s for s in seen if s.startswith("INSERT INTO pending_modifiers")] for seen in (six, twenty)
    ]
    assert all(len(found) <= 1 for found in stored)
    rest = [
        [s for s in seen if not s.startswith("INSERT INTO pending_modifiers")]
        for seen in (six, twenty)
    ]
    # BEGIN, the campaign with its party, the draws, (threshold) the carry-overs taken, the
    # chain's bump, the rows (the group's with its members'), their salts, their names, COMMIT.
    most = 8 + (system == "threshold")
    assert len(rest[0]) == len(rest[1]) <= most, "\n".join(s[:120] for s in twenty)
