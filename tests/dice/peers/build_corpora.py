"""Rebuild the Dice Maiden, GNOLL and python-dice corpora (tests/dice/peers/*.json) from the
peers' own repositories, read as text: nothing of theirs is run or copied as code.

    .venv/bin/python -m tests.dice.peers.build_corpora DICEMAIDEN_GIT GNOLL_GIT PYDICE_GIT

Each argument is a git directory (github:Humblemonk/dicemaiden-rs, github:ianfhunter/GNOLL,
github:borntyping/python-dice). Every entry cites ``path:line`` in its repository.

- Dice Maiden: every string literal of its Rust tests that reads like a roll, and every code
  span of its README and roll_syntax.md; ``expands`` keeps the docs' own ``alias → dice``
  expansions. The origin refuses what its tests call invalid. Meanings: dice_maiden_oracle.py.
- GNOLL: every ``pytest.mark.parametrize`` case of tests/python with the result GNOLL's test
  expects under its dice mock (the mock's mode and first value).
- python-dice: its tests' and README's expressions with the value they assert; the meaning is
  written by hand in pbp-dice's notation (python_dice_meanings.py).
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _show(repo: str, path: str) -> str:
    return subprocess.run(
        ["git", "-C", repo, "show", f"HEAD:{path}"], check=True, capture_output=True, text=True
    ).stdout


def _files(repo: str, prefix: str, suffix: str) -> list[str]:
    names = subprocess.run(
        ["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    return sorted(n for n in names if n.startswith(prefix) and n.endswith(suffix))


# --- Dice Maiden ---------------------------------------------------------------------------

_ROLLISH = re.compile(r"^[A-Za-z0-9 +\-*/%;!()#.<>=,_]+$")
_OUTPUT = ("Total", "Set ", "Success", "Reason", "Roll ", "Result", "dice ", "Maximum", "rolled")
#: Words of the tests' descriptions and expected notes; none is one of Dice Maiden's words.
_PROSE = (
    r"\b(tens|ones|regular|wild|base|stress|not|successes|success|lower|double|killing|normal"
    r"|notation|supported|style|pairs|of|should|produce|sets|unchanged|explode|advantage"
    r"|disadvantage|minus|alias|parse|basic|die|imploded|exploded)\b"
    r"|\d+d\d+ (skill|combat)\b"  # "3d20 skill": a Conan description ("skill +2" is a roll)
)
#: Dice Maiden's modifiers written on their own in its docs (`k3`, `adv2 dis1`): not rolls.
_BARE_MODIFIERS = re.compile(r"^(?:(?:k|kl|km|d|adv|dis|e|ie|r|ir|rg|irg|t|f|b)\d*\s*)+$")


def _dm_candidate(text: str) -> bool:
    text = text.strip()
    if not text or len(text) > 100 or not _ROLLISH.match(text):
        return False
    if not (re.search(r"\d", text) or "d%" in text):
        return False
    if any(word in text for word in _OUTPUT):
        return False
    body = re.sub(r"^\s*\d*\s*\([^)]*\)", "", text.split("!")[0])  # "(Attack) …": a label
    if re.search(r"\b(dice|with|test|again|comparison|roll|rolls|target|level)\b", body, re.I):
        return False  # a test's description, not a roll
    if re.search(_PROSE, body, re.I) or re.match(r"^\d+x \(", body):
        return False  # "d3 tens + d4 ones", "3 base + 1 stress", "2x (1d6 t4)": descriptions
    if "=" in text or "**" in text:
        return False  # "3 * 2 = 6", "**4**": an equation or a formatted result (no roll has =)
    if re.search(r"\b[A-Z][a-z]{3,}", body):
        return False
    words = re.findall(r"[A-Za-z]{3,}", body)
    return len(words) <= 3


def _expects_errors(lines: list[str], k: int) -> bool:
    """Line ``k`` opens ``let NAME = vec![`` and the next loop over NAME asserts each fails."""
    m = re.search(r"let (\w+) = vec!\[", lines[k])
    if m is None:
        return False
    for j in range(k + 1, len(lines)):
        if re.search(rf"^\s*for .* in {m.group(1)} \{{", lines[j]):
            return bool(re.search(r"assert!\(\s*(\w+\.)?is_err\(\)", "".join(lines[j : j + 4])))
    return False


def _flags_validity(lines: list[str], k: int) -> bool:
    """Line ``k`` opens ``let NAME = vec![`` of tuples whose loop names the second item
    ``should_succeed`` (or ``should_parse``, ``valid``): ``false`` marks a refused roll."""
    m = re.search(r"let (\w+) = vec!\[", lines[k])
    if m is None:
        return False
    for j in range(k + 1, len(lines)):
        if loop := re.search(rf"^\s*for \(\w+, (\w+)[^)]*\) in {m.group(1)} \{{", lines[j]):
            return loop.group(1) in ("should_succeed", "should_parse", "valid", "is_valid")
    return False


def build_dice_maiden(repo: str) -> list[dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}

    def add(expr: str, source: str, refuses: bool = False, expands: str | None = None) -> None:
        expr = expr.strip()
        if expr.startswith("/roll "):
            expr = expr[len("/roll ") :].strip()
        if not _dm_candidate(expr):
            return
        entry = found.setdefault(expr, {"expr": expr, "source": source})
        if refuses:
            entry["origin"] = "refuses"
        if expands and "expands" not in entry:
            entry["expands"] = expands

    for path in _files(repo, "tests/", ".rs"):
        invalid_block, depth = False, 0
        lines = _show(repo, path).splitlines()
        # "let error_tests = vec![…]" whose loop asserts each one fails
        refused = {k + 1 for k, line in enumerate(lines) if _expects_errors(lines, k)}
        flagged = {k + 1 for k, line in enumerate(lines) if _flags_validity(lines, k)}
        in_flagged, flag_depth = False, 0
        for number, line in enumerate(lines, start=1):
            # "let invalid = vec![…];" and "for invalid in […] {": rolls the test expects
            # Dice Maiden to refuse
            opened = re.search(r"let \w*invalid\w* = vec!\[|for \w*invalid\w* in \[", line)
            named = re.search(r"let (\w+) = vec!\[", line)
            opened = opened or (named if number in refused else None)
            if opened:
                invalid_block, depth = True, 0
            if invalid_block:
                tail = line[opened.end() - 1 :] if opened else line
                depth += tail.count("[") - tail.count("]")
            if number in flagged:
                in_flagged, flag_depth = True, 0
            if in_flagged:
                flag_depth += line.count("[") - line.count("]")
            refuses = invalid_block or "assert_invalid(" in line or "is_err()" in line
            if bound := re.search(r"let (\w+) = parse_and_roll\(\"", line):
                # let result = parse_and_roll("1 1d6"); assert!(result.is_err(), …)
                ahead = " ".join(lines[number : number + 3])
                refuses = refuses or bool(
                    re.search(rf"assert!\(\s*{bound.group(1)}\.is_err\(\)", ahead)
                )
            # ("1 d6", false, "…") in a list whose loop reads the flag as should_succeed
            refuses = refuses or (in_flagged and bool(re.match(r'^\s*\("[^"]*",\s*false\b', line)))
            if in_flagged and flag_depth <= 0:
                in_flagged = False
            refuses = refuses or bool(re.search(r'^\s*\("[^"]*",\s*false,\s*0,\s*0\)', line))
            for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', line):
                before, after = line[: m.start()], line[m.end() :]
                if re.search(r"\.expect\($|(note|formatted|expression)\.contains\($", before):
                    continue  # a failure message, or a piece of an expected answer
                if after.startswith(".repeat("):
                    continue  # a piece of a long generated input
                add(m.group(1), f"{path}:{number}", refuses)
            if invalid_block and depth <= 0:
                invalid_block = False
    for path in ("README.md", "roll_syntax.md"):
        section = ""
        for number, line in enumerate(_show(repo, path).splitlines(), start=1):
            if line.startswith("#"):
                section = line.strip("# ").lower()
            if section in ("core modifiers", "special flags"):
                continue  # modifiers and flags on their own (`k3`, `+2d6`), not rolls
            if "help" in line.lower():
                continue  # `/help a5e`: a help topic, not a roll
            spans = [
                span
                for span in re.findall(r"`([^`\n]{1,100})`", line)
                if not _BARE_MODIFIERS.match(span.strip()) and span.strip()[:1] not in "*"
            ]
            arrow = re.match(r"^\s*- `([^`]+)` → ([0-9][0-9a-z %+\-*/]*?)(?: \(|$)", line)
            for span in spans:
                expands = arrow.group(2).strip() if arrow and span == arrow.group(1) else None
                add(span, f"{path}:{number}", expands=expands)
    return list(found.values())


# --- GNOLL ---------------------------------------------------------------------------------

_MOCKS = {
    "NO_MOCK": "none",
    "RETURN_CONSTANT": "constant",
    "RETURN_INCREMENTING": "incrementing",
    "RETURN_DECREMENTING": "decrementing",
    "RETURN_CONSTANT_TWICE_ELSE_CONSTANT_ONE": "twice-then-one",
}


def _value(node: ast.AST | None, bound: dict[str, Any]) -> Any:
    if node is None:
        return None
    if isinstance(node, ast.Name):
        return bound.get(node.id, ("?", node.id))
    if isinstance(node, ast.Attribute) and node.attr in _MOCKS:
        return _MOCKS[node.attr]
    try:
        return ast.literal_eval(node)
    except ValueError:
        return ("?", ast.dump(node)[:40])


def build_gnoll(repo: str) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for path in _files(repo, "tests/python/", ".py"):
        if not Path(path).name.startswith("test_"):
            continue
        tree = ast.parse(_show(repo, path))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            calls = [
                c
                for c in ast.walk(fn)
                if isinstance(c, ast.Call) and getattr(c.func, "id", "") == "roll"
            ]
            asserts = [a for a in ast.walk(fn) if isinstance(a, ast.Assert)]
            for deco in fn.decorator_list:
                if not (isinstance(deco, ast.Call) and "parametrize" in ast.unparse(deco.func)):
                    continue
                names = [n.strip() for n in ast.literal_eval(deco.args[0]).split(",")]
                for case in getattr(deco.args[1], "elts", []):
                    items = case.elts if isinstance(case, ast.Tuple) else [case]
                    bound = {}
                    for name, item in zip(names, items, strict=False):
                        try:
                            bound[name] = ast.literal_eval(item)
                        except ValueError:
                            bound[name] = _value(item, {})
                    expr, out = bound.get("r"), bound.get("out")
                    if not isinstance(expr, str) or len(calls) != 1 or len(asserts) < 1:
                        continue
                    if not any("result == out" in ast.unparse(a) for a in asserts):
                        continue
                    kw = {k.arg: k.value for k in calls[0].keywords}
                    mode = _value(kw.get("mock_mode"), bound) or "none"
                    const = _value(kw.get("mock_const"), bound)
                    entries.append(
                        {
                            "expr": expr,
                            "source": f"{path}:{case.lineno}",
                            "mock": [mode, 3 if const is None else const],
                            "total": out,
                        }
                    )
    return entries


def main() -> None:
    dm_repo, gnoll_repo = sys.argv[1:3]
    for name, entries in (
        ("dice_maiden", build_dice_maiden(dm_repo)),
        ("gnoll", build_gnoll(gnoll_repo)),
    ):
        text = json.dumps(entries, indent=0, ensure_ascii=False)
        (HERE / f"{name}.json").write_text(text + "\n")
        print(name, len(entries))


if __name__ == "__main__":
    main()
