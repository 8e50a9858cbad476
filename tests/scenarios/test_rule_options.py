"""Threshold critical thresholds per action, and the GM options for the optional rules:
threshold carry-over and the Pen & Dagger natural-20 trade (exact dice)."""

from __future__ import annotations

from fractions import Fraction

from bot.render.odds import percent
from bot.services.store import ledger
from bot.services.store.campaigns import campaign_for_channel, delete_campaign
from tests.fixtures.table import Table, make_character, message_text, start_campaign
from tests.scenarios.test_fortune import labels


async def _rows(table: Table) -> list[ledger.RollView]:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return await ledger.latest_rolls(table.bot.db, campaign.id, limit=20)


async def _set(table: Table, setting: str, on: bool) -> str:
    done = await table.gm.slash(table.table, f"campaign set {setting}", on=on)
    assert done.response is not None and "Setting saved" in done.response.content
    return message_text(done.response)


async def test_an_action_with_its_own_critical_thresholds(table: Table) -> None:
    # "Some actions may also have thresholds for critical success or critical failure":
    # Mira (STR +2) against threshold 12, critical success at 18 or more, failure at 5 or less.
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Mira", {"STR": 2})
    await _set(table, "carry-over", False)  # each test stands alone, no +2 / −2 between them
    for face, words in (
        (16, "**Critical Success**"),  # 18: at the critical success threshold
        (15, "**Success**"),  # 17
        (3, "**Critical Failure**"),  # 5: at the critical failure threshold
        (4, "**Failure**"),  # 6
    ):
        table.dice(face)
        result = await table.alice.slash(
            table.table, "check", ability="STR", dc=12, crit_success_at=18, crit_failure_at=5
        )
        assert result.response is not None
        text = message_text(result.response)
        assert words in text, (face, text)
        assert "success at 18+, failure at 5 or less (and natural 20 / 1)" in text
    assert [r.outcome["result"] for r in await _rows(table)][::-1] == [
        "Critical Success",
        "Success",
        "Critical Failure",
        "Failure",
    ]


async def test_odds_count_the_actions_critical_thresholds(table: Table) -> None:
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Mira", {"STR": 2})
    result = await table.alice.slash(
        table.table, "odds check", ability="STR", dc=12, crit_success_at=18, crit_failure_at=5
    )
    assert result.response is not None
    text = message_text(result.response)
    # Faces 16-20 make 18+ (5 faces); faces 1-3 make 5 or less (3 faces); 10-15 succeed.
    expected = {
        "Critical Success": Fraction(5, 20),
        "Success": Fraction(6, 20),
        "Failure": Fraction(6, 20),
        "Critical Failure": Fraction(3, 20),
    }
    for name, p in expected.items():
        assert f"{name} {percent(p)}" in text, (name, text)
    assert "exactly 11/20" in text


async def test_bad_critical_thresholds_are_refused(table: Table) -> None:
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Mira", {"STR": 2})
    for options, words in (
        ({"crit_success_at": 10}, "would be below the threshold (12)"),
        ({"crit_failure_at": 12}, "would be a success against threshold 12"),
    ):
        result = await table.alice.slash(table.table, "check", ability="STR", dc=12, **options)
        assert result.ephemeral and result.response is not None
        assert words in result.response.content, result.response.content
    await start_campaign_d20(table)
    result = await table.bob.slash(table.table, "check", ability="DEX", crit_success_at=18)
    assert result.ephemeral and result.response is not None
    assert "d20 check, where /check has no crit_success_at" in result.response.content
    assert await _rows(table) == []


async def start_campaign_d20(table: Table) -> None:
    """A second channel would need a second campaign; reuse #table after deleting the first."""
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    await delete_campaign(table.bot.db, campaign.id)
    await start_campaign(table, "d20-check")
    await make_character(table, table.bob, "Sybilla", {"DEX": 14})


async def test_carry_over_can_be_turned_off(table: Table) -> None:
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Mira", {"STR": 1})
    shown = await _set(table, "carry-over", False)
    assert "+2 / −2 after a critical: off" in shown
    table.dice(20)
    crit = await table.alice.slash(table.table, "check", ability="STR", dc=15)
    assert crit.response is not None
    text = message_text(crit.response)
    assert "**Critical Success**" in text and "on the next STR test" not in text
    table.dice(10)
    after = await table.alice.slash(table.table, "check", ability="STR", dc=15)
    assert after.response is not None
    assert "10 +1 STR = **11**" in message_text(after.response)
    # Back on: the next critical leaves its +2 again.
    await _set(table, "carry-over", True)
    table.dice(20, 10)
    await table.alice.slash(table.table, "check", ability="STR", dc=15)
    used = await table.alice.slash(table.table, "check", ability="STR", dc=15)
    assert used.response is not None
    assert "10 +1 STR +2 critical carry-over = **13**" in message_text(used.response)


async def test_luck_trade_off_keeps_a_luck_rolls_20_and_never_touches_the_attempt_trade(
    table: Table,
) -> None:
    # "Luck Rolls": "If you roll a 20 on a luck roll and your DM rules there is no additional
    # benefit for the maximum level of luckiness, you can treat the luck roll as a 10 and gain
    # a Fortune Die instead": the GM's ruling opens the trade. An attempt's 20 ("If you roll a
    # 20 and for some reason can't take advantage of your critical success, you can make the
    # result a normal success and gain a fortune die instead") is the player's, whatever it.
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 14})
    shown = await _set(table, "luck-trade", False)
    assert "Trade a luck roll's natural 20 for a fortune die: off" in shown
    table.dice(20)
    result = await table.alice.slash(table.table, "check", ability="DEX")
    assert result.response is not None
    assert labels(result.response) != []  # the attempt's trade is still offered
    table.dice(20)
    luck = await table.alice.slash(table.table, "luck")
    assert luck.response is not None and labels(luck.response) == []
    await _set(table, "luck-trade", True)
    table.dice(20)
    again = await table.alice.slash(table.table, "luck")
    assert again.response is not None and labels(again.response) != []


async def test_only_the_gm_changes_rule_options(table: Table) -> None:
    await start_campaign(table, "d20-check")
    for setting in ("carry-over", "luck-trade", "rerolls"):
        result = await table.alice.slash(table.table, f"campaign set {setting}", on=False)
        assert result.ephemeral and result.response is not None
        assert "GM" in result.response.content
