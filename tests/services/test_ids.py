"""Ids are never handed out twice (migration 0006), on SQLite and PostgreSQL.

A button carries only an id (``pbp:req:<id>``, ``pbp:n20:<roll>:keep``) and a message shows
``#<id>``: once the newest rows are deleted, the next rows must not take their numbers, or an
old button acts on a new object.
"""

from __future__ import annotations

import itertools

import pytest
from sqlalchemy import func, select

from bot.db.engine import Database
from bot.db.fortune_models import fortune_choices
from bot.db.models import RuleSystem, Visibility
from bot.db.party_models import roll_request_targets
from bot.services.kit.context import Caller
from bot.services.kit.errors import NotFound
from bot.services.kit.sql import transaction
from bot.services.rolling import checks, fortune_table
from bot.services.store import ledger as ledger_svc
from bot.services.store.campaigns import delete_campaign, setup_campaign
from bot.services.store.characters import create_character, set_score
from bot.services.table import requests
from bot.services.trust import secrecy
from tests.ledger_triggers import purge_newest_rolls
from tests.scripted import ScriptedRandom
from tests.services.helpers import ALICE, BOB, CHANNEL, GM_ROLE, GUILD, origin

GM = 4_000_000_000_000_009
_interactions = itertools.count(7_000_000_000_000_000)


def _caller(user_id: int) -> Caller:
    """A caller in the test channel with a fresh interaction id (each click is one)."""
    roles = frozenset({GM_ROLE}) if user_id == GM else frozenset()
    return Caller(
        user_id=user_id,
        channel_id=CHANNEL,
        guild_id=GUILD,
        role_ids=roles,
        interaction_id=next(_interactions),
    )


async def _d20_table(db: Database) -> tuple[int, list[int], requests.RequestView]:
    """A d20-check campaign with Ann (Alice) and Bo (Bob), and a request for both to roll."""
    campaign = await setup_campaign(db, GUILD, CHANNEL, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE])
    heroes = []
    for user, name in ((ALICE, "Ann"), (BOB, "Bo")):
        character = await create_character(db, campaign.id, user, name)
        await set_score(db, character.id, "DEX", 14)
        heroes.append(character.id)
    request = await requests.create(
        db, _caller(GM), "DEX", "/gm request roll", characters_text="Ann, Bo", dc=12
    )
    return campaign.id, heroes, request


async def _target_ids(db: Database) -> list[int]:
    async with db.sessionmaker() as session:
        return list(await session.scalars(select(roll_request_targets.c.id)))


async def test_the_old_request_button_after_the_campaign_is_recreated_acts_on_nothing(
    db: Database,
) -> None:
    old_campaign, old_heroes, old_request = await _d20_table(db)
    old_targets = await _target_ids(db)
    await delete_campaign(db, old_campaign)
    new_campaign, new_heroes, new_request = await _d20_table(db)

    # Alice clicks "Roll" on the old message: that request is gone, the new one is untouched.
    with pytest.raises(NotFound, match="no longer exists"):
        await requests.answer(
            db, ScriptedRandom(15, then=10), _caller(ALICE), old_request.id, "old button"
        )
    untouched = await requests.load(db, new_request.id)
    assert [t.answered for t in untouched.targets] == [False, False]

    assert new_campaign > old_campaign
    assert min(new_heroes) > max(old_heroes)
    assert new_request.id > old_request.id
    assert min(await _target_ids(db)) > max(old_targets)


async def test_an_old_natural_20_choice_never_lands_on_a_new_roll(db: Database) -> None:
    campaign = await setup_campaign(
        db, GUILD, CHANNEL, RuleSystem.PEN_AND_DAGGER, gm_role_ids=[GM_ROLE]
    )
    hero = await create_character(db, campaign.id, ALICE, "Jade")
    await set_score(db, hero.id, "DEX", 12)
    old = await checks.perform_check(
        db,
        ScriptedRandom(20, then=10),
        _caller(ALICE),
        checks.CheckOptions(ability="DEX"),
        "/check ability:DEX",
    )
    await delete_campaign(db, campaign.id)
    await purge_newest_rolls(db, old.roll_id)

    campaign = await setup_campaign(
        db, GUILD, CHANNEL, RuleSystem.PEN_AND_DAGGER, gm_role_ids=[GM_ROLE]
    )
    hero = await create_character(db, campaign.id, ALICE, "Jade")
    await set_score(db, hero.id, "DEX", 12)
    new = await checks.perform_check(
        db,
        ScriptedRandom(20, then=10),
        _caller(ALICE),
        checks.CheckOptions(ability="DEX"),
        "/check ability:DEX",
    )
    assert new.roll_id > old.roll_id

    # "Keep the critical" on the old message: that roll is gone; the new one keeps its choice.
    with pytest.raises(NotFound):
        await fortune_table.keep_critical(db, _caller(ALICE), old.roll_id)
    async with db.sessionmaker() as session:
        assert await session.scalar(select(func.count()).select_from(fortune_choices)) == 0
    kept = await fortune_table.keep_critical(db, _caller(ALICE), new.roll_id)
    assert kept.roll_id == new.roll_id


@pytest.mark.parametrize("visibility", [Visibility.PUBLIC, Visibility.GM])
async def test_a_roll_after_the_newest_rows_are_deleted_takes_a_new_number(
    db: Database, visibility: Visibility
) -> None:
    """Public rows take the database's id; hidden rows reserve theirs first (their commitment
    covers it): neither may give a deleted roll's number again."""

    def roll() -> ledger_svc.NewRoll:
        return ledger_svc.NewRoll(
            origin=origin(),
            kind="roll",
            request="/roll dice:1d20",
            dice=[7],
            outcome={"total": 7},
            visibility=visibility,
        )

    async def record() -> int:
        async with transaction(db) as session:
            return (await ledger_svc.record_in(session, roll())).id

    first = await record()
    second = await record()
    await purge_newest_rolls(db, first)
    again = await record()
    assert again > second
    stored = await ledger_svc.get_roll(db, again, salts=True)
    if visibility is not Visibility.PUBLIC:
        # The commitment covers the id the row really has.
        assert secrecy.commitment_of(secrecy.encoding_of_row(stored)) == stored.commitment
