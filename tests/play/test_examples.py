"""Every script in examples/ runs through `python -m bot play --script` without an error.

This is the smoke test CI runs (via `make test`): the real bot, every rule system, from
/campaign setup to rolls.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.__main__ import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("*.txt"))

# What a roll's verdict looks like in each system, as its renderer prints it.
OUTCOMES = {
    "pen-and-dagger": r"\*\*((Critical|Major|Normal|Limited) Success|Failure|Not lucky|Lucky)\*\*",
    "roll-under": r"\*\*(Pass|Fail)\*\*",
    "threshold": r"\*\*(Success|Failure)\*\*",
    "d20-check": r"\*\*(Success|Failure)\*\*",
}


def test_there_is_one_example_per_rule_system() -> None:
    assert {p.stem for p in SCRIPTS} >= set(OUTCOMES)


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_example_runs_cleanly(script: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["play", "--script", str(script), "--seed", "11"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "✗" not in out
    assert "Campaign created" in out
    # One example per system, and others (in-character.txt) that play one of them.
    system = re.search(r"system:([\w-]+)", script.read_text())
    assert system is not None, "an example sets up a campaign"
    verdicts = re.findall(OUTCOMES[system[1]], out)
    rolls = sum(
        1
        for line in script.read_text().splitlines()
        if re.match(r"^\w+> /(check|save|luck)\b", line)
    )
    assert rolls >= (3 if script.stem in OUTCOMES else 0) and len(verdicts) == rolls


def test_the_command_line_needs_no_token_and_ignores_the_real_database(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISCORD_TOKEN",)}
    # A real deployment's settings must not leak into the offline table.
    env["DATABASE_URL"] = "postgresql+asyncpg://nobody@127.0.0.1:1/never"
    script = tmp_path / "one.txt"
    script.write_text("alice> /roll dice:2d6 label:test\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "bot", "play", "--script", str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "alice rolls test" in done.stdout
    assert not (tmp_path / "data").exists()  # a script uses a temporary database
