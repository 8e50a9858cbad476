"""Characters: unique names, one active per user, per-system scores and proficiencies."""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.rules.systems.commands import NotInSystem
from bot.services.kit.context import Caller
from bot.services.kit.errors import AlreadyExists, InvalidValue, NotAllowed, NotFound
from bot.services.store import characters as svc
from bot.services.store.campaigns import CampaignView, setup_campaign, update_settings
from bot.services.store.characters import CharacterView, Proficiency
from bot.services.store.ledger import NewRoll, latest_rolls, record
from bot.words import LedgerKind
from tests.services.helpers import ALICE, BOB, CHANNEL, GUILD, gm_caller, origin


async def test_first_character_becomes_active(db: Database, pd_campaign: CampaignView) -> None:
    first = await svc.create_character(db, pd_campaign.id, ALICE, "  Jade   Fox ")
    second = await svc.create_character(db, pd_campaign.id, ALICE, "Andromedas")
    assert first.name == "Jade Fox" and first.is_active
    assert not second.is_active
    assert (await svc.active_character(db, pd_campaign.id, ALICE)).id == first.id
    assert first.fortune == 0 and first.fortune_max == 2 and first.level == 1


async def test_name_unique_per_campaign_case_insensitive(
    db: Database, pd_campaign: CampaignView, hero: CharacterView
) -> None:
    with pytest.raises(AlreadyExists, match="already has a character named “JADE”"):
        await svc.create_character(db, pd_campaign.id, BOB, "JADE")
    other = await setup_campaign(db, GUILD, CHANNEL + 1, "pen-and-dagger")
    await svc.create_character(db, other.id, BOB, "Jade")  # another campaign: fine


async def test_use_switches_the_single_active_character(
    db: Database, pd_campaign: CampaignView, hero: CharacterView
) -> None:
    second = await svc.create_character(db, pd_campaign.id, ALICE, "Moss")
    await svc.create_character(db, pd_campaign.id, BOB, "Rook")
    used = await svc.use_character(db, pd_campaign.id, ALICE, "moss")
    assert used.id == second.id and used.is_active
    mine = await svc.list_user_characters(db, pd_campaign.id, ALICE)
    assert [c.is_active for c in mine] == [False, True]
    assert (await svc.active_character(db, pd_campaign.id, BOB)).name == "Rook"
    with pytest.raises(NotAllowed, match="Rook belongs to another player"):
        await svc.use_character(db, pd_campaign.id, ALICE, "Rook")


async def test_lookup_messages(db: Database, pd_campaign: CampaignView) -> None:
    with pytest.raises(NotFound, match="create one with /character create"):
        await svc.active_character(db, pd_campaign.id, ALICE)
    with pytest.raises(NotFound, match="No character named “Nobody” in this campaign"):
        await svc.get_character(db, pd_campaign.id, "Nobody")
    with pytest.raises(InvalidValue, match="needs a name"):
        await svc.create_character(db, pd_campaign.id, ALICE, "   ")
    with pytest.raises(InvalidValue, match="at most 64"):
        await svc.create_character(db, pd_campaign.id, ALICE, "x" * 65)


async def test_pen_and_dagger_scores_and_ranks(db: Database, hero: CharacterView) -> None:
    view = await svc.set_score(db, hero.id, "str", 17)
    view = await svc.set_score(db, hero.id, "STR", 18)
    assert view.scores == {"STR": 18}
    with pytest.raises(InvalidValue, match="STR score must be between 1 and 100"):
        await svc.set_score(db, hero.id, "STR", 0)
    with pytest.raises(InvalidValue, match="Unknown ability “Luck”"):
        await svc.set_score(db, hero.id, "Luck", 10)
    view = await svc.set_proficiency(db, hero.id, "Lock picking", rank="adept")
    view = await svc.set_proficiency(db, hero.id, "lock  PICKING", rank="Master")
    assert view.proficiency("LOCK PICKING") == Proficiency("lock PICKING", rank="Master")
    with pytest.raises(InvalidValue, match="Choose a rank"):
        await svc.set_proficiency(db, hero.id, "Stealth", degree=1)
    view = await svc.remove_proficiency(db, hero.id, "lock picking")
    assert view.proficiencies == {}
    with pytest.raises(NotFound):
        await svc.remove_proficiency(db, hero.id, "lock picking")


async def test_d20_check_character(db: Database) -> None:
    campaign = await setup_campaign(db, GUILD, CHANNEL, "d20-check")
    await update_settings(db, campaign.id, ability_names=["STR", "DEX", "Mana"])
    pc = await svc.create_character(db, campaign.id, ALICE, "Vel", level=5)
    await svc.set_score(db, pc.id, "mana", 16)
    await svc.set_proficiency(db, pc.id, "Arcana", degree=2)
    await svc.set_save_proficiency(db, pc.id, "dex")
    await svc.set_save_proficiency(db, pc.id, "STR")
    view = await svc.set_save_proficiency(db, pc.id, "str", proficient=False)
    view = await svc.set_level(db, pc.id, 9)
    assert view.scores == {"Mana": 16}
    assert view.proficiency("arcana") == Proficiency("Arcana", degree=2)
    assert view.save_proficiencies == frozenset({"DEX"})
    assert view.level == 9
    with pytest.raises(InvalidValue, match="between 1 and 20"):
        await svc.set_level(db, pc.id, 21)
    with pytest.raises(InvalidValue, match="Choose a degree"):
        await svc.set_proficiency(db, pc.id, "Arcana", degree=3)
    with pytest.raises(InvalidValue, match="between 1 and 30"):
        await svc.set_score(db, pc.id, "STR", 31)


async def test_threshold_modifiers_and_roll_under_scores(db: Database) -> None:
    threshold = await setup_campaign(db, GUILD, CHANNEL, "threshold")
    pc = await svc.create_character(db, threshold.id, ALICE, "Ash")
    assert (await svc.set_score(db, pc.id, "DEX", -3)).scores == {"DEX": -3}
    with pytest.raises(InvalidValue, match="no proficiencies"):
        await svc.set_proficiency(db, pc.id, "Stealth", rank="Adept")
    with pytest.raises(NotInSystem, match="campaign plays Threshold, which has no saving-throw"):
        await svc.set_save_proficiency(db, pc.id, "DEX")
    under = await setup_campaign(db, GUILD, CHANNEL + 1, "roll-under")
    pc2 = await svc.create_character(db, under.id, ALICE, "Bo")
    assert (await svc.set_score(db, pc2.id, "wit", 19)).scores == {"WIT": 19}
    with pytest.raises(InvalidValue, match="between 1 and 19"):
        await svc.set_score(db, pc2.id, "AGI", 20)


async def test_boon_raises_maximum_and_losing_it_caps(
    db: Database, pd_campaign: CampaignView, hero: CharacterView
) -> None:
    from bot.services.rolling.fortune_table import set_boon
    from bot.services.store.fortune import give_fortune

    given = await set_boon(db, gm_caller(), "Jade", True)
    assert (given.maximum, given.lost) == (4, 0)
    assert (await svc.get_character_by_id(db, hero.id)).fortune_max == 4
    await give_fortune(db, hero.id, origin(), amount=4)
    with pytest.raises(NotAllowed):  # a player cannot give themselves the boon back
        await set_boon(db, Caller(user_id=ALICE, channel_id=CHANNEL, guild_id=GUILD), "Jade", False)
    taken = await set_boon(db, gm_caller(), "Jade", False)
    assert (taken.fortune, taken.maximum, taken.lost) == (2, 2, 2)
    view = await svc.get_character_by_id(db, hero.id)
    assert (view.fortune, view.fortune_max, view.double_fortune) == (2, 2, False)
    # The GM's change is in the ledger, with the dice it cost.
    audit = [
        r.outcome for r in await latest_rolls(db, pd_campaign.id) if r.kind == LedgerKind.FORTUNE
    ]
    assert [
        (o["action"], o["change"]) for o in audit if o.get("action", "").startswith("boon")
    ] == [
        ("boon-off", -2),
        ("boon-on", 0),
    ]


async def test_boon_default_from_campaign(db: Database, pd_campaign: CampaignView) -> None:
    await update_settings(db, pd_campaign.id, fortune_boon_default=True)
    pc = await svc.create_character(db, pd_campaign.id, ALICE, "Lucky")
    assert pc.double_fortune and pc.fortune_max == 4


async def test_party(db: Database, pd_campaign: CampaignView, hero: CharacterView) -> None:
    rook = await svc.create_character(db, pd_campaign.id, BOB, "Rook")
    await svc.party_add(db, rook.id)
    await svc.party_add(db, hero.id)
    assert [c.name for c in await svc.party_list(db, pd_campaign.id)] == ["Jade", "Rook"]
    await svc.party_remove(db, rook.id)
    assert [c.name for c in await svc.party_list(db, pd_campaign.id)] == ["Jade"]
    assert len(await svc.list_characters(db, pd_campaign.id)) == 2


async def test_delete_keeps_rolls_and_promotes_another(
    db: Database, pd_campaign: CampaignView, hero: CharacterView
) -> None:
    moss = await svc.create_character(db, pd_campaign.id, ALICE, "Moss")
    await svc.set_score(db, hero.id, "STR", 12)
    await record(
        db,
        NewRoll(
            origin=origin(),
            kind=LedgerKind.ATTEMPT,
            request="/attempt STR",
            dice=[17],
            outcome={"level": "Major"},
            campaign_id=pd_campaign.id,
            character_id=hero.id,
            character_name=hero.name,
        ),
    )
    await svc.delete_character(db, hero.id)
    assert (await svc.active_character(db, pd_campaign.id, ALICE)).id == moss.id
    (row,) = await latest_rolls(db, pd_campaign.id)
    assert row.character_id is None and row.character_name == "Jade" and row.dice == [17]
    with pytest.raises(NotFound):
        await svc.delete_character(db, hero.id)


async def test_a_character_read_in_place_is_the_one_an_orm_session_reads(
    db: Database, pd_campaign: CampaignView, hero: CharacterView
) -> None:
    """A check reads its character as the driver gives it (SQLite, a Core connection) and
    converts the character's own columns itself: the same view, timestamp and flags included,
    as SQLAlchemy's converted rows give; the place's campaign comes with it."""
    await svc.set_score(db, hero.id, "DEX", 12)
    await svc.set_proficiency(db, hero.id, "Stealth", rank="Adept")
    await svc.party_add(db, hero.id)
    async with db.sessionmaker() as session:
        through_orm = await svc.load_character_in(session, hero.id)
    async with db.engine.connect() as connection:
        in_place = await svc.load_character_in(connection, hero.id)
        place = {"guild": GUILD, "channel": CHANNEL, "parent": CHANNEL}
        campaign, active = await svc.placed_character_in(connection, place, ALICE)
        _, party = await svc.placed_party_in(connection, place)
    assert in_place == through_orm == active and party == [through_orm]
    assert in_place.created_at.tzinfo is not None and in_place.in_party is True
    assert in_place.scores == {"DEX": 12} and in_place.proficiency("stealth") is not None
    assert campaign == pd_campaign
