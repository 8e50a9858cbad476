"""Rebuild the peers corpus (tests/dice/peers/*.json) from the peers' own repositories.

    .venv/bin/python -m tests.dice.peers.build D20_REPO RDR_REPO RDR_NODE_DIR

D20_REPO / RDR_REPO: git directories of github:avrae/d20 and github:dice-roller/rpg-dice-roller;
RDR_NODE_DIR: a directory with ``npm install @dice-roller/rpg-dice-roller`` done. Avrae's d20
runs in bench/.d20-venv (bench/dice.py creates it). Every expression is taken from the peer's
tests or documentation, with its file and line; expressions the peer itself refuses are left
out. Each is rolled by the peer with forced dice (``words``, shared with pbp-dice: see
run_d20.py), and the peer's totals are stored: the test replays the same dice through
pbp-dice. Dice Maiden (Ruby, no engine here) is written by hand in dice_maiden.py.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from tests.dice.peers.common import SEQUENCES, words_for

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
D20_PY = ROOT / "bench" / ".d20-venv" / "bin" / "python"
HYPOTHESIS_EXAMPLES = 400


def _git_files(repo: str, prefix: str, suffix: str) -> list[str]:
    names = subprocess.run(
        ["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return [n for n in names if n.startswith(prefix) and n.endswith(suffix)]


def _show(repo: str, path: str) -> str:
    return subprocess.run(
        ["git", "-C", repo, "show", f"HEAD:{path}"], check=True, capture_output=True, text=True
    ).stdout


def _literals(repo: str, path: str, quote: str) -> list[tuple[str, str]]:
    """Every string literal in a file, with ``path:line``."""
    found = []
    pattern = re.compile(quote + r"((?:[^" + quote + r"\\\n]|\\.){1,200})" + quote)
    for number, line in enumerate(_show(repo, path).splitlines(), start=1):
        for m in pattern.finditer(line):
            text = m.group(1)
            if quote == '"':
                try:
                    text = ast.literal_eval('"' + text + '"')
                except (SyntaxError, ValueError):
                    continue
            if re.search(r"\d|d", text) and len(text) <= 200:
                found.append((text, f"{path}:{number}"))
    return found


def _code_spans(repo: str, path: str) -> list[tuple[str, str]]:
    found = []
    for number, line in enumerate(_show(repo, path).splitlines(), start=1):
        for m in re.finditer(r"`([^`\n]{1,120})`", line):
            found.append((m.group(1), f"{path}:{number}"))
        m = re.match(r">>> r = roll\(\"(.*)\"\)", line)
        if m:
            found.append((m.group(1), f"{path}:{number}"))
    return found


def _hypothesis(repo: str) -> list[tuple[str, str]]:
    """Examples of d20's own Hypothesis strategy (tests/custom_strategies.py), derandomized."""
    spec = {"__name__": "custom_strategies"}
    exec(compile(_show(repo, "tests/custom_strategies.py"), "custom_strategies", "exec"), spec)
    drawn: list[str] = []

    @settings(
        max_examples=HYPOTHESIS_EXAMPLES,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(spec["expr"]())
    def collect(expr: str) -> None:
        drawn.append(expr)

    collect()
    seen = dict.fromkeys(e for e in drawn if len(e) <= 200)
    return [(e, "tests/custom_strategies.py (Hypothesis expr(), derandomized)") for e in seen]


def _run(command: list[str], items: list[dict[str, object]], cwd: str | None = None) -> list:
    done = subprocess.run(
        command, input=json.dumps(items), capture_output=True, text=True, check=True, cwd=cwd
    )
    return json.loads(done.stdout)


def _corpus(peer: str, candidates: list[tuple[str, str]], runner) -> list[dict[str, object]]:
    unique: dict[str, str] = {}
    for expr, source in candidates:
        unique.setdefault(expr, source)
    items = [
        {"expr": e, "words": [words_for(peer, e, k) for k in range(SEQUENCES)]} for e in unique
    ]
    totals = runner(items)
    entries = []
    for item, peer_totals in zip(items, totals, strict=True):
        if any(isinstance(t, str) for t in peer_totals):
            continue  # the peer refuses it (or it is not an expression): not a peer expression
        entries.append(
            {"expr": item["expr"], "source": unique[str(item["expr"])], "peer": peer_totals}
        )
    return entries


def build_d20(repo: str) -> list[dict[str, object]]:
    candidates = []
    for path in _git_files(repo, "tests/", ".py"):
        if path.endswith("custom_strategies.py"):
            continue
        candidates += _literals(repo, path, '"')
    candidates += _code_spans(repo, "README.md")
    candidates += _hypothesis(repo)

    def runner(items: list[dict[str, object]]) -> list:
        as_ints = [
            {"expr": i["expr"], "words": [[int(w) for w in ws] for ws in i["words"]]} for i in items
        ]  # type: ignore[union-attr]
        return _run([str(D20_PY), str(HERE / "run_d20.py")], as_ints)

    return _corpus("d20", candidates, runner)


def build_rdr(repo: str, node_dir: str) -> list[dict[str, object]]:
    candidates = []
    for path in _git_files(repo, "tests/", ".test.js"):
        candidates += _literals(repo, path, "'")
    for path in ("readme.md", "docs/readme.md"):
        candidates += _code_spans(repo, path)

    def runner(items: list[dict[str, object]]) -> list:
        as_text = [
            {"expr": i["expr"], "words": [[str(w) for w in ws] for ws in i["words"]]} for i in items
        ]  # type: ignore[union-attr]
        shutil.copy(HERE / "run_rdr.mjs", Path(node_dir) / "run_rdr.mjs")  # imports from there
        return _run(["node", "run_rdr.mjs"], as_text, cwd=node_dir)

    return _corpus("rpg-dice-roller", candidates, runner)


def main() -> None:
    d20_repo, rdr_repo, node_dir = sys.argv[1:4]
    for name, entries in (
        ("d20", build_d20(d20_repo)),
        ("rpg_dice_roller", build_rdr(rdr_repo, node_dir)),
    ):
        (HERE / f"{name}.json").write_text(json.dumps(entries, indent=0, ensure_ascii=False) + "\n")
        print(name, len(entries))


if __name__ == "__main__":
    main()
