"""A check, save or luck roll as one transaction: the caller's active character, the rules
engine's outcome and its ledger row together, a hidden one committed to, and a refusal that
records nothing.

Tests bot/services/rolling/checks.py.
"""

from __future__ import annotations

import itertools

import pytest

from bot.db.engine import Database
from bot.errors import UserError
from bot.services.kit.context import Caller
from bot.services.rolling import checks
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView
from bot.words import Visibility
from tests.scripted import ScriptedRandom
from tests.services.helpers import ALICE, BOB, CHANNEL, GUILD

_interactions = itertools.count(7_100_000_000_000_000)


def _caller(user_id: int = ALICE) -> Caller:
    return Caller(user_id, CHANNEL, GUILD, interaction_id=next(_interactions))


async def test_a_check_rolls_for_the_active_character_and_records_one_row(
    db: Database, angus: CharacterView
) -> None:
    result = await checks.perform_check(
        db, ScriptedRandom(20), _caller(), checks.CheckOptions(ability="DEX"), "/check ability:DEX"
    )
    assert result.character.name == angus.name and result.kind == "attempt"  # Pen & Dagger's check
    assert (result.number, result.visibility, result.commitment) == (1, Visibility.PUBLIC, None)
    [row] = await ledger.latest_rolls(db, result.campaign.id)
    assert (row.id, row.request, row.dice) == (result.roll_id, "/check ability:DEX", [20])


async def test_a_hidden_check_is_committed_to_and_its_row_says_so(
    db: Database, angus: CharacterView
) -> None:
    result = await checks.perform_check(
        db,
        ScriptedRandom(7),
        _caller(),
        checks.CheckOptions(ability="DEX"),
        "/check ability:DEX secret:blind",
        visibility=Visibility.BLIND,
    )
    assert result.visibility is Visibility.BLIND and result.commitment is not None
    [row] = await ledger.latest_rolls(db, result.campaign.id)
    assert (row.visibility, row.commitment, row.revealed_at) == (
        Visibility.BLIND,
        result.commitment,
        None,
    )


async def test_a_luck_roll_is_lucky_on_10_or_higher(db: Database, angus: CharacterView) -> None:
    lucky = await checks.perform_luck(db, ScriptedRandom(10), _caller(), "/luck")
    unlucky = await checks.perform_luck(db, ScriptedRandom(9), _caller(), "/luck")
    assert (lucky.kind, lucky.outcome.lucky, unlucky.outcome.lucky) == ("luck", True, False)  # type: ignore[union-attr]


async def test_without_an_active_character_nothing_is_rolled_or_recorded(
    db: Database, pd_campaign: CampaignView
) -> None:
    rng = ScriptedRandom()  # strict: any die rolled fails the test
    with pytest.raises(UserError, match="no active character"):
        await checks.perform_check(
            db, rng, _caller(BOB), checks.CheckOptions(ability="DEX"), "/check"
        )
    assert await ledger.latest_rolls(db, pd_campaign.id) == []


async def test_a_save_in_a_system_without_saves_is_refused_naming_the_ones_with_them(
    db: Database, angus: CharacterView, pd_campaign: CampaignView
) -> None:
    with pytest.raises(UserError, match=r"has no saving throws \(Roll-under and d20 check only\)"):
        await checks.perform_save(
            db, ScriptedRandom(), _caller(), checks.CheckOptions(ability="DEX"), "/save"
        )
    assert await ledger.latest_rolls(db, pd_campaign.id) == []
