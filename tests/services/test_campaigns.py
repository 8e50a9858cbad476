"""Campaigns: one per channel, threads resolve to their parent, typed validated settings."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.db.models import RuleSystem
from bot.errors import UserError
from bot.services.kit.errors import AlreadyExists, InvalidValue, NoCampaign, NotFound
from bot.services.store import campaigns as svc
from tests.services.helpers import CHANNEL, GM_ROLE, GUILD

THREAD = 5_000_000_000_000_001


async def test_setup_and_defaults(db: Database) -> None:
    campaign = await svc.setup_campaign(
        db, GUILD, CHANNEL, "threshold", gm_role_ids=[GM_ROLE, GM_ROLE], gm_user_ids=[7, 3]
    )
    assert campaign.system is RuleSystem.THRESHOLD
    assert campaign.gm_role_ids == (GM_ROLE,)
    assert campaign.gm_user_ids == (3, 7)
    assert campaign.tiers == svc.Tiers(3, 7, 12, 17, 20)
    assert campaign.ability_names == ("STR", "DEX", "CON", "INT", "WIS", "CHA")
    assert campaign.created_at.tzinfo is not None
    assert await svc.get_campaign(db, campaign.id) == campaign


async def test_one_campaign_per_channel(db: Database) -> None:
    await svc.setup_campaign(db, GUILD, CHANNEL, "d20-check")
    with pytest.raises(AlreadyExists, match="already has a campaign"):
        await svc.setup_campaign(db, GUILD, CHANNEL, "roll-under")


async def test_thread_resolves_to_parent_channel(db: Database) -> None:
    campaign = await svc.setup_campaign(db, GUILD, CHANNEL, "roll-under")
    found = await svc.campaign_for_channel(db, GUILD, THREAD, parent_channel_id=CHANNEL)
    assert found.id == campaign.id
    assert found.ability_names == ("STR", "AGI", "WIT")
    assert (await svc.campaign_for_channel(db, GUILD, CHANNEL)).id == campaign.id


async def test_no_campaign_message(db: Database) -> None:
    with pytest.raises(NoCampaign) as caught:
        await svc.campaign_for_channel(db, GUILD, THREAD, parent_channel_id=CHANNEL)
    assert isinstance(caught.value, UserError)
    assert str(caught.value) == "No campaign in this channel: a GM can run /campaign setup."


async def test_other_guild_does_not_see_the_campaign(db: Database) -> None:
    await svc.setup_campaign(db, GUILD, CHANNEL, "roll-under")
    with pytest.raises(NoCampaign):
        await svc.campaign_for_channel(db, GUILD + 1, CHANNEL)


async def test_unknown_system_refused(db: Database) -> None:
    with pytest.raises(InvalidValue, match="Unknown rule system “gurps”"):
        await svc.setup_campaign(db, GUILD, CHANNEL, "gurps")


async def test_update_settings(db: Database) -> None:
    campaign = await svc.setup_campaign(db, GUILD, CHANNEL, "d20-check")
    changed = await svc.update_settings(
        db,
        campaign.id,
        crit_rules=True,
        gm_channel_id=42,
        ability_names=["STR", "DEX", "CON", "INT", "WIS", "CHA", "Mana"],
    )
    assert changed.crit_rules is True
    assert changed.gm_channel_id == 42
    assert changed.ability("mana") == "Mana"
    cleared = await svc.update_settings(db, campaign.id, gm_channel_id=None)
    assert cleared.gm_channel_id is None
    assert cleared.crit_rules is True


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"tier_easy": 2}, "must not decrease"),
        ({"tier_very_hard": 41}, "Thresholds are 1 to 40: the very hard threshold cannot be 41"),
        ({"ability_names": ["STR", "str"]}, "“str” appears twice in the ability names"),
        ({"ability_names": []}, "Name at least one ability"),
        ({"ability_names": [f"A{n}" for n in range(17)]}, "at most 16 abilities; that is 17"),
        ({"ability_names": ["A" * 33]}, "at most 32 characters"),
        ({"ability_names": ["Mana:max"]}, "“Mana:max” is not one"),
        ({"gm_role_ids": [0]}, "not a Discord id, so it cannot be one of the GM roles"),
        ({"gm_role_ids": list(range(1, 27))}, "at most 25 GM roles"),
        ({"secrecy_defaults": {"roll": "secret"}}, "public, gm, blind or self"),
        ({"colour": "red"}, "no setting called “colour”"),
        ({"crit_rules": None}, "Say a value for critical hits and fumbles"),
    ],
)
async def test_invalid_settings_refused(
    db: Database, changes: dict[str, object], message: str
) -> None:
    campaign = await svc.setup_campaign(db, GUILD, CHANNEL, "threshold")
    with pytest.raises(InvalidValue) as refused:
        await svc.update_settings(db, campaign.id, **changes)
    assert message in refused.value.message
    # The GM's words, never the validation library's.
    for library in ("validation", "List should", "String should", "Input should", "[type="):
        assert library not in refused.value.message
    assert await svc.get_campaign(db, campaign.id) == campaign


async def test_fixed_ability_names(db: Database) -> None:
    campaign = await svc.setup_campaign(db, GUILD, CHANNEL, "roll-under")
    with pytest.raises(InvalidValue, match="fixed"):
        await svc.update_settings(db, campaign.id, ability_names=["A", "B"])


async def test_tiers_can_be_moved_together(db: Database) -> None:
    campaign = await svc.setup_campaign(db, GUILD, CHANNEL, "threshold")
    changed = await svc.update_settings(db, campaign.id, tier_very_easy=8, tier_easy=9)
    assert changed.tiers.very_easy == 8 and changed.tiers.easy == 9


async def test_delete_campaign(db: Database) -> None:
    campaign = await svc.setup_campaign(db, GUILD, CHANNEL, "threshold")
    await svc.delete_campaign(db, campaign.id)
    with pytest.raises(NoCampaign):
        await svc.campaign_for_channel(db, GUILD, CHANNEL)
    with pytest.raises(NotFound):
        await svc.delete_campaign(db, campaign.id)
    await svc.setup_campaign(db, GUILD, CHANNEL, "threshold")
