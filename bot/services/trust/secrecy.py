"""Hidden rolls: who may see a ledger row, commit-and-reveal, and verification.

A hidden roll (visibility ``gm``, ``blind`` or ``self``) is stored with a commitment: the
SHA-256 of a canonical encoding of the roll (bot/services/kit/commitments.py and the README,
"Secret rolls and trust") including a random salt from :mod:`secrets` (never the dice source).
The public stub shows the commitment; after ``/gm reveal`` anyone can recompute it, and
/verify compares it with the stub as Discord still shows it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import select

from bot.commands import secrecy_defaults
from bot.db.engine import Database
from bot.db.models import ledger_stubs
from bot.quoting import quote
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.kit.errors import AlreadyRevealed, InvalidValue, NoCampaign, NotAllowed, NotFound
from bot.services.kit.personal import PersonalData, declare
from bot.services.kit.sql import Executor, insert_for, one_statement, run_hot, transaction
from bot.services.store import ledger as ledger_svc
from bot.services.store import pending
from bot.services.store.campaigns import (
    CampaignView,
    campaign_for_channel,
    campaign_for_channel_in,
    update_settings,
)
from bot.services.trust.access import gm_standing, is_gm, require_gm
from bot.services.trust.scope import readable_row
from bot.words import LedgerKind, Visibility

#: The commands whose default visibility a campaign can set, and the defaults (GM rolls for
#: players default to blind), as the rolling commands' table declares them (bot/commands/).
SECRECY_COMMANDS: Mapping[str, Visibility] = secrecy_defaults()
#: How a GM sets the GM channel, shown when a GM copy cannot be delivered. DMs reach only
#: GMs the bot has seen acting here, so the GM channel is the reliable way (docs/secret-rolls.md).
GM_CHANNEL_HINT = (
    "Direct messages reach only GMs the bot has seen use a command in this campaign; a GM "
    "channel is the reliable way to get hidden rolls: a GM can set one with "
    "`/campaign set gm-channel`."
)


@dataclass(frozen=True, slots=True)
class GmTargets:
    """Where a GM copy goes: the campaign's GM channel, else DMs to today's GMs.

    ``candidate_ids`` are the campaign's known GMs (users seen acting with GM standing there).
    They are candidates, never authority: when a copy is sent, each is fetched afresh and gets
    it only if they now hold one of ``gm_role_ids`` or Manage Server (:meth:`admits`).
    """

    channel_id: int | None
    candidate_ids: tuple[int, ...]
    gm_role_ids: tuple[int, ...] = ()
    guild_id: int | None = None
    campaign_id: int | None = None

    @classmethod
    def of(cls, campaign: CampaignView | None) -> GmTargets:
        if campaign is None:
            return cls(None, ())
        return cls(
            campaign.gm_channel_id,
            campaign.gm_user_ids,
            campaign.gm_role_ids,
            campaign.guild_id,
            campaign.id,
        )

    def admits(self, role_ids: frozenset[int], manage_guild: bool) -> bool:
        """Whether a member of the campaign's server with these roles and permission, as they
        are now, is one of its GMs."""
        return gm_standing(self.gm_role_ids, role_ids, manage_guild)


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


def encoding_of_row(row: ledger_svc.RollView) -> bytes:
    """Recompute a hidden row's commitment preimage from what the ledger stores.

    Format 3 binds the public number, scope, place, time, the ``who`` digest and the dice and
    outcome with each string as its field digest (so the row's salts must have been read,
    :func:`~bot.services.store.ledger.with_salts_in`); format 2 the same with the dice and
    outcome in clear; format 1 rows (committed before migration 0007) bound the id they were shown
    under (kept as ``number``) and the campaign id they had then (bot/services/kit/commitments.py).
    """
    if row.format == cm.LEGACY_FORMAT:
        return cm.legacy_encoding(
            roll_id=row.number,
            campaign_id=row.legacy_campaign_id,
            user_id=row.user_id,
            request=row.request,
            dice=row.dice,
            outcome=row.outcome,
            salt=row.salt or "",
        )
    if row.format == cm.WHO_FORMAT:
        return cm.commitment_encoding(
            row.identity,
            kind=row.kind,
            who=row.who,
            dice=row.dice,
            outcome=row.outcome,
            salt=row.salt or "",
        )
    digest_of = (row.salts or cm.Salts()).digest_of
    return cm.commitment_encoding(
        row.identity,
        kind=row.kind,
        who=row.who,
        dice=cm.masked(row.dice, "dice", digest_of),
        outcome=cm.masked(row.outcome, "outcome", digest_of),
        salt=row.salt or "",
        version=cm.COMMITMENT_V3,
    )


def erased_before_format_3(row: ledger_svc.RollView) -> bool:
    """An older row (format 1 or 2) an erasure changed: it bound the erased text in clear, so
    its commitment (and, for a public row, its result) can no longer be checked (docs/privacy.md,
    "Rolls recorded before this")."""
    return row.format < cm.FORMAT and row.salts is not None and row.salts.touched


def who_matches(row: ledger_svc.RollView) -> bool | None:
    """Whether the row's personal fields still hash to its ``who`` digest (None: not known,
    as when its salts were not read, or a format 2 row whose salt was erased with them).

    Format 3: each field from its salt, or an erased field (the tombstone) from the digest
    kept in its place, so an erased row still checks.
    """
    salts = row.salts
    if salts is None:
        return None
    if row.format < cm.FORMAT:
        if salts.row_salt is None:
            return None
        encoding = cm.who_digest(row.user_id, row.character_name, row.request, salts.row_salt)
        return encoding == row.who
    fields = {
        cm.ROLLER: salts.digest_of(cm.ROLLER, row.user_id),
        cm.CHARACTER: None
        if row.character_name is None
        else salts.digest_of(cm.CHARACTER, row.character_name),
        cm.REQUEST: salts.digest_of(cm.REQUEST, row.request),
    }
    if any(fields[f] is None for f in (cm.ROLLER, cm.REQUEST)) or (
        row.character_name is not None and fields[cm.CHARACTER] is None
    ):
        return None
    return cm.who_v2(fields) == row.who


def fields_match(row: ledger_svc.RollView) -> bool:
    """Format 3: every string of the dice and outcome can be hashed (its salt or its erased
    digest is kept); the chain or the commitment then says whether it is the bound one."""
    if row.format < cm.FORMAT:
        return True
    try:
        digest_of = (row.salts or cm.Salts()).digest_of
        cm.masked(row.dice, "dice", digest_of)
        cm.masked(row.outcome, "outcome", digest_of)
    except cm.Unsalted:
        return False
    return True


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
    """:func:`may_see` for a stored row. A sealed pre-roll (docs/prerolls.md) is seen by nobody, its
    roller included, until the GM's check that uses it reveals it; an unrevealed declaration
    (docs/rounds.md) by nobody, its author and the GM included, until its round is revealed."""
    if row.kind in (LedgerKind.PREROLL, LedgerKind.DECLARATION) and row.revealed_at is None:
        return False
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


#: A sealed pre-roll opens only with the check that uses it, never by hand.
PREROLL_SEALED = (
    "Roll #{number} is a sealed pre-roll: nobody reveals it by hand, it opens when the GM "
    "applies it to a check (/gm check ... preroll:next)."
)
#: One answer for a number that names nothing and one the caller may not reach: neither tells.
NO_SUCH_ROLL = "No such roll here."


async def _locate_in(
    session: Executor, caller: Caller, number: int
) -> tuple[ledger_svc.RollView, CampaignView | None]:
    """The roll printed as ``#number`` where the caller is.

    In a campaign's channel (or its threads): that campaign's roll. Otherwise, or when the
    campaign has no such number: a roll of this place whose campaign was deleted, or made
    outside any campaign; numbers never change, so an old stub's ``#N`` still names its roll.
    """
    campaign: CampaignView | None = None
    if caller.guild_id is not None:
        with contextlib.suppress(NoCampaign):
            campaign = await campaign_for_channel_in(
                session, caller.guild_id, caller.channel_id, caller.parent_channel_id
            )
    row = None
    if campaign is not None:
        row = await ledger_svc.find_number_in(session, number, campaign_id=campaign.id)
    if row is None:
        scopes = {caller.parent_channel_id or caller.channel_id}
        if campaign is not None:
            scopes.add(campaign.ledger_scope)
        # Also by where it was rolled: a moved campaign's rolls made here since its move count
        # under its first channel, and stay findable here once it is deleted.
        here = tuple(c for c in (caller.channel_id, caller.parent_channel_id) if c is not None)
        row = await ledger_svc.find_number_in(
            session, number, scope_ids=tuple(scopes), channel_ids=here, guild_id=caller.guild_id
        )
    if row is None:
        raise NotFound(NO_SUCH_ROLL)
    return row, campaign if row.campaign_id is not None else None


async def access_roll(db: Database, caller: Caller, number: int) -> RowAccess:
    """The roll ``#number`` of this place as the caller may see it, or "No such roll"."""
    async with transaction(db) as session:
        row, campaign = await _locate_in(session, caller, number)
    if not await readable_row(caller, row, campaign):  # only where they can read
        raise NotFound(NO_SUCH_ROLL)
    gm = viewer_is_gm(campaign, caller)
    return RowAccess(row, campaign, can_see(row, caller.user_id, gm), gm)


async def reveal(db: Database, caller: Caller, number: int) -> RowAccess:
    """Make a hidden roll public. Stamping ``revealed_at`` is the only ledger update.

    A gm or blind roll: the campaign's GM (``/gm reveal``). A self roll: only its roller
    (``/reveal``, or ``/gm reveal`` for a GM's own), since "self" means nobody else has seen
    it, the GM included (docs/secret-rolls.md, the visibility modes).
    """
    found = await access_roll(db, caller, number)
    row = found.row
    if row.visibility is Visibility.PUBLIC:
        raise InvalidValue(f"Roll #{number} was public: there is nothing to reveal.")
    if row.kind == LedgerKind.PREROLL:
        raise NotAllowed(PREROLL_SEALED.format(number=number))
    if row.kind == LedgerKind.DECLARATION:
        raise InvalidValue(
            f"#{number} is a sealed declaration: it is revealed with its round, all at once "
            "(/gm round reveal)."
        )
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
    if row.commitment is not None and not row.salt:
        raise InvalidValue(
            f"Roll #{number}'s result was left out when its campaign was exported by a GM: "
            "it cannot be revealed. Nothing changed."
        )
    async with transaction(db) as session:
        row = await ledger_svc.stamp_revealed_in(session, row.id)
        # What the hidden roll earned (a threshold carry-over) happens now, with it.
        await pending.on_reveal_in(session, row)
        # ...and the AC a hidden critical hit took from its target (d20 check rule 7).
        await pending.ac_loss_on_reveal_in(session, row)
        # Its salts, for the encoding the reveal shows (format 3 hashes each field).
        (row,) = await ledger_svc.with_salts_in(session, [row])
    return RowAccess(row, found.campaign, True, found.caller_is_gm)


@dataclass(frozen=True, slots=True)
class StubPlace:
    """Where a hidden roll's public stub was posted."""

    channel_id: int
    message_id: int


#: What /verify compared the recomputed commitment with (docs/secret-rolls.md, "Reveal and verify").
PUBLISHED = "published"
STORED = "stored"
STUB_GONE = "stub gone"
STUB_UNREADABLE = "stub unreadable"


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of /verify.

    ``checked`` is False when the caller may not see the roll yet (then only the commitment is
    shown). ``reference`` is the digest the recomputed one is compared with, and ``source``
    says where it came from: the stub message as Discord still shows it (``published``), or,
    when the stub is gone or was never posted, the copy stored beside the result.
    """

    access: RowAccess
    stored: str | None
    checked: bool
    recomputed: str | None
    encoding: bytes | None
    stub: StubPlace | None = None
    reference: str | None = None
    source: str = STORED
    #: Whether the roller, character name and request still hash to the bound ``who``
    #: (None: a legacy row binds them directly, or the salt was erased with them).
    who_ok: bool | None = None
    #: An older row (format 1 or 2) whose bound text was erased: its commitment can
    #: no longer be recomputed, and says so rather than "does not match".
    erased: bool = False

    @property
    def matches(self) -> bool:
        reference = self.reference if self.reference is not None else self.stored
        return (
            self.checked
            and self.who_ok is not False
            and self.recomputed is not None
            and self.recomputed == reference
        )


def commitment_of(encoding: bytes) -> str:
    """The commitment: SHA-256 of the canonical encoding, 64 lowercase hex characters."""
    return cm.sha256_hex(encoding)


async def verify(db: Database, caller: Caller, number: int) -> Verification:
    """Recompute a hidden roll's commitment from the stored row; the cog then compares it with
    the stub as published (:func:`against_published`)."""
    found = await access_roll(db, caller, number)
    row = found.row
    if row.visibility is Visibility.PUBLIC or row.commitment is None:
        return Verification(found, None, False, None, None)
    stub = await stub_of(db, row.id)
    if not found.visible:
        return Verification(found, row.commitment, False, None, None, stub)
    async with transaction(db) as session:
        (row,) = await ledger_svc.with_salts_in(session, [row])
    found = replace(found, row=row)
    if erased_before_format_3(row):
        # The text this older row bound in clear was erased; nothing to recompute.
        return Verification(found, row.commitment, True, None, None, stub, erased=True)
    try:
        encoding = encoding_of_row(row)
    except cm.Unsalted:
        return Verification(found, row.commitment, True, None, None, stub, who_ok=False)
    who_ok = None if row.format == cm.LEGACY_FORMAT else who_matches(row)
    return Verification(
        found, row.commitment, True, commitment_of(encoding), encoding, stub, who_ok=who_ok
    )


def against_published(
    result: Verification, published: str | None, *, unreadable: bool = False
) -> Verification:
    """Compare with the digest read from the stub message (None: the stub is gone;
    ``unreadable``: Discord would not show it just now)."""
    if result.stored is None:
        return result
    if unreadable:
        return replace(result, reference=result.stored, source=STUB_UNREADABLE)
    if published is None:
        source = STUB_GONE if result.stub is not None else STORED
        return replace(result, reference=result.stored, source=source)
    return replace(result, reference=published, source=PUBLISHED)


async def record_stub(db: Database, roll_id: int, channel_id: int, message_id: int) -> None:
    """Remember where a hidden roll's stub was posted (once; a retry keeps the first)."""
    async with one_statement(db) as connection:
        stmt = _STUB_INSERTS.get(connection.dialect.name)
        if stmt is None:  # built once per dialect, like the ledger's INSERT
            stmt = _STUB_INSERTS[connection.dialect.name] = insert_for(
                connection, ledger_stubs
            ).on_conflict_do_nothing(index_elements=["ledger_id"])
        values = {"ledger_id": roll_id, "channel_id": channel_id, "message_id": message_id}
        await run_hot(connection, stmt, values, columns=_STUB_COLUMNS)


_STUB_INSERTS: dict[str, Any] = {}
_STUB_COLUMNS = ("ledger_id", "channel_id", "message_id")


async def stub_of(db: Database, roll_id: int) -> StubPlace | None:
    """Where the stub of a hidden roll was posted, if the bot kept it."""
    async with transaction(db) as session:
        found = (
            await session.execute(
                select(ledger_stubs.c.channel_id, ledger_stubs.c.message_id).where(
                    ledger_stubs.c.ledger_id == roll_id
                )
            )
        ).first()
    return None if found is None else StubPlace(int(found[0]), int(found[1]))


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
            f"Unknown command {quote(command)}: choose one of {', '.join(SECRECY_COMMANDS)}."
        )
    chosen = dict(campaign.secrecy_defaults)
    chosen[command] = Visibility(mode).value
    return await update_settings(db, campaign.id, secrecy_defaults=chosen)


PERSONAL_DATA = declare(
    PersonalData(
        "hidden roll stubs",
        not_personal={"ledger_stubs": "where a hidden roll's stub was posted"},
    )
)
