"""Whole-log commands over a long game: ``/verify log`` (full and from a checkpoint), the GM's
``/campaign export``, the operator's ``pbp-dice export`` to disk, and ``/stats``.

Run from the repo root: ``.venv/bin/python bench/walks.py`` (``--rows 10000 100000``,
``--url`` for a PostgreSQL database to empty and use; default a temp SQLite file). Each size
is a fresh database with one campaign of that many rolls, recorded as the bot records them
(d20 checks, every tenth a self roll, so redaction and salts are real), in batches. For each
command the table gives its wall time, the longest the event loop went without a turn while it
ran (a 1 ms heartbeat: what every other command on the process waits behind), and the peak
resident memory sampled by that heartbeat over the process's size before it began. Not a test:
the numbers depend on the machine; compare columns of one run. The start-up heap is frozen
before measuring, as the bot does (bot/ops/heap.py), so a full garbage collection does not walk
it inside a command.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import shlex
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _loop import fresh_database, timed

from bot.db.engine import Database, create_database
from bot.db.models import RuleSystem, Visibility
from bot.ops.heap import freeze_startup_heap
from bot.services.kit import walks
from bot.services.kit.context import Caller
from bot.services.kit.errors import TooLarge
from bot.services.kit.sql import transaction
from bot.services.rolling import stats
from bot.services.store.campaigns import CampaignView, setup_campaign
from bot.services.store.ledger import NewRoll, Origin, record_in, record_rolls_in
from bot.services.trust import export, gamelog

GUILD, CHANNEL, GM_ROLE = 10**17, 2 * 10**17, 3 * 10**17
PLAYERS = [4 * 10**17 + n for n in range(6)]
GM = 4 * 10**17 + 9
_ids = itertools.count(9 * 10**17)


def caller(user_id: int) -> Caller:
    return Caller(
        user_id=user_id,
        channel_id=CHANNEL,
        guild_id=GUILD,
        role_ids=frozenset({GM_ROLE}) if user_id == GM else frozenset(),
        interaction_id=next(_ids),
        display_name="x",
    )


async def fill(
    db: Database,
    campaign: CampaignView,
    rows: int,
    *,
    players: Sequence[int] = PLAYERS,
    channel: int = CHANNEL,
    guild: int = GUILD,
) -> None:
    """``rows`` d20 checks by the players in turn, every tenth a self roll, in batches of 500
    (valid chain links and commitments, as the bot records them)."""
    for start in range(0, rows, 500):
        batch = [
            NewRoll(
                origin=Origin(
                    channel_id=channel, user_id=players[i % len(players)], guild_id=guild
                ),
                kind="check",
                request="/check ability:DEX label:Sneak past the guard",
                dice=[1 + (i * 7) % 20],
                outcome={"kept": 1 + (i * 7) % 20, "total": 3 + (i * 7) % 20, "dc": 12},
                visibility=Visibility.SELF if i % 10 == 0 else Visibility.PUBLIC,
                campaign_id=campaign.id,
            )
            for i in range(start, min(rows, start + 500))
        ]
        async with transaction(db) as session:
            # Public rows in one statement; the self rolls one by one (their own salts).
            await record_rolls_in(session, [r for r in batch if r.visibility is Visibility.PUBLIC])
            for hidden in (r for r in batch if r.visibility is Visibility.SELF):
                await record_in(session, hidden)


async def measure(url: str | None, rows: int) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as folder:
        db = create_database(await fresh_database(url, folder))
        found: dict[str, str] = {}
        try:
            campaign = await setup_campaign(
                db, GUILD, CHANNEL, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE]
            )
            filled = time.perf_counter()
            await fill(db, campaign, rows)
            print(f"{rows:,} rows filled in {time.perf_counter() - filled:.0f} s", file=sys.stderr)
            freeze_startup_heap()  # as the bot does once started (bot/ops/heap.py)

            def row(name: str, result: tuple[float, float, int]) -> None:
                took, stall, grew = result
                found[name] = f"{took:.2f} s · {stall * 1e3:.1f} ms · +{grew / 2**20:.0f} MiB"

            checked: list[gamelog.LogCheck] = []

            async def verify_full() -> None:
                checked.append(await gamelog.verify_log(db, caller(GM), full=True))

            row("/verify log full:True", await timed(verify_full))
            head = checked[-1]
            assert head.intact, head.broken
            await gamelog.record_checkpoint(
                db,
                campaign.id,
                gamelog.Checkpoint(head.last_number, head.head, CHANNEL, 1),
            )
            await fill(db, campaign, 1000)

            async def confirmed(point: gamelog.Checkpoint) -> bool:
                return True

            async def verify_since() -> None:
                checked.append(await gamelog.verify_log(db, caller(GM), confirm=confirmed))

            row("/verify log (1,000 rolls since its checkpoint)", await timed(verify_since))
            assert checked[-1].intact and checked[-1].rolls == 1000
            sizes: list[str] = []

            async def gm_export() -> None:
                try:
                    file = await export.export_for_gm(db, caller(GM))
                    sizes.append(f"{len(file.content) / 2**20:.1f} MiB")
                except TooLarge:
                    sizes.append("refused before any work")

            row("/campaign export", await timed(gm_export))
            disk = Path(folder) / "out.json.gz"

            async def to_disk() -> None:
                with disk.open("wb") as out:
                    writer = export.GzipWriter(out)
                    await export.write_export(db, writer.write, campaign_id=campaign.id)
                    await writer.close()

            row("pbp-dice export --out x.json.gz", await timed(to_disk))
            sizes.append(f"{disk.stat().st_size / 2**20:.1f} MiB")

            async def tally() -> None:
                await stats.campaign_stats(db, caller(GM))

            row("/stats", await timed(tally))
            found["/campaign export's file"] = sizes[0]
            found["pbp-dice export's file"] = sizes[1]
        finally:
            await db.dispose()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--url", help="a PostgreSQL URL to EMPTY and use (default: SQLite)")
    parser.add_argument("--page", type=int, default=walks.PAGE, help="rows per transaction")
    args = parser.parse_args()
    walks.PAGE = args.page
    columns = {n: asyncio.run(measure(args.url, n)) for n in args.rows}
    print(f"`{shlex.join([Path(sys.executable).name, *sys.argv])}`\n")
    dialect = "PostgreSQL" if args.url else "SQLite"
    head = " | ".join(f"{n:,} rolls" for n in args.rows)
    print(f"| {dialect}: wall time · longest loop stall · peak RSS growth | {head} |")
    print("|---|" + "---|" * len(args.rows))
    for name in next(iter(columns.values())):
        values = " | ".join(columns[n][name] for n in args.rows)
        print(f"| {name} | {values} |")
    print(f"\nPage: {walks.PAGE} rows per transaction.")


if __name__ == "__main__":
    main()
