"""Provably fair dice against the seeded baseline, paired: one bot, one simulated server, the
two dice sources alternating command by command.

Run from the repo root: ``.venv/bin/python bench/fair_paired.py`` (``--per-command``,
``--only``, ``--no-postgres``, ``--pg-database``), or ``bench/commands.py --paired``, which adds
its table to that run's. Prints a markdown table and the command that made it. Not a test: the
numbers depend on the machine.

``bench/commands.py --rng both`` measures the two sources in two phases, one after the other;
on a shared machine the load moves between phases (its own floors differ by up to 1.5x between
phases), which swamps a difference of a few per cent. Here each timed command of a scenario is
preceded by the same command with the other source, the order flipping every pair, so drift
and load fall on both alike. The bot is the one production builds (``create_bot``), its dice
switched between :class:`bot.dice.fair.FairDice` (production) and a seeded
``random.Random`` (the baseline, what tests inject) by setting ``bot.rng`` between commands,
the way every command reads it. Each sample is one command's process CPU (``process_time``,
every thread of this process) from emitting the interaction to the handler's return, as in
``bench/commands.py``; the table gives each source's median, the fair one's difference, and
the median of the per-pair differences (fair minus seeded, each pair measured back to back).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import shlex
import statistics
import sys
import time
from typing import Any

import commands as cmd
import simcord

from bot.app import create_bot
from bot.config import Settings
from bot.dice.fair import FairDice

#: The commands whose fair-dice cost has a target (docs/fair-dice.md: within 5% of the seeded
#: baseline), and the others that draw fair dice, for comparison.
DEFAULT_ONLY = "/roll|/check|/groupsave|/gm roll"


async def paired(url: str, per_command: int, labels: list[str]) -> dict[str, Any]:
    """Per scenario: ``per_command`` pairs (seeded, fair or fair, seeded) on one bot."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_url=url, shard_count=1, **cmd.UNLIMITED
    )
    fair, seeded = FairDice(), random.Random(1)
    bot = create_bot(settings, rng=fair, freeze_heap=True)
    out: dict[str, Any] = {}
    async with contextlib.AsyncExitStack() as stack:
        stack.push_async_callback(bot.close_database)  # SimCord detaches, never closes
        env = await stack.enter_async_context(simcord.run(bot))
        cmd.instrument(bot)
        cmd.fast_callbacks(env)
        world = await cmd.build_world(env, bot)
        for label in labels:
            await cmd.first_answer(world, label)
            where = next(s[3] for s in cmd.SCENARIOS if s[0] == label)
            channel = world.channels[where]
            cpu: dict[str, list[float]] = {"seeded": [], "fair": []}
            for i in range(20 + per_command):  # the first 20 pairs warm up, untimed
                order = (("seeded", seeded), ("fair", fair))
                for name, source in order if i % 2 == 0 else order[::-1]:
                    bot.rng = source
                    u = i % cmd.USERS
                    sample = cmd.emit(env, world.users[u], channel, world.payloads[(label, u)])
                    await sample.done
                    if sample.cpu_complete is None:
                        raise RuntimeError(f"{label}: an interaction was not answered")
                    if i >= 20:
                        cpu[name].append((sample.cpu_complete - sample.cpu_emitted) * 1000)
                if i % 100 == 99:
                    await cmd.settle(env)
            await cmd.settle(env)
            cmd._SAMPLES.clear()
            s50, f50 = statistics.median(cpu["seeded"]), statistics.median(cpu["fair"])
            diffs = [f - s for s, f in zip(cpu["seeded"], cpu["fair"], strict=True)]
            half = len(diffs) // 2
            out[label] = {
                "pairs": len(diffs),
                "seeded_p50_ms": s50,
                "fair_p50_ms": f50,
                "fair_vs_seeded": f50 / s50 - 1,
                "pair_diff_p50_ms": statistics.median(diffs),
                # The same figure over each half of the run: how steady it is.
                "halves": [
                    statistics.median(cpu["fair"][:half]) / statistics.median(cpu["seeded"][:half])
                    - 1,
                    statistics.median(cpu["fair"][half:]) / statistics.median(cpu["seeded"][half:])
                    - 1,
                ],
            }
            print(f"  {label}: done", file=sys.stderr)
        bot.rng = fair
    return out


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| database | command | pairs | seeded CPU p50 | fair CPU p50 | fair vs seeded "
        "| first half / second half | median pair difference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for kind, rows in results.items():
        for label, r in rows.items():
            a, b = r["halves"]
            lines.append(
                f"| {kind} | {label} | {r['pairs']} | {r['seeded_p50_ms']:.3f} ms "
                f"| {r['fair_p50_ms']:.3f} ms | {r['fair_vs_seeded']:+.1%} | {a:+.1%} / {b:+.1%} "
                f"| {r['pair_diff_p50_ms'] * 1000:+.0f} µs |"
            )
    return "\n".join(lines)


async def run(labels: list[str], per_command: int, postgres: bool) -> dict[str, dict[str, Any]]:
    """:func:`paired` on a fresh SQLite database, then (``postgres``) a PostgreSQL one."""
    kinds = ["SQLite", "PostgreSQL"] if postgres else ["SQLite"]
    results: dict[str, dict[str, Any]] = {}
    for kind in kinds:
        print(f"{kind}: pairs", file=sys.stderr)
        try:
            results[kind] = await cmd.with_database(
                kind, lambda url: paired(url, per_command, labels)
            )
        except OSError as exc:  # no PostgreSQL server
            print(f"{kind} skipped: {exc}", file=sys.stderr)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--per-command", type=int, default=1000, help="timed pairs per command")
    parser.add_argument(
        "--only", default=DEFAULT_ONLY, help="commands whose label contains TEXT (TEXT|TEXT|...)"
    )
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument(
        "--pg-database",
        default="pbp_bench_fair",
        help="the throwaway PostgreSQL database (dropped and created; default %(default)s)",
    )
    args = parser.parse_args()
    cmd.PG_DB = args.pg_database
    before = cmd.uptime()
    started = time.perf_counter()
    parts = args.only.split("|")
    labels = [s[0] for s in cmd.SCENARIOS if any(p in s[0] for p in parts)]
    results = asyncio.run(run(labels, args.per_command, postgres=not args.no_postgres))
    line = shlex.join([".venv/bin/python", "bench/fair_paired.py", *sys.argv[1:]])
    print(f"\n`{line}`\n")
    print(table(results))
    print(f"\nmachine: {cmd.machine()}")
    print(f"before: {before}\nafter:  {cmd.uptime()}  ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
