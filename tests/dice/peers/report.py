"""Per peer, in that peer's dialect: how many of its expressions pbp-dice reads the same,
reads differently and says so in the answer (flagged), refuses with a hint, or misreads
silently; expressions the origin itself refuses are counted apart.

    .venv/bin/python -m tests.dice.peers.report
"""

from __future__ import annotations

from tests.dice.peers.check import PEERS, tally

COLUMNS = ("same", "flagged", "refused", "refused, no hint", "misread", "meaning unknown")


def table() -> str:
    head = "| peer (dialect) | expressions | " + " | ".join(COLUMNS) + " | same or flagged |"
    lines = [head, "|" + "---|" * (len(COLUMNS) + 3)]
    for peer, (_, dialect) in PEERS.items():
        counts = tally(peer)
        n = sum(v for k, v in counts.items() if k != "origin refuses")
        share = (counts["same"] + counts["flagged"]) / n if n else 0.0
        cells = [f"{counts[c]}" for c in COLUMNS]
        lines.append(
            f"| {peer} ({dialect}) | {n} (+{counts['origin refuses']} the origin refuses) | "
            + " | ".join(cells)
            + f" | {100 * share:.1f}% |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print("$ .venv/bin/python -m tests.dice.peers.report")
    print(table())
