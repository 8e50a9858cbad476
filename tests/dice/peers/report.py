"""Per peer: how many of its expressions pbp-dice reads the same, differently (with the
documented reason, or not: a misread), or refuses.

    .venv/bin/python -m tests.dice.peers.report            # this tree's engine
    .venv/bin/python -m tests.dice.peers.report /work/main # another checkout's engine (before;
                                                            # its differences were undocumented)
"""

from __future__ import annotations

import importlib
import sys
from collections import Counter
from typing import Any

from tests.dice.peers.check import PEERS, classify, classify_dice_maiden, load
from tests.dice.peers.dice_maiden import ENTRIES
from tests.dice.peers.reasons import reason


def tally(engine: Any, reasons: bool = True) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for peer in PEERS:
        counts: Counter[str] = Counter()
        for entry in load(peer):
            verdict = classify(peer, entry, engine)
            if verdict == "different":
                documented = reasons and reason(peer, entry["expr"]) is not None
                verdict = "documented" if documented else "misread"
            counts[verdict] += 1
        out[peer] = counts
    counts = Counter()
    for expr, _, cases in ENTRIES:
        verdict = classify_dice_maiden(expr, cases, engine)
        counts["misread" if verdict == "different" else verdict] += 1
    out["Dice Maiden"] = counts
    return out


def main() -> None:
    other = len(sys.argv) > 1
    if other:
        sys.path.insert(0, sys.argv[1])
    engine = importlib.import_module("bot.dice")
    print(f"engine: {engine.__file__}")
    if other:
        print("(another engine: every different reading counts as a misread)")
    print(
        f"{'peer':<16}{'expressions':>12}{'same':>14}{'documented':>14}{'refused':>14}{'misread':>12}"
    )
    for peer, counts in tally(engine, reasons=not other).items():
        n = sum(counts.values())
        cells = [
            f"{counts[key]:>5} ({100 * counts[key] / n:4.1f}%)".rjust(width)
            for key, width in (("same", 14), ("documented", 14), ("refused", 14), ("misread", 12))
        ]
        print(f"{peer:<16}{n:>12}" + "".join(cells))


if __name__ == "__main__":
    main()
