"""GM roll requests at the service level: concurrent answers on a real database, and hidden-DC
rows that carry a commitment anyone can check once the GM reveals."""

from __future__ import annotations

import asyncio
import itertools
import random

import pytest

from bot.db.engine import Database
from bot.db.models import Visibility
from bot.services.kit.context import Caller
from bot.services.kit.sql import transaction
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView
from bot.services.table import requests
from bot.services.trust import secrecy
from bot.words import LedgerKind
from tests.services.helpers import ALICE, BOB, CHANNEL, GM_ROLE, GUILD

GM = 4_000_000_000_000_009
_interactions = itertools.count(8_000_000_000_000_000)


def _caller(user_id: int) -> Caller:
    """A caller in the test channel with a fresh interaction id (each click is one)."""
    roles = frozenset({GM_ROLE}) if user_id == GM else frozenset()
    return Caller(
        user_id=user_id,
        channel_id=CHANNEL,
        guild_id=GUILD,
        role_ids=roles,
        interaction_id=next(_interactions),
    )


async def test_requests_answered_at_the_same_time_each_complete_exactly_once(
    db: Database, d20_pair: CampaignView
) -> None:
    # Two players click the last two open buttons of a request at the same moment: the one
    # who commits second must see the other's answer and complete the request (the review's
    # race: under READ COMMITTED both counted the other as waiting and nobody completed it).
    made = [
        await requests.create(
            db, _caller(GM), "DEX", "/gm request roll", characters_text="Ann, Bo", dc=12
        )
        for _ in range(30)
    ]
    rng = random.Random(11)

    async def click(user: int, request_id: int) -> requests.Answer:
        await asyncio.sleep(0)
        return await requests.answer(db, rng, _caller(user), request_id, "Roll button")

    answers = await asyncio.gather(
        *(click(user, r.id) for r in made for user in (ALICE, BOB)),
    )
    for request in made:
        mine = [a for a in answers if a.request.id == request.id]
        assert sum(a.completed_now for a in mine) == 1, f"request #{request.id}"
        after = await requests.load(db, request.id)
        assert after.complete and not after.waiting
        assert after.verdict is not None
    groups = await ledger.latest_rolls(db, d20_pair.id, kinds=[LedgerKind.GROUP], limit=100)
    assert sorted(row.request for row in groups) == sorted(f"roll request #{r.id}" for r in made)


async def test_hidden_dc_rows_carry_a_commitment_that_verifies_after_the_reveal(
    db: Database, d20_pair: CampaignView
) -> None:
    made = await requests.create(
        db, _caller(GM), "DEX", "/gm request roll", characters_text="Ann, Bo", hidden_dc=15
    )
    rng = random.Random(5)
    await requests.answer(db, rng, _caller(ALICE), made.id, "Roll button")
    done = await requests.answer(db, rng, _caller(BOB), made.id, "Roll button")
    assert done.completed_now
    rows = await ledger.latest_rolls(db, d20_pair.id, limit=10)
    async with transaction(db) as session:
        rows = await ledger.with_salts_in(session, rows)
    assert len(rows) == 3  # Ann's check, Bo's check, the group result
    for row in rows:
        assert row.visibility is Visibility.BLIND
        assert row.salt is not None and row.commitment is not None
        assert row.commitment == secrecy.commitment_of(secrecy.encoding_of_row(row))

    # Before the reveal a player is shown the commitment only, never the result.
    ann_row = next(r for r in rows if r.character_name == "Ann")
    early = await secrecy.verify(db, _caller(BOB), ann_row.id)
    assert early.stored == ann_row.commitment and not early.checked

    await requests.reveal(db, _caller(GM), made.id)
    for row in rows:
        checked = await secrecy.verify(db, _caller(BOB), row.id)
        assert checked.checked and checked.matches, f"roll #{row.id}"
        assert (await ledger.get_roll(db, row.id)).revealed_at is not None


async def test_a_reveal_that_fails_midway_leaves_the_request_and_every_row_hidden(
    db: Database, d20_pair: CampaignView, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = await requests.create(
        db, _caller(GM), "DEX", "/gm request roll", characters_text="Ann, Bo", hidden_dc=15
    )
    rng = random.Random(5)
    await requests.answer(db, rng, _caller(ALICE), made.id, "Roll button")
    await requests.answer(db, rng, _caller(BOB), made.id, "Roll button")
    # The reveal breaks while stamping its second ledger row (a lost connection, a crash).
    real_view = ledger.view_of
    stamped: list[int] = []

    def failing_view(row: object) -> ledger.RollView:
        if stamped:
            raise RuntimeError("connection lost")
        view = real_view(row)  # type: ignore[arg-type]
        stamped.append(view.id)
        return view

    monkeypatch.setattr(ledger, "view_of", failing_view)
    with pytest.raises(RuntimeError):
        await requests.reveal(db, _caller(GM), made.id)
    monkeypatch.undo()
    assert stamped  # it did fail midway, after stamping one row
    assert (await requests.load(db, made.id)).hidden
    rows = await ledger.latest_rolls(db, d20_pair.id, limit=10)
    assert [r.revealed_at for r in rows] == [None, None, None]
    # Nothing half-done blocks the retry.
    await requests.reveal(db, _caller(GM), made.id)
    rows = await ledger.latest_rolls(db, d20_pair.id, limit=10)
    assert all(r.revealed_at is not None for r in rows)
