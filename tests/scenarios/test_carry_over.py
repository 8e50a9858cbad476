"""Threshold carry-over (ruling 4): stored, shown, used once, cleared by the GM."""

from __future__ import annotations

from typing import Any

from simcord.actors import MemberActor

from bot.services.store import ledger
from bot.services.store.campaigns import campaign_for_channel
from tests.fixtures.table import Table, make_character, message_text, start_campaign
from tests.scenarios.test_secrecy import _latest
from tests.scripted import ScriptedRandom


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


# --- a carry-over earned on a hidden roll (threshold ruling 4) ---------------------------------


async def _hidden_fumble(table: Table, rng: ScriptedRandom, **how: Any) -> int:
    """Mira's DEX test rolls a natural 1 (critical failure: −2 carry-over) in secret."""
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Mira", {"DEX": 2})
    rng.faces.append(1)
    if how.get("by_gm", True):
        await table.gm.slash(table.table, "gm check", character="Mira", ability="DEX", dc=5)
    else:
        await table.alice.slash(table.table, "check", ability="DEX", dc=5, secret=how["secret"])
    return (await _latest(table)).number


async def _rows(table: Table) -> list[ledger.RollView]:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return await ledger.latest_rolls(table.bot.db, campaign.id, limit=20)


async def sheet(table: Table, viewer: MemberActor) -> str:
    shown = await viewer.slash(table.table, "character show", name="Mira")
    assert shown.response is not None
    return message_text(shown.response)


async def test_a_blind_critical_is_stored_only_when_the_gm_reveals_it(
    table: Table, rng: ScriptedRandom
) -> None:
    """A hidden roll changes nothing others can observe until it is revealed; at
    the reveal its carry-over counts for the next test, even after a test made in between."""
    roll_id = await _hidden_fumble(table, rng)  # /gm check is blind by default
    for viewer in (table.alice, table.bob, table.gm):
        assert "Carry-over" not in await sheet(table, viewer)

    rng.faces.append(10)
    next_test = await table.alice.slash(table.table, "check", ability="DEX", dc=5)
    text = message_text(next_test.response)
    assert "critical carry-over" not in text and "10 +2 DEX = **12**" in text

    await table.gm.slash(table.table, "reveal", roll=roll_id)
    seen = await sheet(table, table.bob)
    assert "Carry-over: −2 on the next DEX test" in seen and "waiting" not in seen
    rng.faces.append(10)
    used = await table.alice.slash(table.table, "check", ability="DEX", dc=5)
    assert "10 +2 DEX −2 critical carry-over = **10**" in message_text(used.response)
    assert "Carry-over" not in await sheet(table, table.bob)


async def test_a_revealed_critical_replaces_the_carry_over_pending_then(
    table: Table, rng: ScriptedRandom
) -> None:
    """At the reveal the hidden critical's carry-over is set as a new critical's
    would be, replacing the one a later public critical left."""
    roll_id = await _hidden_fumble(table, rng)  # blind −2, not stored yet
    rng.faces.append(20)
    await table.alice.slash(table.table, "check", ability="DEX", dc=5)
    assert "Carry-over: +2 on the next DEX test" in await sheet(table, table.bob)
    await table.gm.slash(table.table, "reveal", roll=roll_id)
    assert "Carry-over: −2 on the next DEX test" in await sheet(table, table.bob)


async def test_a_gm_mode_critical_is_stored_at_its_reveal_for_everyone(
    table: Table, rng: ScriptedRandom
) -> None:
    roll_id = await _hidden_fumble(table, rng, by_gm=False, secret="gm")
    for viewer in (table.alice, table.gm, table.bob):
        assert "Carry-over" not in await sheet(table, viewer)
    # Nothing for the GM to clear yet, exactly as after a test that was no critical.
    nothing = await table.gm.slash(table.table, "gm clear-modifier", character="Mira")
    assert nothing.ephemeral and "no carry-over modifier" in message_text(nothing.response)

    await table.gm.slash(table.table, "reveal", roll=roll_id)
    assert "Carry-over: −2 on the next DEX test" in await sheet(table, table.bob)
    cleared = await table.gm.slash(table.table, "gm clear-modifier", character="Mira")
    assert "−2 on the next DEX test" in message_text(cleared.response)
    assert "Carry-over" not in await sheet(table, table.gm)


async def test_a_self_critical_is_stored_when_its_roller_reveals_it(
    table: Table, rng: ScriptedRandom
) -> None:
    roll_id = await _hidden_fumble(table, rng, by_gm=False, secret="self")
    for viewer in (table.alice, table.gm, table.bob):
        assert "Carry-over" not in await sheet(table, viewer)
    await table.alice.slash(table.table, "reveal", roll=roll_id)
    assert "Carry-over: −2 on the next DEX test" in await sheet(table, table.bob)


async def test_odds_use_only_the_carry_over_the_next_test_would_use(
    table: Table, rng: ScriptedRandom
) -> None:
    roll_id = await _hidden_fumble(table, rng)  # blind: the −2 waits for the reveal
    waiting = await table.alice.slash(table.table, "odds check", ability="DEX", dc=12)
    text = message_text(waiting.response)
    assert "carry-over" not in text
    # Mira's DEX modifier is +2: 10 or better on the d20 makes 12, 11 of 20 faces.
    assert "exactly 11/20" in text
    await table.gm.slash(table.table, "reveal", roll=roll_id)
    active = await table.alice.slash(table.table, "odds check", ability="DEX", dc=12)
    text = message_text(active.response)
    assert "carry-over −2" in text and "exactly 9/20" in text


async def test_revealing_one_request_row_leaves_a_newer_carry_over_alone(
    table: Table, rng: ScriptedRandom
) -> None:
    """A hidden-DC request row stored its carry-over when rolled (its die is shown to all);
    revealing that row alone must not bring it back over a newer critical's (ruling 4)."""
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Mira", {"DEX": 2})
    await table.gm.slash(
        table.table, "gm request roll", ability="DEX", characters="Mira", hidden_dc=15
    )
    request = next(
        m
        for m in reversed(table.table.history())
        if m.embeds and (m.embeds[0].title or "").startswith("Roll request #")
    )
    rng.faces.append(20)
    await table.alice.click(request, label="Roll")
    request_row = next(
        r for r in await _rows(table) if r.kind == "test" and r.visibility.value == "blind"
    )
    rng.faces.append(1)
    await table.alice.slash(table.table, "check", ability="DEX", dc=5)
    assert "Carry-over: −2 on the next DEX test" in await sheet(table, table.bob)

    shown = await table.gm.slash(table.table, "reveal", roll=request_row.number)
    assert shown.response is not None and not shown.ephemeral
    assert "Carry-over: −2 on the next DEX test" in await sheet(table, table.bob)


async def test_the_rollers_own_copy_says_the_carry_over_waits_for_the_reveal(
    table: Table, rng: ScriptedRandom
) -> None:
    """The roller of a hidden critical is not told it counts on the next test."""
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Mira", {"DEX": 2})
    rng.faces.append(1)
    own = await table.alice.slash(table.table, "check", ability="DEX", dc=5, secret="self")
    assert own.response is not None and own.ephemeral
    said = message_text(own.response)
    assert "−2 on the next DEX test, from when the roll is revealed" in said
    rng.faces.append(1)
    public = await table.alice.slash(table.table, "check", ability="DEX", dc=5)
    said = message_text(public.response)
    assert "−2 on the next DEX test" in said and "revealed" not in said
