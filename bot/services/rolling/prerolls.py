"""Sealed pre-rolls (docs/prerolls.md): d20s a player seals in advance, applied later by the GM.

``/preroll`` rolls each d20 now, with the injected random source like every roll, and stores
it as a hidden ledger row of kind ``preroll``: committed (salted SHA-256, the machinery of
hidden rolls, bot/services/kit/commitments.py) and chained at once, so its sealing time and
commitment are public and can never change. Nobody may see the die, the player included
(:func:`bot.services.trust.secrecy.can_see`), until the GM applies it: ``/gm check ...
preroll:next`` takes the character's oldest unused dice instead of fresh ones, and in the same
transaction records the check, marks the dice used and reveals their rows, so ``/verify`` on the
pre-roll proves the die was fixed before the GM chose the ability and the DC.

Rulings where the issue is silent:

- Every system's check is a d20 (Pen & Dagger against the Success Table, roll-under d20 <=
  score, threshold d20 + modifier, d20 check), so a pre-roll applies in all four.
- Advantage or disadvantage uses the next two sealed dice, in the order sealed (both were
  fixed before the check); with fewer left the check is refused.
- A check with a pre-roll is public: its point is to show the table the die was sealed before
  the check was chosen, and a hidden check would hide that (and show the GM the die).
- At most :data:`MAX_SEALED` dice wait per character: they are the character's next d20s, not
  a stockpile, and one stub must show every commitment (Discord's embed limits).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, insert, select, update

from bot.db.engine import Database
from bot.db.models import characters
from bot.db.preroll_models import prerolls
from bot.db.types import utcnow
from bot.quoting import escape
from bot.rules.common import roll_d20
from bot.services.kit import budgets
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NoCampaign
from bot.services.kit.personal import DELETED, Holding, PersonalData, declare
from bot.services.kit.serialize import to_jsonable
from bot.services.kit.sql import Executor, core_transaction, transaction
from bot.services.rolling import checks
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView, campaign_for_channel_in
from bot.services.store.characters import CharacterView, resolve_character_in
from bot.services.trust import fairness
from bot.words import LedgerKind, Visibility

#: Sealed dice that may wait per character (see the module docstring for why).
MAX_SEALED = 10
#: The most d20s one check rolls (advantage or disadvantage: two).
MAX_PER_CHECK = 2
#: ``/gm check``'s ``preroll`` option: the one value it takes.
NEXT = "next"


@dataclass(frozen=True, slots=True)
class SealedDie:
    """A sealed pre-roll as anyone may see it: its public number, when, and its commitment."""

    number: int
    sealed_at: datetime
    commitment: str


@dataclass(frozen=True, slots=True)
class Sealed:
    """What ``/preroll`` sealed, and how many of the character's dice now wait."""

    campaign: CampaignView
    character: CharacterView
    dice: tuple[SealedDie, ...]
    waiting: int
    #: The dice's ledger ids (internal: where their stub is recorded).
    roll_ids: tuple[int, ...] = ()
    #: Seeds the dice used up, rotated after the last: the place is shown them (each die is
    #: blinded, and the hidden-roll key stays secret while one is sealed).
    rotations: tuple[fairness.Rotation, ...] = ()


@dataclass(frozen=True, slots=True)
class AppliedDie:
    """A pre-roll a check used: its sealing, and the die now revealed."""

    sealed: SealedDie
    face: int


@dataclass(frozen=True, slots=True)
class Waiting:
    """One character's sealed dice still waiting (for ``/prerolls``)."""

    character_name: str
    dice: tuple[SealedDie, ...]


def _count(value: int) -> str:
    return f"{value} sealed pre-roll{'s' if value != 1 else ''}"


def _whole(row: ledger.RollView) -> bool:
    """A sealed die that can still be applied: a GM's export leaves out an unrevealed self
    roll's result and salt (bot/services/trust/export.py), so one imported from it never can."""
    return bool(row.salt) and isinstance(row.dice, list) and len(row.dice) == 1


async def _waiting_rows_in(session: Executor, where: Any) -> list[tuple[Any, ledger.RollView]]:
    """The unused pre-rolls matching ``where`` that can still be applied, oldest first, each
    with its ledger row (read through the ledger's own reader)."""
    stmt = (
        select(prerolls.c.ledger_id, characters.c.name)
        .join(characters, characters.c.id == prerolls.c.character_id)
        .where(where, prerolls.c.used_at.is_(None))
        .order_by(prerolls.c.ledger_id)
    )
    found = list(await session.execute(stmt))
    rows = await ledger.rows_in(session, [int(r.ledger_id) for r in found])
    return [(r, rows[int(r.ledger_id)]) for r in found if _whole(rows[int(r.ledger_id)])]


async def _waiting_in(session: Executor, character_id: int) -> int:
    return len(await _waiting_rows_in(session, prerolls.c.character_id == character_id))


async def seal(
    db: Database, rng: random.Random, caller: Caller, count: int, request: str
) -> Sealed:
    """``/preroll``: roll ``count`` d20s for the caller's active character and seal each as a
    hidden ledger row nobody may see until the GM applies it."""
    if not 1 <= count <= MAX_SEALED:
        raise InvalidValue(f"Seal from 1 to {MAX_SEALED} dice at a time.")
    if caller.guild_id is None:
        raise NoCampaign()
    budgets.charge(caller, count * budgets.ROLL_ROW)  # each die is a sealed row
    async with core_transaction(db) as session:
        campaign = await campaign_for_channel_in(
            session, caller.guild_id, caller.channel_id, caller.parent_channel_id
        )
        character = await resolve_character_in(session, campaign.id, caller.user_id)
        dice: list[SealedDie] = []
        ids: list[int] = []
        # Provably fair (docs/fair-dice.md): each die its own hidden draw with the player's
        # seed, its record sealed with it; a seed falling due rotates after the last die.
        fair_dice = fairness.chosen_source(rng)
        with fairness.rotations_held() as held:
            for index in range(count):
                die_rng, record = rng, None
                if fair_dice:
                    draw = await fairness.draw_in(session, caller, campaign.id, Visibility.SELF)
                    die_rng, record = draw.rng, draw.record(fairness.D20_DRAWS)
                face = roll_d20(die_rng)
                sealed = {"die": face} if record is None else {"die": face, "fair": record}
                recorded = await ledger.record_in(
                    session,
                    ledger.NewRoll(
                        # One row carries the interaction, so a retried one seals nothing new.
                        origin=ledger.Origin.of(caller, with_interaction=index == 0),
                        kind=LedgerKind.PREROLL,
                        request=request,
                        dice=[face],
                        outcome=sealed,
                        # Self: no GM copy, and a GM's export leaves it out; secrecy.can_see
                        # hides it from its roller too, until applied.
                        visibility=Visibility.SELF,
                        campaign_id=campaign.id,
                        character_id=character.id,
                        character_name=character.name,
                    ),
                )
                await session.execute(
                    insert(prerolls).values(
                        ledger_id=recorded.id, campaign_id=campaign.id, character_id=character.id
                    )
                )
                row = await ledger.get_roll_in(session, recorded.id)
                dice.append(SealedDie(recorded.number, row.created_at, recorded.commitment or ""))
                ids.append(recorded.id)
        rotations = await fairness.rotate_held_in(session, held)
        # Counted after the inserts: the ledger's chain lock (held until commit) orders two
        # concurrent /preroll of one campaign, so the second counts the first's dice.
        waiting = await _waiting_in(session, character.id)
        if waiting > MAX_SEALED:
            before = waiting - count
            room = max(0, MAX_SEALED - before)
            raise InvalidValue(
                f"{escape(character.name)} already holds {_count(before)}; at most "
                f"{MAX_SEALED} may wait at once (they are the next d20s, not a stockpile). "
                + (f"Seal at most {room} now." if room else "Nothing was sealed.")
            )
    return Sealed(campaign, character, tuple(dice), waiting, tuple(ids), tuple(rotations))


async def waiting(db: Database, caller: Caller) -> tuple[CampaignView, list[Waiting]]:
    """``/prerolls``: every character's sealed dice still waiting in this campaign (their
    numbers, times and commitments are public; the dice are not)."""
    if caller.guild_id is None:
        raise NoCampaign()
    async with transaction(db) as session:
        campaign = await campaign_for_channel_in(
            session, caller.guild_id, caller.channel_id, caller.parent_channel_id
        )
        waiting_rows = await _waiting_rows_in(session, prerolls.c.campaign_id == campaign.id)
    found: dict[str, list[SealedDie]] = {}
    for pre, row in sorted(waiting_rows, key=lambda pair: (str(pair[0].name), pair[1].id)):
        found.setdefault(str(pre.name), []).append(
            SealedDie(row.number, row.created_at, row.commitment or "")
        )
    return campaign, [Waiting(name, tuple(dice)) for name, dice in found.items()]


# --- applying: the GM's check with preroll:next ---------------------------------------------


class _Dice(random.Random):
    """The sealed dice as a random source: each d20 the check rolls is the next sealed die.

    Anything but a d20 is refused: a pre-roll stands only for d20s. Built with no dice, it
    counts the d20s a check rolls (how many to claim), showing 10s.
    """

    def __init__(self, faces: Sequence[int] | None = None) -> None:
        super().__init__(0)
        self.faces = None if faces is None else tuple(faces)
        self.drawn = 0

    def randint(self, a: int, b: int) -> int:
        if (a, b) != (1, 20):
            raise InvalidValue("A pre-roll is a d20; this check rolls other dice.")
        if self.faces is None:
            self.drawn += 1
            return 10
        if self.drawn >= len(self.faces):
            raise InvalidValue("This check rolls more d20s than were claimed.")
        face = self.faces[self.drawn]
        self.drawn += 1
        return face

    def random(self) -> float:
        raise InvalidValue("A pre-roll is a d20; this check rolls other dice.")


class SealedDraw:
    """The hook a GM's check calls (bot/services/rolling/checks.py) to use sealed dice: it
    claims the
    character's oldest unused ones, feeds them to the check, binds their numbers into the
    check's row, then marks them used and reveals them, all in the check's transaction."""

    def __init__(self) -> None:
        self.applied: tuple[AppliedDie, ...] = ()
        self._ids: tuple[int, ...] = ()
        self._dice: _Dice | None = None
        self._fair: list[Any] = []

    async def rng_in(
        self, session: Executor, character: CharacterView, plan: checks.CheckPlan
    ) -> random.Random:
        """Claim as many sealed dice as the check rolls d20s; the random source giving them."""
        counter = _Dice()
        plan.roll(counter)
        needed = counter.drawn
        if not 1 <= needed <= MAX_PER_CHECK:
            raise InvalidValue("This check cannot take a pre-roll.")
        # The oldest unused dice, locked; PostgreSQL skips dice another check holds (it would
        # use them), SQLite has one writer at a time. Claimed for good by mark_used_in.
        stmt = (
            select(prerolls.c.ledger_id)
            .where(prerolls.c.character_id == character.id, prerolls.c.used_at.is_(None))
            .order_by(prerolls.c.ledger_id)
            .limit(needed)
            .with_for_update(skip_locked=True)
        )
        while True:
            found: Sequence[Any] = (await session.execute(stmt)).scalars().all()
            by_id = await ledger.rows_in(session, [int(i) for i in found])
            broken = [i for i, row in by_id.items() if not _whole(row)]
            if not broken:
                break
            # A die a GM's export left out can never be applied: set aside, used by nothing
            # (undone with the check if it fails), so the next ones come forward.
            await session.execute(
                update(prerolls).where(prerolls.c.ledger_id.in_(broken)).values(used_at=utcnow())
            )
        ids = sorted(by_id)
        if len(ids) < needed:
            name = escape(character.name)
            if needed > 1:
                raise InvalidValue(
                    f"{name} has {_count(len(ids))} left, and a check with advantage or "
                    "disadvantage uses the next two. Nothing was rolled."
                )
            raise InvalidValue(
                f"{name} has no sealed pre-roll left: the player seals some with /preroll. "
                "Nothing was rolled."
            )
        rows = [by_id[i] for i in ids]
        faces = [int(row.dice[0]) for row in rows]
        self._fair = [
            row.outcome.get("fair") if isinstance(row.outcome, dict) else None for row in rows
        ]
        self._ids = tuple(ids)
        self._dice = _Dice(faces)
        self.applied = tuple(
            AppliedDie(SealedDie(row.number, row.created_at, row.commitment or ""), face)
            for row, face in zip(rows, faces, strict=True)
        )
        return self._dice

    def bind(self, outcome: Any) -> Any:
        """The check's outcome as recorded: with the pre-rolls' numbers, so its chained row
        names the sealed dice it used, and their draws (docs/fair-dice.md): each die of the
        check recomputes from the draw made when it was sealed, with its player's seed."""
        if self._dice is None or self._dice.drawn != len(self.applied):
            raise RuntimeError("the check did not use exactly the claimed pre-rolls")
        bound = {**to_jsonable(outcome), "prerolls": [die.sealed.number for die in self.applied]}
        record = fairness.parts_record(self._fair)
        return bound if record is None else {**bound, "fair": record}

    async def mark_used_in(self, session: Executor, roll_id: int) -> None:
        """Mark the dice used by the check's row ``roll_id`` and reveal their rows."""
        result = await session.execute(
            update(prerolls)
            .where(prerolls.c.ledger_id.in_(self._ids), prerolls.c.used_at.is_(None))
            .values(used_by=roll_id, used_at=utcnow())
        )
        if (cast(CursorResult[Any], result).rowcount or 0) != len(self._ids):
            raise RuntimeError("a claimed pre-roll was used by another check")
        for ledger_id in self._ids:
            await ledger.stamp_revealed_in(session, ledger_id)


@dataclass(frozen=True, slots=True)
class PrerolledCheck:
    """A GM's check that used sealed dice."""

    result: checks.CheckResult
    applied: tuple[AppliedDie, ...]


async def perform_gm_check(
    db: Database,
    rng: random.Random,
    caller: Caller,
    character_name: str,
    options: checks.CheckOptions,
    request: str,
    *,
    visibility: Visibility | str | None = None,
) -> PrerolledCheck:
    """``/gm check ... preroll:next``: the GM's check with the character's next sealed d20s,
    public (see the module docstring)."""
    if visibility is not None and Visibility(visibility) is not Visibility.PUBLIC:
        raise InvalidValue(
            "A check with a pre-roll is public: it shows the table that the die was sealed "
            "before the check was chosen. Leave secret out, or roll a fresh hidden check."
        )
    draw = SealedDraw()
    budgets.charge(caller, budgets.ROLL_ROW)  # before any die: a refusal changes nothing
    async with core_transaction(db) as session:
        # /gm check's own two phases; its d20s are the sealed ones, not a fresh draw.
        prepared = await checks.prepare_check_in(
            session, caller, options, character_name=character_name, as_gm=True
        )
        result = await checks.roll_prepared_in(
            session, prepared, rng, caller, request, visibility=Visibility.PUBLIC, sealed=draw
        )
    return PrerolledCheck(result, draw.applied)


__all__ = [
    "MAX_SEALED",
    "NEXT",
    "AppliedDie",
    "PrerolledCheck",
    "Sealed",
    "SealedDie",
    "SealedDraw",
    "Waiting",
    "perform_gm_check",
    "seal",
    "waiting",
]


# What a sealed pre-roll keeps about a person (bot/services/kit/personal.py): whose character it is;
# it goes with the character (ON DELETE CASCADE), its die stays a hidden roll in the log.
PERSONAL_DATA = declare(
    PersonalData(
        "prerolls",
        holdings=(Holding("prerolls", "their character's (deleted with it)", DELETED),),
    )
)
