"""Fixtures for the service tests: a Pen & Dagger campaign and a character in it."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.db.models import RuleSystem
from bot.services.store.campaigns import CampaignView, setup_campaign
from bot.services.store.characters import CharacterView, create_character
from bot.services.trust import fairness
from tests.services.helpers import ALICE, CHANNEL, GM_ROLE, GUILD, gm_caller


@pytest.fixture
async def pd_campaign(db: Database) -> CampaignView:
    """A Pen & Dagger campaign in the test channel, its dice seed published as
    /campaign setup publishes it."""
    campaign = await setup_campaign(
        db, GUILD, CHANNEL, RuleSystem.PEN_AND_DAGGER, gm_role_ids=[GM_ROLE]
    )
    await fairness.show(db, gm_caller(), campaign)
    return campaign


@pytest.fixture
async def hero(db: Database, pd_campaign: CampaignView) -> CharacterView:
    """Alice's first character in the Pen & Dagger campaign."""
    return await create_character(db, pd_campaign.id, ALICE, "Jade")
