"""Instructions per command, before and after a change: ``bench/commands.py`` under callgrind.

Time on a shared 2-core box wanders by several per cent between runs of the same code
(``bench/compare.py`` prints the spread); the number of instructions the process executes for a
command barely moves. This runs ``bench/commands.py --only LABEL`` from each tree at two sizes
under valgrind's callgrind and divides the difference by the extra commands, so start-up,
migrations and the world's setup cancel out::

    .venv/bin/python bench/instructions.py --trees ../before . --only "/check (Pen"

PostgreSQL's figure moves by a per cent or two from run to run (how often the event loop wakes
while it waits for the server depends on timing), so ``--repeat N`` runs everything N times and
prints each side's median with its spread.

Each timed command of ``bench/commands.py`` comes with one of the framework's floor (a stub
bot answering /roll) and one of the durable floor (that stub also committing one roll row with
its sha256 link), run by the same SimCord in both trees, so the figure is instructions per
command plus the floors' commands; the difference after − before is the command's own.

``--ratio TREE`` instead gives one tree's command against both floors, in instructions: it also
runs ``--only "durable floor"`` (the floors alone) and ``--only "floor: stub"`` (the bare floor
alone), and subtracts (several commands: labels separated by ``|``)::

    .venv/bin/python bench/instructions.py --ratio . --only "/roll|/check (Pen|/gm roll" Counts the
bot's process only (a PostgreSQL server's work is another process). Needs valgrind
(``apt install valgrind``); a run is about 30 times slower than without it. Not a test.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

#: Timed commands per mode of one run: each size runs the command and the floor, 1 user and
#: 50 users, so a size of n is 4n commands.
SMALL, LARGE = 20, 220
_COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def instructions(tree: Path, size: int, only: str, extra: list[str]) -> int:
    """Instructions callgrind counted for one ``bench/commands.py`` run of ``tree``'s code."""
    folder = Path(tempfile.mkdtemp(prefix="bench-instructions-"))
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={folder / 'callgrind.out'}",
        sys.executable,
        "bench/commands.py",
        "--per-command",
        str(size),
        "--skip-memory",
        "--only",
        only,
        "--out",
        str(folder / "run.json"),
        *extra,
    ]
    # The tree's own bot package first on the path, whatever this venv has installed; a fixed
    # hash seed so dict and set layouts are the same in every run.
    env = {**os.environ, "PYTHONPATH": str(tree.resolve()), "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise RuntimeError(f"{tree}: {shlex.join(command)} failed:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def per_command(counts: dict[int, int]) -> float:
    """Instructions per (command + floor command): the large run's extra over the small's."""
    return (counts[LARGE] - counts[SMALL]) / (2 * (LARGE - SMALL))


def ratio(tree: Path, only: str, extra: list[str], jobs: int, shapes: bool = False) -> None:
    """SQLite: instructions of each command ``only`` names (labels separated by ``|``), the
    durable floor's and the bare floor's, each from runs that differ by it alone, and each
    command's ratio to both floors. ``shapes``: also each command's shape floor (the durable
    floor sending the command's messages and committing its rows: ``--shape-floors only``)."""
    labels = only.split("|")
    runs: dict[str, tuple[str, list[str]]] = {label: (label, []) for label in labels}
    runs |= {"floors": ("durable floor", []), "bare": ("floor: stub", [])}
    if shapes:
        runs |= {f"shape {label}": (label, ["--shape-floors", "only"]) for label in labels}
    with ThreadPoolExecutor(jobs) as pool:
        futures = {
            (name, size): pool.submit(instructions, tree, size, label, [*extra, *flags])
            for name, (label, flags) in runs.items()
            for size in (SMALL, LARGE)
        }
        counts = {key: future.result() for key, future in futures.items()}
    slope = {name: per_command({n: counts[(name, n)] for n in (SMALL, LARGE)}) for name in runs}
    durable = slope["floors"] - slope["bare"]
    bare = slope["bare"]
    print("`" + shlex.join(["python", "bench/instructions.py", *sys.argv[1:]]) + "`")
    print()
    head = "| SQLite | instructions a command | × floor | × durable floor |"
    rule = "|---|---|---|---|"
    if shapes:
        head += " shape floor | shape × durable floor | command × shape floor |"
        rule += "---|---|---|"
    print(head)
    print(rule)
    blank = " | | |" if shapes else ""
    print(f"| floor: stub bot | {bare:,.0f} | 1.00× | {bare / durable:.2f}× |{blank}")
    print(f"| durable floor | {durable:,.0f} | {durable / bare:.2f}× | 1.00× |{blank}")
    for label in labels:
        command = slope[label] - slope["floors"]
        row = f"| {label} | {command:,.0f} | {command / bare:.2f}× | {command / durable:.2f}× |"
        if shapes:
            # A shape floor's run plays the command once (to record it) and its shape floor
            # per timed command, so its slope is the floors' plus the shape floor's.
            shape = slope[f"shape {label}"] - slope["floors"]
            row += f" {shape:,.0f} | {shape / durable:.2f}× | {command / shape:.2f}× |"
        print(row)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--trees", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    parser.add_argument(
        "--ratio", type=Path, metavar="TREE", help="one tree's command against both floors"
    )
    parser.add_argument("--only", required=True, help="a command label, as bench/commands.py")
    parser.add_argument("--postgres", action="store_true", help="also run on PostgreSQL")
    parser.add_argument("--campaigns", type=int, default=5)
    parser.add_argument("--characters", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=2, help="runs at once (one per core)")
    parser.add_argument(
        "--shapes",
        action="store_true",
        help="with --ratio: also each command's shape floor (bench/commands.py --shape-floors)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each; medians are printed")
    parser.add_argument(
        "--rng",
        choices=("seeded", "fair"),
        default="seeded",
        help="the bot's dice, as bench/commands.py (fair: what production rolls)",
    )
    args = parser.parse_args()
    extra = ["--campaigns", str(args.campaigns), "--characters", str(args.characters)]
    extra += ["--rng", args.rng]
    if args.ratio is not None:
        ratio(args.ratio, args.only, [*extra, "--no-postgres"], args.jobs, args.shapes)
        return
    if args.trees is None:
        parser.error("--trees BEFORE AFTER or --ratio TREE")
    databases = [("SQLite", ["--no-postgres"])]
    if args.postgres:
        databases.append(("SQLite + PostgreSQL", []))
    jobs = [
        (side, tree, database, flags, size, i, run)
        for run in range(args.repeat)
        for database, flags in databases
        for side, tree in zip(("before", "after"), args.trees, strict=True)
        for i, size in enumerate((SMALL, LARGE))
    ]
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = {
            (side, database, size, run): pool.submit(
                instructions,
                tree,
                size,
                args.only,
                # Runs at once need their own PostgreSQL databases (each drops and creates its).
                [*extra, *flags, "--pg-database", f"pbp_bench_instr_{side}_{i}_{run}"],
            )
            for side, tree, database, flags, size, i, run in jobs
        }
        counts = {key: future.result() for key, future in futures.items()}
    print("`" + shlex.join(["python", "bench/instructions.py", *sys.argv[1:]]) + "`")
    print()
    # One figure per side, database and run; a run with PostgreSQL plays every command on SQLite
    # too, so PostgreSQL's figure is that run's less the SQLite run of the same repeat.
    figures: dict[tuple[str, str], list[float]] = {}
    for side in ("before", "after"):
        for run in range(args.repeat):
            runs = {
                database: per_command({n: counts[(side, database, n, run)] for n in (SMALL, LARGE)})
                for database, _ in databases
            }
            if args.postgres:
                runs["PostgreSQL"] = runs.pop("SQLite + PostgreSQL") - runs["SQLite"]
            for database, figure in runs.items():
                figures.setdefault((side, database), []).append(figure)
    spread = args.repeat > 1
    print(
        "| database | command (+ one floor command) | before | after | after − before | ratio |"
        + (" before (min–max) | after (min–max) |" if spread else "")
    )
    print("|---|---|---|---|---|---|" + ("---|---|" if spread else ""))
    for database in ("SQLite", "PostgreSQL") if args.postgres else ("SQLite",):
        old, new = figures[("before", database)], figures[("after", database)]
        a, b = statistics.median(old), statistics.median(new)
        row = f"| {database} | {args.only} | {a:,.0f} | {b:,.0f} | {b - a:+,.0f} | {b / a:.4f}× |"
        if spread:
            row += f" {min(old):,.0f}–{max(old):,.0f} | {min(new):,.0f}–{max(new):,.0f} |"
        print(row)


if __name__ == "__main__":
    main()
