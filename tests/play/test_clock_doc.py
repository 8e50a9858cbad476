"""docs/clock.md's play-by-post example runs in the offline table and does what the doc says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.__main__ import main

DOC = Path(__file__).resolve().parents[2] / "docs" / "clock.md"


def _example() -> str:
    """The typed lines of the "A day at the table" transcript (tests/play/test_docs.py checks
    that the table prints what the page shows; this test checks what the prose claims)."""
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"## A day at the table.*?```text\n(.*?)```", text, re.S)
    assert block is not None
    typed = [line for line in block.group(1).splitlines() if line and not line[0].isspace()]
    return "\n".join(typed) + "\n"


def test_the_clock_example_runs_as_the_doc_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "clock.txt"
    script.write_text(_example(), encoding="utf-8")
    status = main(["play", "--script", str(script), "--seed", "11"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "✗" not in out
    after_first_wait = out.split("wait 12h", 1)[1].split("wait 12h", 1)[0]
    assert "direct message to bob" in after_first_wait and "reminder:" in after_first_wait
    assert "Bo: @bob · d20" in out and "rolled by default at the deadline" in out
    assert "Roll request #1 closed at its deadline" in out
    assert "Turn order started, by initiative" in out
    assert "Time is up for **Bo**: the turn passes automatically. Round 2" in out
    catchup = out.rsplit("bob> /catchup", 1)[1]
    assert "The turn order reached you: Bo's turn" in catchup
    assert "Roll request #1 is complete" in catchup
