"""Hidden rolls: the documented encoding, commitments on both databases, who may see what,
reveal, and verification that notices a tampered row."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import hmac
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from bot.db.engine import Database
from bot.db.models import Visibility
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.kit.errors import AlreadyRevealed, InvalidValue, NotAllowed
from bot.services.kit.sql import transaction
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView
from bot.services.store.ledger import DuplicateInteraction
from bot.services.trust import gamelog, secrecy
from tests.ledger_triggers import drop_triggers
from tests.services.helpers import ALICE, BOB, CHANNEL, GM_ROLE, GUILD, origin

DOC = Path(__file__).resolve().parents[2] / "docs" / "secret-rolls.md"  # "Checking … by hand"
GM = Caller(user_id=5, channel_id=CHANNEL, guild_id=GUILD, role_ids=frozenset({GM_ROLE}))
ALICE_CALLER = Caller(user_id=ALICE, channel_id=CHANNEL, guild_id=GUILD)
BOB_CALLER = Caller(user_id=BOB, channel_id=CHANNEL, guild_id=GUILD)


def _block(marker: str) -> bytes:
    block = DOC.read_text().split(f"<!-- {marker} -->", 1)[1]
    return block.split("```", 2)[1].strip("\n").encode("ascii")


def _documented_example() -> tuple[bytes, bytes, str, str]:
    text_ = DOC.read_text()
    who = re.search(r"hashes to `([0-9a-f]{64})`, the `who` of", text_)
    digest = re.search(r"^([0-9a-f]{64})  -$", text_, re.M)
    assert who is not None and digest is not None
    return _block("example-who"), _block("example-encoding"), who.group(1), digest.group(1)


def test_the_documented_example_is_what_the_service_hashes() -> None:
    who_bytes, documented, who, digest = _documented_example()
    assert hashlib.sha256(who_bytes).hexdigest() == who
    assert hashlib.sha256(documented).hexdigest() == digest
    assert (
        cm.who_encoding(123456789012345678, "Sybilla", "/check ability:WIT secret:blind", "a1" * 32)
        == who_bytes
    )
    identity = cm.Identity(
        42,
        2000000000000000001,
        1000000000000000001,
        2000000000000000001,
        datetime(2026, 11, 30, 18, 4, 5, 123456, tzinfo=UTC),
    )
    encoding = cm.commitment_encoding(
        identity,
        kind="check",
        who=who,
        dice=(17,),
        outcome={"score": 14, "roll": 17, "result": "Pass", "ability": "WIT"},
        salt="00112233445566778899aabbccddeeff" * 2,
    )
    assert encoding == documented
    assert secrecy.commitment_of(encoding) == digest


def test_rows_committed_before_v2_still_hash_as_they_were_committed() -> None:
    """The encoding the README documented before migration 0007, with its published digest."""
    encoding = cm.legacy_encoding(
        roll_id=42,
        campaign_id=7,
        user_id=123456789012345678,
        request="/check ability:WIT secret:blind",
        dice=(17,),
        outcome={"score": 14, "roll": 17, "result": "Pass", "ability": "WIT"},
        salt="00112233445566778899aabbccddeeff" * 2,
    )
    assert (
        secrecy.commitment_of(encoding)
        == "90c2126b78db2d15a2582b5882081d9936f075efeffdd4b1bde41300813ee178"
    )


def test_non_ascii_requests_are_escaped_so_the_bytes_are_unambiguous() -> None:
    encoding = cm.who_encoding(2, None, "/roll dice:1d20 label:Ælf 🎲", "00")
    assert b'"request":"/roll dice:1d20 label:\\u00c6lf \\ud83c\\udfb2"' in encoding
    assert b'"character":null' in encoding


def _roll(campaign: CampaignView, visibility: Visibility, user: int = ALICE) -> ledger.NewRoll:
    return ledger.NewRoll(
        origin=origin(user),
        kind="check",
        request="/check ability:DEX secret:" + visibility.value,
        dice=(17, 4),
        outcome={"kept": 17, "modifiers": [["DEX", 3]], "result": "success"},
        visibility=visibility,
        campaign_id=campaign.id,
    )


async def _record(db: Database, roll: ledger.NewRoll) -> ledger.Recorded:
    """The row recorded, or for a duplicate interaction the existing row it names."""
    try:
        async with transaction(db) as session:
            return await ledger.record_in(session, roll)
    except DuplicateInteraction as duplicate:
        assert duplicate.existing is not None
        return duplicate.existing


async def test_hidden_rows_carry_a_commitment_over_their_number_and_place(
    db: Database, pd_campaign: CampaignView
) -> None:
    public = await _record(db, _roll(pd_campaign, Visibility.PUBLIC))
    hidden = await _record(db, _roll(pd_campaign, Visibility.BLIND))
    after = await _record(db, _roll(pd_campaign, Visibility.PUBLIC))
    assert public.commitment is None
    assert (public.number, hidden.number, after.number) == (1, 2, 3)
    row = await ledger.get_roll(db, hidden.id)
    assert row.commitment == hidden.commitment and row.salt is not None
    assert re.fullmatch(r"[0-9a-f]{64}", row.salt)  # 256 bits
    async with transaction(db) as session:
        salts = (await ledger.salts_in(session, [row.id]))[row.id]
    row_salt = salts.row_salt
    assert row_salt is not None and re.fullmatch(r"[0-9a-f]{64}", row_salt)

    # Recomputed independently of the service, from the documented format (format 3, issue
    # 22: each personal field and each string of the result has its own salted digest).
    def canonical(obj: object) -> bytes:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()

    def field(path: str, value: object) -> str:
        assert row_salt is not None
        salt = hmac.new(bytes.fromhex(row_salt), path.encode(), hashlib.sha256).hexdigest()
        encoding = {"v": "pbp-dice-field-v1", "field": path, "value": value, "salt": salt}
        return hashlib.sha256(canonical(encoding)).hexdigest()

    who = {
        "v": "pbp-dice-who-v2",
        "roller": field("roller", ALICE),
        "character": None,
        "request": field("request", "/check ability:DEX secret:blind"),
    }
    who_digest = hashlib.sha256(canonical(who)).hexdigest()
    assert who_digest == row.who
    body = {
        "v": "pbp-dice-commitment-v3",
        "number": 2,
        "scope": pd_campaign.channel_id,
        "guild": GUILD,
        "channel": CHANNEL,
        "at": row.created_at.isoformat(timespec="microseconds"),
        "kind": "check",
        "who": who_digest,
        "dice": [17, 4],
        "outcome": {
            "kept": 17,
            "modifiers": [[field("outcome/modifiers/0/0", "DEX"), 3]],
            "result": field("outcome/result", "success"),
        },
        "salt": row.salt,
    }
    assert hashlib.sha256(canonical(body)).hexdigest() == row.commitment


async def test_concurrent_hidden_and_public_rolls_each_keep_a_matching_commitment(
    db: Database, pd_campaign: CampaignView
) -> None:
    # Ids are allocated before the insert (the commitment covers them); many shards recording
    # at once must neither collide nor commit over someone else's id.
    modes = [Visibility.BLIND, Visibility.PUBLIC, Visibility.GM, Visibility.SELF] * 10
    stored = await asyncio.gather(*(_record(db, _roll(pd_campaign, mode)) for mode in modes))
    assert len({s.id for s in stored}) == len(modes)
    # Numbers are handed out once each, and the chain links every row to the one before.
    assert sorted(s.number for s in stored) == list(range(1, len(modes) + 1))
    checked = await gamelog.check_campaign_log(db, pd_campaign)
    assert checked.intact and checked.rolls == len(modes)
    for entry, mode in zip(stored, modes, strict=True):
        row = await ledger.get_roll(db, entry.id, salts=True)
        assert (row.commitment is None) == (mode is Visibility.PUBLIC)
        if row.commitment is not None:
            assert secrecy.commitment_of(secrecy.encoding_of_row(row)) == row.commitment


async def test_salts_come_from_the_system_not_from_the_dice(
    db: Database, pd_campaign: CampaignView
) -> None:
    first = await ledger.get_roll(db, (await _record(db, _roll(pd_campaign, Visibility.GM))).id)
    second = await ledger.get_roll(db, (await _record(db, _roll(pd_campaign, Visibility.GM))).id)
    assert first.salt != second.salt and first.commitment != second.commitment


async def test_a_duplicate_interaction_is_recorded_once(
    db: Database, pd_campaign: CampaignView
) -> None:
    roll = _roll(pd_campaign, Visibility.SELF)
    first = await _record(db, roll)
    again = await _record(db, roll)
    assert again.duplicate and again.id == first.id and again.commitment == first.commitment
    rows = await ledger.latest_rolls(db, pd_campaign.id)
    assert [r.id for r in rows] == [first.id]


@pytest.mark.parametrize(
    ("mode", "gm", "roller", "other"),
    [
        (Visibility.PUBLIC, True, True, True),
        (Visibility.GM, True, True, False),
        (Visibility.BLIND, True, False, False),
        (Visibility.SELF, False, True, False),
    ],
)
def test_who_may_see_each_mode(mode: Visibility, gm: bool, roller: bool, other: bool) -> None:
    assert secrecy.may_see(mode, ALICE, False, 5, True) is gm
    assert secrecy.may_see(mode, ALICE, False, ALICE, False) is roller
    assert secrecy.may_see(mode, ALICE, False, BOB, False) is other
    assert secrecy.may_see(mode, ALICE, True, BOB, False)  # revealed: everyone


async def test_reveal_is_for_gms_once_and_verify_matches(
    db: Database, pd_campaign: CampaignView
) -> None:
    hidden = await _record(db, _roll(pd_campaign, Visibility.BLIND))
    before = await secrecy.verify(db, BOB_CALLER, hidden.number)
    assert not before.checked and before.stored == hidden.commitment
    with pytest.raises(NotAllowed):
        await secrecy.reveal(db, ALICE_CALLER, hidden.number)
    gm_view = await secrecy.verify(db, GM, hidden.number)
    assert gm_view.checked and gm_view.matches
    revealed = await secrecy.reveal(db, GM, hidden.number)
    assert revealed.row.revealed_at is not None
    with pytest.raises(AlreadyRevealed):
        await secrecy.reveal(db, GM, hidden.number)
    after = await secrecy.verify(db, BOB_CALLER, hidden.number)
    assert after.checked and after.matches and after.recomputed == hidden.commitment
    public = await _record(db, _roll(pd_campaign, Visibility.PUBLIC))
    with pytest.raises(InvalidValue, match="public"):
        await secrecy.reveal(db, GM, public.number)


TAMPERS = [
    "UPDATE ledger SET dice = '[20, 4]' WHERE id = :id",
    'UPDATE ledger SET outcome = \'{"kept": 20, "modifiers": [["DEX", 3]], '
    '"result": "success"}\' WHERE id = :id',
    "UPDATE ledger SET user_id = 4000000000000002 WHERE id = :id",
    "UPDATE ledger SET number = 7 WHERE id = :id",
    "DELETE FROM ledger WHERE id = :id",
]


@pytest.mark.parametrize("tamper", TAMPERS)
async def test_the_database_itself_refuses_to_change_a_roll(
    db: Database, pd_campaign: CampaignView, tamper: str
) -> None:
    hidden = await _record(db, _roll(pd_campaign, Visibility.GM))
    with pytest.raises(DBAPIError, match="append-only"):
        async with db.engine.begin() as connection:
            await connection.execute(text(tamper), {"id": hidden.id})
    assert (await ledger.get_roll(db, hidden.id)).commitment == hidden.commitment


@pytest.mark.parametrize("tamper", TAMPERS[:3])
async def test_a_row_changed_behind_the_triggers_no_longer_verifies(
    db: Database, pd_campaign: CampaignView, tamper: str
) -> None:
    hidden = await _record(db, _roll(pd_campaign, Visibility.GM))
    await secrecy.reveal(db, GM, hidden.number)
    await drop_triggers(db.engine)
    async with db.engine.begin() as connection:
        await connection.execute(text(tamper), {"id": hidden.id})
    result = await secrecy.verify(db, BOB_CALLER, hidden.number)
    assert result.checked and not result.matches
    if "user_id" in tamper:
        # The roller is bound through the salted ``who`` digest, which no longer matches.
        assert result.who_ok is False and result.recomputed == hidden.commitment
    else:
        assert result.stored == hidden.commitment != result.recomputed


async def test_a_result_and_its_stored_digest_changed_together_fail_against_the_stub(
    db: Database, pd_campaign: CampaignView
) -> None:
    """Whoever writes the database can rewrite a result and the digest beside it; the digest
    published in the stub message is out of their reach."""
    hidden = await _record(db, _roll(pd_campaign, Visibility.GM))
    await secrecy.record_stub(db, hidden.id, CHANNEL, 555)
    await secrecy.reveal(db, GM, hidden.number)
    await drop_triggers(db.engine)
    row = await ledger.get_roll(db, hidden.id, salts=True)
    forged = dataclasses.replace(row, dice=[20, 4])
    digest = secrecy.commitment_of(secrecy.encoding_of_row(forged))
    async with db.engine.begin() as connection:
        await connection.execute(
            text("UPDATE ledger SET dice = '[20, 4]', commitment = :c WHERE id = :id"),
            {"c": digest, "id": hidden.id},
        )
    stored_only = await secrecy.verify(db, BOB_CALLER, hidden.number)
    assert stored_only.matches  # against its own row, the forgery holds...
    assert stored_only.stub == secrecy.StubPlace(CHANNEL, 555)
    published = secrecy.against_published(stored_only, hidden.commitment)
    assert not published.matches and published.source == secrecy.PUBLISHED  # ...not the stub
    gone = secrecy.against_published(stored_only, None)
    assert gone.source == secrecy.STUB_GONE and gone.reference == digest
    # Discord refusing or failing is not the stub being gone: said as such.
    unread = secrecy.against_published(stored_only, None, unreadable=True)
    assert unread.source == secrecy.STUB_UNREADABLE and unread.reference == digest


async def test_gm_and_blind_need_a_campaign_and_defaults_come_from_it(
    db: Database, pd_campaign: CampaignView
) -> None:
    with pytest.raises(InvalidValue, match="no campaign"):
        secrecy.resolve_visibility("blind", None, "roll")
    assert secrecy.resolve_visibility("self", None, "roll") is Visibility.SELF
    assert secrecy.resolve_visibility(None, pd_campaign, "gm-check") is Visibility.BLIND
    assert secrecy.resolve_visibility(None, pd_campaign, "check") is Visibility.PUBLIC
    with pytest.raises(NotAllowed):
        await secrecy.set_default(db, ALICE_CALLER, "check", "gm")
    changed = await secrecy.set_default(db, GM, "check", "gm")
    assert secrecy.resolve_visibility(None, changed, "check") is Visibility.GM
    assert secrecy.resolve_visibility("public", changed, "check") is Visibility.PUBLIC
