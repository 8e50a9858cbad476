"""docs/fair-dice.md's worked example, recomputed by the bot's code and by the stand-alone
verifier (tools/verify_fair.py), and its command line run as printed."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from bot.dice import roll
from bot.dice.fair import FairRandom, player_key, scoped_key, seed_hash

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "fair-dice.md").read_text(encoding="utf-8")


def verifier() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_fair", ROOT / "tools" / "verify_fair.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _example() -> dict[str, str]:
    block = DOC.split("<!-- fair-example")[1].split("<!-- /fair-example -->")[0]
    rows = re.findall(r"^\| ([^|]+) \| ([^|]+) \|$", block, re.MULTILINE)
    return {k.strip(): v.strip() for k, v in rows}


def test_worked_example_recomputes() -> None:
    ex = _example()
    seed = bytes.fromhex(ex["server seed"].strip("`"))
    assert ex["its published SHA-256"].strip("`") == seed_hash(seed)
    assert hashlib.sha256(seed).hexdigest() == seed_hash(seed)
    text = ex["your seed"].strip("`")
    assert ex["your seed's key"].strip("`") == player_key(text).hex()
    scope = ex["scope"].strip("`")
    key = scoped_key(player_key(text), scope)
    assert ex["your key in that scope"].strip("`") == key.hex()
    first = roll("1d20+5", FairRandom(seed, scope, 1, key))
    assert ex["draw 1: `/roll dice:1d20+5`"] == (
        f"d20 shows **{first.terms[0].faces[0]}**, total **{first.total}**"
    )
    second = roll("4d6", FairRandom(seed, scope, 2, key))
    assert ex["draw 2: `/roll dice:4d6`"] == "**" + " ".join(map(str, second.terms[0].faces)) + "**"
    # The stand-alone verifier gives the same keys and faces.
    tool = verifier()
    assert tool.scoped_key(tool.player_key(text), scope) == key
    words = tool.words(seed, scope, 2, key, b"")
    assert [tool.face(words, 6) for _ in range(4)] == list(second.terms[0].faces)


def test_documented_command_prints_what_the_doc_says() -> None:
    after = DOC.split("Recompute draw 2 yourself")[1]
    block = re.search(r"^```\n(.*?)^```", after, re.MULTILINE | re.DOTALL).group(1)  # type: ignore[union-attr]
    command, *printed = block.strip().splitlines()
    args = shlex.split(command)
    assert args[:2] == ["python3", "tools/verify_fair.py"]
    out = subprocess.run(
        [sys.executable, *args[1:]], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines() == printed


def test_verifier_uses_only_the_standard_library() -> None:
    source = (ROOT / "tools" / "verify_fair.py").read_text(encoding="utf-8")
    imported = set(re.findall(r"^(?:from|import) (\w+)", source, re.MULTILINE))
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}
