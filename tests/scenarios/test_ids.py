"""Old buttons after a delete act on nothing, never on the objects made since (migration 0006).

A button carries only an id; once a campaign (or the newest rolls) is deleted and new ones are
made, a click left on an old message must be refused, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import re
from typing import Any

import discord
from sqlalchemy import func, select

from bot.db.fortune_models import fortune_choices
from bot.db.models import ledger
from bot.services.store import characters
from bot.services.store.campaigns import campaign_for_channel
from tests.fixtures.table import Table, make_character, message_text, start_campaign
from tests.ledger_triggers import purge_newest_rolls

KEEP = "Keep the critical"
TRADE = "Take a Normal success + a fortune die"


def _number(text: str, what: str) -> int:
    found = re.search(rf"{what} #(\d+)", text)
    assert found is not None, f"no {what} number in {text!r}"
    return int(found.group(1))


def _request_messages(table: Table) -> list[Any]:
    return [
        m
        for m in table.table.history()
        if m.embeds and (m.embeds[0].title or "").startswith("Roll request #")
    ]


def _labels(message: Any) -> list[str]:
    """Button labels of a channel message (discord.py components) or a response (dicts)."""
    found: list[str] = []

    def walk(components: list[Any]) -> None:
        for component in components:
            if isinstance(component, dict):
                if component.get("type") == 2:
                    found.append(str(component.get("label")))
                walk(component.get("components") or [])
            elif isinstance(component, discord.ActionRow):
                walk(list(component.children))
            elif isinstance(component, discord.Button):
                found.append(str(component.label))

    walk(list(message.components))
    return found


def _choice_roll_id(message: Any) -> int:
    """The ledger id a natural-20 choice button carries (``pbp:n20:<id>:keep``)."""
    ids: list[str] = []

    def walk(components: list[Any]) -> None:
        for component in components:
            if isinstance(component, dict):
                ids.append(str(component.get("custom_id") or ""))
                walk(component.get("components") or [])
            elif isinstance(component, discord.ActionRow):
                walk(list(component.children))
            elif isinstance(component, discord.Button):
                ids.append(str(component.custom_id or ""))

    walk(list(message.components))
    found = [int(m.group(1)) for i in ids if (m := re.match(r"pbp:n20:(\d+):", i))]
    assert found, f"no natural-20 button in {ids}"
    return found[0]


async def _delete_campaign(table: Table) -> None:
    asked = await table.gm.slash(table.table, "campaign delete")
    assert asked.response is not None
    done = await table.gm.click(asked.response, label="Delete the campaign")
    assert done.response is not None and "Campaign deleted" in done.response.content


async def _campaign_id(table: Table) -> int:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    return campaign.id


async def test_the_roll_button_of_a_deleted_campaigns_request_rolls_nothing(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ann", {"DEX": 14})
    await table.gm.slash(table.table, "gm request roll", ability="DEX", characters="Ann", dc=12)
    (old,) = _request_messages(table)
    old_number = _number(old.embeds[0].title, "Roll request")
    await _delete_campaign(table)

    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ann", {"DEX": 14})
    await table.gm.slash(table.table, "gm request roll", ability="DEX", characters="Ann", dc=12)

    table.dice(15)
    clicked = await table.alice.click(old, label="Roll")
    assert clicked.ephemeral and "no longer exists" in clicked.response.content
    new = _request_messages(table)[-1]
    assert "0 of 1 rolled" in message_text(new)
    assert "Roll" in _labels(new)
    async with table.bot.db.sessionmaker() as session:
        assert await session.scalar(select(func.count()).select_from(ledger)) == 0
    assert _number(new.embeds[0].title, "Roll request") > old_number


async def test_an_old_delete_confirmation_never_deletes_the_new_campaign(table: Table) -> None:
    await start_campaign(table, "threshold")
    first = await _campaign_id(table)
    stale = await table.gm.slash(table.table, "campaign delete")  # asked, left unanswered
    assert stale.response is not None
    await _delete_campaign(table)  # asked again, and confirmed
    await start_campaign(table, "threshold")

    late = await table.gm.click(stale.response, label="Delete the campaign")
    assert late.response is not None and "no longer exists" in late.response.content
    shown = await table.alice.slash(table.table, "campaign show")
    assert shown.response is not None and "No campaign" not in message_text(shown.response)
    assert await _campaign_id(table) > first


async def test_an_old_character_delete_confirmation_never_deletes_the_new_character(
    table: Table,
) -> None:
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Sybilla", {"WIT": 6})
    stale = await table.alice.slash(table.table, "character delete", name="Sybilla")
    asked = await table.alice.slash(table.table, "character delete", name="Sybilla")
    assert stale.response is not None and asked.response is not None
    done = await table.alice.click(asked.response, label="Delete Sybilla")
    assert done.response is not None and "Sybilla is deleted" in done.response.content
    await make_character(table, table.alice, "Sybilla", {"WIT": 7})

    late = await table.alice.click(stale.response, label="Delete Sybilla")
    assert late.response is not None and "no longer exists" in late.response.content
    left = await characters.list_characters(table.bot.db, await _campaign_id(table))
    assert [(c.name, c.scores["WIT"]) for c in left] == [("Sybilla", 7)]


async def test_an_old_natural_20_choice_after_the_newest_rolls_are_deleted_acts_on_nothing(
    table: Table,
) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 12})
    table.dice(20)
    old = await table.alice.slash(table.table, "check", ability="DEX")
    assert old.response is not None and KEEP in _labels(old.response)
    old_roll = _choice_roll_id(old.response)
    await _delete_campaign(table)
    await purge_newest_rolls(table.bot.db, old_roll)

    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 12})
    table.dice(20)
    new = await table.alice.slash(table.table, "check", ability="DEX")
    assert new.response is not None and TRADE in _labels(new.response)
    new_roll = _choice_roll_id(new.response)

    clicked = await table.alice.click(old.response, label=TRADE)
    assert clicked.ephemeral and "No such roll" in clicked.response.content
    async with table.bot.db.sessionmaker() as session:
        assert await session.scalar(select(func.count()).select_from(fortune_choices)) == 0
    # The new roll's choice is still open: trading it now is the first and only choice.
    traded = await table.alice.click(new.response, label=TRADE)
    assert traded.response is not None and "Normal" in message_text(traded.response)
    assert new_roll > old_roll
