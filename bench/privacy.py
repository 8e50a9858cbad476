"""``/privacy show`` and erasure as the server grows: their cost should follow the person's
rows, not the server's (docs/privacy.md, "What it costs").

Run from the repo root: ``.venv/bin/python bench/privacy.py`` (``--campaigns 7 1000 10000``,
``--rows`` for the person's own rolls, ``--url`` for a PostgreSQL database to empty and use;
default a temp SQLite file). Each size is a fresh database: the server's campaigns (every one
with ten characters and thirty rolls of other players, inserted in bulk) and one campaign where
the person plays: ``--rows`` rolls of theirs recorded as the bot records them, and GM rolls for
their character. The table gives the median of five ``stored_data`` calls, one ``erase_user``,
and the longest the event loop went without a turn during each (a 1 ms heartbeat): what
everyone else's commands wait behind. Not a test: the numbers depend on the machine; compare
columns of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import json
import random
import shlex
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from _loop import fresh_database, timed
from sqlalchemy import text

from bot.db.engine import Database, create_database
from bot.db.models import RuleSystem
from bot.services.kit import personal
from bot.services.kit.context import Caller
from bot.services.kit.sql import transaction
from bot.services.rolling import checks
from bot.services.store.campaigns import setup_campaign
from bot.services.store.characters import create_character, set_score
from bot.services.store.ledger import NewRoll, Origin, record_rolls_in
from bot.services.trust import privacy

GUILD = 10**17
PERSON, GM = 4 * 10**17 + 1, 4 * 10**17 + 9
GM_ROLE = 3 * 10**17
_ids = itertools.count(9 * 10**17)


def caller(user_id: int, channel: int) -> Caller:
    return Caller(
        user_id=user_id,
        channel_id=channel,
        guild_id=GUILD,
        role_ids=frozenset({GM_ROLE}) if user_id == GM else frozenset(),
        interaction_id=next(_ids),
        display_name="x",
    )


async def fill_server(db: Database, campaigns: int) -> None:
    """``campaigns`` campaigns of other players, in bulk (their rows' hashes are not real:
    nothing here checks them)."""
    names = json.dumps(["STR", "DEX", "CON", "INT", "WIS", "CHA"])
    async with db.engine.begin() as connection:
        for start in range(0, campaigns, 500):
            rows = [
                {"g": GUILD + 1 + n % 50, "c": 10**16 + n, "gm": json.dumps([GM + 1 + n])}
                for n in range(start, min(campaigns, start + 500))
            ]
            await connection.execute(
                text(
                    "INSERT INTO campaigns (guild_id, channel_id, ledger_scope, system,"
                    " gm_role_ids, gm_user_ids, fortune_boon_default, crit_rules, carry_over,"
                    " luck_trade, rerolls, tier_very_easy, tier_easy, tier_moderate, tier_hard,"
                    " tier_very_hard, ability_names, secrecy_defaults, created_at) VALUES"
                    " (:g, :c, :c, 'd20-check', '[]', :gm, false, false, true, true, false,"
                    " 3, 7, 12, 17, 20, '" + names + "', '{}', '2026-01-01 00:00:00+00')"
                ),
                rows,
            )
        ids = [
            (int(i), int(g), int(c))
            for i, g, c in await connection.execute(
                text("SELECT id, guild_id, channel_id FROM campaigns")
            )
        ]
        characters: list[dict[str, Any]] = []
        rolls: list[dict[str, Any]] = []
        for cid, guild, channel in ids:
            for k in range(10):
                user = 5 * 10**17 + cid * 10 + k
                characters.append(
                    {"cid": cid, "u": user, "n": f"Hero {cid}-{k}", "k": f"hero {cid}-{k}"}
                )
            for k in range(30):
                rolls.append(
                    {
                        "cid": cid,
                        "g": guild,
                        "ch": channel,
                        "u": 5 * 10**17 + cid * 10 + k % 10,
                        "n": k + 1,
                        "name": f"Hero {cid}-{k % 10}",
                    }
                )
        for start in range(0, len(characters), 5000):
            await connection.execute(
                text(
                    "INSERT INTO characters (campaign_id, user_id, name, name_key, level,"
                    " fortune, double_fortune, in_party, ac_loss, is_active, created_at)"
                    " VALUES (:cid, :u, :n, :k, 1, 0, false, false, 0, true,"
                    " '2026-01-01 00:00:00+00')"
                ),
                characters[start : start + 5000],
            )
        for start in range(0, len(rolls), 5000):
            await connection.execute(
                text(
                    "INSERT INTO ledger (campaign_id, character_name, guild_id, channel_id,"
                    " user_id, kind, request, dice, outcome, visibility, created_at, scope_id,"
                    " number, who, chain, format) VALUES (:cid, :name, :g, :ch, :u, 'roll',"
                    " '/roll dice:1d20 label:Dex', '[7]', '{\"total\": 7, \"label\": \"Dex\"}',"
                    " 'public', '2026-01-01 00:00:00+00', :ch, :n, '"
                    + "0" * 64
                    + "', '"
                    + "0" * 64
                    + "', 3)"
                ),
                rolls[start : start + 5000],
            )


async def person_plays(db: Database, rows: int) -> None:
    """The person's campaign: their rolls, and the GM's rolls for their character."""
    campaign = await setup_campaign(db, GUILD, 7, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE])
    hero = await create_character(db, campaign.id, PERSON, "Zephyrine")
    await set_score(db, hero.id, "DEX", 12)
    mine = [
        NewRoll(
            origin=Origin(channel_id=7, user_id=PERSON, guild_id=GUILD),
            kind="roll",
            request="/roll dice:1d20 label:Zephyrine swings",
            dice=[{"sides": 20, "value": 1 + i % 20, "labels": ["sword"]}],
            outcome={"total": 1 + i % 20, "label": "Zephyrine swings"},
            campaign_id=campaign.id,
            character_id=hero.id,
            character_name="Zephyrine",
        )
        for i in range(rows)
    ]
    for start in range(0, rows, 200):
        async with transaction(db) as session:
            await record_rolls_in(session, mine[start : start + 200])
    rng = random.Random(1)
    for _ in range(max(1, rows // 20)):
        await checks.perform_gm_check(
            db, rng, caller(GM, 7), "Zephyrine", checks.CheckOptions(ability="DEX"), "/gm check"
        )


async def measure(url: str | None, campaigns: int, rows: int) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as folder:
        db = create_database(await fresh_database(url, folder))
        try:
            await fill_server(db, campaigns - 1)
            await person_plays(db, rows)
            if db.dialect == "postgresql":
                async with db.engine.begin() as connection:
                    await connection.execute(text("ANALYZE"))
            else:
                # The bulk fill's write-ahead log into the file first, as the bot's periodic
                # checkpoints would have done: the erasure's own checkpoint is then its own.
                async with db.engine.connect() as connection:
                    raw = await connection.get_raw_connection()
                    driver: Any = raw.driver_connection
                    async with driver.execute("PRAGMA wal_checkpoint(TRUNCATE)") as cursor:
                        await cursor.fetchall()
            # As the bot does at start-up (bot/app.py): every feature's declaration loaded,
            # so the first call imports no module inside the measured window; and the fill's
            # own garbage collected, so no collection of it lands inside one either.
            personal.declarations()
            gc.collect()
            shows = [await timed(lambda: privacy.stored_data(db, PERSON)) for _ in range(5)]
            show_everywhere = statistics.median(s for s, _, _ in shows)
            show_stall = max(s for _, s, _ in shows)
            shows = [await timed(lambda: privacy.stored_data(db, PERSON, GUILD)) for _ in range(5)]
            show_here = statistics.median(s for s, _, _ in shows)
            erase, erase_stall, _ = await timed(lambda: privacy.erase_user(db, PERSON, GUILD))
        finally:
            await db.dispose()
    return {
        "/privacy show (DM: every server), median of 5": f"{show_everywhere * 1e3:.1f} ms",
        "/privacy show (one server), median of 5": f"{show_here * 1e3:.1f} ms",
        "/privacy show, longest loop stall": f"{show_stall * 1e3:.1f} ms",
        "erasure (one server)": f"{erase * 1e3:.0f} ms",
        "erasure, longest loop stall": f"{erase_stall * 1e3:.1f} ms",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaigns", type=int, nargs="+", default=[7, 1000, 10000])
    parser.add_argument("--rows", type=int, default=1000, help="the person's own rolls")
    parser.add_argument("--url", help="a PostgreSQL URL to EMPTY and use (default: SQLite)")
    args = parser.parse_args()
    columns = {n: asyncio.run(measure(args.url, n, args.rows)) for n in args.campaigns}
    print(f"`{shlex.join([Path(sys.executable).name, *sys.argv])}`\n")
    dialect = "PostgreSQL" if args.url else "SQLite"
    head = " | ".join(f"{n:,} campaigns" for n in args.campaigns)
    print(f"| {dialect}, the person has {args.rows:,} rolls | {head} |")
    print("|---|" + "---|" * len(args.campaigns))
    for measure_name in next(iter(columns.values())):
        values = " | ".join(columns[n][measure_name] for n in args.campaigns)
        print(f"| {measure_name} | {values} |")


if __name__ == "__main__":
    main()
