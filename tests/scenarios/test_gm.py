"""The /gm rolls: for GMs only, a /gm check blind unless the campaign says otherwise, and a GM's
own blind check shown to that GM.

Tests bot/cogs/gm.py and bot/cogs/_gm.py (the /gm group).
"""

from __future__ import annotations

from bot.db.models import Visibility
from tests.fixtures.table import Table, make_character, message_text
from tests.scenarios.test_secrecy import _NOISE, _latest, _setup, seen_by, shows, shows_any


async def test_players_cannot_use_gm_rolls(table: Table) -> None:
    await _setup(table, "d20-check")
    refused = await table.alice.slash(table.table, "gm check", character="Ayla", ability="DEX")
    assert refused.ephemeral and refused.response is not None
    assert "Only the campaign's GM" in refused.response.content
    refused = await table.alice.slash(table.table, "gm roll", dice="1d20")
    assert refused.response is not None and "Only the campaign's GM" in refused.response.content


async def test_gm_check_defaults_to_blind_and_campaign_defaults_apply(table: Table) -> None:
    gm_channel = await _setup(table, "d20-check")
    table.dice(17)
    await table.gm.slash(table.table, "gm check", character="Ayla", ability="DEX")
    assert (await _latest(table)).visibility is Visibility.BLIND
    assert not shows_any(seen_by(table, table.alice, gm_channel), ["17", "27"])
    changed = await table.gm.slash(table.table, "campaign set secrecy", command="check", mode="gm")
    assert changed.response is not None and "/check gm" in message_text(changed.response)
    table.dice(18)
    await table.alice.slash(table.table, "check", ability="DEX")
    assert (await _latest(table)).visibility is Visibility.GM
    assert not shows_any(seen_by(table, table.bob, gm_channel), ["18", "28"])


async def test_a_gms_own_blind_check_is_shown_to_the_gm(table: Table) -> None:
    gm_channel = await _setup(table, "d20-check")
    await make_character(table, table.gm, "Gus", {"DEX": 30})
    table.dice(17)
    result = await table.gm.slash(table.table, "check", ability="DEX", secret="blind")
    answers = "\n".join(message_text(m) for m in result.followups)
    assert shows(_NOISE.sub(" ", answers), ["17", "27"]), answers
    assert "you will learn the result" not in answers
    assert not shows_any(seen_by(table, table.bob, gm_channel), ["17", "27"])
