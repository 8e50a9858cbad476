"""Erasure benchmark (issue 22): how long ``erase_user`` takes over a server's log.

Run from the repo root: ``.venv/bin/python bench/privacy.py`` (``--rolls``). SQLite in a temp
file. Two players share one campaign and roll alternately (public ``/roll`` rows with a label,
recorded as the bot records them); one of them is erased. The erasure reads every roll of the
server (to find text naming the person) and rewrites that person's, a transaction (holding the
database's write lock) per page of rolls read: the table says how long in all, and the longest
the event loop went without a turn meanwhile. Not a test: the
numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import sys
import tempfile
import time
from pathlib import Path

from bot.db.engine import create_database
from bot.db.migrate import upgrade_to_head
from bot.db.models import RuleSystem
from bot.services import gamelog, privacy
from bot.services._sql import transaction
from bot.services.store.campaigns import setup_campaign
from bot.services.store.characters import create_character
from bot.services.store.ledger import NewRoll, Origin, record_rolls_in

GUILD, CHANNEL = 10**17, 10**17 + 1
PLAYERS = (4 * 10**17 + 1, 4 * 10**17 + 2)
BATCH = 200


async def run(rolls: int) -> list[tuple[str, str]]:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'bench.sqlite3'}"
        await upgrade_to_head(url)
        db = create_database(url)
        try:
            campaign = await setup_campaign(db, GUILD, CHANNEL, RuleSystem.D20_CHECK)
            for n, player in enumerate(PLAYERS):
                await create_character(db, campaign.id, player, f"Hero {n}")
            started = time.perf_counter()
            for start in range(0, rolls, BATCH):
                batch = [
                    NewRoll(
                        origin=Origin(channel_id=CHANNEL, user_id=PLAYERS[i % 2], guild_id=GUILD),
                        kind="roll",
                        request=f"/roll dice:1d20 label:Hero {i % 2} swings",
                        dice=[{"sides": 20, "value": 1 + i % 20, "labels": ["sword"]}],
                        outcome={"total": 1 + i % 20, "label": f"Hero {i % 2} swings"},
                        campaign_id=campaign.id,
                        character_name=f"Hero {i % 2}",
                    )
                    for i in range(start, min(rolls, start + BATCH))
                ]
                async with transaction(db) as session:
                    await record_rolls_in(session, batch)
            filled = time.perf_counter() - started
            # The longest the event loop went without a turn while erasing: what everyone
            # else's commands would wait behind (issue 22 allows ~20 ms).
            stalls: list[float] = []
            erasing = True

            async def heartbeat() -> None:
                last = time.perf_counter()
                while erasing:
                    await asyncio.sleep(0.001)
                    now = time.perf_counter()
                    stalls.append(now - last)
                    last = now

            beat = asyncio.create_task(heartbeat())
            started = time.perf_counter()
            done = await privacy.erase_user(db, PLAYERS[0], GUILD)
            erased = time.perf_counter() - started
            erasing = False
            await beat
            started = time.perf_counter()
            log = await gamelog.check_campaign_log(db, campaign)
            checked = time.perf_counter() - started
            assert log.intact and done.rolls_erased == (rolls + 1) // 2
        finally:
            await db.dispose()
    return [
        ("rolls in the server", f"{rolls:,}"),
        ("rolls of the erased player", f"{done.rolls_erased:,}"),
        ("fill (record_rolls_in, batches of 200)", f"{filled:.1f} s"),
        (f"erase_user (a transaction per {privacy._PAGE} rolls read)", f"{erased:.2f} s"),
        ("longest event-loop stall while erasing", f"{max(stalls) * 1e3:.1f} ms"),
        ("erase_user per roll read", f"{erased / rolls * 1e6:.0f} µs"),
        ("/verify log:True afterwards (whole chain)", f"{checked:.2f} s"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=10_000)
    args = parser.parse_args()
    table = asyncio.run(run(args.rolls))
    print(f"`{shlex.join([Path(sys.executable).name, *sys.argv])}`\n")
    print("| measure | SQLite |\n|---|---|")
    for name, value in table:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
