"""Fortune dice at the table (Pen & Dagger rulings 5 and 6).

The choices a roll hands its roller: keep or trade a natural 20, or spend a fortune die to
reroll. Each is one transaction that claims the roll in ``fortune_choices`` (its primary key is
the roll's ledger id, so a roll is chosen on once, however many clicks arrive), changes the
fortune dice with the atomic statements of :mod:`bot.services.store.fortune`, and appends a new
ledger row: the ledger stays append-only, and the original outcome is rebuilt from its row.

A hidden roll changes nothing others can observe until it is revealed (docs/secret-rolls.md). So
no choice is made on a gm, blind or self roll while it is hidden: its trade would change the
fortune dice everyone sees, and its follow-up row would name a natural 20 in /history and take a
ledger number. Once revealed, its roller is offered the choice as for a public roll
(:func:`offer_after_reveal`, on the reveal message), and the choice is recorded in public.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import Any

from sqlalchemy import case, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.fortune_models import fortune_choices
from bot.db.models import characters
from bot.quoting import escape
from bot.rules import pen_and_dagger as pd
from bot.rules.systems import Feature, read
from bot.rules.systems.base import SYSTEM_FIELD
from bot.rules.systems.commands import require as require_rule
from bot.rules.systems.pen_and_dagger import PEN_AND_DAGGER, is_luck
from bot.services.kit import commitments as cm
from bot.services.kit import personal
from bot.services.kit.context import Caller
from bot.services.kit.errors import (
    FortuneAtMaximum,
    InvalidValue,
    NoFortuneLeft,
    NotAllowed,
    NotFound,
)
from bot.services.kit.personal import Person, PersonalData, Shown, declare
from bot.services.kit.serialize import to_jsonable
from bot.services.kit.sql import Executor, insert_for, transaction
from bot.services.store import fortune, ledger
from bot.services.store.campaigns import CampaignView, get_campaign_in
from bot.services.store.characters import CharacterView, get_character, get_character_by_id
from bot.services.store.fortune import FortuneView
from bot.services.store.ledger import NewRoll, Origin, RollView
from bot.services.trust import fairness, secrecy
from bot.services.trust.access import campaign_here, require_gm, target_character
from bot.services.trust.scope import readable_row
from bot.words import (
    BOON_FORTUNE_MAX,
    FortuneAction,
    FortunePurpose,
    LedgerKind,
    RollChoice,
    Visibility,
    fortune_maximum,
)

PdOutcome = pd.AttemptOutcome | pd.LuckOutcome

#: Ledger kinds whose rows hold a Pen & Dagger attempt or luck roll a choice can apply to.
CHOOSABLE_KINDS = (LedgerKind.ATTEMPT, LedgerKind.LUCK, LedgerKind.REROLL)
NOT_SPENT = "No fortune die was spent."

_F = fortune_choices
_C = characters


# --- rebuilding outcomes from the ledger ------------------------------------------------------


def outcome_from_record(kind: str, data: Any) -> PdOutcome | None:
    """The attempt or luck roll a ledger row stands for, or None for any other row.

    Attempt and luck rows hold the outcome itself; a reroll row holds every reroll and its
    ``final`` one, which is what counts from then on.
    """
    if not isinstance(data, dict):
        return None
    if kind == LedgerKind.REROLL:
        data = data.get("final")
        if not isinstance(data, dict):
            return None
    elif kind not in (LedgerKind.ATTEMPT, LedgerKind.LUCK):
        return None
    if data.get(SYSTEM_FIELD, PEN_AND_DAGGER.key) != PEN_AND_DAGGER.key:
        return None
    try:
        found: PdOutcome | None = PEN_AND_DAGGER.outcome_from_record(data)
    except (KeyError, TypeError, ValueError):
        return None
    return found


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChoiceResult:
    """A natural 20 kept or traded (ruling 5): the outcome that now counts."""

    roll_id: int
    new_roll_id: int
    choice: str
    character_name: str
    system: str
    outcome: PdOutcome
    fortune: int
    fortune_max: int
    #: The public numbers of the chosen roll and of the choice's row, and its chain link.
    number: int = 0
    new_number: int = 0
    chain: str = ""


@dataclass(frozen=True, slots=True)
class RerollResult:
    """A fortune die spent on a reroll (ruling 6): every reroll, the die paid."""

    roll_id: int
    new_roll_id: int
    character_name: str
    system: str
    reroll: pd.RerollOutcome[Any]
    fortune: int
    fortune_max: int
    #: The public numbers of the rerolled roll and of the reroll's row, and its chain link.
    number: int = 0
    new_number: int = 0
    chain: str = ""
    #: The seed rotation this reroll set off (its old seed revealed), to announce.
    rotation: fairness.Rotation | None = None

    @property
    def final(self) -> PdOutcome:
        """The reroll that counts."""
        final: PdOutcome = self.reroll.final
        return final


@dataclass(frozen=True, slots=True)
class FortuneStatus:
    """A character's fortune dice as the table sees them."""

    name: str
    fortune: int
    maximum: int
    boon: bool


@dataclass(frozen=True, slots=True)
class BoonResult:
    """The double-fortune boon set or removed; ``lost`` dice above the new maximum of 2."""

    name: str
    boon: bool
    fortune: int
    maximum: int
    lost: int


# --- shared steps -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Roll:
    row: RollView
    outcome: PdOutcome
    campaign: CampaignView


async def _load_roll(session: AsyncSession, caller: Caller, roll_id: int) -> _Roll:
    """The roll the caller may choose on: a Pen & Dagger attempt or luck roll of their own
    character, whoever rolled it.

    A roll the caller may not see (their own blind roll) is refused as not found before any
    check of its outcome: the refusal must not give the hidden result away. A hidden roll not yet
    revealed is refused whatever it shows (its choice waits for the reveal), so an old
    message's buttons change nothing either.
    """
    row = await ledger.get_roll_in(session, roll_id)
    # A roll where the caller cannot read does not exist for them (asked first).
    home = await get_campaign_in(session, row.campaign_id) if row.campaign_id else None
    if not await readable_row(caller, row, home):
        raise NotFound("No such roll.")  # word for word ledger.get_roll_in's
    if row.campaign_id is None or row.character_id is None:
        raise InvalidValue("Fortune dice only apply to Pen & Dagger attempts and luck rolls.")
    # The character's player chooses, whoever rolled (a GM's hidden check of their character
    # included): the fortune dice and the natural 20 are the character's (rulings 5 and 6).
    owner = (
        await session.execute(select(_C.c.user_id).where(_C.c.id == row.character_id))
    ).scalar_one_or_none()
    if owner is None or int(owner) != caller.user_id:
        who = row.character_name or "this character"
        raise NotAllowed(f"Only {who}'s player can choose what to do with this roll.")
    campaign = await get_campaign_in(session, row.campaign_id)
    if not secrecy.can_see(row, caller.user_id, secrecy.viewer_is_gm(campaign, caller)):
        raise NotFound("No such roll.")
    if row.visibility is not Visibility.PUBLIC and row.revealed_at is None:
        raise InvalidValue(
            f"Roll #{row.number} is still hidden: its fortune choice is offered when it is "
            "revealed (/reveal: by its roller for a self roll, by the GM for the others). "
            "Nothing changed."
        )
    outcome = outcome_from_record(row.kind, row.outcome)
    if outcome is None or Feature.FORTUNE not in campaign.rules.features:
        raise InvalidValue("Fortune dice only apply to Pen & Dagger attempts and luck rolls.")
    return _Roll(row, outcome, campaign)


_CHOICE_WORDS: dict[str, str] = {
    RollChoice.KEEP: "kept its natural 20 as a critical",
    RollChoice.TRADE: "traded its natural 20 for a fortune die",
    RollChoice.REROLL: "already spent a fortune die to reroll it",
}


async def _claim(session: AsyncSession, roll_id: int, choice: str, user_id: int) -> None:
    """Claim the roll for ``choice``, once: a second claim (any shard, any click) is refused."""
    stmt = (
        insert_for(session, _F)
        .values(roll_id=roll_id, choice=choice, user_id=user_id)
        .on_conflict_do_nothing(index_elements=["roll_id"])
        .returning(_F.c.roll_id)
    )
    if (await session.execute(stmt)).scalar_one_or_none() is not None:
        return
    made = (
        await session.execute(select(_F.c.choice).where(_F.c.roll_id == roll_id))
    ).scalar_one_or_none()
    raise InvalidValue(
        f"You {_CHOICE_WORDS.get(made or '', 'already chose on this roll')}: "
        "a roll's choice is made once. Nothing changed."
    )


async def _record(
    session: AsyncSession,
    caller: Caller,
    roll: _Roll,
    kind: str,
    request: str,
    dice: list[int],
    outcome: dict[str, Any],
) -> ledger.Recorded:
    # Only a public or revealed roll is chosen on (_load_roll), so the choice is
    # made in the open: a public row.
    recorded = await ledger.record_in(
        session,
        NewRoll(
            origin=Origin.of(caller),
            kind=kind,
            request=request,
            dice=dice,
            # The chosen roll: its id (internal) and the number its message printed.
            outcome={
                "original_roll_id": roll.row.id,
                "original_number": roll.row.number,
                **outcome,
            },
            visibility=Visibility.PUBLIC,
            campaign_id=roll.row.campaign_id,
            character_id=roll.row.character_id,
            character_name=roll.row.character_name,
        ),
    )
    await session.execute(
        update(_F).where(_F.c.roll_id == roll.row.id).values(result_roll_id=recorded.id)
    )
    return recorded


async def _fortune_of(session: AsyncSession, character_id: int) -> tuple[int, int]:
    row = (
        await session.execute(
            select(_C.c.fortune, _C.c.double_fortune).where(_C.c.id == character_id)
        )
    ).first()
    if row is None:
        raise NotFound("That character no longer exists.")
    return int(row.fortune), fortune_maximum(bool(row.double_fortune))


#: Why a luck roll's natural 20 cannot be traded: the text allows it only "if ... your DM rules
#: there is no additional benefit for the maximum level of luckiness", and this GM ruled there
#: is (``/campaign set luck-trade on:false``). An attempt's 20 is always the player's to trade.
NO_LUCK_TRADE = (
    "This campaign's GM rules that a natural 20 on a luck roll has its own benefit "
    "(/campaign set luck-trade), so it is not traded for a fortune die; the natural 20 stays "
    "as rolled. Nothing changed."
)


def _natural_20(outcome: PdOutcome) -> None:
    if not outcome.natural_20 or outcome.traded:
        raise InvalidValue("Only a natural 20 that was not traded offers this choice.")


# --- natural 20: keep or trade (ruling 5) -----------------------------------------------------


async def keep_critical(db: Database, caller: Caller, roll_id: int) -> ChoiceResult:
    """Keep a natural 20 as it is (the default, made explicit); recorded as a ``keep`` row."""
    async with transaction(db) as session:
        roll = await _load_roll(session, caller, roll_id)
        _natural_20(roll.outcome)
        await _claim(session, roll_id, RollChoice.KEEP, caller.user_id)
        kept = dataclasses.replace(roll.outcome, trade_available=False)
        new_row = await _record(
            session,
            caller,
            roll,
            LedgerKind.KEEP,
            f"keep the natural 20 of roll #{roll.row.number}",
            [],
            {"choice": RollChoice.KEEP},
        )
        assert roll.row.character_id is not None
        amount, maximum = await _fortune_of(session, roll.row.character_id)
    return ChoiceResult(
        roll_id,
        new_row.id,
        RollChoice.KEEP,
        roll.row.character_name or "",
        roll.campaign.system,
        kept,
        amount,
        maximum,
        roll.row.number,
        new_row.number,
        new_row.chain,
    )


async def trade_critical(db: Database, caller: Caller, roll_id: int) -> ChoiceResult:
    """Trade a natural 20 for a Normal success (luck: a 10, lucky) and one fortune die.

    Ruling 5: only "if below their maximum", checked at the moment of the trade by the atomic
    gain; at the maximum nothing changes and the roll keeps its critical.
    """
    async with transaction(db) as session:
        roll = await _load_roll(session, caller, roll_id)
        _natural_20(roll.outcome)
        if not roll.campaign.luck_trade and is_luck(roll.outcome):
            raise InvalidValue(NO_LUCK_TRADE)
        await _claim(session, roll_id, RollChoice.TRADE, caller.user_id)
        assert roll.row.character_id is not None
        try:
            gained = await fortune.gain_fortune_in(session, roll.row.character_id)
        except FortuneAtMaximum as exc:
            raise InvalidValue(f"{exc} The natural 20 stays a critical; nothing changed.") from None
        traded = dataclasses.replace(roll.outcome, trade_available=True).take_trade()
        new_row = await _record(
            session,
            caller,
            roll,
            LedgerKind.TRADE,
            f"trade the natural 20 of roll #{roll.row.number} for a fortune die",
            [],
            {"choice": RollChoice.TRADE, "outcome": to_jsonable(traded), "fortune": gained.fortune},
        )
    return ChoiceResult(
        roll_id,
        new_row.id,
        RollChoice.TRADE,
        gained.name,
        roll.campaign.system,
        traded,
        gained.fortune,
        gained.maximum,
        roll.row.number,
        new_row.number,
        new_row.chain,
    )


# --- fortune-die reroll (ruling 6) ------------------------------------------------------------


def reroll_refusal(outcome: PdOutcome) -> str | None:
    """Why a fortune die cannot reroll ``outcome`` (ruling 6), or None when it can."""
    allowed, reason = pd.can_reroll(outcome)
    if allowed:
        return None
    reason = reason or "That roll cannot be rerolled."
    return reason if NOT_SPENT in reason else f"{reason} {NOT_SPENT}"


async def reroll_roll(
    db: Database, rng: random.Random, caller: Caller, roll_id: int
) -> RerollResult:
    """Spend one fortune die to reroll ``roll_id`` until better, in one transaction.

    The claim on the roll, the atomic spend (``fortune >= 1``) and the reroll's ledger row
    commit together or not at all: two clicks on one message reroll once, clicks on two
    messages spend at most the dice the character holds, never going below zero. A refused
    reroll (natural 1; already the best reachable level) spends nothing.
    """
    async with transaction(db) as session:
        roll = await _load_roll(session, caller, roll_id)
        return await _reroll_in(session, rng, caller, roll)


async def _reroll_in(
    session: AsyncSession, rng: random.Random, caller: Caller, roll: _Roll
) -> RerollResult:
    refusal = reroll_refusal(roll.outcome)
    if refusal is not None:
        raise InvalidValue(refusal)
    draw = None
    if fairness.chosen_source(rng):
        # Provably fair d20s (docs/fair-dice.md), every reroll's in order, in a public row
        # (a choice is made in the open). Drawn first: the seed's lock before the claim, the
        # character's row and the ledger chain's, the order every roll takes them.
        draw = await fairness.draw_in(session, caller, roll.row.campaign_id, Visibility.PUBLIC)
        rng = draw.rng
    await _claim(session, roll.row.id, RollChoice.REROLL, caller.user_id)
    assert roll.row.character_id is not None
    try:
        paid = await fortune.spend_fortune_in(session, roll.row.character_id)
    except NoFortuneLeft as exc:
        raise NoFortuneLeft(roll.row.character_name) from exc
    result = pd.reroll(roll.outcome, rng, fortune=paid.fortune, fortune_max=paid.maximum)
    dice: list[int] = []
    for again in result.rerolls:
        dice.extend(read(again).dice)
    stored: dict[str, Any] = {
        "purpose": FortunePurpose.REROLL.value,
        "rerolls": [to_jsonable(r) for r in result.rerolls],
        "final": to_jsonable(result.final),
        "fortune": paid.fortune,
    }
    if draw is not None:
        stored["fair"] = draw.record(fairness.D20_DRAWS)
    new_row = await _record(
        session,
        caller,
        roll,
        LedgerKind.REROLL,
        f"spend a fortune die to reroll roll #{roll.row.number}",
        dice,
        stored,
    )
    return RerollResult(
        roll.row.id,
        new_row.id,
        paid.name,
        roll.campaign.system,
        result,
        paid.fortune,
        paid.maximum,
        roll.row.number,
        new_row.number,
        new_row.chain,
        draw.rotation if draw is not None else None,
    )


async def reroll_latest(db: Database, rng: random.Random, caller: Caller) -> RerollResult:
    """``/fortune spend purpose:reroll``: reroll the caller's latest public roll for their
    active character (not the GM's /gm check for it, which only the GM could choose on)."""
    campaign, character = await target_character(db, caller, None, "spend its fortune dice")
    _require_pen_and_dagger(campaign)
    async with transaction(db) as session:
        latest = await ledger.latest_rolls_in(
            session,
            campaign.id,
            limit=1,
            character_id=character.id,
            user_id=caller.user_id,
            kinds=CHOOSABLE_KINDS,
            visibilities=[Visibility.PUBLIC],
        )
        if not latest:
            raise NotFound(
                f"You have no public attempt or luck roll for {escape(character.name)} to reroll "
                f"yet. {NOT_SPENT}"
            )
        roll = await _load_roll(session, caller, latest[0].id)
        return await _reroll_in(session, rng, caller, roll)


# --- /fortune show | spend | give | take, /character boon -------------------------------------


def _require_pen_and_dagger(campaign: CampaignView) -> None:
    require_rule(campaign.rules, "fortune")


async def show(db: Database, caller: Caller, name: str | None = None) -> FortuneStatus:
    """A character's fortune dice: anyone at the table may look, as on a paper sheet."""
    campaign = await campaign_here(db, caller)
    _require_pen_and_dagger(campaign)
    if name is None:
        _, character = await target_character(db, caller, None, "see it")
    else:
        character = await get_character(db, campaign.id, name)
    return FortuneStatus(
        character.name, character.fortune, character.fortune_max, character.double_fortune
    )


async def spend(db: Database, caller: Caller, purpose: str, note: str | None = None) -> FortuneView:
    """Spend one of the caller's active character's dice on a hint, an escape or an item."""
    if purpose == FortunePurpose.REROLL:
        raise InvalidValue("Use reroll_latest for a reroll.")  # the cog routes rerolls there
    campaign, character = await target_character(db, caller, None, "spend its fortune dice")
    _require_pen_and_dagger(campaign)
    note = " ".join(note.split()) if note else None
    return await fortune.spend_fortune(db, character.id, Origin.of(caller), purpose, note=note)


async def give(db: Database, caller: Caller, name: str, count: int = 1) -> FortuneView:
    """GM: give ``count`` dice, refused (changing nothing) past the character's maximum."""
    _, character = await _gm_target(db, caller, name, "give fortune dice")
    try:
        return await fortune.give_fortune(db, character.id, Origin.of(caller), count)
    except FortuneAtMaximum:
        now = await get_character_by_id(db, character.id)
        boon = (
            ""
            if now.double_fortune
            else f" ({BOON_FORTUNE_MAX} with the double-fortune boon: /character boon)"
        )
        if now.fortune >= now.fortune_max:
            raise InvalidValue(
                f"{escape(now.name)} already has the maximum of {now.fortune_max} fortune "
                f"dice{boon}. Nothing changed."
            ) from None
        raise InvalidValue(
            f"{escape(now.name)} has {now.fortune} of {now.fortune_max} fortune dice{boon}: you "
            f"can give at most {now.fortune_max - now.fortune}. Nothing changed."
        ) from None


async def take(db: Database, caller: Caller, name: str, count: int = 1) -> FortuneView:
    """GM: take ``count`` dice away, refused (changing nothing) below zero."""
    _, character = await _gm_target(db, caller, name, "take fortune dice")
    try:
        return await fortune.take_fortune(db, character.id, Origin.of(caller), count)
    except NoFortuneLeft:
        now = await get_character_by_id(db, character.id)
        if now.fortune == 0:
            raise InvalidValue(
                f"{escape(now.name)} has no fortune dice to take. Nothing changed."
            ) from None
        raise InvalidValue(
            f"{escape(now.name)} has only {now.fortune} fortune "
            f"{'die' if now.fortune == 1 else 'dice'}: you can take at most {now.fortune}. "
            "Nothing changed."
        ) from None


async def _gm_target(
    db: Database, caller: Caller, name: str, action: str
) -> tuple[CampaignView, CharacterView]:
    campaign = await campaign_here(db, caller)
    require_gm(campaign, caller, action)
    _require_pen_and_dagger(campaign)
    return campaign, await get_character(db, campaign.id, name)


async def set_boon(db: Database, caller: Caller, name: str, on: bool) -> BoonResult:
    """GM: give or remove the "double fortune dice" boon (ruling 6: maximum 4 instead of 2).

    Removing it caps the dice at 2 in the same statement; any die lost is recorded.
    """
    _, character = await _gm_target(db, caller, name, "change the fortune-dice boon")
    async with transaction(db) as session:
        before = (
            await session.execute(
                select(_C.c.fortune).where(_C.c.id == character.id).with_for_update()
            )
        ).scalar_one_or_none()
        if before is None:
            raise NotFound("That character no longer exists.")
        cap = fortune_maximum(on)
        row = (
            await session.execute(
                update(_C)
                .where(_C.c.id == character.id)
                .values(
                    double_fortune=on,
                    fortune=_C.c.fortune if on else _cap(cap),
                )
                .returning(_C.c.fortune)
            )
        ).one()
        after = int(row.fortune)
        await ledger.record_in(
            session,
            NewRoll(
                origin=Origin.of(caller),
                kind=LedgerKind.FORTUNE,
                request=f"fortune boon {'on' if on else 'off'}",
                dice=[],
                outcome={
                    "action": FortuneAction.BOON_ON if on else FortuneAction.BOON_OFF,
                    "change": after - int(before),
                    "fortune": after,
                },
                campaign_id=character.campaign_id,
                character_id=character.id,
                character_name=character.name,
            ),
        )
    return BoonResult(character.name, on, after, cap, int(before) - after)


def _cap(cap: int) -> Any:
    return case((_C.c.fortune > cap, cap), else_=_C.c.fortune)


# --- the choice a revealed roll offers ------------------------------------------------------


async def offer_after_reveal(db: Database, row: RollView) -> tuple[PdOutcome, int] | None:
    """What a just-revealed hidden roll offers its roller, as a public roll would have: the
    outcome (a natural 20 tradeable while below the maximum *now*) and the fortune dice held
    now; None when the roll is no Pen & Dagger attempt or luck roll, or was chosen on."""
    outcome = outcome_from_record(row.kind, row.outcome)
    if outcome is None or row.character_id is None or row.revealed_at is None:
        return None
    async with transaction(db) as session:
        chosen = await session.execute(select(_F.c.roll_id).where(_F.c.roll_id == row.id))
        if chosen.first() is not None:
            return None  # chosen on while hidden, as was once allowed; a choice is made once
        try:
            amount, maximum = await _fortune_of(session, row.character_id)
        except NotFound:
            return None
        home = await get_campaign_in(session, row.campaign_id) if row.campaign_id else None
    if home is not None and not home.luck_trade and is_luck(outcome):
        return None  # the GM rules a lucky 20 has its own benefit: no luck trade to offer
    if outcome.natural_20 and not outcome.traded:
        outcome = dataclasses.replace(outcome, trade_available=amount < maximum)
    return outcome, amount


# --- what a fortune choice keeps about a person (bot/services/kit/personal.py) ------------------


async def _show_in(session: Executor, shown: Shown) -> None:
    stmt = ledger.counted_per_server(
        fortune_choices.c.roll_id,
        fortune_choices.c.user_id == shown.user_id,
        guild_id=shown.guild_id,
    )
    for guild, count in await session.execute(stmt):
        shown.server(guild)["fortune_choices"] = int(count)


async def _erase_in(session: Executor, person: Person) -> int:
    """Who chose to spend or keep a fortune die on a roll in scope."""
    stmt = update(fortune_choices).where(fortune_choices.c.user_id == person.user_id)
    if person.guild_id is not None:
        stmt = stmt.where(ledger.rolled_in(fortune_choices.c.roll_id, person.guild_id))
    return personal.changed(await session.execute(stmt.values(user_id=cm.TOMBSTONE_ID)))


PERSONAL_DATA = declare(
    PersonalData(
        "fortune choices",
        holdings=(personal.holding("fortune_choices", "user_id", "user_id"),),
        show_in=_show_in,
        erase=personal.each_in_its_transaction(_erase_in),
    )
)
