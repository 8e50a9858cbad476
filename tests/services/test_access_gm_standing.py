"""GM standing in the services (docs/secret-rolls.md): known GMs are candidates, never authority;
the GM channel's audience check; @everyone is never a GM role; import forgets the known GMs."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NotAllowed
from bot.services.store import campaigns
from bot.services.store.campaigns import MAX_KNOWN_GMS, CampaignView
from bot.services.table import sheets
from bot.services.trust import access
from bot.services.trust.export import export_campaigns, import_campaigns
from bot.services.trust.secrecy import GmTargets
from tests.services.helpers import ALICE, BOB, CHANNEL, GM_ROLE, GM_USER, GUILD, gm_caller

PLAYERS = 3_000_000_000_000_002
MOD = 4_000_000_000_000_077
GM_CHANNEL = 2_000_000_000_000_099


def player(user_id: int = ALICE) -> Caller:
    return Caller(user_id=user_id, channel_id=CHANNEL, guild_id=GUILD)


async def known(db: Database, campaign: CampaignView) -> tuple[int, ...]:
    return (await campaigns.get_campaign(db, campaign.id)).gm_user_ids


async def test_known_gms_are_added_once_capped_and_forgotten(
    db: Database, pd_campaign: CampaignView
) -> None:
    await campaigns.remember_gm(db, pd_campaign.id, GM_USER)
    await campaigns.remember_gm(db, pd_campaign.id, GM_USER)
    assert await known(db, pd_campaign) == (GM_USER,)
    for n in range(MAX_KNOWN_GMS + 3):
        await campaigns.remember_gm(db, pd_campaign.id, MOD + n)
    assert len(await known(db, pd_campaign)) == MAX_KNOWN_GMS
    await campaigns.forget_gms(db, pd_campaign.id, [GM_USER, MOD])
    left = await known(db, pd_campaign)
    assert GM_USER not in left and MOD not in left and len(left) == MAX_KNOWN_GMS - 2


async def test_a_gm_using_a_campaign_becomes_known_a_player_does_not(
    db: Database, pd_campaign: CampaignView
) -> None:
    await access.campaign_here(db, player())
    assert await known(db, pd_campaign) == ()
    await access.campaign_here(db, gm_caller())
    mod = Caller(user_id=MOD, channel_id=CHANNEL, guild_id=GUILD, manage_guild=True)
    await sheets.list_characters(db, mod)
    assert await known(db, pd_campaign) == (GM_USER, MOD)


async def test_gm_targets_admit_only_who_is_a_gm_now(
    db: Database, pd_campaign: CampaignView
) -> None:
    await campaigns.remember_gm(db, pd_campaign.id, BOB)
    targets = GmTargets.of(await campaigns.get_campaign(db, pd_campaign.id))
    assert targets.candidate_ids == (BOB,) and targets.guild_id == GUILD
    assert targets.campaign_id == pd_campaign.id
    # Known, but whether Bob gets a copy depends only on what he holds when it is sent.
    assert not targets.admits(frozenset(), False)
    assert not targets.admits(frozenset({PLAYERS}), False)
    assert targets.admits(frozenset({GM_ROLE}), False)
    assert targets.admits(frozenset(), True)


async def test_everyone_is_never_a_gm_role(db: Database) -> None:
    with pytest.raises(InvalidValue, match="@everyone cannot be a GM role"):
        await campaigns.setup_campaign(db, GUILD, CHANNEL, "d20-check", gm_role_ids=[GUILD])
    campaign = await campaigns.setup_campaign(
        db, GUILD, CHANNEL, "d20-check", gm_role_ids=[GM_ROLE]
    )
    with pytest.raises(InvalidValue, match="@everyone cannot be a GM role"):
        await sheets.set_gm_role(db, gm_caller(), GUILD, add=True)
    assert (await campaigns.get_campaign(db, campaign.id)).gm_role_ids == (GM_ROLE,)


def audience(
    *role_ids: int, members: tuple[sheets.ChannelMember, ...] = ()
) -> sheets.ChannelAudience:
    return sheets.ChannelAudience(frozenset(role_ids), members)


@pytest.mark.parametrize(
    ("seen", "named"),
    [
        (audience(GUILD, GM_ROLE), "@everyone"),
        (audience(GM_ROLE, PLAYERS), f"<@&{PLAYERS}>"),
        (audience(GM_ROLE, members=(sheets.ChannelMember(ALICE),)), f"<@{ALICE}>"),
        (
            audience(GM_ROLE, members=(sheets.ChannelMember(BOB, frozenset({PLAYERS})),)),
            f"<@{BOB}>",
        ),
    ],
)
async def test_a_gm_channel_non_gms_can_read_is_refused_unless_forced(
    db: Database, pd_campaign: CampaignView, seen: sheets.ChannelAudience, named: str
) -> None:
    with pytest.raises(InvalidValue, match="Not set") as refused:
        await sheets.set_gm_channel(db, gm_caller(), GM_CHANNEL, seen)
    assert named in str(refused.value) and "force:True" in str(refused.value)
    assert (await campaigns.get_campaign(db, pd_campaign.id)).gm_channel_id is None
    forced = await sheets.set_gm_channel(db, gm_caller(), GM_CHANNEL, seen, force=True)
    assert forced.campaign.gm_channel_id == GM_CHANNEL
    warning = forced.warning()
    assert warning is not None and warning.startswith("Warning:") and named in warning


async def test_a_gm_channel_only_gms_can_read_is_accepted(
    db: Database, pd_campaign: CampaignView
) -> None:
    only_gms = audience(
        GM_ROLE,
        members=(
            sheets.ChannelMember(GM_USER, frozenset({GM_ROLE})),
            sheets.ChannelMember(MOD, frozenset(), manage_guild=True),
        ),
    )
    done = await sheets.set_gm_channel(db, gm_caller(), GM_CHANNEL, only_gms)
    assert done.campaign.gm_channel_id == GM_CHANNEL and done.warning() is None
    with pytest.raises(NotAllowed):  # players change nothing, forced or not
        await sheets.set_gm_channel(db, player(), None, None, force=True)
    unset = await sheets.set_gm_channel(db, gm_caller(), None, None)
    assert unset.campaign.gm_channel_id is None


async def test_import_forgets_the_known_gms(db: Database, pd_campaign: CampaignView) -> None:
    await campaigns.remember_gm(db, pd_campaign.id, GM_USER)
    exported = await export_campaigns(db, campaign_id=pd_campaign.id)
    await campaigns.delete_campaign(db, pd_campaign.id)
    [same_place] = await import_campaigns(db, exported)
    assert (await campaigns.get_campaign(db, same_place.campaign_id)).gm_user_ids == ()
    elsewhere = GUILD + 1
    [moved] = await import_campaigns(db, exported, guild_id=elsewhere, channel_id=CHANNEL + 1)
    assert (await campaigns.get_campaign(db, moved.campaign_id)).gm_user_ids == ()
