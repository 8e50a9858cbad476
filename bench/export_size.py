"""How large /campaign export's file is, plain and gzip-compressed.

Run from the repo root: ``.venv/bin/python bench/export_size.py [--rolls 1,200]``. A fresh
SQLite campaign gets ``/roll 1000d10000`` rolls (every die is kept in the ledger, the worst
legal roll for the file's size) through the real service, and the export is measured after
each count. Prints a markdown table. Not a test: the numbers depend on the dice rolled.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile

from bot.db.engine import create_database
from bot.db.migrate import upgrade_to_head
from bot.db.models import RuleSystem
from bot.services.kit.context import Caller
from bot.services.rolling.rolls import roll_dice
from bot.services.store.campaigns import setup_campaign
from bot.services.trust import export

GUILD, CHANNEL, GM_ROLE, GM = 1_000_000_000_000_001, 2_000_000_000_000_001, 3_000_000_000_001, 9
DICE = "1000d10000"


async def measure(counts: list[int]) -> list[tuple[int, int, int]]:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{folder}/export.sqlite3"
        await upgrade_to_head(url)
        db = create_database(url)
        try:
            campaign = await setup_campaign(
                db, GUILD, CHANNEL, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE]
            )
            gm = Caller(
                user_id=GM, channel_id=CHANNEL, guild_id=GUILD, role_ids=frozenset({GM_ROLE})
            )
            rng, done, rows = random.Random(19), 0, []
            for count in sorted(counts):
                for _ in range(count - done):
                    await roll_dice(db, rng, gm, DICE, request=f"/roll dice:{DICE}")
                done = count
                data = await export.export_campaigns(db, campaign_id=campaign.id)
                rows.append((count, len(export.dumps(data).encode()), len(export.compress(data))))
            return rows
        finally:
            await db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", default="1,200", help="comma-separated roll counts")
    counts = [int(n) for n in parser.parse_args().rolls.split(",")]
    print(f"`{' '.join(['.venv/bin/python', *sys.argv])}`\n")
    print(f"| rolls of {DICE} | JSON bytes | .json.gz bytes | ratio |")
    print("|---:|---:|---:|---:|")
    for count, plain, packed in asyncio.run(measure(counts)):
        print(f"| {count} | {plain:,} | {packed:,} | {plain / packed:.1f}× |")
    limit = export.DEFAULT_SIZE_LIMIT
    print(f"\nDiscord's upload limit without boosts: {limit:,} bytes ({export.size_text(limit)}).")


if __name__ == "__main__":
    main()
