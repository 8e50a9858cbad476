"""Shards or replicas started together on one empty database: they take turns migrating, and
every one of them carries on (no "Cannot open the database" from a lost race).

Real processes (`pbp-dice migrate`, what every `pbp-dice run` does first), started at once.
On PostgreSQL the test also holds the migrations' advisory lock itself: every process must then
be seen waiting for it (in pg_locks, not after some sleep), none may finish meanwhile, and all
finish once it is released.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import text

from bot.db.engine import create_database
from bot.db.migrate import MIGRATIONS_DIR

from .test_cli import _env

PROCESSES = 3
#: "pbp-dice" in ASCII: the key of migrations/env.py's advisory lock.
LOCK = 0x7062702D64696365


def _start(url: str, cwd: Path) -> list[subprocess.Popen[str]]:
    env = _env(DATABASE_URL=url, LOG_LEVEL="INFO")
    return [
        subprocess.Popen(
            [sys.executable, "-m", "bot", "migrate"],
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]


def _finish(processes: list[subprocess.Popen[str]]) -> list[tuple[int, str]]:
    return [(p.wait(timeout=300), p.communicate()[1]) for p in processes]


async def _head_of(url: str) -> str | None:
    db = create_database(url)
    try:
        async with db.engine.connect() as conn:
            return (await conn.execute(text("SELECT version_num FROM alembic_version"))).scalar()
    finally:
        await db.dispose()


def _head() -> str:
    from alembic.script import ScriptDirectory

    from bot.db.migrate import alembic_config

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None and MIGRATIONS_DIR.is_dir()
    return head


def test_processes_started_at_once_on_an_empty_database_all_migrate_and_carry_on(
    unmigrated_url: str, tmp_path: Path
) -> None:
    done = _finish(_start(unmigrated_url, tmp_path))
    assert [status for status, _ in done] == [0] * PROCESSES, [err for _, err in done]
    assert not any("Traceback" in err or "Cannot open" in err for _, err in done)
    assert asyncio.run(_head_of(unmigrated_url)) == _head()
    # Each step ran once, by whichever process came first; the others found nothing to do.
    ran = [err.count("Running upgrade") for _, err in done]
    assert sorted(ran)[:-1] == [0] * (PROCESSES - 1) and max(ran) > 0


async def _waiting_for_lock(url: str) -> int:
    db = create_database(url)
    try:
        async with db.engine.connect() as conn:
            found = await conn.execute(
                text(
                    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                    "AND ((classid::bigint << 32) | objid::bigint) = :key"
                ),
                {"key": LOCK},
            )
            return int(found.scalar() or 0)
    finally:
        await db.dispose()


def test_on_postgresql_they_wait_for_the_migration_lock_and_none_finishes_before(
    empty_pg: str, tmp_path: Path
) -> None:
    holder = create_database(empty_pg)

    async def hold() -> object:
        conn = await holder.engine.connect()
        await conn.begin()
        await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": LOCK})
        return conn

    loop = asyncio.new_event_loop()
    conn = loop.run_until_complete(hold())
    processes = _start(empty_pg, tmp_path)
    try:
        deadline = time.monotonic() + 240  # generous: only a failing run waits this long
        while loop.run_until_complete(_waiting_for_lock(empty_pg)) < PROCESSES:
            finished = [p.returncode for p in processes if p.poll() is not None]
            assert not finished, f"a process finished while the lock was held: {finished}"
            assert time.monotonic() < deadline, "the processes never waited for the lock"
            time.sleep(0.2)
        assert all(p.poll() is None for p in processes)
    finally:
        loop.run_until_complete(conn.rollback())  # type: ignore[attr-defined]
        loop.run_until_complete(conn.close())  # type: ignore[attr-defined]
        loop.run_until_complete(holder.dispose())
        loop.close()
    done = _finish(processes)
    assert [status for status, _ in done] == [0] * PROCESSES, [err for _, err in done]
    waited = sum("waiting for it to finish" in err for _, err in done)
    assert waited == PROCESSES  # each said why it paused
    assert asyncio.run(_head_of(empty_pg)) == _head()
