"""Is any dice expression slower than before? Two trees' engines, interleaved, one run.

    .venv/bin/python bench/dice_compare.py --trees /work/main .

Each tree's ``bot.dice`` runs in a worker process of its own (``PYTHONPATH`` set to the tree);
the driver asks them in turn, before/after alternating, to roll each expression of
``bench/dice.py`` (``EXPRESSIONS``, the ``ADVERSARIAL`` inputs' parse + roll with caches
cleared, and the exact odds of ``tests/dice/odds_corpus.py``) and reports each side's minimum
CPU time over the rounds: the minimum is what the code costs when no neighbour interferes, and
alternating spreads a busy moment over both sides. The spread column (median/min of the
after side) shows how noisy the box was. Not a test: nothing here asserts timings.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WORKER = r"""
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from bot.dice import DiceError, exact_odds, parse, roll_many
from bot.dice.batch import _parse_many_cached
from bot.dice.odds import _odds
from bot.dice.parser import _parse_cached
for line in sys.stdin:
    kind, expr, n = json.loads(line)
    rng = random.Random(0)
    t = time.process_time()
    for _ in range(n):
        try:
            if kind == "roll":
                roll_many(expr, rng)
            elif kind == "hostile":
                _parse_cached.cache_clear()
                _parse_many_cached.cache_clear()
                roll_many(expr, rng)
            else:
                _odds.cache_clear()
                exact_odds(parse(expr))
        except DiceError:
            pass
    print(json.dumps((time.process_time() - t) / n * 1e6), flush=True)
"""


def _load(name: str, path: Path) -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trees", nargs=2, metavar=("BEFORE", "AFTER"), required=True)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    bench = _load("bench_dice", ROOT / "bench" / "dice.py")
    corpus = _load("odds_corpus", ROOT / "tests" / "dice" / "odds_corpus.py").odds_corpus()
    jobs = [("roll", e, 1000) for e in bench.EXPRESSIONS]  # type: ignore[attr-defined]
    jobs += [("hostile", e, 3) for e in bench.ADVERSARIAL]  # type: ignore[attr-defined]
    jobs += [("odds", e, 2) for e in corpus]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(Path(tree).resolve())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd="/",
        )
        for tree in args.trees
    ]
    times: dict[int, list[list[float]]] = {i: [[], []] for i in range(len(jobs))}
    for r in range(args.rounds):
        for i, job in enumerate(jobs):
            order = (0, 1) if (r + i) % 2 == 0 else (1, 0)
            for side in order:
                w = workers[side]
                assert w.stdin is not None and w.stdout is not None
                w.stdin.write(json.dumps(job) + "\n")
                w.stdin.flush()
                times[i][side].append(float(w.stdout.readline()))
    for w in workers:
        assert w.stdin is not None
        w.stdin.close()
        w.wait()
    print(f"Command: `.venv/bin/python bench/dice_compare.py --trees {' '.join(args.trees)}`")
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(
        f"Minimum CPU µs per call over {args.rounds} interleaved rounds (load average {load}); "
        "spread = median/min of the after side.\n"
    )
    print("| kind | expression | before µs | after µs | after/before | spread |")
    print("|---|---|---:|---:|---:|---:|")
    ratios = []
    for i, (kind, expr, _) in enumerate(jobs):
        before, after = min(times[i][0]), min(times[i][1])
        ratio = after / before if before else 1.0
        ratios.append((ratio, kind, expr))
        spread = statistics.median(times[i][1]) / after if after else 1.0
        print(
            f"| {kind} | {bench.show(expr)} | {before:.1f} | {after:.1f} | "  # type: ignore[attr-defined]
            f"{ratio:.2f} | {spread:.2f} |"
        )
    worst = sorted(ratios, reverse=True)[:5]
    print("\nLargest after/before:", ", ".join(f"{k} `{e[:30]}` {r:.2f}" for r, k, e in worst))


if __name__ == "__main__":
    main()
