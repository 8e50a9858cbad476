"""GM roll requests: one message, a persistent Roll button, each requested player once.

Tests bot/cogs/requests.py and bot/render/requests.py.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update

from bot.app import PbpBot, create_bot
from bot.config import Settings
from bot.db.party_models import roll_request_targets, roll_requests
from bot.services.store import ledger
from tests.fixtures.table import (
    SEED,
    ScriptedRandom,
    Table,
    make_character,
    message_text,
    start_campaign,
)


def _request_message(table: Table) -> Any:
    for message in reversed(table.table.history()):
        if message.embeds and (message.embeds[0].title or "").startswith("Roll request #"):
            return message
    raise AssertionError("no roll request message in #table")


async def _three_players(table: Table, system: str, scores: dict[str, int]) -> None:
    await start_campaign(table, system)
    for player, name in ((table.alice, "Ann"), (table.bob, "Bo"), (table.carol, "Cy")):
        await make_character(table, player, name, scores)


async def test_three_players_answer_across_a_restart_with_one_shared_d20(
    table: Table, settings: Settings
) -> None:
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Ann", {"AGI": 12})
    await make_character(table, table.bob, "Bo", {"AGI": 6})
    await make_character(table, table.carol, "Cy", {"AGI": 9})
    posted = await table.gm.slash(
        table.table, "gm request roll", ability="AGI", characters=f"Ann, <@{table.bob.id}>, Cy"
    )
    assert posted.response is not None and not posted.ephemeral
    assert table.alice.mention in posted.response.content
    table.dice(8)  # the group's one d20, rolled by the first click
    first = await table.alice.click(_request_message(table), label="Roll")
    assert not first.ephemeral
    text = message_text(_request_message(table))
    assert "One d20 for the whole group: **8**" in text
    assert "1 of 3 rolled" in text

    old: PbpBot = table.bot
    await table.env.restart_bot(create_bot(settings, rng=ScriptedRandom(seed=SEED)))
    await old.db.dispose()
    assert table.bot is not old

    table.dice(1)  # would be used if anyone rolled a second d20: nobody may
    await table.bob.click(_request_message(table), label="Roll")
    await table.carol.click(_request_message(table), label="Roll")
    text = message_text(_request_message(table))
    assert "d20 **8** vs AGI 12 → **Pass**" in text
    assert "d20 **8** vs AGI 6 → **Fail**" in text
    assert "d20 **8** vs AGI 9 → **Pass**" in text
    assert "Pass: Ann, Cy · Fail: Bo" in text
    assert not _request_message(table).components  # everyone rolled: no button left
    await table.bot.close_database()  # the fixture closes only the bot it made


async def test_a_player_not_requested_is_refused_and_a_second_click_too(table: Table) -> None:
    await _three_players(table, "d20-check", {"DEX": 14})
    await table.gm.slash(table.table, "gm request roll", ability="DEX", characters="Ann, Bo", dc=12)
    message = _request_message(table)
    intruder = await table.carol.click(message, label="Roll")
    assert intruder.ephemeral
    assert "only their players can roll it" in intruder.response.content
    assert "0 of 2 rolled" in message_text(_request_message(table))

    table.dice(15)
    await table.alice.click(_request_message(table), label="Roll")
    again = await table.alice.click(_request_message(table), label="Roll")
    assert again.ephemeral and "already rolled" in again.response.content
    text = message_text(_request_message(table))
    assert "d20 **15** +2 DEX = **17** → **Success**" in text
    assert "1 of 2 rolled" in text
    gm_click = await table.gm.click(_request_message(table), label="Roll")
    assert gm_click.ephemeral

    table.dice(3)
    await table.bob.click(_request_message(table), label="Roll")
    text = message_text(_request_message(table))
    # d20 check ruling 9: at least half succeed (1 of 2) is a group success.
    assert "Group Success: 1 of 2 succeeded" in text


async def test_hidden_dc_players_see_totals_but_never_pass_or_fail(table: Table) -> None:
    await start_campaign(table, "d20-check")
    # Characters do not join the party by themselves here: the GM built it by hand.
    await table.gm.slash(table.table, "campaign set party-auto-join", on=False)
    for player, name in ((table.alice, "Ann"), (table.bob, "Bo"), (table.carol, "Cy")):
        await make_character(table, player, name, {"WIS": 10})
    empty = await table.gm.slash(
        table.table, "gm request roll", ability="WIS", characters="party", hidden_dc=15
    )
    assert empty.ephemeral and "party is empty" in empty.response.content
    for player, name in ((table.alice, "Ann"), (table.bob, "Bo"), (table.carol, "Cy")):
        added = await player.slash(table.table, "party add", character=name)
        assert added.response is not None and "joins the party" in added.response.content
    posted = await table.gm.slash(table.table, "gm request roll", ability="WIS", hidden_dc=15)
    assert posted.response is not None
    table.dice(17, 4, 15)
    for player in (table.alice, table.bob, table.carol):
        clicked = await player.click(_request_message(table), label="Roll")
        assert not clicked.followups
    for viewer in (table.alice, table.bob, table.carol):
        seen = "\n".join(message_text(m) for m in table.table.history(viewer=viewer))
        assert "= **17**" in seen and "= **4**" in seen and "= **15**" in seen
        for word in ("Success", "Failure", "15 (hidden", "DC 15"):
            assert word not in seen
    gm_seen = "\n".join(message_text(m) for m in table.gm_channel.history(viewer=table.gm))
    assert "**Success**" in gm_seen and "**Failure**" in gm_seen and "DC 15" in gm_seen
    assert "Group Success: 2 of 3 succeeded" in gm_seen

    status = await table.gm.slash(table.table, "gm request status")
    assert status.ephemeral and "everyone has rolled" in status.response.content
    refused = await table.alice.slash(table.table, "gm request reveal")
    assert refused.ephemeral and "Only the campaign's GM" in refused.response.content
    revealed = await table.gm.slash(table.table, "gm request reveal")
    assert revealed.response is not None and not revealed.ephemeral
    text = message_text(_request_message(table))
    assert "DC 15" in text and "Group Success: 2 of 3 succeeded" in text


async def test_status_lists_who_has_not_rolled(table: Table) -> None:
    await _three_players(table, "threshold", {"STR": 1})
    await table.gm.slash(
        table.table, "gm request roll", ability="STR", characters="Ann, Bo, Cy", difficulty="hard"
    )
    table.dice(16)
    await table.bob.click(_request_message(table), label="Roll")
    status = await table.gm.slash(table.table, "gm request status")
    assert status.ephemeral
    assert "waiting for Ann" in status.response.content and "Cy" in status.response.content
    assert "Bo (" not in status.response.content
    assert "d20 **16** +1 STR = **17** → **Success**" in message_text(status.response)


async def test_pen_and_dagger_request_refuses_a_dc_and_rolls_attempts(table: Table) -> None:
    await _three_players(table, "pen-and-dagger", {"STR": 14})
    refused = await table.gm.slash(
        table.table, "gm request roll", ability="STR", characters="Ann", dc=10
    )
    assert refused.ephemeral and "takes no dc" in refused.response.content
    await table.gm.slash(table.table, "gm request roll", ability="STR", characters="Ann")
    table.dice(12)
    await table.alice.click(_request_message(table), label="Roll")
    text = message_text(_request_message(table))
    assert "d20 **12** (Adept) →" in text
    assert "no group rule" in text


async def test_hidden_dc_request_rows_can_be_verified_and_revealed(table: Table) -> None:
    await _three_players(table, "d20-check", {"WIS": 10})
    await table.gm.slash(
        table.table, "gm request roll", ability="WIS", characters="Ann, Bo", hidden_dc=15
    )
    table.dice(17, 4)
    await table.alice.click(_request_message(table), label="Roll")
    await table.bob.click(_request_message(table), label="Roll")
    rows = await ledger.latest_rolls(table.bot.db, 1, limit=10)
    ann = next(r for r in rows if r.character_name == "Ann")
    bo = next(r for r in rows if r.character_name == "Bo")

    early = await table.carol.slash(table.table, "verify", roll=ann.number)
    text = message_text(early.response)
    assert "still hidden" in text and str(ann.commitment) in text and "None" not in text

    # One row revealed on its own (/reveal roll:…) shows a real salt and commitment.
    shown = await table.gm.slash(table.table, "reveal", roll=bo.number)
    text = message_text(shown.response)
    assert str(bo.salt) in text and str(bo.commitment) in text and "`None`" not in text
    ok = await table.carol.slash(table.table, "verify", roll=bo.number)
    assert "the commitment matches" in message_text(ok.response)

    # The request's reveal stamps every row of it, the one revealed already included.
    await table.gm.slash(table.table, "gm request reveal")
    for row in rows:
        checked = await table.carol.slash(table.table, "verify", roll=row.number)
        assert "the commitment matches" in message_text(checked.response), row.id


async def test_a_d20_request_without_a_dc_leaves_the_totals_to_the_gm(table: Table) -> None:
    await _three_players(table, "d20-check", {"DEX": 14})
    await table.gm.slash(table.table, "gm request roll", ability="DEX", characters="Ann, Bo")
    table.dice(15, 3)
    await table.alice.click(_request_message(table), label="Roll")
    await table.bob.click(_request_message(table), label="Roll")
    text = message_text(_request_message(table))
    assert "= **17**" in text and "= **5**" in text
    assert "No DC given: the GM reads the totals." in text
    assert "no group rule" not in text


async def _hidden_request_of_two(table: Table) -> None:
    await _three_players(table, "d20-check", {"WIS": 10})
    await table.gm.slash(table.table, "campaign set gm-channel")  # unset
    await table.gm.slash(
        table.table, "gm request roll", ability="WIS", characters="Ann, Bo", hidden_dc=15
    )
    table.dice(17, 4)
    await table.alice.click(_request_message(table), label="Roll")


async def test_without_a_gm_channel_a_completed_hidden_request_goes_by_dm(table: Table) -> None:
    await _hidden_request_of_two(table)
    last = await table.bob.click(_request_message(table), label="Roll")
    assert not last.followups
    dm = "\n".join(message_text(m) for m in table.admin.user.dm_channel.history())
    assert "Everyone has rolled for request #1" in dm
    assert "**Success**" in dm and "**Failure**" in dm and "DC 15" in dm


async def test_when_no_gm_can_be_reached_the_last_player_is_told(table: Table) -> None:
    await _hidden_request_of_two(table)
    for route in ("/users/@me/channels", "/channels/*/messages"):
        table.env.inject_error("POST", route, status=403, code=50007, times=None)
    last = await table.bob.click(_request_message(table), label="Roll")
    notes = "\n".join(message_text(m) for m in last.followups)
    assert "could not be delivered" in notes and "/gm request status request:1" in notes
    assert "/campaign set gm-channel" in notes
    assert "Success" not in notes and "Failure" not in notes and "15" not in notes


async def test_a_request_whose_message_was_never_posted_leaves_nothing_behind(
    table: Table,
) -> None:
    await _three_players(table, "d20-check", {"DEX": 14})
    table.env.inject_error("POST", "/interactions/*/*/callback", status=500, times=1)
    failed = await table.gm.slash(
        table.table, "gm request roll", ability="DEX", characters="Ann, Bo"
    )
    assert failed.ephemeral and "nothing was kept" in failed.response.content
    status = await table.gm.slash(table.table, "gm request status")
    assert "No roll request in this campaign yet." in status.response.content
    async with table.bot.db.engine.connect() as conn:
        assert await conn.scalar(select(func.count()).select_from(roll_request_targets)) == 0


async def test_a_click_remembers_the_message_when_posting_could_not(table: Table) -> None:
    await _three_players(table, "d20-check", {"WIS": 10})
    await table.gm.slash(
        table.table, "gm request roll", ability="WIS", characters="Ann", hidden_dc=15
    )
    async with table.bot.db.engine.begin() as conn:  # as if storing the message id had failed
        await conn.execute(update(roll_requests).values(message_id=None))
    posted_id = _request_message(table).id
    table.dice(17)
    await table.alice.click(_request_message(table), label="Roll")
    assert "Success" not in message_text(_request_message(table))
    await table.gm.slash(table.table, "gm request reveal")
    # The request's own message (not the reveal's answer) is edited in place.
    posted = next(m for m in table.table.history() if m.id == posted_id)
    text = message_text(posted)
    assert "DC 15" in text and "**Success**" in text
