"""Migrations build the schema from empty, agree with the models, and go down and up again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, inspect, text

from bot.db.engine import create_database
from bot.db.migrate import _migrate, downgrade_to, upgrade_to_head
from bot.db.schema import metadata
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.store import campaigns
from bot.services.trust import gamelog, secrecy

ROOT = Path(__file__).resolve().parents[2]
TABLES = {table.name for table in metadata.sorted_tables}


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return list(compare_metadata(context, metadata))


def _tables(connection: Connection) -> set[str]:
    return set(inspect(connection).get_table_names())


async def test_models_and_migrations_agree(empty_url: str) -> None:
    await upgrade_to_head(empty_url)
    database = create_database(empty_url)
    try:
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_diff) == []
    finally:
        await database.dispose()


async def test_upgrade_downgrade_upgrade(empty_url: str) -> None:
    database = create_database(empty_url)
    try:
        await upgrade_to_head(database.engine)
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_tables) >= TABLES
        await downgrade_to(database.engine, "base")
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_tables) <= {"alembic_version"}
        await upgrade_to_head(database.engine)
        await upgrade_to_head(database.engine)  # nothing pending: a no-op
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_tables) >= TABLES
    finally:
        await database.dispose()


def test_alembic_command_line_upgrades_from_the_repo_root_and_logs_each_step(
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'cli.sqlite3'}"
    alembic = Path(sys.executable).with_name("alembic")
    said = []
    for args in (["upgrade", "head"], ["check"]):
        done = subprocess.run(
            [str(alembic), "-x", f"url={url}", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        said.append(done.stderr)
    # Each step is logged, as `pbp-dice migrate` logs it, not done in silence.
    steps = [line for line in said[0].splitlines() if "Running upgrade" in line]
    assert len(steps) == len(list((ROOT / "migrations" / "versions").glob("0*.py")))
    assert "Running upgrade" not in said[1]


async def test_rows_committed_before_0007_still_verify_after_it_and_after_a_deletion(
    tmp_path: Path,
) -> None:
    """0007 numbers and chains existing rows; their format 1 commitments (over the
    ledger id and campaign id) keep verifying, even once the campaign is deleted."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.sqlite3'}"
    await _migrate(url, "0005_secrecy", downgrade=False)
    salt = "ab" * 32
    request = "/check ability:WIT secret:blind"
    encoding = cm.legacy_encoding(
        roll_id=1,
        campaign_id=1,
        user_id=7,
        request=request,
        dice=[17],
        outcome={"roll": 17},
        salt=salt,
    )
    database = create_database(url)
    try:
        async with database.engine.begin() as connection:
            await connection.execute(
                text(
                    "INSERT INTO campaigns (guild_id, channel_id, system, gm_role_ids,"
                    " gm_user_ids, fortune_boon_default, crit_rules, tier_very_easy, tier_easy,"
                    " tier_moderate, tier_hard, tier_very_hard, ability_names, created_at)"
                    " VALUES (11, 22, 'roll-under', '[]', '[]', 0, 0, 3, 7, 12, 17, 20,"
                    ' \'["STR", "AGI", "WIT"]\', \'2026-01-02 03:04:05\')'
                )
            )
            await connection.execute(
                text(
                    "INSERT INTO ledger (campaign_id, guild_id, channel_id, user_id, kind,"
                    " request, dice, outcome, visibility, created_at, commitment, salt,"
                    " revealed_at) VALUES (1, 11, 22, 7, 'check', :request, '[17]',"
                    " '{\"roll\": 17}', 'blind', '2026-01-02 03:04:06', :commitment, :salt,"
                    " '2026-01-03 00:00:00')"
                ),
                {"request": request, "commitment": cm.sha256_hex(encoding), "salt": salt},
            )
        await upgrade_to_head(database.engine)
        player = Caller(user_id=8, channel_id=22, guild_id=11)
        campaign = await campaigns.campaign_for_channel(database, 11, 22)
        assert (await gamelog.check_campaign_log(database, campaign)).intact
        found = await secrecy.verify(database, player, 1)
        assert found.matches and found.access.row.format == cm.LEGACY_FORMAT
        await campaigns.delete_campaign(database, campaign.id)
        gone = await secrecy.verify(database, player, 1)
        assert gone.matches, (gone.access, gone.checked, gone.recomputed, gone.stored)
    finally:
        await database.dispose()


async def test_a_roll_whose_campaign_was_deleted_before_0007_still_verifies(
    tmp_path: Path,
) -> None:
    """The deletion nulled the campaign id the format 1 commitment bound;
    0007 finds it again from the commitment and its salt."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.sqlite3'}"
    await _migrate(url, "0005_secrecy", downgrade=False)
    salt = "cd" * 32
    request = "/check ability:WIT secret:blind"
    encoding = cm.legacy_encoding(
        roll_id=1,
        campaign_id=3,
        user_id=7,
        request=request,
        dice=[4],
        outcome={"roll": 4},
        salt=salt,
    )
    database = create_database(url)
    try:
        async with database.engine.begin() as connection:
            await connection.execute(
                text(
                    "INSERT INTO ledger (campaign_id, guild_id, channel_id, user_id, kind,"
                    " request, dice, outcome, visibility, created_at, commitment, salt,"
                    " revealed_at) VALUES (NULL, 11, 22, 7, 'check', :request, '[4]',"
                    " '{\"roll\": 4}', 'blind', '2026-01-02 03:04:06', :commitment, :salt,"
                    " '2026-01-03 00:00:00')"
                ),
                {"request": request, "commitment": cm.sha256_hex(encoding), "salt": salt},
            )
        await upgrade_to_head(database.engine)
        player = Caller(user_id=8, channel_id=22, guild_id=11)
        found = await secrecy.verify(database, player, 1)
        assert found.matches and found.access.row.legacy_campaign_id == 3
    finally:
        await database.dispose()
