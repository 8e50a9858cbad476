"""Targets belong to someone, and the last rule points follow the texts.

A player's attack changes another player's character's sheet only with the character's own AC
and armour (its sheet), or when the GM runs it; a critical hit's damage is rolled as normal
("Roll all of the attack's damage dice, add any relevant modifiers as normal"); a luck roll's
natural 20 is traded only where the GM rules the best luck brings nothing more, an attempt's
always; a Pen & Dagger attempt by proficiency needs no score; numbers carry a true minus.
"""

from __future__ import annotations

from bot.services.store.campaigns import campaign_for_channel
from bot.services.store.characters import get_character
from tests.fixtures.table import (
    Table,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)
from tests.scenarios.test_attacks import _rows


async def _bram(table: Table) -> int:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return (await get_character(table.bot.db, campaign.id, "Bram")).ac_loss


async def _crit_table(table: Table) -> None:
    await start_campaign(table, "d20-check")
    done = await table.gm.slash(table.table, "campaign set crit-rules", on=True)
    assert done.response is not None
    await make_character(table, table.alice, "Brannoc", {"STR": 16})
    await make_character(table, table.bob, "Bram", {"DEX": 14})


async def test_a_player_cannot_wreck_another_players_armour_by_stating_its_ac(
    table: Table,
) -> None:
    # The finding: `/attack target:Bram ac:1 damage:20d6`, a natural 20: up to 100 lost AC.
    await _crit_table(table)
    table.dice(20)
    result = await table.alice.slash(table.table, "attack", target="Bram", ac=1, damage="20d6")
    assert result.response is not None and not result.ephemeral
    text = message_text(result.response)
    assert "**Critical Hit**" in text and "not stored on Bram's sheet" in text
    assert await _bram(table) == 0
    assert (await _rows(table))[0].outcome["sheet_changes"] is False


async def test_once_bram_has_his_own_ac_an_attack_uses_it_and_refuses_another(
    table: Table,
) -> None:
    await _crit_table(table)
    done = await table.bob.slash(table.table, "character armour", ac=17, quality="Master")
    assert done.response is not None and "Armour saved" in done.response.content
    for stated in ({"ac": 1}, {"armour_quality": "Novice"}):
        refused = await table.alice.slash(
            table.table, "attack", target="Bram", damage="20d6", **stated
        )
        assert refused.ephemeral and refused.response is not None
        assert "their own sheet (AC 17, Master armour)" in refused.response.content
    assert await _rows(table) == []
    # Against his own AC 17 and Master armour: the save (a 3 + 2 = 5) fails, the damage lands.
    table.dice(20, 3)
    hit = await table.alice.slash(table.table, "attack", target="Bram", damage="1d6")
    assert hit.response is not None
    text = message_text(hit.response)
    assert "17 (Bram's own)" in text and "the armour gives way" in text
    lost = (await _rows(table))[0].outcome["ac_lost"]
    assert 1 <= lost <= 6 and await _bram(table) == lost


async def test_an_inline_attack_in_a_post_cannot_wreck_it_either(table: Table) -> None:
    await _crit_table(table)
    table.dice(20)
    posted = await table.alice.slash(
        table.table, "post", text="I swing! [[attack target:Bram ac:1 damage:20d6]]"
    )
    assert posted.response is not None
    assert await _bram(table) == 0
    refused = await table.alice.slash(
        table.table, "post", text="[[attack target:Bram damage:20d6]]"
    )
    assert refused.ephemeral and refused.response is not None
    assert "Armour Class" in message_text(refused.response)


async def test_a_hidden_player_attack_stores_nothing_on_bram_when_revealed(table: Table) -> None:
    await _crit_table(table)
    table.dice(20)
    await table.alice.slash(
        table.table, "attack", target="Bram", ac=1, damage="20d6", secret="blind"
    )
    row = (await _rows(table))[0]
    revealed = await table.gm.slash(table.table, "reveal", roll=row.number)
    assert "Critical Hit" in message_text(final_answer(revealed))
    assert await _bram(table) == 0


async def test_the_gm_runs_an_attack_on_brams_sheet_with_the_stated_ac(table: Table) -> None:
    await _crit_table(table)
    table.dice(20)
    result = await table.gm.slash(
        table.table,
        "gm attack",
        ac=12,
        attacker_bonus=4,
        monster="Ogre",
        damage="1d4",
        target="Bram",
        secret="public",
    )
    assert result.response is not None
    lost = (await _rows(table))[0].outcome["ac_lost"]
    assert 1 <= lost <= 4 and await _bram(table) == lost


async def test_a_critical_rolls_its_damage_once_unless_the_gm_doubles_it(table: Table) -> None:
    await _crit_table(table)
    table.dice(20)
    await table.alice.slash(table.table, "attack", ac=10, damage="3d6+2")
    damage = (await _rows(table))[0].outcome["damage"]
    assert damage["again"] is None
    assert damage["total"] == damage["roll"]["terms"][0]["subtotal"] + 2
    done = await table.gm.slash(table.table, "campaign set crit-damage", double=True)
    assert done.response is not None and "every die twice" in message_text(done.response)
    table.dice(20)
    doubled = await table.alice.slash(table.table, "attack", ac=10, damage="3d6+2")
    assert doubled.response is not None
    assert "every damage die again" in message_text(doubled.response)
    damage = (await _rows(table))[0].outcome["damage"]
    first = damage["roll"]["terms"][0]["subtotal"]
    again = damage["again"]["terms"][0]["subtotal"]
    assert damage["total"] == first + again + 2


async def test_a_pen_and_dagger_attempt_by_proficiency_needs_no_score(table: Table) -> None:
    # "Attempts": the rank is the proficiency's; the ability score plays no part then.
    await start_campaign(table, "pen-and-dagger")
    created = await table.alice.slash(table.table, "character create", name="Angus")
    assert created.response is not None
    done = await table.alice.slash(
        table.table, "character proficiency", name="Stealth", value="Adept"
    )
    assert done.response is not None and "Proficiency saved" in done.response.content
    table.dice(15)
    result = await table.alice.slash(table.table, "check", ability="DEX", proficiency="Stealth")
    assert result.response is not None and not result.ephemeral, result.response.content
    text = message_text(result.response)
    assert "DEX (Stealth) attempt" in text and "Adept" in text
    # Without the proficiency the score is still needed, and said so.
    table.dice(15)
    bare = await table.alice.slash(table.table, "check", ability="DEX")
    assert bare.ephemeral and bare.response is not None
    assert "DEX" in bare.response.content


async def test_roll_under_initiative_prints_a_true_minus_sign(table: Table) -> None:
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Ann", {"AGI": 3})
    await make_character(table, table.bob, "Bo", {"AGI": 12})
    table.dice(10, 5)
    started = await table.gm.slash(
        table.table, "turns start", characters="Ann, Bo", order="initiative"
    )
    assert started.response is not None
    text = message_text(started.response)
    assert "AGI 3 − d20 **10** = **−7**" in text and "**-7**" not in text


async def test_a_halved_proficiency_is_offered_and_adds_half_the_bonus(table: Table) -> None:
    # "your proficiency bonus might be multiplied or divided (doubled or halved, for example)
    # before you apply it": level 5 has +3; halved, rounded down, +1.
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Vex", {"STR": 10})
    await table.alice.slash(table.table, "character level", value=5)
    offered = await table.alice.autocomplete(
        table.table, "character proficiency", "value", "ha", name="Athletics"
    )
    assert "Half" in [c["name"] for c in offered]
    done = await table.alice.slash(
        table.table, "character proficiency", name="Athletics", value="Half"
    )
    assert done.response is not None and "Proficiency saved" in done.response.content
    table.dice(10)
    result = await table.alice.slash(
        table.table, "check", ability="STR", proficiency="Athletics", dc=11
    )
    assert result.response is not None
    text = message_text(result.response)
    assert "+1 Athletics (Half)" in text and "**11**" in text and "Success" in text
