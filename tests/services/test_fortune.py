"""Fortune dice: 0..2 (0..4 with the boon), atomic, recorded with purpose in the ledger."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.services.kit.errors import (
    FortuneAtMaximum,
    InvalidValue,
    NoFortuneLeft,
    NotFound,
)
from bot.services.rolling.fortune_table import set_boon
from bot.services.store import fortune as svc
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView, get_character_by_id
from bot.services.store.ledger import DuplicateInteraction, latest_rolls
from bot.words import FortunePurpose
from tests.services.helpers import gm_caller, origin


async def test_gain_to_maximum(db: Database, hero: CharacterView) -> None:
    assert (await svc.gain_fortune(db, hero.id, origin())).fortune == 1
    assert (await svc.gain_fortune(db, hero.id, origin())).fortune == 2
    with pytest.raises(FortuneAtMaximum, match="Jade already has the maximum of 2 fortune dice"):
        await svc.gain_fortune(db, hero.id, origin())
    assert (await get_character_by_id(db, hero.id)).fortune == 2


async def test_spend_records_purpose(
    db: Database, pd_campaign: CampaignView, hero: CharacterView
) -> None:
    with pytest.raises(NoFortuneLeft, match="Jade has no fortune dice left"):
        await svc.spend_fortune(db, hero.id, origin(), "hint")
    await svc.give_fortune(db, hero.id, origin(), amount=2)
    view = await svc.spend_fortune(db, hero.id, origin(), FortunePurpose.ESCAPE, note="bird")
    assert (view.fortune, view.maximum, view.changed) == (1, 2, -1)
    spend, give = await latest_rolls(db, pd_campaign.id)
    assert spend.kind == "fortune" and spend.character_id == hero.id
    assert spend.outcome == {
        "action": "spend",
        "change": -1,
        "fortune": 1,
        "purpose": "escape",
        "note": "bird",
    }
    assert give.outcome["change"] == 2
    with pytest.raises(InvalidValue, match="spent on: hint, escape, item, reroll"):
        await svc.spend_fortune(db, hero.id, origin(), "snacks")


async def test_failed_spend_records_nothing(
    db: Database, pd_campaign: CampaignView, hero: CharacterView
) -> None:
    with pytest.raises(NoFortuneLeft):
        await svc.take_fortune(db, hero.id, origin())
    assert await latest_rolls(db, pd_campaign.id) == []


async def test_retried_interaction_does_not_spend_twice(db: Database, hero: CharacterView) -> None:
    await svc.give_fortune(db, hero.id, origin(), amount=2)
    same = origin()
    await svc.spend_fortune(db, hero.id, same, "hint")
    with pytest.raises(DuplicateInteraction):
        await svc.spend_fortune(db, hero.id, same, "hint")
    assert (await get_character_by_id(db, hero.id)).fortune == 1


async def test_boon_allows_four(db: Database, hero: CharacterView) -> None:
    await set_boon(db, gm_caller(), hero.name, True)
    assert (await svc.give_fortune(db, hero.id, origin(), amount=4)).fortune == 4
    with pytest.raises(FortuneAtMaximum, match="maximum of 4"):
        await svc.give_fortune(db, hero.id, origin())
    assert (await svc.take_fortune(db, hero.id, origin(), amount=3)).fortune == 1


async def test_gain_in_not_strict_at_maximum(db: Database, hero: CharacterView) -> None:
    await svc.give_fortune(db, hero.id, origin(), amount=2)
    async with db.sessionmaker.begin() as session:
        view = await svc.gain_fortune_in(session, hero.id, strict=False)
    assert (view.fortune, view.changed) == (2, 0)


async def test_missing_character(db: Database) -> None:
    with pytest.raises(NotFound):
        await svc.gain_fortune(db, 12345, origin())
    with pytest.raises(InvalidValue):
        await svc.give_fortune(db, 12345, origin(), amount=0)
