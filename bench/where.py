"""Where a command's CPU goes, by area, against the durable floor: cProfile inside the harness.

Run from the repo root::

    .venv/bin/python bench/where.py --only "/check (d20" --count 2000

Each command (and the durable floor, the stub bot committing one roll row with its sha256
link) runs as ``bench/commands.py`` runs it: the real bot built by ``create_bot`` in SimCord,
one user at a time, 20 untimed commands first. The profiler is on only while the timed
commands are in flight, so the world's setup and SimCord's settling between batches stay out.

Every function's own time is charged to an area: ours by package (the cogs and the tree, the
services by area, the ledger's sealing, rules and dice, rendering, the database adapter),
SQLAlchemy, discord.py, SimCord (its emulated REST and gateway), the event loop. Time in the
standard library or a builtin (``hashlib``, ``json``, ``copy``, sqlite3's C calls) is charged
to whoever called it, split by the calls' own times, so ``json.dumps`` from SQLAlchemy's JSON
type counts as SQLAlchemy and ``copy.deepcopy`` from SimCord as SimCord. The table gives µs
per command for each area, the floor's, and the difference: what the command adds. cProfile
inflates Python-heavy code more than C calls, so read the shares, not the absolute figures.
Times are the loop thread's CPU time (``time.thread_time``), so other processes on a shared
machine do not count; aiosqlite's worker thread is not profiled (the bot runs a transaction's
statements on the loop's thread; only a wait for the write lock or a checkpoint goes there).
Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import pstats
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import commands as cmd
import simcord

from bot.app import create_bot
from bot.config import Settings

ROOT = Path(__file__).resolve().parents[1]

#: (path fragment, area), the first that matches wins; our code by package.
AREAS: list[tuple[str, str]] = [
    ("/bench/", "bench harness"),
    ("bot/services/kit/commitments", "ours: sealing (commitments)"),
    ("bot/services/store/ledger", "ours: ledger (record, chain)"),
    ("bot/services/trust/", "ours: trust (secrecy, fair dice)"),
    ("bot/services/store/", "ours: store (campaigns, characters)"),
    ("bot/services/kit/", "ours: kit (budgets, sql, context)"),
    ("bot/services/", "ours: rolling services"),
    ("bot/render/", "ours: render"),
    ("bot/rules/", "ours: rules"),
    ("bot/dice/", "ours: dice"),
    ("bot/db/", "ours: db adapter"),
    ("bot/cogs/", "ours: cogs, delivery"),
    ("bot/", "ours: tree, ops, wrapper"),
    ("/sqlalchemy/", "SQLAlchemy"),
    ("/aiosqlite/", "aiosqlite"),
    ("/asyncpg/", "asyncpg"),
    ("/discord/", "discord.py"),
    ("/simcord/", "SimCord"),
    ("/prometheus_client/", "prometheus_client"),
    ("/pydantic", "pydantic"),
    ("/asyncio/", "event loop"),
]
#: The standard library and builtins: charged to their callers.
_STDLIB_MARKERS = ("/lib/python3", "<frozen", "<string>", "~")


def area_of(func: tuple[str, int, str]) -> str | None:
    """The area of a profiled function, or None for the standard library (charged onward)."""
    filename = func[0]
    if filename.startswith("/") or filename.startswith("."):
        path = str(Path(filename).resolve()) if filename.startswith(".") else filename
        for fragment, area in AREAS:
            if fragment in path:
                if fragment == "/asyncio/" and "site-packages" in path:
                    continue
                return area
        if "site-packages" in path:
            return "other packages"
    if any(filename.startswith(m) or m in filename for m in _STDLIB_MARKERS):
        if "/asyncio/" in filename:
            return "event loop"
        return None
    return "other"


def by_area(stats: pstats.Stats) -> dict[str, float]:
    """Seconds of own time per area, the standard library's charged to its callers."""
    raw: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    totals: dict[str, float] = defaultdict(float)
    memo: dict[Any, dict[str, float]] = {}

    def shares(func: Any, depth: int, seen: frozenset[Any]) -> dict[str, float]:
        """How one second of ``func``'s own time splits over areas (via its callers); empty
        when every caller is already on the path (a recursion of the standard library, such
        as ``deepcopy`` and ``_deepcopy_dict``: the callers outside the cycle decide)."""
        area = area_of(func)
        if area is not None:
            return {area: 1.0}
        if func in memo:
            return memo[func]
        split: dict[str, float] = defaultdict(float)
        total = 0.0
        if depth <= 30:
            for caller, stats in raw[func][4].items():
                if caller in seen or stats[2] <= 0:
                    continue
                found = shares(caller, depth + 1, seen | {func})
                if found:
                    total += stats[2]
                    for name, share in found.items():
                        split[name] += share * stats[2]
        result = {name: value / total for name, value in split.items()} if total else {}
        if depth == 0:
            memo[func] = result or {"stdlib (no caller)": 1.0}
            return memo[func]
        return result

    for func, (_cc, _nc, tt, _ct, _callers) in raw.items():
        for area, share in shares(func, 0, frozenset()).items():
            totals[area] += tt * share
    return totals


async def profile_bot(url: str, label: str, count: int, fair: bool) -> cProfile.Profile:
    """``count`` timed commands of scenario ``label`` (or the durable floor) under cProfile."""
    # This thread's CPU time, not the wall clock: on a shared machine a profile in wall time
    # charges the other tenants' time slices to whatever function was running.
    profiler = cProfile.Profile(time.thread_time_ns, 1e-9)
    if label == cmd.DURABLE[0]:
        bot: Any = cmd.DurableFloorBot(url)
        async with simcord.run(bot) as env:
            cmd.instrument(bot)
            cmd.fast_callbacks(env)
            _, _, _, users, channels = cmd.build_server(env)
            world = cmd.World(env, channels, users)
            _, command, options, where = cmd.DURABLE
            for i, user in enumerate(users):
                world.payloads[(label, i)] = cmd.command_data(
                    user, channels[where], command, options
                )
            await run(world, label, count, profiler)
        await bot.close()
        return profiler
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_url=url, shard_count=1, **cmd.UNLIMITED
    )
    bot = create_bot(settings, rng=cmd.make_rng(fair), freeze_heap=True)
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(bot.close_database)
        env = await stack.enter_async_context(simcord.run(bot))
        cmd.instrument(bot)
        cmd.fast_callbacks(env)
        world = await cmd.build_world(env, bot)
        await cmd.first_answer(world, label)
        await run(world, label, count, profiler)
    return profiler


async def run(world: cmd.World, label: str, count: int, profiler: cProfile.Profile) -> None:
    """As ``bench/commands.py``'s one-user mode: 20 untimed, then ``count`` profiled."""
    env = world.env
    where = next(s[3] for s in [*cmd.FLOORS, *cmd.SCENARIOS] if s[0] == label)
    channel = world.channels[where]
    for i in range(20 + count):
        u = i % cmd.USERS
        if i >= 20:
            profiler.enable()
        sample = cmd.emit(env, world.users[u], channel, world.payloads[(label, u)])
        await sample.done
        profiler.disable()
        if sample.complete is None:
            raise RuntimeError(f"{label}: an interaction was not answered")
        if i % 500 == 499:
            await cmd.settle(env)
    await cmd.settle(env)
    cmd._SAMPLES.clear()


async def main_async(args: argparse.Namespace) -> None:
    parts = args.only.split("|")
    labels = [s[0] for s in cmd.SCENARIOS if any(p in s[0] for p in parts)]
    if not labels:
        raise SystemExit(f"no command label contains {args.only!r}")
    kind = "PostgreSQL" if args.postgres else "SQLite"
    cmd.PG_DB = args.pg_database
    floor = await cmd.with_database(
        kind, lambda url: profile_bot(url, cmd.DURABLE[0], args.count, False)
    )
    floor_areas = by_area(pstats.Stats(floor))
    if args.dump:
        floor.dump_stats(args.dump.with_suffix(".floor.prof"))
    for label in labels:
        profiler = await cmd.with_database(
            kind, lambda url, label=label: profile_bot(url, label, args.count, args.rng == "fair")
        )
        stats = pstats.Stats(profiler)
        areas = by_area(stats)
        report(label, kind, args.count, areas, floor_areas)
        if args.top:
            print(f"\nTop {args.top} functions by own time ({label}):\n```")
            stats.sort_stats("tottime").print_stats(args.top)
            print("```")
        if args.dump:
            stats.dump_stats(args.dump.with_suffix(f".{labels.index(label)}.prof"))


def report(
    label: str, kind: str, count: int, areas: dict[str, float], floor: dict[str, float]
) -> None:
    per = 1e6 / count
    total, floor_total = sum(areas.values()), sum(floor.values())
    print(f"\n{kind}, {label}: cProfile own time per command (µs), {count} commands each\n")
    print("| area | command | durable floor | command − floor | share of the difference |")
    print("|---|---:|---:|---:|---:|")
    diff_total = (total - floor_total) * per
    for area in sorted(set(areas) | set(floor), key=lambda a: -(areas.get(a, 0) - floor.get(a, 0))):
        a, f = areas.get(area, 0.0) * per, floor.get(area, 0.0) * per
        print(f"| {area} | {a:,.0f} | {f:,.0f} | {a - f:+,.0f} | {(a - f) / diff_total:.0%} |")
    print(
        f"| **total** | {total * per:,.0f} | {floor_total * per:,.0f} | {diff_total:+,.0f} | "
        f"× {total / floor_total:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", required=True, help="command labels, as bench/commands.py")
    parser.add_argument("--count", type=int, default=1000, help="profiled commands")
    parser.add_argument("--postgres", action="store_true", help="on PostgreSQL, not SQLite")
    parser.add_argument("--pg-database", default="pbp_bench_profile")
    parser.add_argument("--rng", choices=("seeded", "fair"), default="seeded")
    parser.add_argument("--top", type=int, default=0, help="also print the top N functions")
    parser.add_argument("--dump", type=Path, help="also write pstats files (PATH.N.prof)")
    args = parser.parse_args()
    print(f"`.venv/bin/python bench/where.py {' '.join(sys.argv[1:])}`")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
