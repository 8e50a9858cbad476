"""/reroll of attack rolls (d20 check).

The text's reroll rule sits with Advantage and Disadvantage, which come "on an ability check,
a saving throw, or an attack roll": "When you have Advantage or Disadvantage and something in
the game lets you reroll the d20, you can reroll only one of the dice. You choose which one."
So an attack is rerolled as a check is. Where the text is silent, the project's ruling
(docs/rules/d20-check.md): a miss that becomes a hit rolls its damage, a hit that stays a hit
keeps its damage dice, a hit that becomes a miss deals none; a critical's lost AC ("the damage
you do is also applied to the AC of the target") follows the reroll, on the target's sheet in
the reroll's own transaction, and for a hidden attack only as the rolls are revealed.

Brannoc: STR 16 (+3), level 1 (+2): he attacks at +5. Bram is Bob's character, AC 16.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.services.kit.context import Caller
from bot.services.store import ledger
from bot.services.store.campaigns import campaign_for_channel
from bot.services.store.characters import get_character
from bot.services.trust import secrecy
from tests.fixtures.table import (
    Table,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)
from tests.scenarios.test_secrecy import _NOISE, shows_any
from tests.scripted import ScriptedRandom


async def _rows(table: Table) -> list[ledger.RollView]:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return await ledger.latest_rolls(table.bot.db, campaign.id, limit=20)


async def _bram(table: Table) -> int:
    """The AC critical hits have taken from Bram, as his sheet stores it."""
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return (await get_character(table.bot.db, campaign.id, "Bram")).ac_loss


async def _table(table: Table, *, crit_rules: bool = False) -> None:
    await start_campaign(table, "d20-check")
    done = await table.gm.slash(table.table, "campaign set rerolls", on=True)
    assert done.response is not None
    if crit_rules:
        done = await table.gm.slash(table.table, "campaign set crit-rules", on=True)
        assert done.response is not None and "Setting saved" in done.response.content
    await make_character(table, table.alice, "Brannoc", {"STR": 16})
    await make_character(table, table.bob, "Bram", {"DEX": 14})
    armour = await table.bob.slash(table.table, "character armour", ac=16)
    assert armour.response is not None and "Armour saved" in armour.response.content


def _used(table: Table) -> int:
    rng = table.bot.rng
    assert isinstance(rng, ScriptedRandom)
    return rng.used


async def test_an_attack_with_disadvantage_has_one_die_rerolled_and_a_new_hit_rolls_damage(
    table: Table,
) -> None:
    await _table(table)
    table.dice(17, 5)  # disadvantage: 5 + 5 = 10 against AC 15, a miss: no damage rolled
    first = await table.alice.slash(table.table, "attack", ac=15, damage="1d8+3", disadvantage=True)
    assert first.response is not None and "**Miss**" in message_text(first.response)
    original = (await _rows(table))[0]
    # "You choose which one": the second die, 5, becomes 15; 17 and 15 keep 15: 20, a hit.
    # A miss that becomes a hit rolls its damage now: the d8 shows 6, 6 + 3 = 9.
    table.dice(15, 6)
    result = await table.alice.slash(table.table, "reroll", die="second")
    assert result.response is not None and not result.ephemeral
    text = message_text(result.response)
    assert f"Brannoc: STR attack, second die rerolled (roll #{original.number})" in text
    assert "~~17~~, **15** (disadvantage)" in text
    assert "15 +3 STR +2 proficiency = **20**" in text and "**Hit**" in text
    assert "**9 damage**" in text
    assert f"Roll #{original.number} missed: the damage is rolled now." in text
    assert f"second die 5 → **15** (roll #{original.number} stays in the log" in text
    rows = await _rows(table)
    assert [r.kind for r in rows[:2]] == ["d20-reroll", "attack"]
    assert rows[0].outcome["original_id"] == original.id and rows[0].dice == [15]
    assert rows[0].outcome["damage"]["total"] == 9
    # The original stays as rolled: the miss, no damage.
    assert rows[1].outcome == original.outcome and rows[1].dice == [17, 5]
    # The log says what the reroll did.
    log = await table.bob.slash(table.table, "history")
    assert log.response is not None
    assert "second die 5 rerolled:" in message_text(log.response)
    # A die is rerolled once: the latest roll is now the reroll.
    again = await table.alice.slash(table.table, "reroll", die="first")
    assert again.ephemeral and again.response is not None
    assert "already a reroll" in again.response.content
    assert len(await _rows(table)) == 2


async def test_a_hit_that_stays_a_hit_keeps_its_damage_and_one_that_misses_deals_none(
    table: Table,
) -> None:
    await _table(table)
    table.dice(14, 3, 5)  # advantage: 14 + 5 = 19 against AC 15, a hit; the d8 shows 5: 8
    await table.alice.slash(table.table, "attack", ac=15, damage="1d8+3", advantage=True)
    hit = (await _rows(table))[0]
    assert hit.outcome["damage"]["total"] == 8
    # The 3 becomes 11: 14 is still kept, the same hit. The reroll is of the d20: the damage
    # dice stand as they fell, and no die but the d20 is rolled.
    before = _used(table)
    table.dice(11)
    kept = await table.alice.slash(table.table, "reroll", die="second")
    assert _used(table) == before + 1
    assert kept.response is not None
    text = message_text(kept.response)
    assert "**Hit**" in text and "**8 damage**" in text
    assert f"`1d8+3` = 8, as roll #{hit.number} rolled it" in text
    assert f"The damage stands as roll #{hit.number} rolled it" in text
    row = (await _rows(table))[0]
    assert row.outcome["damage"]["total"] == 8
    assert row.outcome["damage"]["kept_from"] == hit.number
    assert row.outcome["damage"]["roll"] == hit.outcome["damage"]["roll"]

    table.dice(15, 12, 4)  # disadvantage: 12 + 5 = 17, a hit; the d8 shows 4: 7 damage
    await table.alice.slash(table.table, "attack", ac=15, damage="1d8+3", disadvantage=True)
    second = (await _rows(table))[0]
    table.dice(2)  # the 15 becomes 2: 2 and 12 keep 2: 7, a miss
    missed = await table.alice.slash(table.table, "reroll", die="first")
    assert missed.response is not None
    text = message_text(missed.response)
    assert "**Miss**" in text and f"Roll #{second.number}'s 7 damage is not dealt." in text
    assert (await _rows(table))[0].outcome["damage"] is None


async def test_a_reroll_corrects_the_ac_a_public_critical_took_from_its_target(
    table: Table,
) -> None:
    # "The damage you do is also applied to the AC of the target": the reroll's result is
    # what counts, so the target's sheet follows it, in the reroll's own transaction.
    await _table(table, crit_rules=True)
    table.dice(20, 4, 5)  # advantage: a natural 20, 25 against 16: a Critical Hit; d8 5: 8
    crit = await table.alice.slash(
        table.table, "attack", target="Bram", damage="1d8+3", advantage=True
    )
    assert crit.response is not None and "**Critical Hit**" in message_text(crit.response)
    original = (await _rows(table))[0]
    assert await _bram(table) == 8
    table.dice(6)  # the 20 becomes 6: 6 and 4 keep 6: 11 against 16, a miss
    result = await table.alice.slash(table.table, "reroll", die="first")
    assert result.response is not None
    text = message_text(result.response)
    assert "**Miss**" in text and "Brannoc: STR attack, first die rerolled" in text
    assert f"Roll #{original.number}'s 8 damage is not dealt." in text
    assert (
        f"Roll #{original.number}'s critical took 8 from Bram's AC, this one takes 0: "
        "Bram's AC is now 16." in text
    )
    assert await _bram(table) == 0
    sheet = await table.bob.slash(table.table, "character show")
    assert sheet.response is not None and "lowered by" not in message_text(sheet.response)

    # The other way: a miss that the reroll makes a Critical Hit lowers his AC then.
    table.dice(3, 4)  # advantage: 4 + 5 = 9, a miss
    await table.alice.slash(table.table, "attack", target="Bram", damage="1d8+3", advantage=True)
    table.dice(20, 2)  # the 3 becomes 20: a Critical Hit; the d8 shows 2: 5 damage
    made = await table.alice.slash(table.table, "reroll", die="first")
    assert made.response is not None
    text = message_text(made.response)
    assert "**Critical Hit**" in text and "**5 damage**" in text
    assert "lowered by 5: Bram's AC is now 11" in text
    assert await _bram(table) == 5
    # The next attack on him is against the lowered AC, as after any critical.
    table.dice(2)
    later = await table.alice.slash(table.table, "attack", target="Bram")
    assert later.response is not None
    assert "16 (Bram's own) − 5 (critical hits) = 11" in message_text(later.response)


async def test_a_new_critical_rolls_the_armours_save_and_a_kept_one_keeps_it(
    table: Table,
) -> None:
    # "Higher quality objects have a save against the Critical": the save is a roll of its
    # own. A critical that stays a critical keeps it; a new one rolls it.
    await _table(table, crit_rules=True)
    done = await table.bob.slash(table.table, "character armour", ac=16, quality="Master")
    assert done.response is not None
    table.dice(4, 3)  # advantage: 4 + 5 = 9, a miss
    await table.alice.slash(table.table, "attack", target="Bram", damage="1d6", advantage=True)
    table.dice(20, 9, 4)  # a Critical Hit; Master save d20 9 + 2 = 11 ≥ 10: the armour holds
    held = await table.alice.slash(table.table, "reroll", die="second")
    assert held.response is not None
    text = message_text(held.response)
    assert "**Critical Hit — the armour holds**" in text
    assert "d20 9 +2 (Master) = **11** against DC 10" in text
    assert await _bram(table) == 0


@pytest.mark.parametrize("first_revealed", ["attack", "reroll"])
@pytest.mark.parametrize("rerolled", ["critical into miss", "miss into critical"])
async def test_a_hidden_attacks_reroll_changes_the_targets_ac_only_as_it_is_revealed(
    table: Table, rerolled: str, first_revealed: str
) -> None:
    # A hidden attack changes nothing others can observe until it is revealed (the AC its
    # critical takes is stored by the reveal); its reroll is hidden too. Revealed in either
    # order, Bram's sheet ends with what the reroll says; in between, with what is shown.
    await _table(table, crit_rules=True)
    crit_first = rerolled == "critical into miss"
    table.dice(*((20, 4, 5) if crit_first else (3, 4)))
    await table.alice.slash(
        table.table,
        "attack",
        target="Bram",
        damage="1d8+3",
        advantage=True,
        secret="gm",
    )
    original = (await _rows(table))[0]
    table.dice(*((6,) if crit_first else (20, 5)))
    done = await table.alice.slash(table.table, "reroll", die="first")
    assert done.response is not None
    reroll = (await _rows(table))[0]
    assert reroll.kind == "d20-reroll" and reroll.visibility.value == "gm"
    assert reroll.outcome["ac_lost"] == (0 if crit_first else 8)
    assert await _bram(table) == 0
    # Bob sees the reroll's stub and nothing of it.
    public = [message_text(m) for m in table.table.history(viewer=table.bob)]
    stubs = [t for t in public if "first die rerolled" in t]
    assert len(stubs) == 1 and "in secret" in stubs[0]
    for word in ("Miss", "Critical", "damage", "AC is now"):
        assert word not in stubs[0]
    # Alice, who may see it, is told it waits for the reveals.
    seen = "\n".join(message_text(m) for m in [done.response, *done.followups])
    assert (
        f"Roll #{original.number}'s critical took {original.outcome['ac_lost']} from Bram's "
        f"AC, this one takes {reroll.outcome['ac_lost']}: stored for Bram when the rolls are "
        "revealed." in seen
    )

    order = [original, reroll] if first_revealed == "attack" else [reroll, original]
    expected = {
        ("critical into miss", "attack"): [8, 0],
        ("critical into miss", "reroll"): [0, 0],
        ("miss into critical", "attack"): [0, 8],
        ("miss into critical", "reroll"): [8, 8],
    }[(rerolled, first_revealed)]
    for row, loss in zip(order, expected, strict=True):
        shown = await table.gm.slash(table.table, "reveal", roll=row.number)
        assert shown.response is not None and not shown.ephemeral
        assert await _bram(table) == loss
    # Both rows still check: their commitments, and the campaign's whole hash chain.
    for row in (original, reroll):
        checked = await table.bob.slash(table.table, "verify", roll=row.number)
        assert checked.response is not None
        assert "the commitment matches" in message_text(checked.response)
    chain = await table.bob.slash(table.table, "verify", log=True)
    assert chain.response is not None
    assert "The game log is intact" in message_text(chain.response)


async def test_the_gm_rerolls_a_monsters_blind_attack_and_it_stays_blind(table: Table) -> None:
    await _table(table)
    table.dice(3, 4)  # advantage: 4 + 4 = 8 against AC 15, a miss
    await table.gm.slash(
        table.table,
        "gm attack",
        attacker_bonus=4,
        monster="Ogre",
        ac=15,
        advantage=True,
    )
    original = (await _rows(table))[0]
    assert original.visibility.value == "blind"
    table.dice(18)  # the 3 becomes 18: 22, a hit
    done = await table.gm.slash(table.table, "reroll", die="first")
    assert "in secret" in message_text(final_answer(done))
    # The full result goes where the GM reads hidden rolls: the GM channel.
    text = "\n".join(message_text(m) for m in table.gm_channel.history(viewer=table.gm))
    assert f"Ogre: attack, first die rerolled (roll #{original.number})" in text
    assert "18 +4 attack bonus = **22**" in text and "**Hit**" in text
    row = (await _rows(table))[0]
    assert row.kind == "d20-reroll" and row.visibility.value == "blind"
    assert row.character_name == "Ogre" and row.character_id is None
    # In #table (this test's GM channel is open to everyone), only the stubs.
    public = _NOISE.sub(
        " ", "\n".join(message_text(m) for m in table.table.history(viewer=table.bob))
    )
    assert not shows_any(public, ["22", "Hit", "18"])


async def test_an_attack_without_advantage_has_no_die_to_choose(table: Table) -> None:
    await _table(table)
    table.dice(9)
    await table.alice.slash(table.table, "attack", ac=15)
    refused = await table.alice.slash(table.table, "reroll", die="first")
    assert refused.ephemeral and refused.response is not None
    assert "without advantage or disadvantage" in refused.response.content
    assert [r.kind for r in await _rows(table)] == ["attack"]


async def test_erasing_the_targets_player_erases_his_name_in_the_reroll_too(table: Table) -> None:
    # An erasure finds the rows that name a person by id (docs/privacy.md): the reroll of an
    # attack on Bram names him as the attack does.
    await _table(table)
    table.dice(3, 4)
    await table.alice.slash(table.table, "attack", target="Bram", advantage=True)
    table.dice(18)
    await table.alice.slash(table.table, "reroll", die="first")
    asked = await table.bob.slash(table.table, "privacy delete")
    assert asked.response is not None
    done = await table.bob.click(asked.response, label="Erase my data")
    assert done.response is not None and "erased" in done.response.content
    rows = await _rows(table)
    assert [r.kind for r in rows] == ["d20-reroll", "attack"]
    for row in rows:
        assert row.outcome["target"] == "[erased]", row.kind
        assert "Bram" not in json.dumps(row.outcome)
    logged = await table.alice.slash(table.table, "verify", log=True)
    assert logged.response is not None and "intact" in message_text(logged.response).lower()


async def test_an_attack_and_its_reroll_revealed_at_once_end_with_the_rerolls_loss(
    table: Table,
) -> None:
    # Two GMs (or one, twice quickly) reveal the hidden attack and its reroll at the same
    # moment: each reveal reads the other row, so they must see each other, or Bram would
    # keep the critical the reroll took back.
    await _table(table, crit_rules=True)
    gm = Caller(
        user_id=table.gm.id,
        channel_id=table.table.id,
        guild_id=table.guild.id,
        role_ids=frozenset({table.gm_role.id}),
    )
    for _ in range(3):
        table.dice(20, 4, 5)  # a hidden Critical Hit, 8 damage
        await table.alice.slash(
            table.table, "attack", target="Bram", damage="1d8+3", advantage=True, secret="gm"
        )
        table.dice(6)  # rerolled into a miss
        await table.alice.slash(table.table, "reroll", die="first")
        reroll, original = (await _rows(table))[:2]
        await asyncio.gather(
            secrecy.reveal(table.bot.db, gm, original.number),
            secrecy.reveal(table.bot.db, gm, reroll.number),
        )
        assert await _bram(table) == 0


async def test_an_attack_recorded_before_attacks_could_be_rerolled_is_refused(
    table: Table,
) -> None:
    # A row from before the record held its damage dice and items: a reroll could not know
    # the save or the damage a new result needs, so it says so and changes nothing.
    await _table(table)
    table.dice(3, 4)
    await table.alice.slash(table.table, "attack", ac=15, damage="1d8", advantage=True)
    new = (await _rows(table))[0]
    old = {k: v for k, v in new.outcome.items() if k != "inputs"}
    await ledger.record(
        table.bot.db,
        ledger.NewRoll(
            origin=ledger.Origin(channel_id=table.table.id, user_id=table.alice.id),
            kind="attack",
            request="/attack ac:15 damage:1d8 advantage:True",
            dice=new.dice,
            outcome=old,
            campaign_id=new.campaign_id,
            character_id=new.character_id,
            character_name=new.character_name,
        ),
    )
    refused = await table.alice.slash(table.table, "reroll", die="first")
    assert refused.ephemeral and refused.response is not None
    assert "recorded before attacks could be rerolled" in refused.response.content
    assert "Nothing changed" in refused.response.content
    assert [r.kind for r in await _rows(table)] == ["attack", "attack"]


async def test_a_pen_and_dagger_attack_is_an_attempt_a_fortune_die_rerolls(table: Table) -> None:
    # Pen & Dagger's reroll is its own: "Offensive attempts, also referred to as attacks or
    # attack rolls" are attempts, and a fortune die can "Reroll an attempt or luck roll that
    # did not result in a 1 until you are lucky or get a better success level".
    await start_campaign(table, "pen-and-dagger")
    await table.alice.slash(table.table, "character create", name="Angus")
    done = await table.alice.slash(
        table.table, "character proficiency", name="Longsword", value="Adept"
    )
    assert done.response is not None and "Proficiency saved" in done.response.content
    await table.gm.slash(table.table, "fortune give", character="Angus", count=1)
    table.dice(2)
    swing = await table.alice.slash(table.table, "check", ability="STR", proficiency="Longsword")
    assert swing.response is not None and "STR (Longsword) attempt" in message_text(swing.response)
    table.dice(20)
    rerolled = await table.alice.slash(table.table, "fortune spend", purpose="reroll")
    assert rerolled.response is not None and not rerolled.ephemeral
    assert "reroll of roll #" in message_text(rerolled.response)
    assert [r.kind for r in await _rows(table)][:2] == ["reroll", "attempt"]
