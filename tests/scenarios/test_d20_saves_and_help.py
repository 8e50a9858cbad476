"""d20 check: DCs computed from a character's abilities, spell-effect saves, Null saves, and a
helper refused for lacking the task's proficiency (exact dice, the rule text's formulas)."""

from __future__ import annotations

from bot.services.store import ledger
from bot.services.store.campaigns import campaign_for_channel
from tests.fixtures.table import Table, make_character, message_text, start_campaign


async def _rows(table: Table) -> list[ledger.RollView]:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return await ledger.latest_rolls(table.bot.db, campaign.id, limit=20)


async def _campaign(table: Table, abilities: str | None = None) -> None:
    await start_campaign(table, "d20-check")
    if abilities:
        done = await table.gm.slash(table.table, "campaign set abilities", names=abilities)
        assert done.response is not None and "Setting saved" in done.response.content


async def test_save_against_a_melee_weapon_dc_from_a_character(table: Table) -> None:
    # Melee Weapon DC = 8 + STR modifier + proficiency bonus: Brannoc STR 16 (+3), level 1
    # (+2) → 13. Sybilla saves with DEX 14 (+2): 11 + 2 = 13 succeeds, 10 + 2 = 12 fails.
    await _campaign(table)
    await make_character(table, table.alice, "Brannoc", {"STR": 16})
    await make_character(table, table.bob, "Sybilla", {"DEX": 14})
    table.dice(11)
    saved = await table.bob.slash(
        table.table, "save", ability="DEX", against="melee", **{"from": "brannoc"}
    )
    assert saved.response is not None and not saved.ephemeral
    text = message_text(saved.response)
    assert "DEX saving throw against Brannoc's melee Weapon DC 13" in text
    assert "(8 + 3 STR + 2 proficiency)" in text
    assert "**Success**" in text and "DC: 13" in text
    table.dice(10)
    failed = await table.bob.slash(
        table.table, "save", ability="DEX", against="melee", **{"from": "Brannoc"}
    )
    assert failed.response is not None and "**Failure**" in message_text(failed.response)
    # Ranged uses DEX: Brannoc has none yet, and the message says how to set it.
    refused = await table.bob.slash(
        table.table, "save", ability="DEX", against="ranged", **{"from": "Brannoc"}
    )
    assert refused.ephemeral and refused.response is not None
    assert "Brannoc has no DEX score yet" in refused.response.content
    assert len(await _rows(table)) == 2


async def test_null_mana_save_against_a_spell_dc(table: Table) -> None:
    # Spell save DC = 8 + the caster's Mana modifier + proficiency bonus: Morwen Mana 18 (+4),
    # level 5 (+3) → 15. Sybilla is a Null with a Null bonus of 2 and Mana 10 (+0), level 1:
    # "Nulls always add their proficiency bonus and their Null bonus to their Mana Saves",
    # so 11 + 0 + 2 + 2 = 15 reaches 15.
    await _campaign(table, "STR, DEX, CON, INT, WIS, CHA, Mana")
    await make_character(table, table.carol, "Morwen", {"Mana": 18})
    level = await table.carol.slash(table.table, "character level", value=5)
    assert level.response is not None
    await make_character(table, table.bob, "Sybilla", {"Mana": 10, "STR": 10})
    table.dice(11)
    before = await table.bob.slash(
        table.table, "save", ability="Mana", against="spell", **{"from": "Morwen"}
    )
    assert before.response is not None
    assert "**Failure**" in message_text(before.response)  # 11 + 0: not a Null yet
    marked = await table.bob.slash(table.table, "character null", bonus=2)
    assert marked.response is not None and "Null saved for Sybilla" in marked.response.content
    assert "Null bonus +2" in message_text(marked.response)
    table.dice(11)
    after = await table.bob.slash(
        table.table, "save", ability="Mana", against="spell", **{"from": "Morwen"}
    )
    assert after.response is not None
    text = message_text(after.response)
    assert "against Morwen's spell save DC 15 (8 + 4 Mana + 3 proficiency)" in text
    assert "11 +0 Mana +2 Mana save (Proficient) +2 Null bonus = **15**" in text
    assert "**Success**" in text
    # A Null's bonus is for Mana saves only.
    table.dice(11)
    other = await table.bob.slash(table.table, "save", ability="STR", dc=12)
    assert other.response is not None and not other.ephemeral
    assert "11 +0 STR = **11**" in message_text(other.response)
    assert "Null bonus" not in message_text(other.response)


async def test_spell_effect_saves_use_the_schools_ability(table: Table) -> None:
    await _campaign(table, "STR, DEX, CON, INT, WIS, CHA, Knowledge")
    await make_character(table, table.bob, "Sybilla", {"Knowledge": 14, "WIS": 12})
    table.dice(9)
    arcane = await table.bob.slash(table.table, "save", school="arcane", dc=11)
    assert arcane.response is not None
    text = message_text(arcane.response)
    assert "Knowledge saving throw (arcane spell effect)" in text
    assert "9 +2 Knowledge = **11**" in text and "**Success**" in text
    # Divine: Wisdom, which this campaign spells WIS.
    table.dice(9)
    divine = await table.bob.slash(table.table, "save", school="divine", dc=11)
    assert divine.response is not None
    assert "WIS saving throw (divine spell effect)" in message_text(divine.response)
    # Eldritch: Sanity, which this campaign does not have.
    eldritch = await table.bob.slash(table.table, "save", school="eldritch", dc=11)
    assert eldritch.ephemeral and eldritch.response is not None
    assert "saved with Sanity, which this campaign does not have" in eldritch.response.content
    clash = await table.bob.slash(table.table, "save", ability="STR", school="arcane", dc=11)
    assert clash.ephemeral and clash.response is not None
    assert "saved with Knowledge, not STR" in clash.response.content
    assert len(await _rows(table)) == 2


async def test_bad_dc_sources_are_refused_and_record_nothing(table: Table) -> None:
    await _campaign(table)
    await make_character(table, table.alice, "Brannoc", {"STR": 16, "DEX": 10})
    for options, words in (
        ({"against": "melee"}, "Give both against"),
        ({"against": "melee", "from": "Brannoc", "dc": 12}, "Give either dc or against"),
        ({"against": "spell", "from": "Brannoc"}, "uses Mana, which this campaign does not"),
        ({"against": "melee", "from": "Nobody"}, "No character named"),
        ({}, "Name the ability the save uses, or the spell's school"),
    ):
        result = await table.alice.slash(table.table, "save", **options)
        assert result.ephemeral and result.response is not None, options
        assert words in result.response.content, (options, result.response.content)
    assert await _rows(table) == []


async def test_save_options_of_d20_check_are_refused_in_roll_under(table: Table) -> None:
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Sybilla", {"AGI": 10})
    result = await table.alice.slash(table.table, "save", ability="AGI", school="arcane")
    assert result.ephemeral and result.response is not None
    assert "Roll-under, where /save has no school" in result.response.content
    weapon = await table.alice.slash(table.table, "save", ability="AGI", against="melee")
    assert weapon.ephemeral and weapon.response is not None
    assert "Roll-under, where /save has no against" in weapon.response.content
    assert await _rows(table) == []


async def test_a_helper_without_the_proficiency_is_refused(table: Table) -> None:
    # "Trying to open a lock requires proficiency with thieves' tools, so a character who
    # lacks that proficiency can't help another character in that task."
    await _campaign(table)
    await make_character(table, table.alice, "Keegan", {"DEX": 14})
    await make_character(table, table.bob, "Sybilla", {"DEX": 12})
    await make_character(table, table.carol, "Morwen", {"DEX": 10})
    for player, name in ((table.alice, "Keegan"), (table.carol, "Morwen")):
        done = await player.slash(
            table.table, "character proficiency", name="Thieves' Tools", value="Proficient"
        )
        assert done.response is not None, name
    refused = await table.alice.slash(
        table.table,
        "check",
        ability="DEX",
        proficiency="Thieves' Tools",
        dc=15,
        helper="Sybilla",
        helper_needs_proficiency=True,
    )
    assert refused.ephemeral and refused.response is not None
    text = refused.response.content
    assert "Sybilla cannot help" in text and "thieves' tools" in text
    assert "Nothing was rolled" in text
    assert await _rows(table) == []
    # Morwen has the proficiency: Keegan rolls with advantage, 4 and 13 → 13 + 2 + 2 = 17.
    table.dice(4, 13)
    helped = await table.alice.slash(
        table.table,
        "check",
        ability="DEX",
        proficiency="Thieves' Tools",
        dc=15,
        helper="Morwen",
        helper_needs_proficiency=True,
    )
    assert helped.response is not None
    text = message_text(helped.response)
    assert "helped by Morwen" in text and "~~4~~, **13** (advantage)" in text
    assert "**Success**" in text
    # Without saying the task needs it, anyone may help (the text's default).
    table.dice(4, 13)
    anyone = await table.alice.slash(table.table, "check", ability="DEX", helper="Sybilla")
    assert anyone.response is not None and "helped by Sybilla" in message_text(anyone.response)


async def test_a_contest_won_by_proficiency(table: Table) -> None:
    # "They apply all appropriate bonuses and penalties": Brannoc STR 12 (+1) is Proficient
    # in Athletics (+2); Sybilla STR 14 (+2) is not. Both roll 10: 13 against 12.
    await _campaign(table)
    await make_character(table, table.alice, "Brannoc", {"STR": 12})
    await make_character(table, table.bob, "Sybilla", {"STR": 14, "DEX": 16})
    done = await table.alice.slash(
        table.table, "character proficiency", name="Athletics", value="Proficient"
    )
    assert done.response is not None
    table.dice(10, 10)
    result = await table.alice.slash(
        table.table,
        "contest",
        ability="STR",
        characters="Brannoc, Sybilla",
        first_proficiency="athletics",
    )
    assert result.response is not None
    text = message_text(result.response)
    assert "**Brannoc wins**" in text
    assert "d20 **10** +1 STR +2 Athletics (Proficient) = **13**" in text
    assert "d20 **10** +2 STR = **12**" in text
    # Without the proficiency the same dice give Sybilla the win.
    table.dice(10, 10)
    plain = await table.alice.slash(
        table.table, "contest", ability="STR", characters="Brannoc, Sybilla"
    )
    assert plain.response is not None and "**Sybilla wins**" in message_text(plain.response)
    # Sybilla escapes with DEX (Acrobatics-like, her own ability) and advantage, and a bonus:
    # 4 and 9 → 9 + 3 + 1 = 13 against Brannoc's 10 + 1 = 11.
    table.dice(10, 4, 9)
    escape = await table.bob.slash(
        table.table,
        "contest",
        ability="STR",
        characters="Brannoc, Sybilla",
        second_ability="DEX",
        second_roll="advantage",
        second_bonus=1,
    )
    assert escape.response is not None
    text = message_text(escape.response)
    assert "d20 ~~4~~, **9** (advantage) +3 DEX +1 bonus = **13**" in text
    assert "**Sybilla wins**" in text


async def test_contest_sides_are_refused_in_roll_under(table: Table) -> None:
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Sybilla", {"AGI": 10})
    await make_character(table, table.bob, "Balthasar", {"AGI": 7})
    result = await table.alice.slash(
        table.table, "contest", ability="AGI", characters="Sybilla, Balthasar", first_bonus=2
    )
    assert result.ephemeral and result.response is not None
    assert "options are for d20 check" in result.response.content
    assert await _rows(table) == []
