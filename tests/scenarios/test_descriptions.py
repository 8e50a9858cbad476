"""Every command, subcommand and option Discord shows has a real description.

Walks the payload the bot sends to Discord when it syncs (`Command.to_dict`), so what is
checked is exactly what a player reads in the command picker.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import discord

from tests.fixtures.table import Table

PLACEHOLDERS = {"…", "...", "-"}
# Discord: 1 to 100 characters for a command's or option's description.
DISCORD_MAX = 100
SUBCOMMAND, SUBCOMMAND_GROUP = 1, 2


def _described(payload: dict[str, Any], path: str) -> Iterator[tuple[str, str, str]]:
    """(where, name, description) for a command and everything under it."""
    yield path, payload["name"], payload.get("description", "")
    for option in payload.get("options", []):
        yield from _described(option, f"{path} {option['name']}")


def _payload(table: Table) -> list[dict[str, Any]]:
    tree = table.bot.tree
    # Slash commands only: a context-menu command has a name and no description in Discord.
    slash = tree.get_commands(type=discord.AppCommandType.chat_input)
    return [command.to_dict(tree) for command in slash]


async def test_every_command_and_option_has_a_real_description(table: Table) -> None:
    payload = _payload(table)
    assert len(payload) > 15  # the whole tree, every cog loaded
    bad = [
        f"/{where}: {description!r}"
        for command in payload
        for where, name, description in _described(command, command["name"])
        if len(description) < 10
        or description.strip() in PLACEHOLDERS
        or description.strip().lower() == name.lower()
        or len(description) > DISCORD_MAX
    ]
    assert not bad, "options without a real description:\n" + "\n".join(bad)


async def test_set_value_says_score_or_threshold_modifier(table: Table) -> None:
    (character,) = [c for c in _payload(table) if c["name"] == "character"]
    (set_,) = [o for o in character["options"] if o["name"] == "set"]
    (value,) = [o for o in set_["options"] if o["name"] == "value"]
    assert "score" in value["description"]
    assert "modifier" in value["description"] and "threshold" in value["description"]
