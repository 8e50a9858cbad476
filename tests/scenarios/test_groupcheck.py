"""Group checks with a skill (d20 check "Group Checks"): "the characters who are skilled at a
particular task help cover those who aren't" — /groupcheck and /gm request roll proficiency:.

Tests bot/cogs/groupcheck.py.
"""

from __future__ import annotations

from typing import Any

from bot.services.store import ledger
from bot.services.store.campaigns import campaign_for_channel
from tests.fixtures.table import Table, make_character, message_text, start_campaign


async def _rows(table: Table) -> list[ledger.RollView]:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return await ledger.latest_rolls(table.bot.db, campaign.id, limit=20)


async def _swamp(table: Table) -> None:
    """Keegan (WIS 10, Expert in Survival: +4 at level 1) and Sybilla (WIS 10, no Survival)."""
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Keegan", {"WIS": 10})
    await make_character(table, table.bob, "Sybilla", {"WIS": 10})
    done = await table.alice.slash(
        table.table, "character proficiency", name="Survival", value="Expert"
    )
    assert done.response is not None
    for name in ("Keegan", "Sybilla"):
        added = await table.gm.slash(table.table, "party add", character=name)
        assert added.response is not None


async def test_group_survival_check_succeeds_only_because_of_the_skilled_member(
    table: Table,
) -> None:
    # The swamp: DC 12. Keegan rolls 9 (+4 Survival = 13, success), Sybilla 5 (fails):
    # 1 of 2 is at least half, so the group avoids the quicksand.
    await _swamp(table)
    table.dice(9, 5)
    result = await table.gm.slash(
        table.table, "groupcheck", ability="WIS", proficiency="survival", dc=12
    )
    assert result.response is not None and not result.ephemeral
    text = message_text(result.response)
    assert "Group WIS (survival) check" in text
    assert "d20 **9** +0 WIS +4 Survival (Expert) = **13**" in text
    assert "Group Success: 1 of 2 succeeded (1 needed)" in text
    # The same dice without the skill: 9 and 5 both fail, and so does the group.
    table.dice(9, 5)
    plain = await table.gm.slash(table.table, "groupcheck", ability="WIS", dc=12)
    assert plain.response is not None
    assert "Group Failure: 0 of 2 succeeded" in message_text(plain.response)
    assert [r.kind for r in await _rows(table)].count("group") == 2


async def test_groupcheck_is_the_gms_and_needs_a_dc(table: Table) -> None:
    await _swamp(table)
    refused = await table.alice.slash(table.table, "groupcheck", ability="WIS", dc=12)
    assert refused.ephemeral and refused.response is not None
    assert "Only the campaign's GM can call for a group check" in refused.response.content
    no_dc = await table.gm.slash(table.table, "groupcheck", ability="WIS")
    assert no_dc.ephemeral and no_dc.response is not None
    assert "needs a dc" in no_dc.response.content
    assert await _rows(table) == []


async def test_groupcheck_proficiency_is_refused_where_there_are_none(table: Table) -> None:
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Mira", {"WIS": 1})
    await table.gm.slash(table.table, "party add", character="Mira")
    result = await table.gm.slash(
        table.table, "groupcheck", ability="WIS", proficiency="Survival", dc=10
    )
    assert result.ephemeral and result.response is not None
    assert "Threshold: characters there have no proficiencies" in result.response.content
    assert await _rows(table) == []


def _request_message(table: Table) -> Any:
    for message in reversed(table.table.history()):
        if message.embeds and (message.embeds[0].title or "").startswith("Roll request #"):
            return message
    raise AssertionError("no roll request message in #table")


async def test_a_roll_request_with_a_skill(table: Table) -> None:
    await _swamp(table)
    posted = await table.gm.slash(
        table.table, "gm request roll", ability="WIS", proficiency="Survival", dc=12
    )
    assert posted.response is not None and not posted.ephemeral
    assert "WIS (Survival) check" in message_text(_request_message(table))
    table.dice(9)
    await table.alice.click(_request_message(table), label="Roll")
    table.dice(5)
    await table.bob.click(_request_message(table), label="Roll")
    text = message_text(_request_message(table))
    assert "d20 **9** +0 WIS +4 Survival (Expert) = **13**" in text
    assert "Group Success: 1 of 2 succeeded" in text
