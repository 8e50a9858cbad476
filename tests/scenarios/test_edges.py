"""Small edges: expired buttons and forms answered privately, ``allowed_mentions`` on every
message the bot sends or edits, server-only commands not offered in DMs, and the whole
campaign in the party in one step."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.fixtures.places import open_thread
from tests.fixtures.table import (
    Table,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)
from tests.scenarios.test_permissions import every_permission, session

_MESSAGE_ROUTES = re.compile(
    r"^(POST|PATCH) (/channels/\d+/messages(/\d+)?|/webhooks/\d+/[^/]+(/messages/[^/]+)?)$"
)


def _bodies(table: Table) -> list[tuple[str, dict[str, Any]]]:
    """Every message body the bot sent or edited: channel posts and edits, webhook posts
    and edits, and interaction callbacks that carry a message."""
    found = []
    for request in table.env.http_requests:
        name = f"{request.method} {request.path}"
        body = request.json if isinstance(request.json, dict) else None
        if body is None:
            continue
        if request.path.startswith("/interactions/"):
            if body.get("type") in (4, 7) and isinstance(body.get("data"), dict):
                found.append((name, body["data"]))
        elif _MESSAGE_ROUTES.match(name):
            found.append((name, body))
    return found


@pytest.mark.usefixtures("discord_thread_rules")
async def test_every_message_the_bot_sends_or_edits_carries_allowed_mentions(
    table: Table,
) -> None:
    await session(table, every_permission())  # GM copies, reveals, requests, clock, /post
    # A roll request in a thread, answered and closed by its deadline: edits in place.
    scene = open_thread(table, table.table, "Edits")
    await table.gm.slash(
        scene, "gm request roll", ability="DEX", characters="Ayla, Bram", dc=10, deadline="1h"
    )
    request = [m for m in scene.history() if m.components][-1]
    table.dice(12)
    await table.alice.click(request, label="Roll")
    await table.gm.slash(scene, "gm request extend", by="1h")
    await table.env.advance_time(3 * 3600)
    bodies = _bodies(table)
    assert len(bodies) > 20
    missing = [name for name, body in bodies if "allowed_mentions" not in body]
    assert missing == [], missing


def _leaves(command: Any) -> list[Any]:
    children = getattr(command, "commands", None)
    if not children:
        return [command]
    return [leaf for child in children for leaf in _leaves(child)]


async def test_commands_that_need_a_server_are_not_offered_in_dms(table: Table) -> None:
    offered = {name.split()[0] for name in table.env.create_user("dana").available_commands()}
    server_only = {
        command.name
        for command in table.bot.tree.get_commands()
        if all(getattr(leaf, "guild_only", False) for leaf in _leaves(command))
        or getattr(command, "guild_only", False)
    }
    assert {"campaign", "character", "party", "gm", "turns"} <= server_only
    assert offered & server_only == set(), offered & server_only
    # What is offered works there: a roll, the help, one's own settings and data.
    assert {"roll", "help", "me", "privacy"} <= offered


async def test_the_gm_adds_every_character_to_the_party_in_one_step(table: Table) -> None:
    await start_campaign(table, "d20-check")
    # New campaigns: new characters join the party at once.
    await make_character(table, table.alice, "Ayla", {"DEX": 14})
    shown = final_answer(await table.gm.slash(table.table, "party show"))
    assert "Ayla" in message_text(shown)
    done = await table.gm.slash(table.table, "campaign set party-auto-join", on=False)
    assert "Setting saved" in final_answer(done).content
    await make_character(table, table.bob, "Bram", {"DEX": 12})
    await make_character(table, table.carol, "Cyn", {"DEX": 10})
    asked = await table.gm.slash(table.table, "gm request roll", ability="DEX")
    assert "Ayla" in message_text(final_answer(asked)) and "Bram" not in message_text(
        final_answer(asked)
    )
    refused = final_answer(await table.bob.slash(table.table, "party add-all"))
    assert refused.ephemeral and "Only the campaign's GM" in refused.content
    joined = final_answer(await table.gm.slash(table.table, "party add-all"))
    assert not joined.ephemeral and joined.content == "**Bram**, **Cyn** join the party."
    party = message_text(final_answer(await table.gm.slash(table.table, "party show")))
    assert all(name in party for name in ("Ayla", "Bram", "Cyn"))
    again = final_answer(await table.gm.slash(table.table, "party add-all"))
    assert again.ephemeral and "already" in again.content


def _bot_classes(base: type) -> list[type]:
    found, todo = [], list(base.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("bot."):
            found.append(cls)
    return found
