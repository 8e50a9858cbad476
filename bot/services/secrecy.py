"""Hidden rolls: who may see a ledger row, commit-and-reveal, and verification.

A hidden roll (visibility ``gm``, ``blind`` or ``self``) is stored with a commitment: the
SHA-256 of a canonical encoding of the roll (see :func:`canonical_encoding` and the README,
"Secret rolls and trust") including a random salt from :mod:`secrets` (never the dice source). The
public stub shows the commitment; after ``/gm reveal`` anyone can recompute it.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import text

from bot.db.engine import Database
from bot.db.models import Visibility
from bot.services import ledger as ledger_svc
from bot.services._sql import Executor, dialect_name, transaction
from bot.services.access import is_gm, require_gm
from bot.services.campaigns import (
    CampaignView,
    campaign_for_channel,
    get_campaign_in,
    update_settings,
)
from bot.services.context import Caller
from bot.services.errors import AlreadyRevealed, InvalidValue, NoCampaign, NotAllowed, NotFound

#: The commands whose default visibility a campaign can set, and the defaults (the issue:
#: GM rolls for players default to blind).
SECRECY_COMMANDS: Mapping[str, Visibility] = {
    "roll": Visibility.PUBLIC,
    "check": Visibility.PUBLIC,
    "save": Visibility.PUBLIC,
    "luck": Visibility.PUBLIC,
    "gm-roll": Visibility.BLIND,
    "gm-check": Visibility.BLIND,
}
#: Salt length in bytes: 256 bits (the issue asks for at least 128), 64 hex characters.
SALT_BYTES = 32
#: Version tag inside the encoding, so the format can change without ambiguity.
ENCODING_VERSION = "pbp-dice-commitment-v1"
#: How a GM sets the GM channel, shown when a GM copy cannot be delivered.
GM_CHANNEL_HINT = "A GM can set a GM channel with `/campaign set gm-channel`."


@dataclass(frozen=True, slots=True)
class GmTargets:
    """Where a GM copy goes: the campaign's GM channel, else DMs to the GMs recorded at setup."""

    channel_id: int | None
    user_ids: tuple[int, ...]
    gm_role_ids: tuple[int, ...] = ()

    @classmethod
    def of(cls, campaign: CampaignView | None) -> GmTargets:
        if campaign is None:
            return cls(None, ())
        return cls(campaign.gm_channel_id, campaign.gm_user_ids, campaign.gm_role_ids)


def require_campaign_gm(campaign: CampaignView | None, caller: Caller, action: str) -> None:
    """GM commands need the channel's campaign and its GM."""
    if campaign is None:
        raise NoCampaign()
    require_gm(campaign, caller, action)


def default_visibility(campaign: CampaignView | None, command: str) -> Visibility:
    """The campaign's default for ``command`` (a key of :data:`SECRECY_COMMANDS`)."""
    if command not in SECRECY_COMMANDS:
        raise ValueError(f"unknown rolling command {command!r}")
    if campaign is not None:
        chosen = campaign.secrecy_defaults.get(command)
        if chosen is not None:
            return Visibility(chosen)
    return SECRECY_COMMANDS[command]


def resolve_visibility(
    requested: str | Visibility | None, campaign: CampaignView | None, command: str
) -> Visibility:
    """The visibility a roll uses: the one asked for, else the campaign's default.

    Outside a campaign there is no GM, so only public and self rolls are possible.
    """
    visibility = (
        default_visibility(campaign, command) if requested is None else Visibility(requested)
    )
    if campaign is None and visibility in (Visibility.GM, Visibility.BLIND):
        raise InvalidValue(
            f"A {visibility.value} roll goes to the GM, and this channel has no campaign: "
            "roll in the campaign's channel, or use secret:self."
        )
    return visibility


# --- the commitment -------------------------------------------------------------------------


def _normalised(value: Any) -> Any:
    """What the ledger gives back after a JSON round trip (tuples become lists...)."""
    return json.loads(json.dumps(value))


def canonical_encoding(
    *,
    roll_id: int,
    campaign_id: int | None,
    user_id: int,
    request: str,
    dice: Any,
    outcome: Any,
    salt: str,
) -> bytes:
    """The bytes a commitment hashes: compact JSON, keys sorted, ASCII only (see the README).

    ``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)`` of
    ``{"campaign", "dice", "id", "outcome", "request", "roller", "salt", "v"}``, UTF-8 (pure
    ASCII), no trailing newline.
    """
    body = {
        "v": ENCODING_VERSION,
        "id": roll_id,
        "campaign": campaign_id,
        "roller": user_id,
        "request": request,
        "dice": _normalised(dice),
        "outcome": _normalised(outcome),
        "salt": salt,
    }
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode(
        "ascii"
    )


def commitment_of(encoding: bytes) -> str:
    """The commitment: SHA-256 of the canonical encoding, 64 lowercase hex characters."""
    return hashlib.sha256(encoding).hexdigest()


def encoding_of_row(row: ledger_svc.RollView) -> bytes:
    """Recompute the canonical encoding from what the ledger stores."""
    return canonical_encoding(
        roll_id=row.id,
        campaign_id=row.campaign_id,
        user_id=row.user_id,
        request=row.request,
        dice=row.dice,
        outcome=row.outcome,
        salt=row.salt or "",
    )


async def _reserve_ledger_id(session: Executor) -> int:
    """Allocate the id the hidden roll's row will be inserted with, in this transaction.

    The id is part of the committed encoding, and the ledger is append-only (the row cannot be
    updated with its commitment afterwards), so it must be known before the one INSERT, which
    then names it explicitly. PostgreSQL: the ledger's own sequence hands out ids that no other
    transaction will get, without locking anything. SQLite: every transaction began with
    ``BEGIN IMMEDIATE`` (bot/db/engine.py), so this one holds the write lock and MAX(id) + 1
    stays free until it commits.
    """
    if dialect_name(session) == "postgresql":
        stmt = text("SELECT nextval(pg_get_serial_sequence('ledger', 'id'))")
        return int((await session.execute(stmt)).scalar_one())
    stmt = text("SELECT COALESCE(MAX(id), 0) + 1 FROM ledger")
    return int((await session.execute(stmt)).scalar_one())


def _jsonable_check(value: Any) -> None:
    json.dumps(value)  # a TypeError here is a bug in the caller, before anything is written


@dataclass(frozen=True, slots=True)
class Stored:
    """A recorded roll: its ledger id, whether the interaction was a duplicate, and the
    commitment of a hidden roll (None for public ones)."""

    id: int
    duplicate: bool
    commitment: str | None


async def record_roll_in(session: Executor, roll: ledger_svc.NewRoll) -> Stored:
    """Record any roll: public ones as they are, hidden ones with salt and commitment.

    The hidden row is written by the ledger's ONE insert, already holding its commitment and
    salt; the commitment covers the row id reserved just before (no later UPDATE).
    """
    visibility = Visibility(roll.visibility)
    if visibility is Visibility.PUBLIC:
        public = await ledger_svc.record_roll_in(session, roll)
        return Stored(public.id, public.duplicate, None)
    _jsonable_check(roll.dice)
    _jsonable_check(roll.outcome)
    roll_id = await _reserve_ledger_id(session)
    salt = secrets.token_hex(SALT_BYTES)
    dice, outcome = _normalised(roll.dice), _normalised(roll.outcome)
    commitment = commitment_of(
        canonical_encoding(
            roll_id=roll_id,
            campaign_id=roll.campaign_id,
            user_id=roll.origin.user_id,
            request=roll.request,
            dice=dice,
            outcome=outcome,
            salt=salt,
        )
    )
    hidden = replace(
        roll,
        dice=dice,
        outcome=outcome,
        visibility=visibility,
        commitment=commitment,
        salt=salt,
        roll_id=roll_id,
    )
    recorded = await ledger_svc.record_roll_in(session, hidden)
    if recorded.duplicate:
        existing = await ledger_svc.get_roll_in(session, recorded.id)
        return Stored(recorded.id, True, existing.commitment)
    if recorded.id != roll_id:
        # Never keep a commitment over the wrong id: this rolls the whole transaction back.
        raise RuntimeError(f"ledger gave id {recorded.id}, commitment covers {roll_id}")
    return Stored(recorded.id, False, commitment)


# --- who may see what -----------------------------------------------------------------------


def may_see(
    visibility: Visibility, roller_id: int, revealed: bool, viewer_id: int, viewer_is_gm: bool
) -> bool:
    """Whether a viewer may see a roll's dice and outcome.

    public → everyone; gm → the GM and the roller; blind → the GM only; self → the roller
    only; a revealed roll → everyone.
    """
    if revealed or visibility is Visibility.PUBLIC:
        return True
    if visibility is Visibility.GM:
        return viewer_is_gm or roller_id == viewer_id
    if visibility is Visibility.BLIND:
        return viewer_is_gm
    return roller_id == viewer_id


def can_see(row: ledger_svc.RollView, viewer_id: int, viewer_is_gm: bool) -> bool:
    """:func:`may_see` for a stored row."""
    return may_see(
        row.visibility, row.user_id, row.revealed_at is not None, viewer_id, viewer_is_gm
    )


def viewer_is_gm(campaign: CampaignView | None, caller: Caller) -> bool:
    """The caller is a GM of the row's campaign (and in that campaign's server)."""
    if campaign is None or caller.guild_id != campaign.guild_id:
        return False
    return is_gm(campaign, caller)


@dataclass(frozen=True, slots=True)
class RowAccess:
    """A ledger row with its campaign, and whether the caller may see its result."""

    row: ledger_svc.RollView
    campaign: CampaignView | None
    visible: bool
    caller_is_gm: bool


async def _row_and_campaign(
    db: Database, roll_id: int
) -> tuple[ledger_svc.RollView, CampaignView | None]:
    async with transaction(db) as session:
        row = await ledger_svc.get_roll_in(session, roll_id)
        campaign = None
        if row.campaign_id is not None:
            try:
                campaign = await get_campaign_in(session, row.campaign_id)
            except NotFound:
                campaign = None
    return row, campaign


async def access_roll(db: Database, caller: Caller, roll_id: int) -> RowAccess:
    """A row as the caller may see it; rows of another server do not exist for them."""
    row, campaign = await _row_and_campaign(db, roll_id)
    if row.guild_id is not None and row.guild_id != caller.guild_id:
        raise NotFound("No such roll in this server.")
    gm = viewer_is_gm(campaign, caller)
    return RowAccess(row, campaign, can_see(row, caller.user_id, gm), gm)


async def reveal(db: Database, caller: Caller, roll_id: int) -> RowAccess:
    """Make a hidden roll public. Stamping ``revealed_at`` is the only ledger update.

    A gm or blind roll: the campaign's GM (``/gm reveal``). A self roll: only its roller
    (``/reveal``, or ``/gm reveal`` for a GM's own), since "self" means nobody else has seen
    it, the GM included (issue 7, the visibility modes).
    """
    found = await access_roll(db, caller, roll_id)
    row = found.row
    if row.visibility is Visibility.PUBLIC:
        raise InvalidValue(f"Roll #{roll_id} was public: there is nothing to reveal.")
    if row.visibility is Visibility.SELF:
        if row.user_id != caller.user_id:
            raise NotAllowed("Only the player who rolled a self roll can reveal it.")
    elif found.campaign is None:
        raise NotAllowed("That roll belongs to no campaign, so no GM can reveal it.")
    elif not found.caller_is_gm:
        raise NotAllowed(
            "Only the campaign's GM can reveal a gm or blind roll (a self roll: its roller)."
        )
    if row.revealed_at is not None:
        raise AlreadyRevealed()
    row = await ledger_svc.stamp_revealed(db, roll_id)
    return RowAccess(row, found.campaign, True, found.caller_is_gm)


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of /verify.

    ``checked`` is False when the caller may not see the roll yet (then only the stored
    commitment is shown); ``matches`` compares the recomputed hash with the stored one.
    """

    access: RowAccess
    stored: str | None
    checked: bool
    recomputed: str | None
    encoding: bytes | None

    @property
    def matches(self) -> bool:
        return self.checked and self.recomputed is not None and self.recomputed == self.stored


async def verify(db: Database, caller: Caller, roll_id: int) -> Verification:
    """Recompute a hidden roll's commitment from the stored row and compare it with the stored
    commitment (which the public stub showed)."""
    found = await access_roll(db, caller, roll_id)
    row = found.row
    if row.visibility is Visibility.PUBLIC or row.commitment is None:
        return Verification(found, None, False, None, None)
    if not found.visible:
        return Verification(found, row.commitment, False, None, None)
    encoding = encoding_of_row(row)
    return Verification(found, row.commitment, True, commitment_of(encoding), encoding)


async def set_default(db: Database, caller: Caller, command: str, mode: str) -> CampaignView:
    """GM only: the campaign's default visibility for one rolling command."""
    if caller.guild_id is None:
        raise NoCampaign()
    campaign = await campaign_for_channel(
        db, caller.guild_id, caller.channel_id, caller.parent_channel_id
    )
    require_gm(campaign, caller, "change campaign settings")
    if command not in SECRECY_COMMANDS:
        raise InvalidValue(
            f"Unknown command {command!r}: choose one of {', '.join(SECRECY_COMMANDS)}."
        )
    chosen = dict(campaign.secrecy_defaults)
    chosen[command] = Visibility(mode).value
    return await update_settings(db, campaign.id, secrecy_defaults=chosen)
