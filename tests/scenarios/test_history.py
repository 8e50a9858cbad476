"""/gm reveal, /verify (matching, then after tampering), /history redaction and paging.

Tests bot/cogs/history.py, bot/cogs/_views/history.py, bot/services/rolling/history.py and
bot/render/history.py.
"""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from discord import app_commands
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from bot.db.models import Visibility
from bot.services.store import ledger
from bot.services.store.campaigns import campaign_for_channel
from bot.services.trust import secrecy
from tests.fixtures.table import (
    Table,
    answered_ephemeral,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)
from tests.ledger_triggers import drop_triggers
from tests.scenarios.test_fortune import REROLL, TRADE
from tests.scenarios.test_secrecy import _NOISE, _latest, _setup


async def test_reveal_then_verify_and_a_tampered_row_fails(table: Table) -> None:
    await _setup(table, "d20-check")
    await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="blind")
    row = await _latest(table)
    early = await table.bob.slash(table.table, "verify", roll=row.number)
    assert early.response is not None and "still hidden" in message_text(early.response)
    assert str(row.outcome["total"]) not in _NOISE.sub(" ", message_text(early.response))
    refused = await table.alice.slash(table.table, "reveal", roll=row.number)
    assert "Only the campaign's GM" in final_answer(refused).content
    shown = await table.gm.slash(table.table, "reveal", roll=row.number)
    assert shown.response is not None and not shown.ephemeral
    revealed = message_text(shown.response)
    assert str(row.outcome["total"]) in revealed and str(row.salt) in revealed
    ok = await table.bob.slash(table.table, "verify", roll=row.number)
    assert ok.response is not None and "the commitment matches" in message_text(ok.response)
    assert "stub message, as Discord shows it" in message_text(ok.response)
    # The database refuses the change; an operator who drops its triggers can make it, and
    # even rewriting the stored digest to fit does not fool /verify: it reads the stub.
    forged_outcome = '{"total": 1020, "label": null, "expression": "1d20+1000"}'
    with pytest.raises(DBAPIError, match="append-only"):
        async with table.bot.db.engine.begin() as connection:
            await connection.execute(
                text("UPDATE ledger SET outcome = :o WHERE id = :id"),
                {"o": forged_outcome, "id": row.id},
            )
    await drop_triggers(table.bot.db.engine)
    stored = await ledger.get_roll(table.bot.db, row.id, salts=True)
    forged = dataclasses.replace(stored, outcome=None)
    forged = dataclasses.replace(forged, outcome=json.loads(forged_outcome))
    digest = secrecy.commitment_of(secrecy.encoding_of_row(forged))
    async with table.bot.db.engine.begin() as connection:
        await connection.execute(
            text("UPDATE ledger SET outcome = :o, commitment = :c WHERE id = :id"),
            {"o": forged_outcome, "c": digest, "id": row.id},
        )
    bad = await table.bob.slash(table.table, "verify", roll=row.number)
    assert bad.response is not None and "does NOT match" in message_text(bad.response)
    assert "stub message, as Discord shows it" in message_text(bad.response)


async def test_history_shows_each_viewer_only_what_they_may_see(table: Table) -> None:
    await _setup(table, "d20-check")
    await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="gm")
    hidden = await _latest(table)
    total = str(hidden.outcome["total"])
    for viewer, sees in ((table.alice, True), (table.gm, True), (table.bob, False)):
        page = await viewer.slash(table.table, "history")
        assert page.ephemeral and page.response is not None
        body = message_text(page.response)
        assert str(hidden.commitment) in body or sees
        assert (total in _NOISE.sub(" ", body)) is sees, body


async def test_history_pages_with_buttons(table: Table) -> None:
    await _setup(table, "d20-check")
    for n in range(3):
        await table.alice.slash(table.table, "roll", dice=f"1d4+{100 * (n + 1)}")
    first = await table.bob.slash(table.table, "history", limit=2)
    assert first.response is not None
    assert "page 1" in message_text(first.response)
    message = table.table.history(viewer=table.bob)[-1]
    await table.bob.click(message, label="Older")
    after = table.table.history(viewer=table.bob)[-1]
    assert "page 2" in message_text(after)


async def test_a_self_roll_is_revealed_by_its_roller_only(table: Table) -> None:
    await _setup(table, "d20-check")
    await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="self")
    row = await _latest(table)
    total = str(row.outcome["total"])
    refused = await table.gm.slash(table.table, "reveal", roll=row.number)
    assert answered_ephemeral(refused)
    assert "Only the player who rolled a self roll can reveal it" in final_answer(refused).content
    public = "\n".join(message_text(m) for m in table.table.history(viewer=table.bob))
    assert total not in _NOISE.sub(" ", public)
    not_theirs = await table.bob.slash(table.table, "reveal", roll=row.number)
    assert answered_ephemeral(not_theirs)
    assert "Only the player who rolled" in final_answer(not_theirs).content

    shown = await table.alice.slash(table.table, "reveal", roll=row.number)
    assert shown.response is not None and not shown.ephemeral
    assert total in message_text(shown.response) and str(row.salt) in message_text(shown.response)
    ok = await table.bob.slash(table.table, "verify", roll=row.number)
    assert "the commitment matches" in message_text(ok.response)


async def test_players_reveal_only_self_rolls(table: Table) -> None:
    await _setup(table, "d20-check")
    await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="gm")
    row = await _latest(table)
    refused = await table.alice.slash(table.table, "reveal", roll=row.number)
    assert answered_ephemeral(refused)
    assert "Only the campaign's GM" in final_answer(refused).content


async def test_history_filters_every_kind_the_ledger_records(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 12})
    await table.gm.slash(table.table, "fortune give", character="Angus")
    for kind in ("fortune", "trade", "keep", "group", "generate"):
        found = await table.bob.slash(table.table, "history", kind=kind)
        assert found.response is not None, kind
        body = message_text(found.response)
        assert ("· fortune" in body) is (kind == "fortune"), body
        assert ("No rolls match" in body) is (kind != "fortune"), body


async def test_a_hidden_row_without_commitment_says_so(table: Table) -> None:
    """Older or foreign hidden rows may lack a commitment: never print "None" for it."""
    await _setup(table, "d20-check")
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    recorded = await ledger.record(
        table.bot.db,
        ledger.NewRoll(
            origin=ledger.Origin(table.table.id, table.alice.id, table.guild.id),
            kind="check",
            request="/gm request roll ability:DEX dc:hidden",
            dice=[17],
            outcome={"total": 1017},
            visibility=Visibility.PUBLIC,
            campaign_id=campaign.id,
        ),
    )
    # The bot seals every hidden roll; a row migrated from before commitments existed is the
    # only kind without one: copied here as such (format 1, no commitment, number 77).
    async with table.bot.db.engine.begin() as connection:
        await connection.execute(
            text(
                "INSERT INTO ledger (campaign_id, guild_id, channel_id, user_id, kind, request,"
                " dice, outcome, visibility, created_at, scope_id, number, who, chain, format)"
                " SELECT campaign_id, guild_id, channel_id, user_id, kind, request, dice,"
                " outcome, 'blind', created_at, scope_id, 77, who, chain, 1"
                " FROM ledger WHERE id = :id"
            ),
            {"id": recorded.id},
        )
    listed = await table.bob.slash(table.table, "history")
    assert "no commitment" in message_text(listed.response)
    early = await table.bob.slash(table.table, "verify", roll=77)
    shown_text = message_text(early.response)
    assert "still hidden" in shown_text and "without a commitment" in shown_text
    assert "None" not in shown_text

    shown = await table.gm.slash(table.table, "reveal", roll=77)
    shown_text = message_text(shown.response)
    assert "1017" in shown_text and "without a commitment" in shown_text
    assert "None" not in shown_text and '"salt":""' not in shown_text
    assert "/verify" not in shown_text
    after = await table.bob.slash(table.table, "verify", roll=77)
    shown_text = message_text(after.response)
    assert "was revealed" in shown_text and "without a commitment" in shown_text
    assert "public" not in shown_text


async def test_a_gm_mode_natural_20_offers_its_trade_on_the_reveal(table: Table) -> None:
    """No choice while the roll is hidden; the reveal message carries it, for the
    roller only, and the trade is made in public."""
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 12})
    table.dice(20)
    rolled = await table.alice.slash(table.table, "check", ability="DEX", secret="gm")
    assert not any(m.components for m in [rolled.response, *rolled.followups])
    roll = await _latest(table)

    shown = await table.gm.slash(table.table, "reveal", roll=roll.number)
    assert str(roll.salt) in message_text(shown.response)
    refused = await table.bob.click(shown.response, label=TRADE)
    assert refused.ephemeral and "Only Angus's player can choose" in message_text(refused.response)
    traded = await table.alice.click(shown.response, label=TRADE)
    assert "1 of 2 fortune dice" in message_text(traded.response)
    trade = await _latest(table)
    assert trade.kind == "trade" and trade.visibility is Visibility.PUBLIC
    ok = await table.bob.slash(table.table, "verify", roll=roll.number)
    assert "the commitment matches" in message_text(ok.response)


async def test_verify_says_when_the_stub_is_gone_and_what_it_compared_with(
    table: Table,
) -> None:
    """With the stub message deleted, /verify says so and falls back."""
    await _setup(table, "d20-check")
    await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="blind")
    row = await _latest(table)
    stubs = [
        m
        for m in table.table.history(viewer=table.bob)
        if f"Hidden roll **#{row.number}**" in message_text(m)
    ]
    assert len(stubs) == 1 and str(row.commitment) in message_text(stubs[0])
    await table.gm.slash(table.table, "reveal", roll=row.number)
    await table.admin.delete(stubs[0])
    gone = await table.bob.slash(table.table, "verify", roll=row.number)
    assert gone.response is not None
    said = message_text(gone.response)
    assert "the commitment matches" in said and "the stub message is gone" in said


async def test_verify_log_is_intact_then_names_the_roll_that_was_changed(table: Table) -> None:
    """Public footers carry the chain head; /verify log:True walks it."""
    await _setup(table, "d20-check")
    for n in range(3):
        await table.alice.slash(table.table, "roll", dice=f"1d4+{100 * (n + 1)}")
    await table.alice.slash(table.table, "roll", dice="1d20", secret="gm")
    last = await table.bob.slash(table.table, "roll", dice="1d6")
    assert last.response is not None
    footer = last.response.embeds[0].footer.text or ""
    checked = await table.carol.slash(table.table, "verify", log=True)
    assert checked.response is not None and not checked.ephemeral  # the table's checkpoint
    said = message_text(checked.response)
    assert "The game log is intact" in said and "All 5 rolls" in said
    head = re.search(r"`([0-9a-f]{64})`", said)
    assert head is not None and f"#5 · log {head.group(1)[:12]}" in footer
    await drop_triggers(table.bot.db.engine)
    async with table.bot.db.engine.begin() as connection:
        await connection.execute(text("UPDATE ledger SET dice = '[]' WHERE number = 2"))
    broken = await table.carol.slash(table.table, "verify", log=True, full=True)
    assert broken.response is not None
    assert "The game log breaks at roll #2" in message_text(broken.response)


async def test_verify_without_a_roll_or_the_log_says_what_to_type(table: Table) -> None:
    await _setup(table, "d20-check")
    asked = await table.bob.slash(table.table, "verify")
    assert asked.response is not None and "/verify roll:42" in message_text(asked.response)


async def test_a_self_roll_revealed_by_its_roller_offers_the_reroll_then(table: Table) -> None:
    """A self attempt's reroll waits for /reveal; then it spends the die in public."""
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 12})
    await table.gm.slash(table.table, "fortune give", character="Angus", count=1)
    table.dice(5)
    rolled = await table.alice.slash(table.table, "check", ability="DEX", secret="self")
    assert rolled.ephemeral and not rolled.response.components
    roll = await _latest(table)
    shown = await table.bob.slash(table.table, "fortune show", character="Angus")
    assert "1 of 2" in message_text(shown.response)

    table.dice(15)
    revealed = await table.alice.slash(table.table, "reveal", roll=roll.number)
    assert not revealed.ephemeral
    rerolled = await table.alice.click(revealed.response, label=REROLL)
    assert "0 of 2 fortune dice" in message_text(rerolled.response)
    reroll = await _latest(table)
    assert reroll.kind == "reroll" and reroll.visibility is Visibility.PUBLIC


async def test_a_backtick_in_a_label_cannot_break_the_gm_logs_code_span(table: Table) -> None:
    await _setup(table, "d20-check")
    await table.alice.slash(table.table, "roll", dice="1d4", label="x` **loud**")
    page = await table.gm.slash(table.table, "gm log")
    assert page.response is not None
    said = message_text(page.response)
    assert "x` **loud**" not in said and "loud" in said


@pytest.mark.parametrize("command", ["history", "gm log"])
async def test_the_kind_filter_offers_every_kind_history_lists(table: Table, command: str) -> None:
    # The rows of sealed pre-rolls, posts and their edits, declarations) are listed by
    # /history, so each is a kind to filter by; a turn-order change is not a roll.
    found = table.bot.tree.get_command(command.split()[0])
    if " " in command:
        assert isinstance(found, app_commands.Group)
        found = found.get_command(command.split()[1])
    assert isinstance(found, app_commands.Command)
    (kind,) = [p for p in found.parameters if p.name == "kind"]
    offered = {c.value for c in kind.choices}
    assert {"preroll", "post", "post-edit", "declaration", "check", "attempt"} <= offered
    assert "turn" not in offered
