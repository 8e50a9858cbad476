"""Saved rolls (docs/in-character.md): /macro save | run | list | delete, per character, checked
when saved with the offline table's hints, run exactly as the command they stand for.

Tests bot/cogs/macro.py, bot/services/rolling/macros.py and bot/render/macros.py.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from bot.db.macro_models import macros
from bot.db.models import ledger
from bot.services.kit.sql import transaction
from tests.fixtures.table import (
    Table,
    answered_ephemeral,
    embed_text,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)
from tests.scenarios.test_inline_rolls import roll_inline


async def _d20_table(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Vex", {"DEX": 16, "STR": 12})
    done = await table.alice.slash(
        table.table, "character proficiency", name="Stealth", value="Proficient"
    )
    assert done.response is not None


async def _save(table: Table, name: str, roll: str, who: Any = None) -> str:
    result = await (who or table.alice).slash(table.table, "macro save", name=name, roll=roll)
    assert answered_ephemeral(result)
    return str(final_answer(result).content).replace("\\", "")


async def _ledger(table: Table) -> list[Any]:
    async with transaction(table.bot.db) as session:
        return list((await session.execute(select(ledger).order_by(ledger.c.id))).all())


def _without_footer(message: Any) -> list[str]:
    return [embed_text(e).rsplit("\n", 1)[0] for e in message.embeds]


async def test_a_macro_is_saved_listed_run_like_its_command_and_deleted(table: Table) -> None:
    await _d20_table(table)
    said = await _save(table, "sneak", "check DEX Stealth adv")
    assert "Saved **sneak**: /check DEX Stealth adv" in said
    listed = await table.alice.slash(table.table, "macro list")
    assert answered_ephemeral(listed)
    assert "sneak" in message_text(final_answer(listed)) and "Vex" in message_text(
        final_answer(listed)
    )

    table.dice(11, 17)
    typed = await table.alice.slash(
        table.table, "check", ability="DEX", proficiency="Stealth", advantage=True
    )
    table.dice(11, 17)
    run = await table.alice.slash(table.table, "macro run", name="sneak")
    assert typed.response is not None and run.response is not None and not run.ephemeral
    assert _without_footer(run.response) == _without_footer(typed.response)
    by_command, by_macro = await _ledger(table)
    assert by_macro.outcome == by_command.outcome and by_macro.dice == by_command.dice
    assert by_macro.request == "/macro run name:sneak = /check DEX Stealth adv"

    gone = await table.alice.slash(table.table, "macro delete", name="SNEAK")
    assert answered_ephemeral(gone) and "Deleted" in final_answer(gone).content
    listed = await table.alice.slash(table.table, "macro list")
    assert "None yet" in message_text(final_answer(listed))


async def test_run_appends_extra_options(table: Table) -> None:
    await _d20_table(table)
    await _save(table, "lift", "check STR")
    table.dice(10)
    run = await table.alice.slash(table.table, "macro run", name="lift", extra="dc:12 bonus:1")
    assert run.response is not None
    # d20 10 + 1 STR + 1 bonus = 12 against DC 12.
    assert "Success" in message_text(run.response)
    (row,) = await _ledger(table)
    assert row.request.endswith("= /check STR dc:12 bonus:1")


async def test_a_roll_macro_answers_like_roll(table: Table) -> None:
    await _d20_table(table)
    await _save(table, "fire", "roll 2d6+3 [fire]")
    table.bot.rng.seed(3)
    typed = await table.alice.slash(table.table, "roll", dice="2d6+3 [fire]")
    table.bot.rng.seed(3)
    run = await table.alice.slash(table.table, "macro run", name="fire")
    assert typed.response is not None and run.response is not None
    assert _without_footer(run.response) == _without_footer(typed.response)


async def test_bad_macros_are_refused_with_the_tables_hints_and_nothing_is_saved(
    table: Table,
) -> None:
    await _d20_table(table)
    await _save(table, "sneak", "check DEX Stealth adv")
    for name, roll, words in (
        (
            "hop",
            "chekc DEX",
            "is not a command an inline roll or a saved roll can run. Did you mean check?",
        ),
        ("hop", "check DEX stealht:1", "/check has no option `stealht`. Its options: ability,"),
        ("hop", "check DEX dc:500", "`dc` must be a whole number from 1 to 100."),
        ("hop", "check DEX rank_bonus:1", "where /check has no rank_bonus"),
        ("hop", "luck", "which has no luck rolls (Pen & Dagger only)"),
        ("hop", "roll 1d0", "a die needs at least one side"),
        ("hop", "check FOO", "FOO"),
        ("SNEAK", "check STR", "already has a saved roll called “SNEAK”"),
        ("check", "check STR", "is a command or dice notation"),
        ("two words", "check STR", "one word"),
    ):
        result = await table.alice.slash(table.table, "macro save", name=name, roll=roll)
        assert answered_ephemeral(result), roll
        shown = final_answer(result).content.replace("\\", "")
        assert words in shown, (roll, shown)
    async with transaction(table.bot.db) as session:
        stored = (await session.execute(select(macros.c.name))).scalars().all()
    assert stored == ["sneak"]


async def test_autocomplete_offers_only_the_callers_character_macros(table: Table) -> None:
    await _d20_table(table)
    await make_character(table, table.bob, "Brute", {"STR": 16})
    await _save(table, "sneak", "check DEX Stealth adv")
    await _save(table, "smash", "check STR", who=table.bob)
    offered = await table.alice.autocomplete(table.table, "macro run", "name", "s")
    assert [c["value"] for c in offered] == ["sneak"]
    offered = await table.bob.autocomplete(table.table, "macro delete", "name", "")
    assert [c["value"] for c in offered] == ["smash"]
    refused = await table.bob.slash(table.table, "macro run", name="sneak")
    assert answered_ephemeral(refused)
    assert "Brute has no saved roll called “sneak”" in final_answer(refused).content
    assert await _ledger(table) == []


async def test_a_macro_runs_inline_by_its_name(table: Table) -> None:
    await _d20_table(table)
    await _save(table, "sneak", "check DEX Stealth adv")
    table.dice(11, 17)
    rolled = await roll_inline(table, table.alice, "I creep [[sneak dc:15]].")
    (roll,) = rolled.rolls
    # d20 17 (advantage) + 3 DEX + 2 proficiency = 22 against DC 15.
    assert roll.total == "Success (22 vs DC 15)" and roll.macro == "sneak"
    (row,) = await _ledger(table)
    assert row.request == "[[sneak dc:15]] = /check DEX Stealth adv dc:15"


async def test_macro_text_is_escaped_when_listed(table: Table) -> None:
    await _d20_table(table)
    await _save(table, "boom", "roll 1d20 [**@everyone**]")
    listed = await table.alice.slash(table.table, "macro list")
    text = message_text(final_answer(listed))
    assert "@everyone" not in text and "\\*\\*@\u200beveryone\\*\\*" in text
