"""`python -m bot` as an operator runs it: migrate, no token, export/import, erase-user.

Tests bot/ops/cli.py.
"""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _env(**values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "DATABASE_"))}
    env["PYTHONPATH"] = str(ROOT)
    env.update(values)
    return env


def run_bot(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # cwd is a fresh folder: no .env of the checkout is read.
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=tmp_path,
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_migrate_applies_migrations_without_starting_the_bot(tmp_path: Path) -> None:
    path = tmp_path / "fresh.sqlite3"
    done = run_bot(tmp_path, "migrate", DATABASE_URL=f"sqlite+aiosqlite:///{path}")
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"campaigns", "characters", "ledger", "alembic_version"} <= tables
    assert "logged in" not in done.stderr.lower()


def test_without_a_token_it_exits_at_once_with_one_clear_line(tmp_path: Path) -> None:
    path = tmp_path / "unused.sqlite3"
    done = run_bot(tmp_path, DATABASE_URL=f"sqlite+aiosqlite:///{path}")
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1
    assert "DISCORD_TOKEN" in lines[0]
    assert "Traceback" not in done.stderr
    assert not path.exists()  # nothing was started, not even the database


def test_export_then_import_into_another_database(tmp_path: Path) -> None:
    source = f"sqlite+aiosqlite:///{tmp_path / 'a.sqlite3'}"
    target = f"sqlite+aiosqlite:///{tmp_path / 'b.sqlite3'}"
    for url in (source, target):
        assert run_bot(tmp_path, "migrate", DATABASE_URL=url).returncode == 0
    with sqlite3.connect(tmp_path / "a.sqlite3") as conn:
        conn.execute(
            "INSERT INTO campaigns (guild_id, channel_id, system, gm_role_ids, gm_user_ids,"
            " fortune_boon_default, crit_rules, tier_very_easy, tier_easy, tier_moderate,"
            " tier_hard, tier_very_hard, ability_names, created_at, ledger_scope) VALUES"
            " (77, 88, 'roll-under', '[]', '[]', 0, 0, 3, 7, 12, 17, 20,"
            ' \'["STR", "AGI", "WIT"]\', \'2026-01-02 03:04:05\', 88)'
        )
    out = tmp_path / "campaign.json"
    exported = run_bot(tmp_path, "export", "--guild", "77", "--out", str(out), DATABASE_URL=source)
    assert exported.returncode == 0, exported.stderr
    data = json.loads(out.read_text())
    assert data["format"] == "pbp-dice-export" and data["version"] == 3
    imported = run_bot(tmp_path, "import", str(out), DATABASE_URL=target)
    assert imported.returncode == 0, imported.stderr
    assert "imported campaign 1" in imported.stdout
    again = run_bot(tmp_path, "import", str(out), DATABASE_URL=target)
    assert again.returncode == 1
    assert "already has a campaign" in again.stderr and "Traceback" not in again.stderr
    missing = run_bot(tmp_path, "export", "--guild", "5", DATABASE_URL=source)
    assert missing.returncode == 1 and "No campaign" in missing.stderr


def test_import_reads_the_gzip_file_campaign_export_attaches(tmp_path: Path) -> None:
    """/campaign export attaches ``.json.gz``; the operator's export writes it for a ``.gz``
    name; import reads either, by content."""
    source = f"sqlite+aiosqlite:///{tmp_path / 'a.sqlite3'}"
    target = f"sqlite+aiosqlite:///{tmp_path / 'b.sqlite3'}"
    for url in (source, target):
        assert run_bot(tmp_path, "migrate", DATABASE_URL=url).returncode == 0
    with sqlite3.connect(tmp_path / "a.sqlite3") as conn:
        conn.execute(
            "INSERT INTO campaigns (guild_id, channel_id, system, gm_role_ids, gm_user_ids,"
            " fortune_boon_default, crit_rules, tier_very_easy, tier_easy, tier_moderate,"
            " tier_hard, tier_very_hard, ability_names, created_at, ledger_scope) VALUES"
            " (77, 88, 'roll-under', '[]', '[]', 0, 0, 3, 7, 12, 17, 20,"
            ' \'["STR", "AGI", "WIT"]\', \'2026-01-02 03:04:05\', 88)'
        )
    out = tmp_path / "campaign.json.gz"
    exported = run_bot(tmp_path, "export", "--guild", "77", "--out", str(out), DATABASE_URL=source)
    assert exported.returncode == 0, exported.stderr
    data = json.loads(gzip.decompress(out.read_bytes()))
    assert data["format"] == "pbp-dice-export"
    imported = run_bot(tmp_path, "import", str(out), "--channel", "99", DATABASE_URL=target)
    assert imported.returncode == 0, imported.stderr
    assert "in channel 99" in imported.stdout
    broken = tmp_path / "broken.json.gz"
    broken.write_bytes(out.read_bytes()[:-8])
    refused = run_bot(tmp_path, "import", str(broken), DATABASE_URL=target)
    assert refused.returncode == 1 and "damaged gzip" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_erase_user_erases_everywhere_and_the_log_still_verifies(tmp_path: Path) -> None:
    """An erasure asked for outside Discord, as `/privacy delete` in a DM does."""
    import asyncio
    import random

    from bot.db.engine import create_database
    from bot.db.models import RuleSystem
    from bot.services.kit.context import Caller
    from bot.services.rolling import rolls
    from bot.services.store import campaigns, characters
    from bot.services.trust import gamelog

    path = tmp_path / "erase.sqlite3"
    url = f"sqlite+aiosqlite:///{path}"
    assert run_bot(tmp_path, "migrate", DATABASE_URL=url).returncode == 0
    player, guilds = 4_800_000_000_000_123, (1_000_000_000_000_051, 1_000_000_000_000_052)

    async def play() -> None:
        db = create_database(url)
        try:
            for n, guild in enumerate(guilds):
                campaign = await campaigns.setup_campaign(
                    db, guild, guild + 1000, RuleSystem.ROLL_UNDER
                )
                await characters.create_character(db, campaign.id, player, "Morwenna")
                caller = Caller(player, guild + 1000, guild, interaction_id=900 + n)
                await rolls.roll_dice(
                    db, random.Random(n), caller, "1d20", label="Morwenna waits", request="/roll"
                )
        finally:
            await db.dispose()

    async def intact() -> list[bool]:
        db = create_database(url)
        try:
            found = []
            for guild in guilds:
                campaign = await campaigns.campaign_for_channel(db, guild, guild + 1000)
                found.append((await gamelog.check_campaign_log(db, campaign)).intact)
            return found
        finally:
            await db.dispose()

    asyncio.run(play())
    refused = run_bot(tmp_path, "erase-user", "0", DATABASE_URL=url)
    assert refused.returncode == 1 and "Discord id" in refused.stderr
    done = run_bot(tmp_path, "erase-user", str(player), DATABASE_URL=url)
    assert done.returncode == 0, done.stderr
    assert "2 characters deleted, 2 rolls tombstoned" in done.stdout
    with sqlite3.connect(path) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        dump = "\n".join(
            repr(row) for table in tables for row in conn.execute(f'SELECT * FROM "{table}"')
        )
    assert str(player) not in dump and "Morwenna" not in dump
    assert asyncio.run(intact()) == [True, True]
