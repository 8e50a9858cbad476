"""Compare runs of ``bench/commands.py`` from two trees: is any command slower?

Run from the repo root, with a checkout of the older code beside it (``git worktree add
../before <commit>``). ``--trees`` runs ``bench/commands.py`` from each tree in turn, the order
alternating pair by pair (after, before, before, after, ...) so a noisy neighbour hits both
alike, and compares; anything after ``--`` goes to ``bench/commands.py``::

    .venv/bin/python bench/compare.py --trees ../before . --pairs 4 -- --per-command 1000 \
        --skip-memory --campaigns 50 --characters 500

``--before``/``--after`` compare the JSON files of runs made by hand instead.

One run on a shared 2-core box can differ from the next by half (measured: docs/performance.md,
"Before and after a change"), so a single before/after pair proves nothing. This prints, per
command and database, the median over the runs of each side of three figures (CPU p50 to
complete with one user, CPU per command with 50 users at once, and wall p50 to complete), the
ratio after/before, and the spread (min–max over runs) so a reader can see whether a difference
is larger than the noise. Not a test: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

#: (label, mode, key) of the figures compared, in the order printed.
FIGURES = (
    ("CPU p50 to complete, 1 user", "sequential", "cpu_complete_p50_ms"),
    ("CPU a command, 50 users", "concurrent_50", "cpu_per_command_ms"),
    ("wall p50 to complete, 1 user", "sequential", "complete_p50_ms"),
)


def _load(paths: list[Path]) -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in paths]


def _figures(runs: list[dict[str, Any]]) -> dict[tuple[str, str, str], list[float]]:
    """(database, command, figure label) -> one value per run."""
    found: dict[tuple[str, str, str], list[float]] = {}
    for run in runs:
        for database, result in run["databases"].items():
            commands = {"floor: stub bot": result["floor"], **result["commands"]}
            for command, modes in commands.items():
                for label, mode, key in FIGURES:
                    value = modes.get(mode, {}).get(key)
                    if value is not None:
                        found.setdefault((database, command, label), []).append(value)
    return found


def _cell(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}–{max(values):.3f})"


def table(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    """The markdown table: medians, spread and ratio per command and figure."""
    old, new = _figures(before), _figures(after)
    lines = [
        f"before: {len(before)} runs, after: {len(after)} runs; ms, median (min–max) over runs",
        "",
        "| database | command | figure | before | after | after / before |",
        "|---|---|---|---|---|---|",
    ]
    for key in old:
        if key not in new:
            continue
        database, command, label = key
        ratio = statistics.median(new[key]) / statistics.median(old[key])
        lines.append(
            f"| {database} | {command} | {label} | {_cell(old[key])} | {_cell(new[key])} "
            f"| {ratio:.2f}× |"
        )
    return "\n".join(lines)


def _without_out(command: str) -> str:
    """A run's command without its ``--out FILE`` (the one thing that differs between runs)."""
    words = shlex.split(command.strip("`"))
    if "--out" in words:
        at = words.index("--out")
        del words[at : at + 2]
    return shlex.join(words)


def _run(tree: Path, out: Path, extra: list[str]) -> None:
    """One ``bench/commands.py`` run of ``tree``'s code (its own ``bot`` package first on the
    path, whatever this venv has installed), its JSON written to ``out``."""
    env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
    command = [sys.executable, "bench/commands.py", *extra, "--out", str(out)]
    subprocess.run(command, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)


def _alternate(before: Path, after: Path, pairs: int, extra: list[str]) -> tuple[list[Path], ...]:
    runs: tuple[list[Path], list[Path]] = ([], [])
    folder = Path(tempfile.mkdtemp(prefix="bench-compare-"))
    for pair in range(pairs):
        order = [(1, after), (0, before)] if pair % 2 == 0 else [(0, before), (1, after)]
        for side, tree in order:
            out = folder / f"{'after' if side else 'before'}-{pair + 1}.json"
            _run(tree, out, extra)
            runs[side].append(out)
            print(f"  {out.stem}: done", file=sys.stderr)
    return runs


def main(argv: list[str] | None = None) -> None:
    args_in = sys.argv[1:] if argv is None else argv
    extra: list[str] = []
    if "--" in args_in:
        at = args_in.index("--")
        args_in, extra = args_in[:at], args_in[at + 1 :]
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--trees", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--before", type=Path, nargs="+")
    parser.add_argument("--after", type=Path, nargs="+")
    args = parser.parse_args(args_in)
    if args.trees:
        before_files, after_files = _alternate(*args.trees, args.pairs, extra)
    elif args.before and args.after:
        before_files, after_files = args.before, args.after
    else:
        parser.error("give --trees BEFORE AFTER, or --before FILES and --after FILES")
    print("`" + shlex.join(["python", "bench/compare.py", *sys.argv[1:]]) + "`")
    print()
    before, after = _load(before_files), _load(after_files)
    for command in sorted({_without_out(run["command"]) for run in before + after}):
        print(f"each run: `{command}`")
    print()
    print(table(before, after))


if __name__ == "__main__":
    main()
