"""Pending carry-over modifiers (threshold ruling 4): stored, shown, used once, GM-clearable.

Consuming ends in one ``DELETE ... RETURNING``, so two concurrent tests can never both use it.

Secrecy (a hidden roll changes nothing others can observe until it is revealed): a
test rolled gm, blind or self stores *no* carry-over; :func:`on_reveal_in`, run inside the
reveal's transaction, stores it then, as a new critical would: it replaces whatever is pending
for that attribute and applies to the next test after the reveal, even if the character tested
that attribute in between. Those tests were made without it (nobody else could know it, and
using it would have shown it), so the +2 / -2 is still owed; counting it from the reveal keeps
ruling 4's "next test" without ever changing a roll already shown, and the GM can clear it.

Rows stored before that rule, and the blind rows of a hidden-DC roll request (their die is
shown to everyone, only pass/fail is hidden: bot/services/rolling/groups.py), still store theirs at
once with its ``source_roll_id``: such a carry-over *waits* (not applied, and shown only to
viewers who may see the source roll) until its source is revealed. A modifier without a source
roll counts as public.

A hidden attack's critical hit defers the AC it takes from its target the same way
(:func:`ac_loss_on_reveal_in`; d20 check rule 7).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, or_, select

from bot.db.engine import Database
from bot.db.models import pending_modifiers
from bot.db.party_models import roll_request_targets
from bot.db.types import utcnow
from bot.rules import threshold
from bot.services.kit.errors import InvalidValue
from bot.services.kit.sql import Executor, insert_for, transaction
from bot.services.store import characters, ledger
from bot.words import LedgerKind, Visibility

_P = pending_modifiers

#: Threshold ruling 4: +2 after a critical success, -2 after a critical failure.
CRIT_SUCCESS_BONUS = 2
CRIT_FAILURE_PENALTY = -2


async def set_pending_in(
    session: Executor,
    character_id: int,
    ability: str,
    value: int,
    source_roll_id: int | None = None,
) -> None:
    """In a caller's transaction: set (replace) the pending modifier for ``ability``.

    ``ability`` must already be the campaign's spelling (``CampaignView.ability``).
    """
    if value == 0 or not -20 <= value <= 20:
        raise InvalidValue("A pending modifier is a non-zero number between -20 and 20.")
    stmt = (
        insert_for(session, _P)
        .values(
            character_id=character_id,
            ability=ability,
            value=value,
            source_roll_id=source_roll_id,
            created_at=utcnow(),
        )
        .on_conflict_do_update(
            index_elements=["character_id", "ability"],
            set_={"value": value, "source_roll_id": source_roll_id, "created_at": utcnow()},
        )
    )
    await session.execute(stmt)


@dataclass(frozen=True, slots=True)
class CarryOver:
    """A stored carry-over and what its source roll allows (see the module docstring)."""

    ability: str
    value: int
    source_roll_id: int | None
    #: The source roll's visibility (None: no source roll, counts as public).
    source_visibility: Visibility | None = None
    source_roller_id: int | None = None
    source_revealed_at: datetime | None = None
    #: The source roll's public number, as its messages printed it.
    source_number: int | None = None

    @property
    def active(self) -> bool:
        """Applied to the next test and on everyone's sheet: its source roll is not hidden."""
        return (
            self.source_visibility in (None, Visibility.PUBLIC)
            or self.source_revealed_at is not None
        )


async def _with_source(
    session: Executor, ability: str, value: int, source: int | None
) -> CarryOver:
    if source is None:
        return CarryOver(ability, value, None)
    # Through the ledger service: it is the one module that reads the ledger table.
    row = await ledger.get_roll_in(session, source)
    return CarryOver(
        ability, value, source, row.visibility, row.user_id, row.revealed_at, row.number
    )


async def carry_overs_in(session: Executor, character_id: int) -> list[CarryOver]:
    """Every stored carry-over of a character, with its source roll's visibility."""
    stmt = (
        select(_P.c.ability, _P.c.value, _P.c.source_roll_id)
        .where(_P.c.character_id == character_id)
        .order_by(_P.c.ability)
    )
    rows = (await session.execute(stmt)).all()
    return [await _with_source(session, r.ability, int(r.value), r.source_roll_id) for r in rows]


async def consume_pending_in(session: Executor, character_id: int, ability: str) -> int:
    """In a caller's transaction: take the pending modifier (0 when there is none), once.

    Only an active one: a carry-over from a hidden roll not yet revealed waits (it is not
    used, and stays stored), so the next test's breakdown cannot give the hidden critical
    away. The DELETE names the source it checked: if a new critical replaced the modifier
    meanwhile, nothing is taken; two concurrent tests still use one modifier once.
    """
    where = (_P.c.character_id == character_id, _P.c.ability == ability)
    source = (await session.execute(select(_P.c.source_roll_id, _P.c.value).where(*where))).first()
    if source is None:
        return 0
    found = await _with_source(session, ability, int(source.value), source.source_roll_id)
    if not found.active:
        return 0
    same_source = (
        _P.c.source_roll_id.is_(None)
        if found.source_roll_id is None
        else _P.c.source_roll_id == found.source_roll_id
    )
    stmt = delete(_P).where(*where, same_source).returning(_P.c.value)
    value = (await session.execute(stmt)).scalar_one_or_none()
    return 0 if value is None else int(value)


async def consume_many_in(
    session: Executor, character_ids: Collection[int], ability: str
) -> dict[int, int]:
    """:func:`consume_pending_in` for several characters (a group roll's members) in ONE
    ``DELETE ... RETURNING``: each one's active modifier for ``ability``, taken once (a
    character without one is left out). A modifier waiting on a hidden source roll stays."""
    if not character_ids:
        return {}
    shown = ledger.shown_exists(_P.c.source_roll_id)
    stmt = (
        delete(_P)
        .where(
            _P.c.character_id.in_(sorted(character_ids)),
            _P.c.ability == ability,
            or_(_P.c.source_roll_id.is_(None), shown),
        )
        .returning(_P.c.character_id, _P.c.value)
    )
    return {int(row[0]): int(row[1]) for row in await session.execute(stmt)}


async def set_many_in(
    session: Executor, ability: str, values: Collection[tuple[int, int, int | None]]
) -> None:
    """:func:`set_pending_in` for several characters in ONE statement: (character id, value,
    source roll id) each, for ``ability``; nothing to set runs nothing."""
    if not values:
        return
    if any(value == 0 or not -20 <= value <= 20 for _, value, _ in values):
        raise InvalidValue("A pending modifier is a non-zero number between -20 and 20.")
    now = utcnow()
    stmt = insert_for(session, _P).values(
        [
            {
                "character_id": character_id,
                "ability": ability,
                "value": value,
                "source_roll_id": source,
                "created_at": now,
            }
            for character_id, value, source in values
        ]
    )
    await session.execute(
        stmt.on_conflict_do_update(
            index_elements=["character_id", "ability"],
            set_={
                "value": stmt.excluded.value,
                "source_roll_id": stmt.excluded.source_roll_id,
                "created_at": stmt.excluded.created_at,
            },
        )
    )


async def set_pending(
    db: Database,
    character_id: int,
    ability: str,
    value: int,
    source_roll_id: int | None = None,
) -> None:
    """Set the pending modifier for ``ability`` in its own transaction."""
    async with transaction(db) as session:
        await set_pending_in(session, character_id, ability, value, source_roll_id)


async def consume_pending(db: Database, character_id: int, ability: str) -> int:
    """Take the pending modifier for ``ability`` in its own transaction (0 if none)."""
    async with transaction(db) as session:
        return await consume_pending_in(session, character_id, ability)


async def carry_overs(db: Database, character_id: int) -> list[CarryOver]:
    """:func:`carry_overs_in` in its own transaction."""
    async with transaction(db) as session:
        return await carry_overs_in(session, character_id)


async def clear_pending(db: Database, character_id: int, ability: str | None = None) -> int:
    """The GM clears one pending modifier, or all of the character's; returns how many."""
    async with transaction(db) as session:
        stmt = delete(_P).where(_P.c.character_id == character_id)
        if ability is not None:
            stmt = stmt.where(_P.c.ability == ability)
        result = await session.execute(stmt.returning(_P.c.ability))
        return len(result.all())


async def clear_abilities(db: Database, character_id: int, abilities: Iterable[str]) -> int:
    """Clear the pending modifiers of exactly these attributes; returns how many went."""
    wanted = list(abilities)
    if not wanted:
        return 0
    async with transaction(db) as session:
        stmt = delete(_P).where(_P.c.character_id == character_id, _P.c.ability.in_(wanted))
        result = await session.execute(stmt.returning(_P.c.ability))
        return len(result.all())


def earned_by(row: ledger.RollView) -> tuple[str, int] | None:
    """The (attribute, carry-over) a recorded threshold test leaves (ruling 4), or None."""
    data = row.outcome
    if row.kind != LedgerKind.TEST or row.character_id is None or not isinstance(data, dict):
        return None
    try:
        value = threshold.ThresholdResult(data["result"]).carry_over_next
        if data.get("carry_over_rule") is False:  # the campaign's carry-over option was off
            value = 0
        attribute = str(data["attribute"])
    except (KeyError, TypeError, ValueError):
        return None
    return (attribute, value) if value else None


async def on_reveal_in(session: Executor, row: ledger.RollView) -> CarryOver | None:
    """In the reveal's transaction: store the carry-over the revealed test earned (threshold
    ruling 4).

    It becomes pending as a new critical's would (see the module docstring). A roll request's
    row stored its own when rolled (its die was public), so it is left as it is.
    """
    earned = earned_by(row)
    if earned is None or row.character_id is None:
        return None
    in_request = select(roll_request_targets.c.id).where(roll_request_targets.c.roll_id == row.id)
    if (await session.execute(in_request)).first() is not None:
        return None
    ability, value = earned
    await set_pending_in(session, row.character_id, ability, value, row.id)
    return CarryOver(ability, value, row.id, row.visibility, row.user_id, row.revealed_at)


def _ac_lost(row: ledger.RollView) -> int:
    """The AC an attack's (or an attack reroll's) critical took, as its row records it."""
    lost = row.outcome.get("ac_lost") if isinstance(row.outcome, dict) else None
    return lost if isinstance(lost, int) and lost > 0 else 0


def _counted(attack: ledger.RollView, reroll: ledger.RollView | None, unseen: int) -> int:
    """The AC loss an attack's sheet holds while the row ``unseen`` is not yet revealed: its
    reroll's once the reroll is public or revealed (a reroll replaces the roll), else the
    attack's once it is, else none."""

    def seen(row: ledger.RollView) -> bool:
        return row.id != unseen and (
            row.visibility is Visibility.PUBLIC or row.revealed_at is not None
        )

    if reroll is not None and seen(reroll):
        return _ac_lost(reroll)
    return _ac_lost(attack) if seen(attack) else 0


async def ac_loss_on_reveal_in(session: Executor, row: ledger.RollView) -> int:
    """In the reveal's transaction: store the AC a hidden critical hit took from its target
    (d20 check rule 7; bot/services/rolling/attacks.py records it in the row and stores it at
    once only
    for a public attack). Returns the change stored (0 for any other row; below 0: AC given back).

    A rerolled attack (``/reroll``, bot/services/rolling/rerolls.py) counts as its reroll once the
    reroll is seen, as its original while only that is: each reveal stores the difference it
    makes, so revealing the two in either order ends with the reroll's loss.
    """
    data = row.outcome
    if not isinstance(data, dict) or row.campaign_id is None:
        return 0
    if row.kind == LedgerKind.ATTACK:
        attack, reroll = row, None
    elif row.kind == LedgerKind.D20_REROLL and isinstance(data.get("attack"), dict):
        attack, reroll = None, row
    else:
        return 0
    target_id = data.get("target_id")
    # Rows recorded before targets owned their armour have no "sheet_changes": every named
    # target's sheet could change then.
    if not data.get("sheet_changes", True) or not isinstance(target_id, int):
        return 0
    # The other row of the pair is read under the campaign chain's lock, so two reveals of
    # an attack and its reroll at once see each other (the second waits for the first).
    await ledger.lock_campaign_chain_in(session, row.campaign_id)
    if attack is None:
        attack = await ledger.get_roll_in(session, int(data["original_id"]))
    else:
        reroll = await ledger.reroll_of_in(session, attack)
    change = _counted(attack, reroll, 0) - _counted(attack, reroll, row.id)
    if change:
        await characters.lower_ac_in(session, target_id, change)
    return change
