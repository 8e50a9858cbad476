"""Hidden rolls: the documented encoding, commitments on both databases, who may see what,
reveal, and verification that notices a tampered row."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from pathlib import Path

import pytest
from sqlalchemy import text
from svc_helpers import ALICE, BOB, CHANNEL, GM_ROLE, GUILD, origin

from bot.db.engine import Database
from bot.db.models import Visibility
from bot.services import ledger, secrecy
from bot.services._sql import transaction
from bot.services.campaigns import CampaignView
from bot.services.context import Caller
from bot.services.errors import AlreadyRevealed, InvalidValue, NotAllowed

DOC = Path(__file__).resolve().parents[2] / "README.md"  # "Checking a revealed roll by hand"
GM = Caller(user_id=5, channel_id=CHANNEL, guild_id=GUILD, role_ids=frozenset({GM_ROLE}))
ALICE_CALLER = Caller(user_id=ALICE, channel_id=CHANNEL, guild_id=GUILD)
BOB_CALLER = Caller(user_id=BOB, channel_id=CHANNEL, guild_id=GUILD)


def _documented_example() -> tuple[bytes, str]:
    text_ = DOC.read_text()
    block = text_.split("<!-- example-encoding -->", 1)[1]
    encoding = block.split("```", 2)[1].strip("\n")
    digest = re.search(r"^([0-9a-f]{64})  -$", text_, re.M)
    assert digest is not None
    return encoding.encode("ascii"), digest.group(1)


def test_the_documented_example_is_what_the_service_hashes() -> None:
    documented, digest = _documented_example()
    assert hashlib.sha256(documented).hexdigest() == digest
    encoding = secrecy.canonical_encoding(
        roll_id=42,
        campaign_id=7,
        user_id=123456789012345678,
        request="/check ability:WIT secret:blind",
        dice=(17,),
        outcome={"score": 14, "roll": 17, "result": "Pass", "ability": "WIT"},
        salt="00112233445566778899aabbccddeeff" * 2,
    )
    assert encoding == documented
    assert secrecy.commitment_of(encoding) == digest


def test_non_ascii_requests_are_escaped_so_the_bytes_are_unambiguous() -> None:
    encoding = secrecy.canonical_encoding(
        roll_id=1,
        campaign_id=None,
        user_id=2,
        request="/roll dice:1d20 label:Ælf 🎲",
        dice=[],
        outcome={},
        salt="00",
    )
    assert b'"request":"/roll dice:1d20 label:\\u00c6lf \\ud83c\\udfb2"' in encoding
    assert b'"campaign":null' in encoding


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


async def _record(db: Database, roll: ledger.NewRoll) -> secrecy.Stored:
    async with transaction(db) as session:
        return await secrecy.record_roll_in(session, roll)


async def test_hidden_rows_carry_a_commitment_over_their_own_id(
    db: Database, pd_campaign: CampaignView
) -> None:
    public = await _record(db, _roll(pd_campaign, Visibility.PUBLIC))
    hidden = await _record(db, _roll(pd_campaign, Visibility.BLIND))
    after = await _record(db, _roll(pd_campaign, Visibility.PUBLIC))
    assert public.commitment is None
    assert hidden.id == public.id + 1 and after.id == hidden.id + 1
    row = await ledger.get_roll(db, hidden.id)
    assert row.commitment == hidden.commitment and row.salt is not None
    assert re.fullmatch(r"[0-9a-f]{64}", row.salt)  # 256 bits
    # Recomputed independently of the service, from the documented format.
    body = {
        "v": "pbp-dice-commitment-v1",
        "id": hidden.id,
        "campaign": pd_campaign.id,
        "roller": ALICE,
        "request": "/check ability:DEX secret:blind",
        "dice": [17, 4],
        "outcome": {"kept": 17, "modifiers": [["DEX", 3]], "result": "success"},
        "salt": row.salt,
    }
    raw = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    assert hashlib.sha256(raw.encode()).hexdigest() == row.commitment


async def test_concurrent_hidden_and_public_rolls_each_keep_a_matching_commitment(
    db: Database, pd_campaign: CampaignView
) -> None:
    # Ids are allocated before the insert (the commitment covers them); many shards recording
    # at once must neither collide nor commit over someone else's id.
    modes = [Visibility.BLIND, Visibility.PUBLIC, Visibility.GM, Visibility.SELF] * 10
    stored = await asyncio.gather(*(_record(db, _roll(pd_campaign, mode)) for mode in modes))
    assert len({s.id for s in stored}) == len(modes)
    for entry, mode in zip(stored, modes, strict=True):
        row = await ledger.get_roll(db, entry.id)
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
    before = await secrecy.verify(db, BOB_CALLER, hidden.id)
    assert not before.checked and before.stored == hidden.commitment
    with pytest.raises(NotAllowed):
        await secrecy.reveal(db, ALICE_CALLER, hidden.id)
    gm_view = await secrecy.verify(db, GM, hidden.id)
    assert gm_view.checked and gm_view.matches
    revealed = await secrecy.reveal(db, GM, hidden.id)
    assert revealed.row.revealed_at is not None
    with pytest.raises(AlreadyRevealed):
        await secrecy.reveal(db, GM, hidden.id)
    after = await secrecy.verify(db, BOB_CALLER, hidden.id)
    assert after.checked and after.matches and after.recomputed == hidden.commitment
    public = await _record(db, _roll(pd_campaign, Visibility.PUBLIC))
    with pytest.raises(InvalidValue, match="public"):
        await secrecy.reveal(db, GM, public.id)


@pytest.mark.parametrize(
    "tamper",
    [
        "UPDATE ledger SET dice = '[20, 4]' WHERE id = :id",
        'UPDATE ledger SET outcome = \'{"kept": 20, "modifiers": [["DEX", 3]], '
        '"result": "success"}\' WHERE id = :id',
        "UPDATE ledger SET user_id = 4000000000000002 WHERE id = :id",
    ],
)
async def test_a_row_changed_in_the_database_no_longer_verifies(
    db: Database, pd_campaign: CampaignView, tamper: str
) -> None:
    hidden = await _record(db, _roll(pd_campaign, Visibility.GM))
    await secrecy.reveal(db, GM, hidden.id)
    async with db.engine.begin() as connection:
        await connection.execute(text(tamper), {"id": hidden.id})
    result = await secrecy.verify(db, BOB_CALLER, hidden.id)
    assert result.checked and not result.matches
    assert result.stored == hidden.commitment != result.recomputed


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
