"""One full scenario per rule system, from /campaign setup to a recorded roll, exact dice.

Tests bot/cogs/checks.py.
"""

from __future__ import annotations

from bot.services.store import ledger
from tests.fixtures.table import Table, make_character, message_text, start_campaign


async def _last_row(table: Table) -> ledger.RollView:
    rows = await ledger.latest_rolls(table.bot.db, 1)
    return rows[0]


async def test_pen_and_dagger_attempt_with_advantage_and_reliability(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 14})  # 14-15: Adept
    # Adept: 12 is Normal (9-14), 5 is Limited (5-8); advantage keeps the better level,
    # reliability raises it one level (ruling 4) -> Major Success.
    table.dice(12, 5)
    result = await table.alice.slash(
        table.table, "check", ability="DEX", advantage=True, reliable=True
    )
    assert result.response is not None and not result.ephemeral
    text = message_text(result.response)
    assert "Angus: DEX attempt" in text
    assert "**Major Success**" in text
    assert "**12**, ~~5~~ (advantage)" in text
    assert "Adept" in text and "reliable → Major Success" in text
    row = await _last_row(table)
    assert row.kind == "attempt" and row.character_name == "Angus"
    assert row.dice == [12, 5]
    assert row.request == "/check ability:DEX advantage:True reliable:True"


async def test_pen_and_dagger_proficiency_rank_and_rank_bonus(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 8})
    done = await table.alice.slash(
        table.table, "character proficiency", name="Stealth", value="Trained"
    )
    assert done.response is not None and "Proficiency saved" in done.response.content
    # Trained +1 rank -> Adept; 19 on Adept is a Critical Success (19+).
    table.dice(19)
    result = await table.alice.slash(
        table.table, "check", ability="DEX", proficiency="stealth", rank_bonus=1
    )
    assert result.response is not None
    text = message_text(result.response)
    assert "DEX (Stealth) attempt" in text
    assert "Trained +1 → Adept" in text
    assert "**Critical Success**" in text


async def test_pen_and_dagger_luck_roll(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.bob, "Jade", {})
    table.dice(9)
    result = await table.bob.slash(table.table, "luck")
    assert result.response is not None
    assert "**Not lucky**" in message_text(result.response)
    table.dice(10)
    result = await table.bob.slash(table.table, "luck")
    assert result.response is not None
    assert "**Lucky**" in message_text(result.response)


async def test_roll_under_save_from_the_rule_text(table: Table) -> None:
    # roll-under.txt: Sybilla (AGI 10) rolls a 13 and falls; Balthasar (AGI 7) rolls 6, passes.
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Sybilla", {"AGI": 10})
    await make_character(table, table.bob, "Balthasar", {"AGI": 7})
    table.dice(13)
    failed = await table.alice.slash(table.table, "check", ability="AGI")
    table.dice(6)
    passed = await table.bob.slash(table.table, "save", ability="agi")
    assert failed.response is not None and passed.response is not None
    assert "**Fail**" in message_text(failed.response)
    assert "13** against AGI 10" in message_text(failed.response)
    assert "**Pass**" in message_text(passed.response)
    assert (await _last_row(table)).character_name == "Balthasar"


async def test_threshold_critical_leaves_a_carry_over_used_once(table: Table) -> None:
    await start_campaign(table, "threshold")
    await make_character(table, table.carol, "Tallie", {"STR": 2})
    table.dice(20)
    crit = await table.carol.slash(table.table, "check", ability="STR", difficulty="very-hard")
    assert crit.response is not None
    text = message_text(crit.response)
    assert "**Critical Success**" in text
    assert "+2 on the next STR test" in text
    sheet = await table.carol.slash(table.table, "character show")
    assert sheet.response is not None
    assert "+2 on the next STR test" in message_text(sheet.response)
    # Next STR test: 10 + 2 + carry-over 2 = 14 against the Hard default 17: Failure.
    table.dice(10)
    nxt = await table.carol.slash(table.table, "check", ability="STR", difficulty="hard")
    assert nxt.response is not None
    text = message_text(nxt.response)
    assert "10 +2 STR +2 critical carry-over = **14**" in text
    assert "**Failure**" in text and "Threshold: 17 (Hard)" in text
    # Used once: the following test has no carry-over.
    table.dice(10)
    third = await table.carol.slash(table.table, "check", ability="STR", dc=12)
    assert third.response is not None
    assert "carry-over" not in message_text(third.response)
    assert "**Success**" in message_text(third.response)


async def test_threshold_needs_a_target(table: Table) -> None:
    await start_campaign(table, "threshold")
    await make_character(table, table.carol, "Tallie", {"STR": 2})
    result = await table.carol.slash(table.table, "check", ability="STR")
    assert result.ephemeral and result.response is not None
    assert "needs a target" in result.response.content
    assert await ledger.latest_rolls(table.bot.db, 5) == []


async def test_d20_check_with_expertise_and_a_save(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Keegan", {"DEX": 16, "WIS": 12})
    await table.alice.slash(table.table, "character level", value=5)  # proficiency +3
    await table.alice.slash(table.table, "character proficiency", name="Stealth", value="Expert")
    # 5 + DEX 3 + Expert (2 x 3) = 14 against DC 15: Failure; a +1 bonus makes it 15: Success.
    table.dice(5)
    fail = await table.alice.slash(
        table.table, "check", ability="DEX", proficiency="Stealth", dc=15
    )
    table.dice(5)
    success = await table.alice.slash(
        table.table, "check", ability="DEX", proficiency="Stealth", dc=15, bonus=1
    )
    assert fail.response is not None and success.response is not None
    assert "= **14**" in message_text(fail.response) and "**Failure**" in message_text(
        fail.response
    )
    assert "= **15**" in message_text(success.response)
    assert "**Success**" in message_text(success.response)
    # Natural 20 has no special effect on checks (ruling 1): 20 + 1 = 21 < 25 fails.
    table.dice(20)
    nat20 = await table.alice.slash(table.table, "check", ability="WIS", dc=25)
    assert nat20.response is not None and "**Failure**" in message_text(nat20.response)
    # Saves add the proficiency bonus only with a save proficiency (ruling 5).
    table.dice(10)
    plain = await table.alice.slash(table.table, "save", ability="WIS", dc=14)
    await table.alice.slash(table.table, "character save", ability="WIS")
    table.dice(10)
    proficient = await table.alice.slash(table.table, "save", ability="WIS", dc=14)
    assert plain.response is not None and proficient.response is not None
    assert "= **11**" in message_text(plain.response)
    assert "= **14**" in message_text(proficient.response)
    assert "**Success**" in message_text(proficient.response)


async def test_d20_advantage_and_disadvantage_cancel(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Keegan", {"DEX": 10})
    table.dice(7)
    both = await table.alice.slash(
        table.table, "check", ability="DEX", advantage=True, disadvantage=True
    )
    assert both.response is not None
    assert "d20: **7**" in message_text(both.response)  # one die only
    table.dice(7, 18)  # the 18 is the one advantage keeps
    adv = await table.alice.slash(table.table, "check", ability="DEX", advantage=True)
    assert adv.response is not None
    assert "~~7~~, **18** (advantage)" in message_text(adv.response)
    table.dice(7, 18)
    dis = await table.alice.slash(table.table, "check", ability="DEX", disadvantage=True)
    assert dis.response is not None
    assert "**7**, ~~18~~ (disadvantage)" in message_text(dis.response)


async def test_options_the_system_does_not_have_are_refused_naming_it(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Keegan", {"DEX": 14})
    for options, words in (
        ({"rank_bonus": 1}, "d20 check, where /check has no rank_bonus"),
        ({"reliable": True}, "has no reliable"),
        ({"difficulty": "hard"}, "has no difficulty"),
    ):
        result = await table.alice.slash(table.table, "check", ability="DEX", **options)
        assert result.ephemeral and result.response is not None
        assert words in result.response.content
    luck = await table.alice.slash(table.table, "luck")
    assert luck.ephemeral and luck.response is not None
    assert "/luck is for Pen & Dagger (luck rolls)" in luck.response.content
    assert await ledger.latest_rolls(table.bot.db, 1) == []


async def test_missing_scores_and_characters_are_explained(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    none_yet = await table.alice.slash(table.table, "check", ability="DEX")
    assert none_yet.ephemeral and none_yet.response is not None
    assert "no active character" in none_yet.response.content
    await table.alice.slash(table.table, "character create", name="Angus")
    no_score = await table.alice.slash(table.table, "check", ability="DEX")
    assert no_score.response is not None
    assert no_score.response.content == (
        "Angus has no DEX score yet: set it with /character set ability:DEX value:<number>."
    )
    save = await table.alice.slash(table.table, "save", ability="DEX")
    assert save.response is not None
    assert "/save is for Roll-under and d20 check (saving throws)" in save.response.content
