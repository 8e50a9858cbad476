"""Inline rolls (issue 18): every `[[…]]` in a text rolled as its slash command would roll it,
recorded in the caller's transaction, all or nothing."""

from __future__ import annotations

import pytest
from simcord.actors import MemberActor

from bot.render.inline import render_text
from bot.services import ledger
from bot.services._sql import core_transaction
from bot.services.context import Caller
from bot.services.inline import InlineRollError, InlineRolls, find_rolls, roll_text_in
from tests.bot.conftest import Table


def caller_of(table: Table, member: MemberActor, interaction_id: int | None = None) -> Caller:
    return Caller(
        user_id=member.id,
        channel_id=table.table.id,
        guild_id=table.guild.id,
        interaction_id=interaction_id,
    )


async def roll_inline(
    table: Table, member: MemberActor, text: str, *, bound_to: str | None = None
) -> InlineRolls:
    async with core_transaction(table.bot.db) as session:
        return await roll_text_in(
            session, caller_of(table, member), text, table.bot.rng, bound_to=bound_to
        )


async def rows(table: Table) -> list[ledger.RollView]:
    return await ledger.latest_rolls(table.bot.db, None, limit=50)


def test_spans_are_found_in_order_with_labels_inside() -> None:
    text = "I swing [[roll 2d6+3 [fire]]] then [[ check DEX ]] and [[1d20]]."
    spans = find_rolls(text)
    assert [s.source for s in spans] == ["roll 2d6+3 [fire]", "check DEX", "1d20"]
    assert all(text[s.start : s.end].startswith("[[") for s in spans)
    assert text[spans[0].start : spans[0].end] == "[[roll 2d6+3 [fire]]]"


async def test_plain_notation_is_rolled_recorded_and_shown_in_place(table: Table) -> None:
    rolled = await roll_inline(table, table.alice, "Hit it [[1d20+5]] and [[2d6]]!")
    recorded = await rows(table)
    assert len(rolled.rolls) == 2 and len(recorded) == 2
    first = next(r for r in recorded if r.id == rolled.rolls[0].ledger_id)
    assert first.outcome["total"] == int(rolled.rolls[0].total)
    assert first.request == "[[1d20+5]]"
    shown = render_text("Hit it [[1d20+5]] and [[2d6]]!", rolled)
    assert shown.startswith(f"Hit it **{rolled.rolls[0].total}** and **{rolled.rolls[1].total}**!")
    assert f"`#{rolled.rolls[0].number}` 1d20+5: 1d20" in shown


async def test_a_bad_inline_roll_names_itself_and_records_nothing(table: Table) -> None:
    with pytest.raises(InlineRollError) as caught:
        await roll_inline(table, table.alice, "ok [[1d20]] bad [[1d0]]")
    shown = str(caught.value).replace("\\", "")  # as Discord shows the escaped text
    assert shown.startswith("Inline roll 2 “[[1d0]]”: ") and "Nothing was rolled." in shown
    assert await rows(table) == []

