"""Benchmark: our dice engine against the d20 library (Avrae), same expressions, one run;
then our exact odds (``/odds roll``) over a fuzzed corpus.

Run from the repo root: ``.venv/bin/python bench/dice.py`` (``--odds`` for the odds section
only, ``--render`` for rendering the largest roll only, ``--fair`` for the cost per die of the
provably fair source against the operating system's, ``--ours`` for our engine alone, without
d20: with ``PYTHONPATH=<another checkout>`` it times that checkout's engine, for before/after).
d20 pins an old lark-parser, so it runs in its own throwaway virtualenv (bench/.d20-venv/,
created on first run) as a subprocess that prints JSON. Ours rolls with
``secrets.SystemRandom()``; d20 with its default. Each adversarial input is run by d20 in its
own subprocess with a timeout, so a stall cannot hang the bench. This is a script, not a test:
nothing here asserts timings.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import secrets
import statistics
import subprocess
import sys
import textwrap
import time
import timeit
from collections.abc import Callable, Iterator
from pathlib import Path

from bot.dice import DiceError, exact_odds, parse, render_markdown, roll, roll_many
from bot.dice.batch import _parse_many_cached
from bot.dice.limits import MAX_ODDS_COST
from bot.dice.odds import OddsMeter, _odds
from bot.dice.parser import Expression, _parse_cached

ROOT = Path(__file__).resolve().parent.parent

VENV = ROOT / "bench" / ".d20-venv"
VENV_PY = VENV / "bin" / "python"
TIMEOUT = 20.0
REPEATS = 7

EXPRESSIONS = [
    "1d20",
    "1d20+5",
    "2d20kh1+3",
    "4d6kh3",
    "8d6",
    "1d20+1d4+3",
    "10d10e10",
    "(1d20+5)*2 [fire]",
    # Other bots' notation both engines read the same way (docs/dice.md).
    "4d6k<3",
    "10d6p>3",
    "3d6kh2pl1",
    "2d6ro<3",
    "2d6ra1",
    "1d20+5 >= 15",
    "(1d4, 2+2, 3d6kl1)kh1",
    "((10d6kh5)kl2)kh1",
    "(1d8e8, 1d6e6)kh1",
    # Readings other bots make differently (said in the answer; docs/dice.md, dialects).
    "3d6dh1dl1",
    "10d6>4",
    "1d20+2*3",
]

ADVERSARIAL = [
    "1d1e1",
    "1000d20" + "k>0" * 10,
    "(" * 500 + "1" + ")" * 500,
    "1" + "+1" * 400,
    "9" * 4301,
    "9999999d9999999",
    "1d20rr<20",
    "10d10e1",
    "1000d20",
    "1000d20kh500",
    "90d6e",
    "-" * 999 + "1",
    "1" + "*9" * 200,
    "x" * 100_000,
    # Other bots' notation.
    "(" + ", ".join(["50d20kh25"] * 20) + ")kh10",
    "(" * 20 + "1d20, 1" + ")kh1" * 20,
    "1000d20k>5k<15kh900pl3",
    "1000d20" + "p>0" * 10,
    "90d6!!kh3",
    "1000dF",
    "20#50d20kh25",
    "1d20;" * 20,
]


def ensure_venv() -> None:
    """Create the d20 virtualenv once."""
    if VENV_PY.exists():
        return
    print("creating", VENV, "(pip install d20) ...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(VENV_PY), "-m", "pip", "install", "-q", "d20"], check=True)


D20_SPEED = textwrap.dedent(
    """
    import json, statistics, sys, timeit
    import d20
    exprs, repeats = json.loads(sys.stdin.read())
    out = {}
    for e in exprs:
        n = 2000
        times = timeit.repeat(lambda: d20.roll(e), number=n, repeat=repeats)
        out[e] = statistics.median(times) / n * 1e6
    print(json.dumps(out))
    """
)

D20_ONE = textwrap.dedent(
    """
    import json, sys, time
    import d20
    sys.setrecursionlimit(1000)
    expr = sys.stdin.read()
    worst, outcome = 0.0, "ok"
    for _ in range(3):
        t = time.process_time()
        try:
            d20.roll(expr)
        except Exception as exc:
            outcome = type(exc).__name__
        worst = max(worst, time.process_time() - t)
    print(json.dumps([worst * 1e3, outcome]))
    """
)


def d20_speed() -> dict[str, float]:
    proc = subprocess.run(
        [str(VENV_PY), "-c", D20_SPEED],
        input=json.dumps([EXPRESSIONS, REPEATS]),
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float] = json.loads(proc.stdout)
    return result


def d20_adversarial(expr: str) -> tuple[float | None, str]:
    try:
        proc = subprocess.run(
            [str(VENV_PY), "-c", D20_ONE],
            input=expr,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return None, f"timeout >{TIMEOUT:.0f}s"
    if proc.returncode != 0:
        return None, "crashed: " + (proc.stderr.strip().splitlines() or ["?"])[-1][:60]
    ms, outcome = json.loads(proc.stdout)
    return float(ms), str(outcome)


def ours_speed() -> dict[str, float]:
    rng = secrets.SystemRandom()
    out = {}
    for e in EXPRESSIONS:
        n = 2000
        times = timeit.repeat(lambda e=e: roll(e, rng), number=n, repeat=REPEATS)
        out[e] = statistics.median(times) / n * 1e6
    return out


def ours_adversarial(expr: str) -> tuple[float, float, str]:
    """Worst CPU time and worst wall-clock time of parse (caches cleared) + roll over
    repeats, in ms: CPU is the engine's own work, wall adds what other processes took."""
    rng = secrets.SystemRandom()
    cpu, wall, outcome = 0.0, 0.0, "ok"
    for _ in range(REPEATS):
        _parse_cached.cache_clear()
        _parse_many_cached.cache_clear()
        t = time.process_time()
        t0 = time.perf_counter()
        try:
            roll_many(expr, rng)  # the /roll path: repeats and ; included
        except DiceError:
            outcome = "DiceError"
        cpu = max(cpu, time.process_time() - t)
        wall = max(wall, time.perf_counter() - t0)
    return cpu * 1e3, wall * 1e3, outcome


RENDERED = "1000d20kh500"


def render_section() -> None:
    """Rendering the largest legal roll against rolling it (CPU ms, median)."""
    rng = secrets.SystemRandom()
    parsed = parse(RENDERED)
    results = [roll(parsed, rng) for _ in range(50)]
    rolls, renders = [], []
    for result in results:
        t = time.process_time()
        roll(parsed, rng)
        rolls.append(time.process_time() - t)
        t = time.process_time()
        render_markdown(result)
        renders.append(time.process_time() - t)
    print(f"\nRendering the largest legal roll: median CPU ms over {len(results)} rolls.\n")
    print("| expression | roll ms | render_markdown ms (2,000 chars) |")
    print("|---|---:|---:|")
    print(
        f"| `{RENDERED}` | {statistics.median(rolls) * 1e3:.2f} "
        f"| {statistics.median(renders) * 1e3:.2f} |"
    )


def show(expr: str) -> str:
    text = expr if len(expr) <= 28 else f"{expr[:18]}… ({len(expr)} chars)"
    return "`" + text.replace("|", "\\|") + "`"


def odds_corpus() -> list[str]:
    """The tests' fuzzed corpus (tests/dice/odds_corpus.py), loaded by path: tests/ is not
    an installed package."""
    path = ROOT / "tests" / "dice" / "odds_corpus.py"
    spec = importlib.util.spec_from_file_location("odds_corpus", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    corpus: list[str] = module.odds_corpus()
    return corpus


class _Unmetered(OddsMeter):
    """Counts but never refuses: only the static estimate guards, as before the meter."""

    def charge(self, steps: int) -> None:
        self.used += steps


ODDS_REPEATS = 3
SLOWEST = 6
SERVED = "served: estimate + meter"
BEFORE = "estimate only (the guard before)"
#: How exact odds are computed: as served (estimate + meter, cache cleared, so each call is a
#: first call), the estimate alone (the old guard), the meter alone (the guarantee).
ODDS_ENGINES: dict[str, Callable[[Expression], object]] = {
    SERVED: lambda e: (_odds.cache_clear(), exact_odds(e)),
    BEFORE: lambda e: exact_odds(e, _Unmetered(MAX_ODDS_COST)),
    "meter alone (no estimate)": lambda e: exact_odds(e, OddsMeter(precheck=False)),
}


def odds_time(run: Callable[[Expression], object], expr: Expression) -> tuple[float, float, bool]:
    """Median CPU ms and median wall-clock ms over repeats, and whether odds were refused."""
    cpu, wall, refused = [], [], False
    for _ in range(ODDS_REPEATS):
        t = time.process_time()
        t0 = time.perf_counter()
        try:
            run(expr)
        except DiceError:
            refused = True
        cpu.append(time.process_time() - t)
        wall.append(time.perf_counter() - t0)
    return statistics.median(cpu) * 1e3, statistics.median(wall) * 1e3, refused


def odds_section() -> None:
    corpus = odds_corpus()
    exprs = [parse(text) for text in corpus]
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(
        f"\nExact odds (`/odds roll`) over the fuzzed corpus (tests/dice/odds_corpus.py: "
        f"{len(corpus)} expressions, the hand-made known-bad ones first). Per expression the "
        f"median of {ODDS_REPEATS} first calls (cache cleared); CPU ms is the engine's own "
        f"work, wall ms adds what other processes took (load average {load}).\n"
    )
    print(
        "| engine | worst CPU ms | worst wall ms | slowest expression | median CPU ms | refused |"
    )
    print("|---|---:|---:|---|---:|---:|")
    results = {}
    for name, run in ODDS_ENGINES.items():
        rows = [(*odds_time(run, e), text) for e, text in zip(exprs, corpus, strict=True)]
        results[name] = rows
        cpu, _, _, text = max(rows)
        wall = max(r[1] for r in rows)
        median = statistics.median(r[0] for r in rows)
        refused = sum(r[2] for r in rows)
        print(
            f"| {name} | {cpu:.1f} | {wall:.1f} | `{text}` | {median:.3f} "
            f"| {refused} / {len(rows)} |"
        )
    before, now = results[BEFORE], results[SERVED]
    print(f"\nThe {SLOWEST} slowest under the estimate alone, and as served now (CPU ms):\n")
    print("| expression | estimate only | served | served outcome |")
    print("|---|---:|---:|---|")
    slowest = sorted(range(len(corpus)), key=lambda i: before[i][0], reverse=True)[:SLOWEST]
    for i in slowest:
        outcome = "refused" if now[i][2] else "exact odds"
        print(f"| `{corpus[i]}` | {before[i][0]:.1f} | {now[i][0]:.3f} | {outcome} |")


def ours_only() -> None:
    """Our engine alone (no d20): rolls, adversarial inputs, exact odds."""
    import bot.dice

    print("Command: `.venv/bin/python bench/dice.py --ours`")
    print(f"Engine: {Path(bot.dice.__file__).parent}")
    print(f"Python {sys.version.split()[0]}; median of {REPEATS} repeats, µs per roll.\n")
    ours = ours_speed()
    print("| expression | ours (SystemRandom) µs |")
    print("|---|---:|")
    for e in EXPRESSIONS:
        print(f"| {show(e)} | {ours[e]:.2f} |")
    print("\n| input | ours CPU ms | ours outcome |")
    print("|---|---:|---|")
    for e in ADVERSARIAL:
        oms, _, oout = ours_adversarial(e)
        print(f"| {show(e)} | {oms:.3f} | {oout} |")
    odds_section()


#: Rolls timed by ``--fair``: one die, a handful, many, exploding (more dice drawn in order).
FAIR_ROLLS = ["1d20", "1d20+5", "4d6kh3", "8d6", "100d6", "1000d20", "10d10e10", "4dF"]


def fair_section() -> None:
    """Cost per die: the provably fair source (a new FairRandom per roll, as the bot makes one
    per command: HMAC-SHA256, 4 dice a block) against ``secrets.SystemRandom`` (today's)."""
    from bot.dice.fair import FairRandom, player_key

    seed = secrets.token_bytes(32)
    key = player_key("bench")
    system = secrets.SystemRandom()
    print(f"Python {sys.version.split()[0]}; median of {REPEATS} repeats.\n")
    print(
        "| roll | dice | SystemRandom µs/roll | fair µs/roll | SystemRandom µs/die | fair µs/die |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for text in FAIR_ROLLS:
        expr = parse(text)
        dice = len([f for t in roll(expr, system).terms for f in t.faces])

        counter = itertools.count(1)

        def fair_once(expr: Expression = expr, counter: Iterator[int] = counter) -> None:
            roll(expr, FairRandom(seed, "campaign:1", next(counter), key))

        def system_once(expr: Expression = expr) -> None:
            roll(expr, system)

        n = max(20, 20_000 // max(dice, 1))
        base = statistics.median(timeit.repeat(system_once, number=n, repeat=REPEATS)) / n * 1e6
        fair = statistics.median(timeit.repeat(fair_once, number=n, repeat=REPEATS)) / n * 1e6
        print(
            f"| `{text}` | {dice} | {base:.2f} | {fair:.2f} | {base / dice:.3f} "
            f"| {fair / dice:.3f} |"
        )


def main() -> None:
    if "--fair" in sys.argv[1:]:
        print("Command: `.venv/bin/python bench/dice.py --fair`")
        fair_section()
        return
    if "--render" in sys.argv[1:]:
        print("Command: `.venv/bin/python bench/dice.py --render`")
        render_section()
        return
    if "--odds" in sys.argv[1:]:
        print("Command: `.venv/bin/python bench/dice.py --odds`")
        print(f"Python {sys.version.split()[0]}; budget MAX_ODDS_COST = {MAX_ODDS_COST:,} steps.")
        odds_section()
        return
    if "--ours" in sys.argv[1:]:
        ours_only()
        return
    ensure_venv()
    theirs = d20_speed()
    ours = ours_speed()
    print("Command: `.venv/bin/python bench/dice.py`")
    print(f"Python {sys.version.split()[0]}; median of {REPEATS} repeats, µs per roll.\n")
    print("| expression | ours (SystemRandom) µs | d20 µs | ours/d20 |")
    print("|---|---:|---:|---:|")
    for e in EXPRESSIONS:
        print(f"| {show(e)} | {ours[e]:.2f} | {theirs[e]:.2f} | {ours[e] / theirs[e]:.2f} |")
    print("\nAdversarial inputs: worst time over repeats, ms (d20: 3 runs in a subprocess).\n")
    print("| input | ours CPU ms | ours wall ms | ours outcome | d20 ms | d20 outcome |")
    print("|---|---:|---:|---|---:|---|")
    worst_ours, worst_wall, worst_d20 = 0.0, 0.0, 0.0
    for e in ADVERSARIAL:
        oms, owall, oout = ours_adversarial(e)
        dms, dout = d20_adversarial(e)
        worst_ours, worst_wall = max(worst_ours, oms), max(worst_wall, owall)
        worst_d20 = max(worst_d20, dms if dms is not None else TIMEOUT * 1e3)
        dshow = f"{dms:.2f}" if dms is not None else "—"
        print(f"| {show(e)} | {oms:.3f} | {owall:.3f} | {oout} | {dshow} | {dout} |")
    print(
        f"\nWorst case: ours {worst_ours:.3f} ms CPU ({worst_wall:.3f} ms wall), "
        f"d20 {worst_d20:.1f} ms CPU."
    )
    render_section()
    odds_section()


if __name__ == "__main__":
    main()
