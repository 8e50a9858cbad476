"""Renamed commands (bot/render/renamed.py): one word per action, the old names kept one release.

Each old name still does what it did, and its answer and description name the new one; /help
lists the new names and shows each old one only as renamed; the pages never teach an old
name; and the table cannot outlive the release it names.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from discord import app_commands
from discord.enums import AppCommandType

from bot.cogs.help import command_docs
from bot.render.help import HelpTopic, help_pages, topic_commands
from bot.render.renamed import RENAMED
from bot.services.store import ledger
from tests.scenarios.conftest import Table, final_answer, message_text
from tests.scenarios.test_secrecy import _latest, _setup

ROOT = Path(__file__).resolve().parents[2]


def _said(result: Any) -> str:
    """Everything the caller was answered, response and followups."""
    messages = [result.response, *result.followups]
    return "\n".join(message_text(m) for m in messages if m is not None)


def _notes(result: Any, old: str) -> list[Any]:
    """The caller's private messages naming ``old``'s new name."""
    new = RENAMED[old].new
    return [
        m
        for m in [result.response, *result.followups]
        if m is not None and f"`/{old}` is now `/{new}`" in m.content
    ]


async def _reveal(table: Table) -> tuple[Any, Any]:
    """The GM reveals a blind roll by each name: the same public reveal."""
    await _setup(table, "d20-check")
    results = []
    for command in ("gm reveal", "reveal"):
        await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="blind")
        row = await _latest(table)
        shown = await table.gm.slash(table.table, command, roll=row.number)
        assert shown.response is not None and not shown.response.ephemeral
        text = message_text(shown.response)
        assert str(row.outcome["total"]) in text and str(row.salt) in text
        assert (await ledger.get_roll(table.bot.db, row.id)).revealed_at is not None
        results.append(shown)
    old, new = results
    # The table's reveal is the reveal, nothing about names in it.
    assert "is now" not in message_text(old.response)
    return old, new


async def _list_prerolls(table: Table) -> tuple[Any, Any]:
    """Both names list the same sealed dice, only to the caller."""
    await _setup(table, "d20-check")
    await table.alice.slash(table.table, "preroll", count=2)
    old = await table.bob.slash(table.table, "prerolls")
    new = await table.bob.slash(table.table, "preroll-list")
    for result in (old, new):
        assert result.response is not None and result.response.ephemeral
        assert "Ayla: 2" in message_text(result.response)
    assert old.response.embeds[0].to_dict() == new.response.embeds[0].to_dict()
    return old, new


#: Each old name played beside its new one: (the old name's result, the new name's).
SCENARIOS: dict[str, Callable[[Table], Awaitable[tuple[Any, Any]]]] = {
    "gm reveal": _reveal,
    "prerolls": _list_prerolls,
}


def test_every_old_name_is_played() -> None:
    assert set(SCENARIOS) == set(RENAMED)


@pytest.mark.parametrize("old", sorted(SCENARIOS))
async def test_an_old_name_runs_as_before_and_says_its_new_name(table: Table, old: str) -> None:
    old_result, new_result = await SCENARIOS[old](table)
    (note,) = _notes(old_result, old)
    assert note.ephemeral
    assert f"stops working in release {RENAMED[old].until}" in note.content
    assert _notes(new_result, old) == [] and "is now" not in _said(new_result)


async def test_an_old_name_refusing_still_says_its_new_name(table: Table) -> None:
    """A refusal is still the last thing the caller reads; the note comes with it."""
    await _setup(table, "d20-check")
    await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="blind")
    row = await _latest(table)
    refused = await table.alice.slash(table.table, "gm reveal", roll=row.number)
    assert "Only the campaign's GM" in final_answer(refused).content
    assert final_answer(refused).ephemeral
    (note,) = _notes(refused, "gm reveal")
    assert note.ephemeral
    assert (await ledger.get_roll(table.bot.db, row.id)).revealed_at is None
    # Nothing of the hidden roll reached anyone: no message in the channel shows its total.
    assert str(row.outcome["total"]) not in _said(refused)


async def test_one_reveal_for_the_gm_and_the_roller(table: Table) -> None:
    """/reveal serves whoever may reveal: the roller's self roll, the GM's gm or blind roll;
    anyone else is refused and nothing changes."""
    await _setup(table, "d20-check")
    await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="self")
    mine = await _latest(table)
    await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="gm")
    theirs = await _latest(table)
    for member, row, why in (
        (table.gm, mine, "Only the player who rolled a self roll"),
        (table.alice, theirs, "Only the campaign's GM"),
        (table.bob, theirs, "Only the campaign's GM"),
    ):
        refused = await member.slash(table.table, "reveal", roll=row.number)
        assert final_answer(refused).ephemeral and why in final_answer(refused).content
        assert (await ledger.get_roll(table.bot.db, row.id)).revealed_at is None
    for member, row in ((table.alice, mine), (table.gm, theirs)):
        shown = await member.slash(table.table, "reveal", roll=row.number)
        assert shown.response is not None and not shown.response.ephemeral
        assert str(row.outcome["total"]) in message_text(shown.response)
        assert (await ledger.get_roll(table.bot.db, row.id)).revealed_at is not None


def _leaves(table: Table) -> dict[str, app_commands.Command[Any, ..., Any]]:
    return {
        command.qualified_name: command
        for command in table.bot.tree.walk_commands(type=AppCommandType.chat_input)
        if isinstance(command, app_commands.Command)
    }


async def test_an_old_names_description_says_the_new_one(table: Table) -> None:
    leaves = _leaves(table)
    for row in RENAMED.values():
        assert row.new in leaves and row.old in leaves
        assert leaves[row.old].description.endswith(f"(old name: use /{row.new})")
        assert len(leaves[row.old].description) <= 100
        assert "old name" not in leaves[row.new].description


async def test_help_lists_the_new_names_and_the_old_only_as_renamed(table: Table) -> None:
    docs = command_docs(table.bot.tree)
    for row in RENAMED.values():
        topics = [t for t in HelpTopic if row.new in topic_commands(t)]
        assert topics, f"/{row.new} is in no /help topic"
        assert not any(row.old in topic_commands(t) for t in HelpTopic)
        for topic in topics:
            pages = help_pages(topic, None, docs)
            listed = [f.value for p in pages for f in p.fields if f.name.startswith("Commands")]
            renamed = [f.value for p in pages for f in p.fields if f.name == "Renamed"]
            assert any(f"`/{row.new}`: " in value for value in listed)
            assert not any(f"`/{row.old}`: " in value for value in listed)
            assert any(f"`/{row.old}` is now `/{row.new}`" in value for value in renamed)


def test_the_pages_teach_only_the_new_names() -> None:
    """README and docs/ name no old command: a reader learns the name that stays."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = [
        f"{page.relative_to(ROOT)}: /{old}"
        for page in pages
        for old in RENAMED
        if re.search(rf"(?<![\w-])/{re.escape(old)}(?![\w-])", page.read_text(encoding="utf-8"))
    ]
    assert found == []


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def test_no_old_name_outlives_its_release() -> None:
    """When the version reaches an old name's release, the name and its command go."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    current = _release(project["version"])
    overdue = [row.old for row in RENAMED.values() if _release(row.until) <= current]
    assert overdue == [], "remove these old names and their commands: " + ", ".join(overdue)
