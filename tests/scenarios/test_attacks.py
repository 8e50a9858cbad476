"""/attack, /gm attack and /odds attack (d20 check "Critical Hits & Fumbles"), exact dice.

The numbers are the rule text's: a critical is "a natural roll of 20 plus modifiers that is
still able to hit"; quality saves are DC 10 with +1 Adept, +2 Master, +3 Grand Master; magic
items save against DC 10 minus their bonus and add +3.

Tests bot/cogs/attack.py, bot/services/rolling/attacks.py and bot/render/attacks.py.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from bot.render.odds import percent
from bot.services.store import ledger
from bot.services.store.campaigns import campaign_for_channel
from bot.services.store.characters import get_character
from tests.fixtures.table import Table, make_character, message_text, start_campaign
from tests.scenarios.test_secrecy import _setup as secrecy_setup
from tests.scenarios.test_secrecy import seen_by, shows, shows_any


async def _campaign_id(table: Table) -> int:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return campaign.id


async def _rows(table: Table) -> list[ledger.RollView]:
    return await ledger.latest_rolls(table.bot.db, await _campaign_id(table), limit=20)


async def _crit_campaign(table: Table, crit_rules: bool = True) -> None:
    await start_campaign(table, "d20-check")
    if crit_rules:
        done = await table.gm.slash(table.table, "campaign set crit-rules", on=True)
        assert done.response is not None and "Setting saved" in done.response.content
    # Brannoc: STR 16 (+3), level 1 (+2): attacks at +5.
    await make_character(table, table.alice, "Brannoc", {"STR": 16, "DEX": 12})
    await make_character(table, table.bob, "Sybilla", {"DEX": 14})


async def test_a_hit_rolls_damage_and_a_miss_does_not(table: Table) -> None:
    await _crit_campaign(table, crit_rules=False)
    table.dice(10)  # 10 + 3 STR + 2 proficiency = 15 against AC 15: a hit
    hit = await table.alice.slash(table.table, "attack", ac=15, damage="1d8+3")
    assert hit.response is not None and not hit.ephemeral
    text = message_text(hit.response)
    assert "Brannoc: STR attack" in text and "**Hit**" in text
    assert "10 +3 STR +2 proficiency = **15**" in text
    row = (await _rows(table))[0]
    assert row.kind == "attack" and row.dice == [10]
    damage = row.outcome["damage"]["total"]
    assert 4 <= damage <= 11 and f"**{damage} damage**" in text
    table.dice(9)  # 14: a miss, no damage rolled
    miss = await table.alice.slash(table.table, "attack", ac=15, damage="1d8+3")
    assert miss.response is not None
    assert "**Miss**" in message_text(miss.response)
    assert "damage" not in message_text(miss.response).lower().replace("damage:", "")
    assert (await _rows(table))[0].outcome["damage"] is None


async def test_crit_rules_off_a_natural_20_is_only_a_hit(table: Table) -> None:
    await _crit_campaign(table, crit_rules=False)
    table.dice(20)
    result = await table.alice.slash(table.table, "attack", ac=12)
    assert result.response is not None
    text = message_text(result.response)
    assert "**Hit**" in text and "Critical" not in text and "crit rules off" in text


async def test_a_natural_20_that_cannot_reach_the_ac_is_no_critical(table: Table) -> None:
    # "They do not work well in a game where something can have an Armor Class of 30":
    # 20 + 5 = 25 does not reach AC 30, so it is a miss and no critical.
    await _crit_campaign(table)
    table.dice(20)
    result = await table.alice.slash(table.table, "attack", ac=30, damage="2d6", target="Sybilla")
    assert result.response is not None
    text = message_text(result.response)
    assert "**Miss**" in text and "Critical Hit" not in text
    assert "not a critical" in text
    sybilla = await get_character(table.bot.db, await _campaign_id(table), "Sybilla")
    assert sybilla.ac_loss == 0


async def set_armour(table: Table, **options: object) -> None:
    """Bob sets Sybilla's own AC and armour on her sheet."""
    done = await table.bob.slash(table.table, "character armour", **options)
    assert done.response is not None and "Armour saved" in done.response.content


async def test_a_critical_hit_lowers_the_target_characters_ac_by_its_damage(table: Table) -> None:
    await _crit_campaign(table)
    await set_armour(table, ac=16)
    table.dice(20)
    result = await table.alice.slash(table.table, "attack", damage="1d8+3", target="Sybilla")
    assert result.response is not None
    text = message_text(result.response)
    assert "**Critical Hit**" in text and "on Sybilla" in text
    assert "16 (Sybilla's own)" in text  # her sheet's AC, not the attacker's word
    row = (await _rows(table))[0]
    damage = row.outcome["damage"]
    # "Roll all of the attack's damage dice, add any relevant modifiers as normal": one d8
    # and the +3, as any hit (the crit-damage option is off by default).
    first = damage["roll"]["terms"][0]["subtotal"]
    assert damage["again"] is None and damage["total"] == first + 3
    assert f"**{damage['total']} damage**" in text
    assert f"Sybilla's AC is now {16 - damage['total']}" in text
    sybilla = await get_character(table.bot.db, await _campaign_id(table), "Sybilla")
    assert sybilla.ac_loss == damage["total"]
    # The next attack on her uses the lowered AC, and says why.
    table.dice(2)
    second = await table.alice.slash(table.table, "attack", target="Sybilla")
    assert second.response is not None
    assert (
        f"16 (Sybilla's own) − {damage['total']} (critical hits) = {16 - damage['total']}"
        in message_text(second.response)
    )
    sheet = await table.bob.slash(table.table, "character show")
    assert sheet.response is not None
    assert f"lowered by {damage['total']} by critical hits" in message_text(sheet.response)
    # The armour is mended: the GM gives the AC back (a player may not).
    refused = await table.bob.slash(table.table, "character restore-ac", character="Sybilla")
    assert refused.ephemeral and refused.response is not None
    assert "Only the campaign's GM" in refused.response.content
    restored = await table.gm.slash(table.table, "character restore-ac", character="Sybilla")
    assert restored.response is not None and "AC restored for Sybilla" in (
        restored.response.content
    )
    sybilla = await get_character(table.bot.db, await _campaign_id(table), "Sybilla")
    assert sybilla.ac_loss == 0


async def test_magic_plus_2_armour_saves_against_the_critical(table: Table) -> None:
    # Magic +2 armour: DC 10 − 2 = 8, and it adds the Grand Master +3: a 5 makes 8, it holds.
    await _crit_campaign(table)
    await set_armour(table, ac=14, magic=2)
    table.dice(20, 5)
    result = await table.alice.slash(table.table, "attack", damage="1d6", target="Sybilla")
    assert result.response is not None
    text = message_text(result.response)
    assert "**Critical Hit — the armour holds**" in text
    assert "d20 5 +3 (magic +2 (Grand Master)) = **8** against DC 8: the armour holds" in text
    assert "Sybilla's AC stays as it was" in text
    sybilla = await get_character(table.bot.db, await _campaign_id(table), "Sybilla")
    assert sybilla.ac_loss == 0
    # A 4 makes 7: the armour gives way, and the damage comes off the AC.
    table.dice(20, 4)
    worse = await table.alice.slash(table.table, "attack", damage="1d6", target="Sybilla")
    assert worse.response is not None
    assert "the armour gives way" in message_text(worse.response)
    lost = (await _rows(table))[0].outcome["ac_lost"]
    assert 1 <= lost <= 6  # one d6: the damage as normal
    sybilla = await get_character(table.bot.db, await _campaign_id(table), "Sybilla")
    assert sybilla.ac_loss == lost


async def test_a_fumble_is_saved_by_a_master_weapon_and_breaks_an_adept_one(table: Table) -> None:
    await _crit_campaign(table)
    # Master +2: an 8 makes 10 against DC 10, the weapon holds.
    table.dice(1, 8)
    saved = await table.alice.slash(table.table, "attack", ac=12, weapon_quality="Master")
    assert saved.response is not None
    text = message_text(saved.response)
    assert "**Miss — fumble: the weapon holds**" in text
    assert "d20 8 +2 (Master) = **10** against DC 10: the weapon holds" in text
    # Adept +1: the same 8 makes 9, the weapon breaks.
    table.dice(1, 8)
    broken = await table.alice.slash(table.table, "attack", ac=12, weapon_quality="Adept")
    assert broken.response is not None
    assert "**Miss — fumble: the weapon breaks**" in message_text(broken.response)
    # Yeoman gets no save at all: no die is rolled for it.
    table.dice(1)
    yeoman = await table.alice.slash(table.table, "attack", ac=12, weapon_quality="Yeoman")
    assert yeoman.response is not None
    assert "no quality save" in message_text(yeoman.response)
    assert (await _rows(table))[0].dice == [1]


async def test_gm_attacks_for_a_monster_blind_by_default(table: Table) -> None:
    await _crit_campaign(table)
    table.dice(20)
    result = await table.gm.slash(
        table.table,
        "gm attack",
        ac=13,
        attacker_bonus=4,
        monster="Ogre",
        damage="2d8+4",
        target="Sybilla",
    )
    row = (await _rows(table))[0]
    assert row.visibility.value == "blind" and row.character_name == "Ogre"
    texts = [message_text(m) for m in table.table.history(viewer=table.bob)]
    public = "\n".join(t for t in texts if "Ogre" in t)
    assert "Ogre rolls attack in secret" in public
    assert "Critical" not in public and "damage" not in public.lower()
    # Nothing others can observe changes before the reveal: Sybilla's AC is untouched.
    campaign_id = await _campaign_id(table)
    assert (await get_character(table.bot.db, campaign_id, "Sybilla")).ac_loss == 0
    gm_copy = "\n".join(message_text(m) for m in table.gm_channel.history())
    assert (
        "**Critical Hit**" in gm_copy and "stored for Sybilla when the roll is revealed" in gm_copy
    )
    assert result is not None
    revealed = await table.gm.slash(table.table, "reveal", roll=row.number)
    assert revealed.response is not None
    lost = row.outcome["ac_lost"]
    assert lost > 0
    assert (await get_character(table.bot.db, campaign_id, "Sybilla")).ac_loss == lost


async def test_gm_attack_with_a_players_character(table: Table) -> None:
    await _crit_campaign(table)
    table.dice(11)
    await table.gm.slash(table.table, "gm attack", ac=16, character="Brannoc", secret="public")
    row = (await _rows(table))[0]
    assert row.character_name == "Brannoc" and row.outcome["attack"]["modifiers"] == [
        ["STR", 3],
        ["proficiency", 2],
    ]


async def test_bad_attacks_are_refused_and_record_nothing(table: Table) -> None:
    await _crit_campaign(table, crit_rules=False)
    for options, words in (
        ({"ac": 0}, "AC 0 is out of range"),
        ({"ac": 1000}, "AC 1000 is out of range"),
        (
            {"ac": 12, "damage": "1d0"},
            "The damage is not dice I can roll: 1d0: a die needs at least one side",
        ),
        ({"ac": 12, "weapon_quality": "Master"}, "which this campaign does not use"),
        ({"ac": 12, "ability": "Luck"}, "Unknown ability"),
    ):
        result = await table.alice.slash(table.table, "attack", **options)
        assert result.ephemeral and result.response is not None, options
        assert words in result.response.content, (options, result.response.content)
    result = await table.alice.slash(table.table, "gm attack", ac=12, attacker_bonus=3)
    assert result.ephemeral and result.response is not None
    assert "Only the campaign's GM" in result.response.content
    assert await _rows(table) == []


async def test_attack_in_another_system_is_refused(table: Table) -> None:
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Tallie", {"STR": 2})
    result = await table.alice.slash(table.table, "attack", ac=12)
    assert result.ephemeral and result.response is not None
    assert "This campaign plays Threshold; /attack is for d20 check (attack rolls)." in (
        result.response.content
    )
    assert await ledger.latest_rolls(table.bot.db, await _campaign_id(table)) == []


def _enumerated(modifier: int, ac: int, advantage: bool) -> tuple[Fraction, Fraction]:
    """P(hit), P(critical) by listing every equally likely d20 (pair)."""
    faces = (
        list(itertools.product(range(1, 21), repeat=2))
        if advantage
        else [(f,) for f in range(1, 21)]
    )
    hits = crits = 0
    for dice in faces:
        kept = max(dice)
        if kept + modifier >= ac:
            hits += 1
            crits += kept == 20
    return Fraction(hits, len(faces)), Fraction(crits, len(faces))


async def test_odds_attack_are_exact(table: Table) -> None:
    await _crit_campaign(table)
    for ac, advantage in ((15, False), (18, True), (26, False)):
        result = await table.alice.slash(
            table.table, "odds attack", ac=ac, advantage=advantage, weapon_quality="Master"
        )
        assert result.response is not None and result.ephemeral
        text = message_text(result.response)
        hit, crit = _enumerated(5, ac, advantage)
        assert f"exactly {hit.numerator}/{hit.denominator}" in text, text
        assert "Chance to hit" in text
        if crit:
            assert f"Critical Hit {percent(crit)}" in text, text
        else:
            assert "Critical Hit" not in text.split("\n")[1]
        # A fumble is a natural 1: 1/20, or 1/400 with advantage; a Master weapon saves on 8+.
        fumble = Fraction(1, 400) if advantage else Fraction(1, 20)
        assert f"Fumble (natural 1) {percent(fumble)}" in text
    assert await _rows(table) == []


@pytest.mark.parametrize("mode", ["public", "gm", "blind", "self"])
@pytest.mark.parametrize("command", ["attack", "gm attack"])
async def test_each_viewer_sees_what_the_attacks_mode_allows(
    table: Table, command: str, mode: str
) -> None:
    """As /check's secret (tests/scenarios/test_secrecy.py): Ayla (DEX 30, +10, +2) rolls 17
    → 29."""
    gm_channel = await secrecy_setup(table, "d20-check")
    table.dice(17)
    if command == "attack":
        roller = table.alice
        await roller.slash(table.table, "attack", ac=15, ability="DEX", secret=mode)
    else:
        roller = table.gm
        await roller.slash(
            table.table, "gm attack", ac=15, ability="DEX", character="Ayla", secret=mode
        )
    tokens = ["17", "29"]
    row = (await _rows(table))[0]
    assert row.kind == "attack" and row.visibility.value == mode
    gm_is_roller = roller is table.gm
    entitled = {
        "public": (True, True, True),
        "gm": (True, True, False),
        "blind": (gm_is_roller, True, False),
        "self": (True, gm_is_roller, False),
    }[mode]
    assert shows(seen_by(table, roller, gm_channel), tokens) is entitled[0]
    assert shows(seen_by(table, table.gm, gm_channel), tokens) is entitled[1]
    for other in (m for m in (table.alice, table.bob, table.carol) if m is not roller):
        text = seen_by(table, other, gm_channel)
        if entitled[2]:
            assert shows(text, tokens)
        else:
            assert not shows_any(text, [*tokens, "Hit", "Miss"]), text
