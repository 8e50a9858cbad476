"""A seed a roll used up is revealed in its place, with the next seed's hash, by every command
that rolls (docs/fair-dice.md): posts' `[[…]]`, the message menu, group saves and checks,
contests, roll requests (a click, the GM's close and the deadline's default rolls), pre-rolls,
initiative, random turn orders, ability generation and the GM's check. Each test makes every
seed due after one roll, and checks that the table saw the old seed (matching the hash shown
before) and the new hash, and that the next roll draws from the seed with that hash."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest
from sqlalchemy import select

from bot.db.models import ledger
from tests.fixtures.table import (
    Table,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)
from tests.scenarios.test_clock import _first_request_message
from tests.scenarios.test_posts import allow_webhooks
from tests.scenarios.test_secrecy import _latest

#: Production's dice, and every seed due once a roll drew from it: the command's rolls rotate it.
pytestmark = [pytest.mark.fair_dice, pytest.mark.usefixtures("seeds_last_one_roll")]

HOUR = 3600.0
_REVEALED = re.compile(r"Dice seed \d+ is revealed: `([0-9a-f]{64})`")
_PUBLISHED = re.compile(r"Dice seed \d+: SHA-256 `([0-9a-f]{64})`")


async def _published(table: Table) -> str:
    """The hash of the campaign's current seed, as /campaign show publishes it."""
    shown = await table.bob.slash(table.table, "campaign show")
    (found,) = _PUBLISHED.findall(message_text(final_answer(shown)))
    return str(found)


def _reveals(table: Table) -> list[str]:
    """The rotations #table shows a player who rolled nothing, oldest first."""
    return [
        message_text(m)
        for m in table.table.history(viewer=table.carol)
        if _REVEALED.search(message_text(m))
    ]


async def _announced(table: Table, before: str, seen: int = 0) -> str:
    """The one rotation posted since ``seen`` were: it reveals the seed whose hash was
    ``before``, publishes the next, and the next roll draws from that one. Its text."""
    reveals = _reveals(table)
    assert len(reveals) == seen + 1, reveals
    (text,) = reveals[seen:]
    (seed,) = _REVEALED.findall(text)
    assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == before
    (following,) = _PUBLISHED.findall(text)
    await table.bob.slash(table.table, "roll", dice="1d20")
    assert (await _latest(table)).outcome["fair"]["seed_hash"] == following
    return text


async def _party(table: Table, system: str = "d20-check") -> None:
    await start_campaign(table, system)
    for player, name in ((table.alice, "Ann"), (table.bob, "Bo"), (table.carol, "Cy")):
        await make_character(table, player, name, {"DEX": 14, "STR": 12})


async def test_a_post_and_the_message_menu_reveal_the_seed_their_rolls_used_up(
    table: Table,
) -> None:
    allow_webhooks(table, True)  # the poster's answer is private; the reveal is not
    await _party(table)
    before = await _published(table)
    posted = await table.alice.slash(
        table.table, "post", text="Ann leaps [[1d20+2]] and [[check DEX]]"
    )
    assert final_answer(posted).ephemeral
    text = await _announced(table, before)
    assert "hidden-roll key: `" in text  # nothing hidden drew from it
    # The message menu: its rolls too.
    before = await _published(table)
    said = await table.alice.send(table.table, "Ann ducks [[1d6]]")
    await table.alice.context_menu(table.table, "Roll the dice in this message", said)
    await _announced(table, before, seen=2)  # the /roll above revealed one too


@pytest.mark.parametrize("command", ["groupsave", "groupcheck"])
async def test_a_group_roll_reveals_its_seed_after_every_member_drew_from_it(
    table: Table, command: str
) -> None:
    await _party(table)
    before = await _published(table)
    rolled = await table.gm.slash(table.table, command, ability="DEX", dc=12)
    assert rolled.response is not None and not rolled.ephemeral
    await _announced(table, before)


async def test_a_contest_reveals_its_seed(table: Table) -> None:
    await _party(table)
    before = await _published(table)
    contested = await table.alice.slash(table.table, "contest", ability="STR", characters="Ann, Bo")
    assert contested.response is not None
    await _announced(table, before)


async def test_a_request_click_reveals_its_seed_and_a_hidden_one_keeps_the_hidden_key(
    table: Table,
) -> None:
    await _party(table)
    await table.gm.slash(
        table.table, "gm request roll", ability="DEX", characters="Ann, Bo", hidden_dc=15
    )
    before = await _published(table)
    await table.alice.click(_first_request_message(table), label="Roll")
    text = await _announced(table, before)
    # Ann's roll is blind until the GM reveals it: its blinding key stays secret.
    assert "hidden-roll key stays secret" in text
    row_text = "\n".join(message_text(m) for m in table.table.history(viewer=table.carol))
    assert "DC 15" not in row_text and "Success" not in row_text


async def test_the_deadlines_default_rolls_reveal_their_seed_with_the_verdict(
    table: Table,
) -> None:
    """No command answers a deadline: the clock posts the reveal in the request's place,
    after every default roll drew from the seed whose hash was shown."""
    await _party(table)
    await table.gm.slash(
        table.table,
        "gm request roll",
        ability="DEX",
        characters="Ann, Bo, Cy",
        hidden_dc=12,
        deadline="2h",
        default="roll",
    )
    before = await _published(table)
    await table.env.advance_time(2 * HOUR + 60)
    assert any("closed at its deadline" in message_text(m) for m in table.table.history())
    text = await _announced(table, before)
    assert "hidden-roll key stays secret" in text  # the three blind rolls are not revealed
    async with table.bot.db.engine.connect() as conn:
        rows = await _default_rows(conn)
    assert len(rows) == 3 and {r["seed_hash"] for r in rows} == {before}


async def _default_rows(conn: Any) -> list[dict[str, Any]]:
    """The draws of the rolls the deadline made."""
    found = await conn.execute(
        select(ledger.c.outcome).where(ledger.c.request.like("%rolled by default%"))
    )
    return [row.outcome["fair"] for row in found]


async def test_the_gms_close_reveals_the_seed_its_default_rolls_used_up(table: Table) -> None:
    await _party(table)
    await table.gm.slash(
        table.table,
        "gm request roll",
        ability="DEX",
        characters="Ann, Bo",
        dc=12,
        deadline="1d",
        default="roll",
    )
    before = await _published(table)
    closed = await table.gm.slash(table.table, "gm request close")
    assert closed.response is not None and "closed by the GM" in closed.response.content
    await _announced(table, before)


async def test_pre_rolls_reveal_their_seed_and_stay_sealed(table: Table) -> None:
    await _party(table)
    before = await _published(table)
    sealed = await table.alice.slash(table.table, "preroll", count=2)
    assert sealed.response is not None and not sealed.ephemeral
    die = await _latest(table)
    text = await _announced(table, before)
    assert "hidden-roll key stays secret" in text  # the sealed dice are not revealed
    checked = await table.alice.slash(table.table, "verify", roll=die.number)
    assert "Fair dice: ✅" not in message_text(final_answer(checked))


@pytest.mark.parametrize("order", ["initiative", "random"])
async def test_a_turn_order_that_rolls_reveals_its_seed(table: Table, order: str) -> None:
    await _party(table)
    before = await _published(table)
    started = await table.gm.slash(
        table.table, "turns start", characters="Ann, Bo, Cy", order=order
    )
    assert started.response is not None
    await _announced(table, before)


async def test_ability_generation_reveals_its_seed(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    before = await _published(table)
    mentions = f"{table.alice.mention} {table.bob.mention}"
    generated = await table.gm.slash(table.table, "abilities roll", players=mentions)
    assert generated.response is not None
    await _announced(table, before)


async def test_the_gms_public_check_reveals_its_seed(table: Table) -> None:
    await _party(table)
    before = await _published(table)
    await table.gm.slash(table.table, "gm check", character="Ann", ability="DEX", secret="public")
    await _announced(table, before)
