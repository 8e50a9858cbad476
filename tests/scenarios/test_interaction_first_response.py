"""Answered within Discord's 3 seconds, and deferred answers done Discord's way.

Rule: no command calls Discord's REST API (a member, a channel, a message) before its first
response unless that response is a deferral. SimCord records every REST request the bot
attempts (``env.http_requests``) in order, the interaction callback among them, so each test
counts what the bot asked of Discord before it answered. After a deferral the answer is the
original response edited (PATCH .../messages/@original), never a first followup (POST to the
webhook), which Discord documents as deprecated.

Tests bot/interaction.py.
"""

from __future__ import annotations

import re
from typing import Any

from simcord.actors import MemberActor
from simcord.enums import ChannelType

from tests.fixtures.table import (
    Table,
    answered_ephemeral,
    answering_violations,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)

_CALLBACK = re.compile(r"^/interactions/\d+/[^/]+/callback$")
_EDIT_ORIGINAL = re.compile(r"^/webhooks/\d+/[^/]+/messages/@original$")
_FOLLOWUP = re.compile(r"^/webhooks/\d+/[^/]+$")
_DEFERRED = 5  # DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
#: A snowflake no member of the test server has.
STRANGER = 1_300_000_000_000_000_077


class Requests:
    """The REST requests one interaction made, split at its first response."""

    def __init__(self, entries: list[Any]) -> None:
        first = next((i for i, e in enumerate(entries) if _CALLBACK.match(e.path)), None)
        assert first is not None, "the interaction was never answered"
        self.before = [f"{e.method} {e.path}" for e in entries[:first]]
        self.first = entries[first]
        self.after = entries[first + 1 :]

    @property
    def deferred(self) -> bool:
        return bool(self.first.json and self.first.json.get("type") == _DEFERRED)

    def count(self, method: str, pattern: re.Pattern[str]) -> int:
        return sum(1 for e in self.after if e.method == method and pattern.match(e.path))


async def run(
    table: Table, actor: MemberActor, where: Any, command: str, **options: Any
) -> tuple[Any, Requests]:
    """``actor`` runs ``command``; its result and the REST requests it made. Asserts the rule:
    nothing before the first response, unless the first response is a deferral."""
    log = table.env.http_requests
    start = len(log)
    result = await actor.slash(where, command, **options)
    made = Requests(list(log[start:]))
    assert made.before == [], f"/{command} called Discord before answering: {made.before}"
    if made.deferred:
        # The answer (or the error) edits the "thinking…" response; a followup may only come
        # once that is done, never in its place.
        first_after = next(
            (e for e in made.after if _EDIT_ORIGINAL.match(e.path) or _FOLLOWUP.match(e.path)),
            None,
        )
        assert first_after is not None and _EDIT_ORIGINAL.match(first_after.path), (
            f"/{command}: a deferred answer must edit the original response"
        )
    return result, made


def _players(table: Table, count: int) -> list[MemberActor]:
    found = [table.alice, table.bob, table.carol]
    found += [table.guild.add_member(table.env.create_user(f"p{n}")) for n in range(3, count)]
    return found[:count]


async def test_abilities_roll_for_24_players_defers_then_fetches(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    players = _players(table, 24)
    mentions = " ".join(p.mention for p in players)
    # Without the members intent the bot caches none of them: each must be fetched.
    assert all(table.bot.get_guild(table.guild.id).get_member(p.id) is None for p in players)  # type: ignore[union-attr]

    result, made = await run(table, table.gm, table.table, "abilities roll", players=mentions)

    assert made.deferred
    fetched = [e.path for e in made.after if e.method == "GET" and "/members/" in e.path]
    assert sorted(fetched) == sorted(f"/guilds/{table.guild.id}/members/{p.id}" for p in players)
    assert made.count("PATCH", _EDIT_ORIGINAL) == 1 and made.count("POST", _FOLLOWUP) == 0
    shown = final_answer(result)
    assert not shown.ephemeral and result.followups == []
    assert message_text(shown).count("Score ") == 6


async def test_abilities_roll_of_a_stranger_is_refused_privately(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    result, made = await run(
        table,
        table.gm,
        table.table,
        "abilities roll",
        players=f"{table.alice.mention} <@{STRANGER}>",
    )
    assert made.deferred
    # The public "thinking…" is removed: only the GM sees the refusal, nothing stays behind.
    assert answered_ephemeral(result)
    assert "is not a member of this server" in final_answer(result).content
    assert result.response is None
    public = [m for m in table.table.history(viewer=table.bob) if m.author.id == table.bot.user.id]
    assert not any("not a member" in message_text(m) for m in public)


async def test_campaign_export_is_the_deferred_response_edited(table: Table) -> None:
    await start_campaign(table, "d20-check")
    result, made = await run(table, table.admin, table.table, "campaign export")
    assert made.deferred and made.count("POST", _FOLLOWUP) == 0
    assert result.response is not None and result.response.ephemeral
    assert [a.filename.endswith(".json.gz") for a in result.response.attachments] == [True]


async def test_an_error_after_a_private_deferral_edits_the_response(table: Table) -> None:
    await start_campaign(table, "d20-check")
    result, made = await run(table, table.alice, table.table, "history", character="Nobody")
    assert made.deferred and made.count("POST", _FOLLOWUP) == 0
    assert result.response is not None and result.response.ephemeral
    assert "Nobody" in result.response.content


async def test_every_command_answers_before_it_asks_discord(table: Table) -> None:
    """The class: a play session's commands, each checked by :func:`run`; the ones that reach
    Discord (a GM copy, a thread the cache lacks, a reveal elsewhere) do it after answering."""
    await run(
        table,
        table.admin,
        table.table,
        "campaign setup",
        system="d20-check",
        gm_role=table.gm_role,
        gm_channel=table.gm_channel,
    )
    await make_character(table, table.alice, "Ayla", {"STR": 14})
    await run(table, table.alice, table.table, "check", ability="STR")
    await run(table, table.alice, table.table, "roll", dice="1d20", secret="gm")
    await run(table, table.alice, table.table, "roll", dice="1d20", secret="blind")
    await run(table, table.alice, table.table, "roll", dice="1d20", secret="self")
    # A thread the bot's cache does not hold (play by post archives quiet threads).
    thread = table.env.backend.create_thread(
        table.table.id, "side", table.alice.id, type=ChannelType.PRIVATE_THREAD
    )
    side = next(t for t in table.table.threads if t.id == thread.id)
    await run(table, table.alice, side, "roll", dice="1d20", secret="blind")
    table.env.backend.edit_channel(thread.id, {}, thread_metadata={"archived": True})
    assert table.bot.get_channel(thread.id) is None
    _, history = await run(table, table.bob, table.table, "history")
    assert history.deferred
    await run(table, table.gm, table.table, "gm log")
    await run(table, table.bob, table.table, "stats")
    await run(table, table.bob, table.table, "verify", roll=2)
    await run(table, table.bob, table.table, "verify", log=True)
    # Revealed from another channel: the reveal is posted in the campaign's, after deferring.
    _, reveal = await run(table, table.gm, table.gm_channel, "reveal", roll=2)
    assert reveal.deferred
    await run(table, table.alice, table.table, "reveal", roll=4)
    await run(table, table.gm, table.table, "gm roll", dice="1d20")
    # Revealing a hidden DC also updates the request's message: after answering.
    await run(
        table,
        table.gm,
        table.table,
        "gm request roll",
        ability="STR",
        characters="Ayla",
        hidden_dc=10,
    )
    _, reveal_request = await run(table, table.gm, table.table, "gm request reveal")
    assert any(e.method == "PATCH" and "/messages/" in e.path for e in reveal_request.after)
    await run(table, table.admin, table.table, "campaign export")


def test_the_suite_wide_check_sees_both_mistakes() -> None:
    """Every bot test ends with :func:`answering_violations` (tests/fixtures/table.py);
    here it is shown both mistakes (REST before the first response, a followup for a deferral)
    as SimCord records them, and one correct answer."""
    wrong = [
        ("GATEWAY", "INTERACTION_CREATE", {"id": "7"}),
        ("HTTP", "GET /guilds/1/members/2", None),
        ("HTTP", "POST /interactions/7/tok7/callback", {"type": 5}),
        ("HTTP", "POST /webhooks/9/tok7", {"content": "the answer"}),
    ]
    found = answering_violations(wrong)
    assert len(found) == 2
    assert "before interaction 7 was answered" in found[0]
    assert "a followup in place of the deferred response" in found[1]
    right = [
        ("GATEWAY", "INTERACTION_CREATE", {"id": "8"}),
        ("HTTP", "POST /interactions/8/tok8/callback", {"type": 5}),
        ("HTTP", "GET /guilds/1/members/2", None),
        ("HTTP", "PATCH /webhooks/9/tok8/messages/@original", {"content": "the answer"}),
        ("HTTP", "POST /webhooks/9/tok8", {"content": "a note after it"}),
    ]
    assert answering_violations(right) == []
