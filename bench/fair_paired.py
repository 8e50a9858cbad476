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
import shlex
import sys
import time

import commands as cmd

#: The commands whose fair-dice cost has a target (docs/fair-dice.md: within 5% of the seeded
#: baseline), and the others that draw fair dice, for comparison.
DEFAULT_ONLY = "/roll|/check|/groupsave|/gm roll"


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
    results = asyncio.run(cmd.run_paired(labels, args.per_command, postgres=not args.no_postgres))
    line = shlex.join([".venv/bin/python", "bench/fair_paired.py", *sys.argv[1:]])
    print(f"\n`{line}`\n")
    print(cmd.paired_table(results))
    print(f"\nmachine: {cmd.machine()}")
    print(f"before: {before}\nafter:  {cmd.uptime()}  ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
