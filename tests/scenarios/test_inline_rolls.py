"""Inline rolls (docs/in-character.md): every `[[…]]` in a text rolled as its slash command would
roll it, recorded in the caller's transaction, all or nothing; and the message context-menu
command."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from simcord.actors import MemberActor
from sqlalchemy import select

from bot.db.models import ledger
from bot.render.inline import MESSAGE_LIMIT, render_text
from bot.services.kit.budgets import Budgets, OverBudget, Rate
from bot.services.kit.context import Caller
from bot.services.kit.sql import core_transaction, transaction
from bot.services.rolling.inline import InlineRollError, InlineRolls, find_rolls, roll_text_in
from tests.scenarios.conftest import (
    Table,
    answered_ephemeral,
    final_answer,
    make_character,
    start_campaign,
)

MENU = "Roll the dice in this message"


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


async def rows(table: Table) -> list[Any]:
    """Every ledger row of any campaign or none, oldest first."""
    async with transaction(table.bot.db) as session:
        found = await session.execute(select(ledger).order_by(ledger.c.id))
        return list(found.all())


def test_spans_are_found_in_order_with_labels_inside() -> None:
    text = "I swing [[roll 2d6+3 [fire]]] then [[ check DEX ]] and [[1d20]]."
    spans = find_rolls(text)
    assert [s.source for s in spans] == ["roll 2d6+3 [fire]", "check DEX", "1d20"]
    assert text[spans[0].start : spans[0].end] == "[[roll 2d6+3 [fire]]]"
    assert text[spans[2].start : spans[2].end] == "[[1d20]]"


async def test_plain_notation_is_rolled_recorded_and_shown_in_place(table: Table) -> None:
    text = "Hit it [[1d20+5]] and [[2d6]]!"
    rolled = await roll_inline(table, table.alice, text, bound_to="post 7")
    recorded = await rows(table)
    assert [r.id for r in recorded] == [r.ledger_id for r in rolled.rolls]
    assert [r.outcome["total"] for r in recorded] == [int(r.total) for r in rolled.rolls]
    assert recorded[0].request == "[[1d20+5]] in post 7"
    assert all(r.visibility == "public" for r in recorded)
    shown = render_text(text, rolled)
    first, second = rolled.rolls
    assert shown.startswith(f"Hit it **{first.total}** and **{second.total}**!")
    assert f"`#{first.number}` 1d20+5: 1d20" in shown


# --------------------------------------------------------------------------- four systems

Scenario = tuple[str, dict[str, int], list[tuple[str, dict[str, Any]]], str, list[int]]

#: Per system: the character's scores, three slash commands of different kinds, the same
#: three as inline rolls, and the d20 faces both are given (never a critical, so a threshold
#: carry-over does not make the second world differ).
SCENARIOS: dict[str, Scenario] = {
    "pen-and-dagger": (
        "pen-and-dagger",
        {"DEX": 14, "STR": 9},
        [
            ("check", {"ability": "DEX", "advantage": True}),
            ("luck", {}),
            ("roll", {"dice": "2d6+3 [fire]"}),
        ],
        "I slip past [[check DEX adv]], pray [[luck]] and burn [[roll 2d6+3 [fire]]].",
        [12, 5, 9],
    ),
    "roll-under": (
        "roll-under",
        {"AGI": 10, "STR": 12},
        [
            ("check", {"ability": "STR"}),
            ("save", {"ability": "AGI"}),
            ("roll", {"dice": "1d6+1"}),
        ],
        "Lift [[check STR]], dodge [[save AGI]], damage [[1d6+1]].",
        [11, 13],
    ),
    "threshold": (
        "threshold",
        {"STR": 2, "DEX": 1},
        [
            ("check", {"ability": "STR", "dc": 12}),
            ("check", {"ability": "DEX", "difficulty": "hard"}),
            ("roll", {"dice": "3d6"}),
        ],
        "Force [[check STR dc:12]], then [[check DEX difficulty:hard]] and [[3d6]].",
        [10, 15],
    ),
    "d20-check": (
        "d20-check",
        {"DEX": 16, "WIS": 12, "STR": 14},
        [
            ("check", {"ability": "DEX", "proficiency": "Stealth", "advantage": True, "dc": 15}),
            ("save", {"ability": "WIS", "dc": 12}),
            ("attack", {"ac": 15, "damage": "1d8+2"}),
        ],
        "Sneak [[check DEX Stealth adv dc:15]], resist [[save WIS dc:12]], "
        "strike [[attack longsword ac:15 damage:1d8+2]].",
        [14, 6, 9, 16],
    ),
}


@pytest.mark.parametrize("system", list(SCENARIOS))
async def test_three_inline_rolls_equal_the_slash_commands_with_the_same_dice(
    table: Table, system: str
) -> None:
    name, scores, commands, text, faces = SCENARIOS[system]
    await start_campaign(table, name)
    await make_character(table, table.alice, "Vex", scores)
    if system == "d20-check":
        done = await table.alice.slash(
            table.table, "character proficiency", name="Stealth", value="Proficient"
        )
        assert done.response is not None
    rng = table.bot.rng
    rng.seed(7)
    table.dice(*faces)
    for command, options in commands:
        answered = await table.alice.slash(table.table, command, **options)
        assert answered.response is not None and not answered.ephemeral, command
    by_command = await rows(table)
    rng.seed(7)
    table.dice(*faces)
    rolled = await roll_inline(table, table.alice, text)
    inline_rows = (await rows(table))[len(by_command) :]
    assert len(by_command) == len(inline_rows) == 3
    for slash_row, inline_row in zip(by_command, inline_rows, strict=True):
        assert inline_row.kind == slash_row.kind
        assert inline_row.dice == slash_row.dice
        assert inline_row.outcome == slash_row.outcome
        assert inline_row.character_name == slash_row.character_name
    shown = render_text(text, rolled)
    for roll in rolled.rolls:
        assert f"**{roll.total}**" in shown


async def test_a_d20_check_total_reads_like_the_command(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Vex", {"DEX": 14})
    table.dice(13)
    rolled = await roll_inline(table, table.alice, "[[check DEX dc:15]]")
    # d20 13 + 2 DEX + 0 = 15 against DC 15.
    assert rolled.rolls[0].total == "Success (15 vs DC 15)"


async def test_a_bad_inline_roll_names_itself_and_records_nothing(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Vex", {"DEX": 14})
    for text, words in (
        ("ok [[1d20]] bad [[1d0]]", "Inline roll 2 “[[1d0]]”: "),
        ("[[check DEX]] [[check DEX rank_bonus:1]]", "no rank_bonus"),
        ("[[1d20]] [[chekc DEX]]", "Did you mean check?"),
        ("[[check DEX dex:3]]", "/check has no option `dex`"),
        ("[[1d20]] [[luck]]", "which has no luck rolls (Pen & Dagger only)"),
        ("[[check DEX]] [[save CHA]]", "no CHA"),
        ("[[1d20]] [[attack ac:15 weapon_quality:Master]]", "crit"),
        ("[[1d20]] [[save DEX against:melee]]", "Give both against"),
        ("[[1d20]] [[check DEX helper:Nobody]]", "No character named"),
        ("[[1d20]] [[nosuchmacro]]", "no saved roll called"),
    ):
        with pytest.raises(InlineRollError) as caught:
            await roll_inline(table, table.alice, text)
        shown = str(caught.value).replace("\\", "")  # as Discord shows the escaped text
        assert words in shown and "Nothing was rolled." in shown, (text, shown)
        assert await rows(table) == [], text
        # Every roll is checked before any is recorded: even a caller whose transaction
        # goes on (and commits) after the refusal has recorded nothing.
        async with core_transaction(table.bot.db) as session:
            with pytest.raises(InlineRollError):
                await roll_text_in(session, caller_of(table, table.alice), text, table.bot.rng)
        assert await rows(table) == [], text


async def test_a_text_holds_at_most_twenty_inline_rolls(table: Table) -> None:
    with pytest.raises(InlineRollError, match="At most 20"):
        await roll_inline(table, table.alice, "[[1d4]] " * 21)
    assert await rows(table) == []


async def test_user_text_is_escaped_and_clipped(table: Table) -> None:
    text = "**@everyone** " + "x" * 3000 + " [[1d20]] <@123> end"
    rolled = await roll_inline(table, table.alice, text)
    shown = render_text(text, rolled)
    assert len(shown) <= MESSAGE_LIMIT
    assert "@everyone" not in shown and shown.startswith("\\*\\*@\u200beveryone\\*\\*")
    assert shown.endswith(f"`#{rolled.rolls[0].number}` 1d20: " + rolled.rolls[0].detail)
    text = "*hi* [[1d20]] @everyone <@123> **b**"
    rolled = await roll_inline(table, table.alice, text)
    total = rolled.rolls[0].total
    plain = render_text(text, rolled)
    assert plain.startswith(f"\\*hi\\* **{total}** @\u200beveryone <@\u200b123> \\*\\*b")
    # A post may keep its markdown; its mentions still ping nobody.
    styled = render_text(text, rolled, markdown=True)
    assert styled.startswith(f"*hi* **{total}** @\u200beveryone <@\u200b123> **b**")


# --------------------------------------------------------------------------- context menu


async def test_the_context_menu_rolls_the_callers_own_message(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Vex", {"DEX": 14})
    message = await table.alice.send(table.table, "I hide [[check DEX dc:10]] and [[1d6]]")
    table.dice(12)
    result = await table.alice.context_menu(table.table, MENU, message)
    answer = final_answer(result)
    assert not answered_ephemeral(result)
    assert message.jump_url in answer.content
    assert "**Success (14 vs DC 10)**" in answer.content
    recorded = await rows(table)
    assert len(recorded) == 2
    assert recorded[0].request == f"[[check DEX dc:10]] in message {message.jump_url}"
    # Rolled once: a second try does not reroll until the dice please.
    again = await table.alice.context_menu(table.table, MENU, message)
    assert answered_ephemeral(again)
    assert f"rolled already (roll #{recorded[0].number})" in final_answer(again).content
    assert len(await rows(table)) == 2
    other = await table.alice.send(table.table, "And again [[1d6]]")
    assert not answered_ephemeral(await table.alice.context_menu(table.table, MENU, other))


async def test_the_context_menu_refuses_another_members_message(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Vex", {"DEX": 14})
    message = await table.bob.send(table.table, "Roll for me [[check DEX]]")
    result = await table.alice.context_menu(table.table, MENU, message)
    assert answered_ephemeral(result)
    assert "your own messages" in final_answer(result).content
    assert await rows(table) == []


async def test_the_context_menu_on_a_message_without_rolls_says_how(table: Table) -> None:
    message = await table.alice.send(table.table, "No dice here")
    result = await table.alice.context_menu(table.table, MENU, message)
    assert answered_ephemeral(result)
    assert "[[1d20+5]]" in final_answer(result).content.replace("\\", "")
    assert await rows(table) == []


async def test_inline_rolls_take_the_commands_work_from_the_budgets_before_any_die(
    table: Table,
) -> None:
    # A bucket of 1,500 units: /roll 1000d20 costs 1,000; two in one text cost 2,000.
    budgets = Budgets(Rate(1500, 1), Rate(100_000, 100))
    who = replace(caller_of(table, table.alice), budget=budgets)
    async with core_transaction(table.bot.db) as session:
        with pytest.raises(OverBudget):
            await roll_text_in(session, who, "[[1000d20]] and [[1000d20]]", table.bot.rng)
    assert await rows(table) == []
    async with core_transaction(table.bot.db) as session:
        rolled = await roll_text_in(session, who, "[[1000d20]] then [[1d20]]", table.bot.rng)
    assert len(rolled.rolls) == 2 and len(await rows(table)) == 2


async def test_a_text_refused_while_rolling_gives_its_work_back(table: Table) -> None:
    # The attack's target is looked up only when it is rolled, after the budgets were charged:
    # the refused text has done nothing, so it costs nothing either.
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"STR": 14})
    budgets = Budgets(Rate(1500, 0.001), Rate(100_000, 100), clock=lambda: 0.0)
    who = replace(caller_of(table, table.alice), budget=budgets)
    full = budgets.level(who.user_id, who.guild_id)
    with pytest.raises(InlineRollError, match="Nobody"):
        async with core_transaction(table.bot.db) as session:
            await roll_text_in(
                session, who, "[[1000d20]] [[attack ac:15 target:Nobody]]", table.bot.rng
            )
    assert budgets.level(who.user_id, who.guild_id) == full
    assert await rows(table) == []


async def test_an_inline_attack_on_a_named_target_uses_its_sheets_ac(table: Table) -> None:
    # As /attack target:Bram does (docs/rules/d20-check.md, "Attacks"): no ac: needed when
    # the target's sheet holds one; without one the roll is refused, naming what is missing.
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ayla", {"STR": 14})
    await make_character(table, table.bob, "Bram", {"DEX": 12})
    with pytest.raises(InlineRollError, match="Armour Class"):
        await roll_inline(table, table.alice, "[[attack target:Bram]]")
    assert await rows(table) == []
    done = await table.bob.slash(table.table, "character armour", ac=17)
    assert done.response is not None and "Armour saved" in done.response.content
    table.dice(11)
    rolled = await roll_inline(table, table.alice, "I swing [[attack target:Bram]]")
    (row,) = await rows(table)
    assert row.outcome["ac_given"] == 17 and row.outcome["ac_from_sheet"] is True
    assert rolled.rolls[0].total.endswith("vs AC 17)")
