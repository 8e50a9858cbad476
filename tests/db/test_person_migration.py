"""Migration 0018_person fills ``ledger_names`` for the rows recorded before it: the same
records the bot now writes with each roll (docs/privacy.md, "Erasing your data")."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import select

from bot.db.engine import create_database
from bot.db.migrate import downgrade_to, upgrade_to_head
from bot.db.models import RuleSystem, ledger_names
from bot.services.kit.context import Caller
from bot.services.rolling import attacks, checks, generation, groups
from bot.services.store.campaigns import setup_campaign
from bot.services.store.characters import create_character, party_add, set_score
from bot.services.table import turns

GUILD, CHANNEL, GM_ROLE = 11, 22, 33
ALICE, BOB, GM = 101, 102, 109
_ids = itertools.count(1)


def caller(user_id: int, channel: int = CHANNEL) -> Caller:
    return Caller(
        user_id=user_id,
        channel_id=channel,
        guild_id=GUILD,
        role_ids=frozenset({GM_ROLE}) if user_id == GM else frozenset(),
        interaction_id=next(_ids),
        display_name={ALICE: "Alice", BOB: "Bob", GM: "Gemma"}[user_id],
    )


async def test_rows_recorded_before_get_the_names_the_bot_now_records(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'before.sqlite3'}"
    await upgrade_to_head(url)
    db = create_database(url)
    rng = random.Random(3)
    try:
        d20 = await setup_campaign(db, GUILD, CHANNEL, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE])
        pd = await setup_campaign(
            db, GUILD, CHANNEL + 1, RuleSystem.PEN_AND_DAGGER, gm_role_ids=[GM_ROLE]
        )
        for campaign in (d20, pd):
            for user, name in ((ALICE, "Ayla"), (BOB, "Old Tom")):
                hero = await create_character(db, campaign.id, user, name)
                for ability in campaign.ability_names:
                    await set_score(db, hero.id, ability, 12 if campaign is d20 else 3)
                await party_add(db, hero.id)
        await checks.perform_gm_check(
            db, rng, caller(GM), "Ayla", checks.CheckOptions(ability="DEX"), "/gm check"
        )
        await checks.perform_check(
            db,
            rng,
            caller(ALICE),
            checks.CheckOptions(ability="DEX", helper="Old Tom"),
            '/check ability:DEX helper:"Old Tom"',
        )
        await attacks.perform_attack(
            db,
            rng,
            caller(BOB),
            attacks.AttackOptions(ac=10, damage="1d6", target="Ayla"),
            "/attack",
            visibility="public",
        )
        await groups.group_save(db, rng, caller(GM), "DEX", "/groupsave", dc=10)
        now = datetime(2026, 12, 2, tzinfo=UTC)
        await turns.start(db, rng, caller(GM), None, "initiative", None, now)
        await generation.roll_scores(
            db, rng, caller(GM, CHANNEL + 1), [(ALICE, "Alice"), (BOB, "Bob")], "/generate"
        )
        async with db.sessionmaker() as session:
            recorded = set(await session.execute(select(ledger_names)))
        assert len(recorded) >= 8
    finally:
        await db.dispose()
    # As a database from before the migration: no ledger_names at all, then the migration.
    await downgrade_to(url, "0014_prerolls")
    await upgrade_to_head(url)
    db = create_database(url)
    try:
        async with db.sessionmaker() as session:
            filled = set(await session.execute(select(ledger_names)))
    finally:
        await db.dispose()
    assert filled == recorded
