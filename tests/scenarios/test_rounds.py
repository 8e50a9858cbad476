"""Sealed declarations (docs/rounds.md) in SimCord: a round of three players revealed together and
each verified, replacing a declaration, refusals, a deadline reveal through the scheduler,
cancelling, escaping and clipping of what players write.

Tests bot/cogs/rounds.py, bot/services/table/rounds.py and bot/render/rounds.py.
"""

from __future__ import annotations

import re

from sqlalchemy import select

from bot.app import PbpBot, create_bot
from bot.config import Settings
from bot.db.models import ledger
from bot.db.round_models import round_declarations
from bot.services.trust import privacy
from tests.fixtures.table import (
    SEED,
    ScriptedRandom,
    Table,
    embed_text,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)

HOUR = 3600.0
_DIGEST = re.compile(r"\b[0-9a-f]{64}\b")
SYBILLA = "I slip behind the altar and pocket the idol."
BO = "I hold the door against the cultists."
CY = "I read the inscription aloud, slowly."


async def _players(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Sybilla", {"DEX": 14})
    await make_character(table, table.bob, "Bo", {"STR": 16})
    await make_character(table, table.carol, "Cy", {"INT": 15})


def _number(text: str) -> int:
    found = re.search(r"declaration \*\*#(\d+)\*\*", text)
    assert found, text
    return int(found.group(1))


def _all_text(table: Table) -> str:
    return "\n".join(message_text(m) for m in table.table.history())


async def _declaration_rows(table: Table) -> list[tuple[int, str | None]]:
    async with table.bot.db.engine.connect() as conn:
        rows = await conn.execute(
            select(ledger.c.number, ledger.c.revealed_at)
            .where(ledger.c.kind == "declaration")
            .order_by(ledger.c.id)
        )
        return [(int(r[0]), r[1]) for r in rows]


async def test_three_sealed_declarations_are_revealed_together_and_each_verifies(
    table: Table,
) -> None:
    await _players(table)
    opened = await table.gm.slash(table.table, "gm round open")
    assert opened.response is not None and not opened.ephemeral
    assert "Round 1: sealed declarations" in message_text(opened.response)

    numbers: dict[str, int] = {}
    commitments: dict[str, str] = {}
    for player, name, text in (
        (table.alice, "Sybilla", SYBILLA),
        (table.bob, "Bo", BO),
        (table.carol, "Cy", CY),
    ):
        done = await player.slash(table.table, "declare", text=text)
        assert done.response is not None and not done.ephemeral  # the channel sees it
        shown = message_text(done.response)
        assert f"{name} has declared" in shown
        assert text not in shown
        numbers[name] = _number(shown)
        commitments[name] = _DIGEST.findall(shown)[0]

    # Nobody sees what was declared: not the table, not the GM, not the declarer.
    everything = _all_text(table)
    for text in (SYBILLA, BO, CY):
        assert text not in everything
    status = await table.gm.slash(table.table, "gm round status")
    assert status.ephemeral
    listed = message_text(status.response)
    assert all(name in listed for name in ("Sybilla", "Bo", "Cy")) and "3 declarations" in listed
    assert SYBILLA not in listed
    for viewer in (table.gm, table.alice):
        early = await viewer.slash(table.table, "verify", roll=numbers["Sybilla"])
        text = message_text(final_answer(early))
        assert "still hidden" in text and "/gm round reveal" in text and SYBILLA not in text
        history = await viewer.slash(table.table, "history")
        assert SYBILLA not in message_text(final_answer(history))
    assert all(revealed is None for _, revealed in await _declaration_rows(table))

    # The reveal: every declaration at once.
    await table.env.advance_time(60)
    revealed = await table.gm.slash(table.table, "gm round reveal")
    assert revealed.response is not None and not revealed.ephemeral
    assert "Round 1 revealed by the GM" in message_text(revealed.response)
    posted = "\n".join(message_text(m) for m in revealed.followups)
    for name, text in (("Sybilla", SYBILLA), ("Bo", BO), ("Cy", CY)):
        assert f"#{numbers[name]} · {name}" in posted
        assert text.replace(".", ".") in posted
    stamps = {at for _, at in await _declaration_rows(table)}
    assert len(stamps) == 1 and None not in stamps  # revealed in one stroke

    missed = await table.carol.slash(table.table, "catchup")
    assert "declared “I hold the door against the cultists.”" in message_text(final_answer(missed))
    # Each one checks against the commitment its stub still shows.
    for name in ("Sybilla", "Bo", "Cy"):
        checked = await table.bob.slash(table.table, "verify", roll=numbers[name])
        text = message_text(final_answer(checked))
        assert "the commitment matches" in text, text
        assert "stub message, as Discord shows it" in text
        assert commitments[name] in text
    history = await table.carol.slash(table.table, "history")
    assert "declared “I slip behind the altar and pocket the idol.”" in message_text(
        final_answer(history)
    )
    log = await table.carol.slash(table.table, "verify", log=True)
    assert "intact" in message_text(final_answer(log)).lower()


async def test_a_declaration_can_be_replaced_before_the_reveal_and_only_the_last_counts(
    table: Table,
) -> None:
    await _players(table)
    await table.gm.slash(table.table, "gm round open")
    first = await table.alice.slash(table.table, "declare", text="I flee.")
    old = _number(message_text(first.response))
    second = await table.alice.slash(table.table, "declare", text="I stand and fight.")
    shown = message_text(second.response)
    assert "Sybilla has changed their declaration" in shown
    assert f"replaces #{old}" in shown and "flee" not in shown and "fight" not in shown
    new = _number(shown)
    assert _DIGEST.findall(shown)[0] != _DIGEST.findall(message_text(first.response))[0]
    status = await table.gm.slash(table.table, "gm round status")
    assert "1 declaration" in message_text(status.response)
    revealed = await table.gm.slash(table.table, "gm round reveal")
    posted = "\n".join(message_text(m) for m in revealed.followups)
    assert "I stand and fight." in posted and "I flee." not in posted
    assert f"#{new} · Sybilla" in posted
    # The withdrawn one stays sealed for good.
    withdrawn = await table.bob.slash(table.table, "verify", roll=old)
    text = message_text(final_answer(withdrawn))
    assert "still hidden" in text and "flee" not in text
    async with table.bot.db.engine.connect() as conn:
        replaced = (
            (await conn.execute(select(round_declarations.c.replaced_at).order_by("id")))
            .scalars()
            .all()
        )
    assert replaced[0] is not None and replaced[1] is None


async def test_declaring_outside_a_round_after_it_closes_and_gm_only_commands_are_refused(
    table: Table,
) -> None:
    await _players(table)
    nothing = await table.alice.slash(table.table, "declare", text="I wait.")
    assert nothing.ephemeral and "No round is open here" in final_answer(nothing).content
    for command in ("gm round open", "gm round reveal", "gm round cancel"):
        refused = await table.alice.slash(table.table, command)
        assert refused.ephemeral
        assert "Only the campaign's GM" in final_answer(refused).content, command
    await table.gm.slash(table.table, "gm round open")
    twice = await table.gm.slash(table.table, "gm round open")
    assert twice.ephemeral and "already open here" in final_answer(twice).content
    done = await table.alice.slash(table.table, "declare", text="I wait.")
    number = _number(message_text(done.response))
    # Not even its author can reveal it early.
    early = await table.alice.slash(table.table, "reveal", roll=number)
    assert "revealed with its round" in final_answer(early).content
    blank = await table.bob.slash(table.table, "declare", text="   ")
    assert blank.ephemeral and "empty" in final_answer(blank).content
    await table.gm.slash(table.table, "gm round reveal")
    late = await table.alice.slash(table.table, "declare", text="I change my mind.")
    assert late.ephemeral and "No round is open here" in final_answer(late).content
    assert "I change my mind." not in final_answer(late).content
    again = await table.gm.slash(table.table, "gm round reveal")
    assert again.ephemeral and "No round is open here" in final_answer(again).content
    assert [n for n, _ in await _declaration_rows(table)] == [number]


async def test_a_deadline_reveals_the_round_through_the_scheduler(
    table: Table, settings: Settings
) -> None:
    await _players(table)
    opened = await table.gm.slash(table.table, "gm round open", deadline="2h")
    assert "reveals itself" in message_text(opened.response)
    await table.alice.slash(table.table, "declare", text=SYBILLA)
    # The bot restarts mid-round: the round and its deadline live in the database.
    old: PbpBot = table.bot
    await table.env.restart_bot(create_bot(settings, rng=ScriptedRandom(SEED)))
    await old.db.dispose()
    await table.bob.slash(table.table, "declare", text=BO)
    await table.env.advance_time(2 * HOUR - 60)
    assert "revealed at its deadline" not in _all_text(table)
    assert SYBILLA not in _all_text(table)
    await table.env.advance_time(60)
    everything = _all_text(table)
    assert "Round 1 revealed at its deadline" in everything
    assert SYBILLA in everything and BO in everything
    assert all(at is not None for _, at in await _declaration_rows(table))
    late = await table.carol.slash(table.table, "declare", text=CY)
    assert late.ephemeral and "No round is open here" in final_answer(late).content
    # The deadline ran once: nothing more is posted later.
    await table.env.advance_time(5 * HOUR)
    assert _all_text(table).count("revealed at its deadline") == 1
    await table.bot.close_database()


async def test_a_cancelled_round_stays_sealed_and_a_new_one_can_open(table: Table) -> None:
    await _players(table)
    await table.gm.slash(table.table, "gm round open", deadline="1h")
    done = await table.alice.slash(table.table, "declare", text=SYBILLA)
    number = _number(message_text(done.response))
    cancelled = await table.gm.slash(table.table, "gm round cancel")
    assert "cancelled" in message_text(cancelled.response)
    assert "Sybilla" in message_text(cancelled.response)
    await table.env.advance_time(2 * HOUR)  # its deadline job was cancelled with it
    assert SYBILLA not in _all_text(table)
    sealed = await table.bob.slash(table.table, "verify", roll=number)
    assert "still hidden" in message_text(final_answer(sealed))
    reopened = await table.gm.slash(table.table, "gm round open")
    assert "Round 2" in message_text(reopened.response)


async def test_declarations_read_as_written_within_discord_limits(table: Table) -> None:
    await _players(table)
    await table.gm.slash(table.table, "gm round open")
    await table.alice.slash(table.table, "declare", text="**@everyone** <@123> # shout")
    await table.bob.slash(table.table, "declare", text="*" * 4000)
    await table.carol.slash(table.table, "declare", text="x" * 4000)
    revealed = await table.gm.slash(table.table, "gm round reveal")
    messages = [revealed.response, *revealed.followups]
    embeds = [e for m in messages for e in m.embeds]
    sybilla = next(e for e in embeds if "Sybilla" in (e.title or ""))
    # As written: markdown and the mention as Discord shows them (an embed pings nobody).
    assert sybilla.description == "**@everyone** <@123> # shout"
    bo = next(e for e in embeds if "Bo" in (e.title or ""))
    assert bo.description == "*" * 4000
    cy = next(e for e in embeds if "Cy" in (e.title or ""))
    assert cy.description == "x" * 4000  # a plain paragraph shows whole
    for message in messages:
        assert len(message.embeds) <= 10
        assert sum(len(e) for e in message.embeds) <= 6000
    assert all(len(embed_text(e)) > 0 for e in embeds)
    for posted in table.table.history():  # nobody was pinged
        assert not posted.mentions and not posted.mention_everyone


async def test_erasing_a_player_tombstones_their_declarations_and_they_still_verify(
    table: Table,
) -> None:
    await _players(table)
    await table.gm.slash(table.table, "gm round open")
    done = await table.alice.slash(table.table, "declare", text=SYBILLA)
    number = _number(message_text(done.response))
    await table.bob.slash(table.table, "declare", text=BO)
    await table.gm.slash(table.table, "gm round reveal")
    await privacy.erase_user(table.bot.db, table.alice.id, table.guild.id)
    async with table.bot.db.engine.connect() as conn:
        outcome = (
            await conn.execute(select(ledger.c.outcome).where(ledger.c.number == number))
        ).scalar_one()
        declared = (
            await conn.execute(
                select(round_declarations.c.user_id, round_declarations.c.name).order_by("id")
            )
        ).all()
    assert outcome["declaration"] == "[erased]"
    assert [tuple(r) for r in declared] == [(0, "[erased]"), (table.bob.id, "Bo")]
    checked = await table.bob.slash(table.table, "verify", roll=number)
    text = message_text(final_answer(checked))
    assert "the commitment matches" in text and SYBILLA not in text
    log = await table.bob.slash(table.table, "verify", log=True)
    assert "intact" in message_text(final_answer(log)).lower()
