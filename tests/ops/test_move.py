"""`pbp-dice move --to URL`: a whole database into an empty one, ids, rolls and proofs intact.

The source is what a real table leaves: the offline table plays `examples/in-character.txt`
(posts, macros, inline rolls, hidden rolls) into it, and the services add a campaign with every
kind of per-character row, a revealed blind roll, and a deleted campaign (whose ids must never
come back). The target is PostgreSQL (when reachable) and SQLite.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

import bot.play._repl as repl
from bot.db.engine import Database, create_database
from bot.db.schema import metadata
from bot.errors import UserError
from bot.ops.move import move
from bot.play import PlayOptions
from bot.services.kit.context import Caller
from bot.services.store import campaigns as campaigns_svc
from bot.services.store.campaigns import setup_campaign
from bot.services.store.ledger import NewRoll, Origin, record
from bot.services.trust import gamelog, secrecy
from bot.words import LedgerKind, RuleSystem
from tests.fixtures.databases import truncate_all
from tests.ops.test_export import CHANNEL, GUILD, _hidden_revealed, fill

from .test_cli import _env

ROOT = Path(__file__).resolve().parents[2]


async def _played(url: str, tmp_path: Path) -> None:
    """What the offline table leaves after `examples/in-character.txt`, in ``url``."""

    @contextlib.contextmanager
    def into() -> Iterator[str]:
        yield url

    script = ROOT / "examples" / "in-character.txt"
    original = repl._database
    repl._database = into  # the table's own temporary database, swapped for ours
    try:
        status = await repl.play(
            PlayOptions(script=script, seed=5), repl.read_script(script), lambda _line: None
        )
    finally:
        repl._database = original
    assert status == 0


async def _source(tmp_path: Path) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.sqlite3'}"
    await _played(url, tmp_path)
    db = create_database(url)
    try:
        campaign_id = await fill(db)
        await _hidden_revealed(db, campaign_id)
        gone = await setup_campaign(db, GUILD, CHANNEL + 9, RuleSystem.THRESHOLD)
        await record(
            db,
            NewRoll(
                origin=Origin(channel_id=CHANNEL + 9, user_id=7, guild_id=GUILD),
                kind=LedgerKind.ROLL,
                request="1d20",
                dice=[3],
                outcome={"total": 3},
                campaign_id=gone.id,
            ),
        )
        # The newest campaign deleted: its id is above every id left, and must never return.
        await campaigns_svc.delete_campaign(db, gone.id)
    finally:
        await db.dispose()
    return url


async def _rows(url: str) -> dict[str, list[dict[str, Any]]]:
    db = create_database(url)
    try:
        async with db.engine.connect() as conn:
            return {
                table.name: [
                    dict(r)
                    for r in (
                        await conn.execute(select(table).order_by(*table.primary_key.columns))
                    ).mappings()
                ]
                for table in metadata.sorted_tables
            }
    finally:
        await db.dispose()


async def _verdicts(db: Database, rolls: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What /verify says of every roll, asked in its channel by someone with Manage Server."""
    found = []
    for roll in rolls:
        caller = Caller(
            user_id=5, channel_id=roll["channel_id"], guild_id=roll["guild_id"], manage_guild=True
        )
        try:
            v = await secrecy.verify(db, caller, roll["number"])
        except UserError as refused:
            found.append((roll["id"], "refused", refused.message))
            continue
        matches = v.checked and v.recomputed is not None and v.recomputed == v.stored
        found.append((roll["id"], v.access.row.id, v.checked, v.stored, v.recomputed, matches))
    return found


async def test_a_move_keeps_every_row_and_id_and_every_roll_still_verifies(
    tmp_path: Path, unmigrated_url: str
) -> None:
    source = await _source(tmp_path)
    before = await _rows(source)
    assert len(before["ledger"]) >= 10 and before["posts"] and before["post_versions"]
    assert sum(1 for rows in before.values() if rows) >= 12  # most tables hold rows
    moved = await move(source, unmigrated_url)
    assert moved.total == sum(len(rows) for rows in before.values())

    after = await _rows(unmigrated_url)
    assert after == before  # every table, row for row, ids included

    rolls = [row for row in before["ledger"] if row["channel_id"] is not None]
    old, new = create_database(source), create_database(unmigrated_url)
    try:
        verdicts = await _verdicts(new, rolls)
        assert verdicts == await _verdicts(old, rolls)
        # Each number still names its own roll (where /verify answers in the old database:
        # a deleted campaign's channel has none in either).
        answered = [v for v in verdicts if v[1] != "refused"]
        assert len(answered) >= len(rolls) - 2, [v for v in verdicts if v[1] == "refused"]
        assert all(v[1] == v[0] for v in answered)
        hidden = [v for v in answered if v[3] is not None]
        assert hidden and all(v[5] for v in hidden if v[2])  # every hidden roll it may check
        assert any(v[5] for v in hidden)
        for row in before["campaigns"]:
            campaign = await campaigns_svc.get_campaign(new, row["id"])
            assert (await gamelog.check_campaign_log(new, campaign)).intact
        # New ids continue past every id the old database handed out, deleted ones included.
        again = await setup_campaign(new, GUILD, CHANNEL + 9, RuleSystem.THRESHOLD)
        assert again.id == max(r["id"] for r in before["campaigns"]) + 2
    finally:
        await old.dispose()
        await new.dispose()


async def test_a_target_that_holds_data_is_refused_and_left_as_it_was(
    tmp_path: Path, unmigrated_url: str
) -> None:
    source = await _source(tmp_path)
    db = create_database(unmigrated_url)
    try:
        await move(source, unmigrated_url)
        if db.dialect == "postgresql":  # keep a single row, to show one row is enough
            await truncate_all(db)
            await setup_campaign(db, GUILD + 1, CHANNEL, RuleSystem.THRESHOLD)
        held = await _rows(unmigrated_url)
        with pytest.raises(UserError, match=r"already holds data: .*campaigns \(\d+\)"):
            await move(source, unmigrated_url)
        assert await _rows(unmigrated_url) == held
    finally:
        await db.dispose()


async def test_a_move_into_the_same_database_is_refused(tmp_path: Path) -> None:
    source = await _source(tmp_path)
    same = f"sqlite+aiosqlite:///{tmp_path}/./old.sqlite3"  # the same file, written otherwise
    with pytest.raises(UserError, match="already names"):
        await move(source, same)


def test_the_command_moves_sqlite_and_says_what_it_did(tmp_path: Path, unmigrated_url: str) -> None:
    source = asyncio.run(_source(tmp_path))
    command = [sys.executable, "-m", "bot", "move", "--to", unmigrated_url]
    done = subprocess.run(
        command, cwd=tmp_path, env=_env(DATABASE_URL=source), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1]
    assert last.startswith("moved ") and "set DATABASE_URL to it and start the bot" in last
    again = subprocess.run(
        command, cwd=tmp_path, env=_env(DATABASE_URL=source), capture_output=True, text=True
    )
    assert again.returncode == 1
    [line] = again.stderr.splitlines()
    assert line.startswith("move: ") and "already holds data" in line


def test_the_command_names_a_bad_target_url_in_one_line(tmp_path: Path) -> None:
    source = f"sqlite+aiosqlite:///{tmp_path / 'old.sqlite3'}"
    done = subprocess.run(
        [sys.executable, "-m", "bot", "move", "--to", "postgresql://u:pw@db/pbp"],
        cwd=tmp_path,
        env=_env(DATABASE_URL=source),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "move: --to postgresql://u:***@db/pbp: no driver, and the bot needs the async one; "
        "write postgresql+asyncpg://u:***@db/pbp."
    ]


def test_an_old_source_is_refused_until_it_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    sqlite3.connect(path).close()
    with pytest.raises(UserError, match="holds no pbp-dice data"):
        asyncio.run(move(f"sqlite+aiosqlite:///{path}", f"sqlite+aiosqlite:///{tmp_path}/n.db"))
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) PRIMARY KEY)")
    conn.execute("INSERT INTO alembic_version VALUES ('0005_secrecy')")
    conn.commit()
    conn.close()
    with pytest.raises(UserError, match="run `pbp-dice migrate` on it first"):
        asyncio.run(move(f"sqlite+aiosqlite:///{path}", f"sqlite+aiosqlite:///{tmp_path}/n.db"))
