"""A long game never stalls the table: every command's longest event-loop stall and the
process's peak memory, as the game grows (the real bot in SimCord).

Run from the repo root: ``.venv/bin/python bench/scale.py`` (default: every size below; ``--quick``
for a small run; ``--sizes 10k,100k``, ``--campaigns 1k``, ``--parties 6,20``, ``--jobs 100k``
to pick; ``--only ledger,server,party,jobs`` for some tables; ``--pg-database NAME`` or
``--url`` for a PostgreSQL database to EMPTY and use, default a temp SQLite file). Each column
is a fresh process and database:

* ledger: one campaign of that many rolls (``bench/walks.py`` records them as the bot does:
  valid chain links and commitments, every tenth a self roll), six players in the party;
* server: that many campaigns of ten characters each (``bench/privacy.py``'s bulk fill), plus
  the one where the players play;
* party: a party of that many characters, and the GM's ``/groupsave`` (a refusal is shown);
* jobs: that many scheduler jobs all due, run by the clock cog's own pass until none is due.

A loop-lag probe posts a callback every 5 ms while a command runs; its longest lateness is the
longest stall, what every other command on the process waits behind. Beside it, the longest
single callback the loop ran meanwhile, in the loop thread's own CPU time: what one piece of
code held the loop for (on a loaded machine the probe's figure adds the time other processes
had the core). Peak
RSS is the process's resident size, sampled by the probe, at its highest during the command
(it includes what the process held before). Quick commands run several times; the worst is
shown. Not a test: the numbers depend on the machine and its load (printed); compare columns
of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import discord
import simcord
from _loop import fresh_database, probed, rss
from privacy import fill_server
from scheduler import _fill as fill_jobs
from walks import fill

from bot.app import PbpBot, create_bot
from bot.config import Settings
from bot.db.models import RuleSystem
from bot.ops.heap import freeze_startup_heap
from bot.services.store import characters as chars
from bot.services.store.campaigns import CampaignView, setup_campaign
from bot.services.trust import export, imports

PROBE = 0.005
#: A garbage collection this long is named in the cell (it runs inside some callback).
GC_SHOWN = 0.010
IMPORT = "pbp-dice import (the operator's, .json.gz)"
#: Measures left out (``--skip import,erasure``): the longest, for a quicker big run.
SKIP: set[str] = set()
SIZES = {"ledger": "10k,100k,1M", "server": "1k,10k", "party": "6,20,100", "jobs": "100k"}
QUICK = {"ledger": "2k,10k", "server": "100,1k", "party": "6,20", "jobs": "10k"}
UNITS = {"ledger": "rolls", "server": "campaigns", "party": "members", "jobs": "due jobs"}
TITLES = {
    "ledger": "one campaign of N rolls",
    "server": "N campaigns of ten characters each",
    "party": "a party of N",
    "jobs": "N scheduler jobs due at once",
}


def count(text: str) -> int:
    text = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    return int(float(text.rstrip("km")) * scale)


def shown(n: int) -> str:
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n >= 1_000 and n % 1_000 == 0:
        return f"{n // 1_000}k"
    return str(n)


class World:
    """The bot in SimCord: a guild, #table bound to a d20-check campaign, a GM, players."""

    def __init__(self, env: Any, bot: PbpBot, players: int) -> None:
        self.env, self.bot = env, bot
        owner = env.create_user("owner")
        self.guild = env.create_guild("Scale", owner=owner)
        self.admin = self.guild.add_member(owner)
        self.gm_role = self.guild.create_role("GM", permissions=discord.Permissions.none())
        self.table = self.guild.create_text_channel("table")
        self.gm = self.guild.add_member(env.create_user("gm"), roles=[self.gm_role])
        self.players = [
            self.guild.add_member(env.create_user(f"p{i}")) for i in range(max(players, 1))
        ]
        self.alice = self.players[0]
        self.campaign: CampaignView | None = None

    async def start(self, party: int) -> CampaignView:
        db = self.bot.db
        self.campaign = await setup_campaign(
            db,
            self.guild.id,
            self.table.id,
            RuleSystem.D20_CHECK,
            gm_role_ids=[self.gm_role.id],
        )
        for i, player in enumerate(self.players[:party]):
            hero = await chars.create_character(db, self.campaign.id, player.id, f"Hero {i}")
            await chars.set_score(db, hero.id, "DEX", 12 + i % 5)
            await chars.party_add(db, hero.id)
        return self.campaign


class Results:
    """Each command's worst stall and highest peak over its runs."""

    def __init__(self) -> None:
        self.rows: dict[str, str] = {}

    async def measure(
        self, name: str, work: Callable[[], Awaitable[Any]], times: int = 1
    ) -> list[Any]:
        worst, held, collected, peak, took = 0.0, 0.0, 0.0, 0, 0.0
        answers: list[Any] = []

        async def once() -> None:
            answers.append(await work())

        for _ in range(times):
            base = rss()
            seconds, stall, cpu, gc_pause, grew = await probed(once, every=PROBE)
            worst, held, collected = max(worst, stall), max(held, cpu), max(collected, gc_pause)
            peak, took = max(peak, base + grew), max(took, seconds)
        note = f" ({took:.1f} s)" if took >= 1 else ""
        if collected >= GC_SHOWN:
            note += f" (gc {collected * 1e3:.0f} ms)"
        self.rows[name] = f"{worst * 1e3:.0f} / {held * 1e3:.0f} ms · {peak / 2**20:.0f} MiB{note}"
        print(f"  {name}: {self.rows[name]}", file=sys.stderr)
        return answers

    def say(self, name: str, text: str) -> None:
        self.rows[name] = text


def refused(result: Any) -> str | None:
    """The bot's refusal, if the answer was one (an ephemeral message)."""
    message = getattr(result, "response", None)
    if message is None or not getattr(result, "ephemeral", False):
        return None
    return (message.content or "").splitlines()[0][:70]


async def ledger_column(world: World, rows: int, out: Results) -> None:
    db = world.bot.db
    campaign = await world.start(party=6)
    ids = [p.id for p in world.players]
    began = time.perf_counter()
    await fill(db, campaign, rows, players=ids, channel=world.table.id, guild=world.guild.id)
    print(f"{rows:,} rolls filled in {time.perf_counter() - began:.0f} s", file=sys.stderr)
    freeze_startup_heap()
    alice, gm, here = world.alice, world.gm, world.table
    await out.measure("/roll dice:1d20+5", lambda: alice.slash(here, "roll", dice="1d20+5"), 20)
    await out.measure(
        "/check ability:DEX dc:12",
        lambda: alice.slash(here, "check", ability="DEX", dc=12),
        20,
    )
    await out.measure(
        "/groupsave ability:DEX dc:12 (6)",
        lambda: gm.slash(here, "groupsave", ability="DEX", dc=12),
        5,
    )
    await out.measure("/history (first page)", lambda: alice.slash(here, "history"), 10)
    number = rows // 2 + 1
    await out.measure(
        "/verify roll:N (the middle roll)", lambda: alice.slash(here, "verify", roll=number), 10
    )
    await out.measure(
        "/verify log:True full:True",
        lambda: alice.slash(here, "verify", log=True, full=True),
    )
    await fill(db, campaign, 1000, players=ids, channel=here.id, guild=world.guild.id)
    await out.measure(
        "/verify log:True (1,000 rolls since the last)",
        lambda: alice.slash(here, "verify", log=True),
    )
    await out.measure("/stats (GM: every player)", lambda: gm.slash(here, "stats"))
    [answer] = await out.measure("/campaign export", lambda: gm.slash(here, "campaign export"))
    if answer.response is None or not answer.response.attachments:
        out.rows["/campaign export"] += " (refused: too large to upload)"
    with tempfile.TemporaryDirectory() as folder:
        if "import" in SKIP:
            out.say(IMPORT, "not run (--skip)")
            return await privacy_column(world, out)
        path = Path(folder) / "campaign.json.gz"
        with path.open("wb") as target:
            writer = export.GzipWriter(target)
            await export.write_export(db, writer.write, campaign_id=campaign.id)
            await writer.close()
        elsewhere = world.guild.create_text_channel("elsewhere")

        async def operator_import() -> None:
            await imports.import_file(db, path, channel_id=elsewhere.id)

        await out.measure(IMPORT, operator_import)
    await privacy_column(world, out)


async def privacy_column(world: World, out: Results) -> None:
    """``/privacy show``, then the erasure of the first player (a sixth of the rolls)."""
    alice, here = world.alice, world.table
    await out.measure("/privacy show", lambda: alice.slash(here, "privacy show"), 5)
    name = "erasure (/privacy delete: a sixth of the rolls)"
    if "erasure" in SKIP:
        out.say(name, "not run (--skip)")
        return

    async def erase() -> Any:
        asked = await alice.slash(here, "privacy delete")
        return await alice.click(asked.response, label="Erase my data")

    await out.measure(name, erase)


async def server_column(world: World, campaigns: int, out: Results) -> None:
    db = world.bot.db
    began = time.perf_counter()
    await fill_server(db, campaigns - 1)
    campaign = await world.start(party=6)
    ids = [p.id for p in world.players]
    await fill(db, campaign, 600, players=ids, channel=world.table.id, guild=world.guild.id)
    print(f"{campaigns:,} campaigns filled in {time.perf_counter() - began:.0f} s", file=sys.stderr)
    freeze_startup_heap()
    alice, gm, here = world.alice, world.gm, world.table
    await out.measure("/roll dice:1d20+5", lambda: alice.slash(here, "roll", dice="1d20+5"), 20)
    await out.measure(
        "/check ability:DEX dc:12", lambda: alice.slash(here, "check", ability="DEX", dc=12), 20
    )
    await out.measure(
        "/groupsave ability:DEX dc:12 (6)",
        lambda: gm.slash(here, "groupsave", ability="DEX", dc=12),
        5,
    )
    await out.measure("/privacy show", lambda: alice.slash(here, "privacy show"), 5)

    async def erase() -> Any:
        asked = await alice.slash(here, "privacy delete")
        return await alice.click(asked.response, label="Erase my data")

    await out.measure("erasure (/privacy delete: 100 rolls of theirs)", erase)


async def party_column(world: World, members: int, out: Results) -> None:
    await world.start(party=members)
    freeze_startup_heap()
    gm, here = world.gm, world.table
    answers = await out.measure(
        "/groupsave ability:DEX dc:12",
        lambda: gm.slash(here, "groupsave", ability="DEX", dc=12),
        5,
    )
    if (why := refused(answers[-1])) is not None:
        out.say("/groupsave ability:DEX dc:12", f"refused: {why}")


async def jobs_column(world: World, jobs: int, out: Results) -> None:
    db = world.bot.db
    await world.start(party=0)
    due = world.bot.clock.now() - timedelta(minutes=1)
    await fill_jobs(db, jobs, 1000, due)
    freeze_startup_heap()
    clock = next(c for c in world.bot.cogs.values() if hasattr(c, "run_once"))
    done = [0]

    async def drain() -> None:
        while True:
            ran = await clock.run_once()
            done[0] += ran
            if ran < 500:
                return

    await out.measure("the scheduler's passes until none is due", drain)
    out.rows["the scheduler's passes until none is due"] += f", {done[0]:,} run"

    async def idle() -> None:
        await clock.run_once()

    await out.measure("the scheduler's idle pass", idle, 10)


COLUMNS = {
    "ledger": ledger_column,
    "server": server_column,
    "party": party_column,
    "jobs": jobs_column,
}


async def child(section: str, size: int, url: str | None) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as folder:
        target = await fresh_database(url, folder)
        # Budgets off: the bench measures each command's cost, not how often one may ask.
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None, database_url=target, shard_count=1, budgets_enabled=False
        )
        bot = create_bot(settings, rng=random.Random(1), freeze_heap=True)
        out = Results()
        async with contextlib.AsyncExitStack() as stack:
            stack.push_async_callback(bot.close_database)  # SimCord detaches, never closes
            env = await stack.enter_async_context(simcord.run(bot))
            env.settle_timeout = 3600.0  # a walk of a long log takes more than SimCord's 5 s
            players = size if section == "party" else 6
            world = World(env, bot, players)
            await COLUMNS[section](world, size, out)
            _ = env.errors  # refusals the bot answered (a party too big…) are expected here
            out.say("RSS at the end", f"{rss() / 2**20:.0f} MiB")
        return out.rows


def run_child(section: str, size: int, url: str | None) -> dict[str, str]:
    command = [sys.executable, __file__, "--child", section, str(size), "--skip", ",".join(SKIP)]
    if url:
        command += ["--url", url]
    print(f"{section} {shown(size)}:", file=sys.stderr)
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    if done.returncode != 0:
        return {"(failed)": f"exit {done.returncode}"}
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: " + str(QUICK))
    parser.add_argument("--sizes", help="ledger rows, e.g. 10k,100k,1M")
    parser.add_argument("--campaigns", help="campaigns in the server, e.g. 1k,10k")
    parser.add_argument("--parties", help="party sizes, e.g. 6,20,100")
    parser.add_argument("--jobs", help="due scheduler jobs, e.g. 100k")
    parser.add_argument("--only", help="some of: ledger,server,party,jobs")
    parser.add_argument("--url", help="a PostgreSQL URL to EMPTY and use (default: SQLite)")
    parser.add_argument("--pg-database", help="a local PostgreSQL database to EMPTY and use")
    parser.add_argument("--skip", default="", help="leave out some of: import,erasure")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    url = args.url or (
        f"postgresql+asyncpg://postgres@127.0.0.1:5432/{args.pg_database}"
        if args.pg_database
        else None
    )
    SKIP.update(word for word in args.skip.split(",") if word)
    if args.child:
        section, size = args.child
        print(json.dumps(asyncio.run(child(section, int(size), url))))
        return
    chosen = dict(QUICK if args.quick else SIZES)
    for section, given in (
        ("ledger", args.sizes),
        ("server", args.campaigns),
        ("party", args.parties),
        ("jobs", args.jobs),
    ):
        if given:
            chosen[section] = given
    sections = args.only.split(",") if args.only else list(COLUMNS)
    load_before = os.getloadavg()
    tables = {
        section: {count(n): run_child(section, count(n), url) for n in chosen[section].split(",")}
        for section in sections
    }
    load_after = os.getloadavg()
    print(f"`{shlex.join([Path(sys.executable).name, *sys.argv])}`\n")
    print(
        f"{'PostgreSQL' if url else 'SQLite'}; {os.cpu_count()} cores; load average "
        f"{load_before[0]:.1f} before, {load_after[0]:.1f} after. Each cell: longest event-loop "
        f"stall (a probe every {PROBE * 1e3:.0f} ms) / longest callback in loop-thread CPU · "
        "peak RSS of the process (the command's wall time when 1 s or more; the longest "
        "garbage collection when 10 ms or more).\n"
    )
    for section, columns in tables.items():
        sizes = list(columns)
        names: list[str] = []
        for found in columns.values():
            names += [n for n in found if n not in names]
        head = " | ".join(f"{shown(n)} {UNITS[section]}" for n in sizes)
        print(f"| {TITLES[section]} | {head} |")
        print("|---|" + "---|" * len(sizes))
        for name in names:
            cells = " | ".join(columns[n].get(name, "-") for n in sizes)
            print(f"| {name} | {cells} |")
        print()


if __name__ == "__main__":
    main()
