"""/gm reveal, /verify (matching, then after tampering), /history redaction and paging."""

from __future__ import annotations

from sqlalchemy import text

from tests.bot.conftest import Table, message_text
from tests.bot.test_secrecy import _NOISE, _latest, _setup


async def test_reveal_then_verify_and_a_tampered_row_fails(table: Table) -> None:
    await _setup(table, "d20-check")
    await table.alice.slash(table.table, "roll", dice="1d20+1000", secret="blind")
    row = await _latest(table)
    early = await table.bob.slash(table.table, "verify", roll=row.id)
    assert early.response is not None and "still hidden" in message_text(early.response)
    assert str(row.outcome["total"]) not in _NOISE.sub(" ", message_text(early.response))
    refused = await table.alice.slash(table.table, "gm reveal", roll=row.id)
    assert refused.response is not None and "Only the campaign's GM" in refused.response.content
    shown = await table.gm.slash(table.table, "gm reveal", roll=row.id)
    assert shown.response is not None and not shown.ephemeral
    revealed = message_text(shown.response)
    assert str(row.outcome["total"]) in revealed and str(row.salt) in revealed
    ok = await table.bob.slash(table.table, "verify", roll=row.id)
    assert ok.response is not None and "the commitment matches" in message_text(ok.response)
    async with table.bot.db.engine.begin() as connection:
        await connection.execute(
            text("UPDATE ledger SET outcome = :o WHERE id = :id"),
            {"o": '{"total": 1020, "label": null, "expression": "1d20+1000"}', "id": row.id},
        )
    bad = await table.bob.slash(table.table, "verify", roll=row.id)
    assert bad.response is not None and "does NOT match" in message_text(bad.response)


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
