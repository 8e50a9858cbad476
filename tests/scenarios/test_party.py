"""/party add | remove | show: the GM adds anyone, a player only their own character.

Tests bot/cogs/party.py and bot/services/rolling/party.py.
"""

from __future__ import annotations

import ast
from pathlib import Path

import bot
from tests.fixtures.table import Table, make_character, message_text, start_campaign


async def test_party_membership_and_permissions(table: Table) -> None:
    await start_campaign(table, "d20-check")
    # Characters do not join the party by themselves here: the GM builds it by hand.
    await table.gm.slash(table.table, "campaign set party-auto-join", on=False)
    await make_character(table, table.alice, "Ann", {"STR": 16, "DEX": 12})
    await make_character(table, table.bob, "Bo", {"STR": 8})
    own = await table.alice.slash(table.table, "party add", character="Ann")
    assert own.response is not None and "Ann** joins the party" in own.response.content
    other = await table.alice.slash(table.table, "party add", character="Bo")
    assert other.ephemeral and "belongs to another player" in other.response.content
    by_gm = await table.gm.slash(table.table, "party add", character="bo")
    assert "Bo** joins the party" in by_gm.response.content
    twice = await table.gm.slash(table.table, "party add", character="Bo")
    assert twice.ephemeral and "already in the party" in twice.response.content

    shown = await table.carol.slash(table.table, "party show")
    text = message_text(shown.response)
    assert "**STR** 16 (+3)" in text and "**DEX** 12 (+1)" in text and "**STR** 8 (−1)" in text
    assert "2 in the party" in text

    gone = await table.bob.slash(table.table, "party remove", character="Bo")
    assert "Bo** leaves the party" in gone.response.content
    shown = await table.gm.slash(table.table, "party show")
    assert "Bo" not in message_text(shown.response).replace("Bonus", "")


async def test_party_show_per_system(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Ann", {"STR": 14})
    await table.alice.slash(table.table, "party add", character="Ann")
    text = message_text((await table.alice.slash(table.table, "party show")).response)
    assert "Adept" in text and "fortune dice 0 of 2" in text


async def test_party_show_empty_says_how_to_fill_it(table: Table) -> None:
    await start_campaign(table, "roll-under")
    text = message_text((await table.alice.slash(table.table, "party show")).response)
    assert "/party add" in text


def test_no_module_borrows_another_modules_private_names() -> None:
    """/party show and the character sheet share one public score line (review A4): nothing in
    bot/ imports a ``_private`` name from another module (private submodules are fine)."""
    root = Path(bot.__file__).resolve().parent

    def is_submodule(module: str, name: str) -> bool:
        where = root.parent.joinpath(*module.split("."), name)
        return where.is_dir() or where.with_suffix(".py").is_file()

    borrowed = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("bot"):
                continue
            for alias in node.names:
                private = alias.name.startswith("_") and not alias.name.startswith("__")
                if private and not is_submodule(node.module or "", alias.name):
                    borrowed.append(f"{path.relative_to(root)}: {node.module}.{alias.name}")
    assert not borrowed
