"""Every offline-table transcript in README.md and docs/ is what the table prints.

A transcript is a fenced block with lines typed at the table (`name> …`, `name #gm> …`, and
the table's own `help`, `who`, `switch`; `#` comments), each followed by what was printed,
indented two spaces. The line just above the block says how to replay it, e.g.
`<!-- play: --seed 5 -->`: the arguments of `python -m bot play`. Then:

- without `--script`, the block's typed lines are run as a script and every line's output
  must be the one shown; an output written as the single line `  …` was left out of the
  page and matches whatever was printed, unless that was nothing or a refusal (`✗`);
- with `--script FILE`, FILE is run and the block must be a contiguous excerpt of its
  transcript.

What is normalised, on both sides, and only that: hash-chain heads (`log 3f9a1c2b7d0e`) and
64-hex digests (commitments, salts), which hold the wall-clock time or random salts from
the operating system, so they differ on every run even with the same seed; and links to
channels and messages, whose ids change whenever a command is added to the bot.
"""

from __future__ import annotations

import argparse
import difflib
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

MARKER = re.compile(r"<!--\s*play:(.*?)-->")
TYPED = re.compile(r"^(?:[a-z][\w-]*(?: #[\w-]+)?> |#|(?:help|who|switch|wait|quit)\b)")
ELIDED = "  …"
VARIES = (
    (re.compile(r"\blog [0-9a-f]{12}\b"), "log <chain head>"),
    # SimCord's snowflakes count every object it makes, the bot's commands included: a command
    # added anywhere moves every id after it.
    (re.compile(r"https://discord\.com/channels/\d+/\d+(/\d+)?"), "<discord link>"),
    (re.compile(r"\b[0-9a-f]{64}\b"), "<digest>"),
)


@dataclass(frozen=True)
class Transcript:
    path: Path
    line: int  # of the opening fence, 1-based
    args: list[str] | None  # from the marker; None when there is none
    body: list[str]

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def transcripts(path: Path) -> list[Transcript]:
    """The fenced blocks of `path` that hold at least one `name> ` line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), len(lines))
        body = lines[i + 1 : end]
        if any(re.match(r"^[a-z][\w-]*(?: #[\w-]+)?> ", line) for line in body):
            above = next((lines[k].strip() for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            marker = MARKER.fullmatch(above)
            found.append(Transcript(path, i + 1, shlex.split(marker[1]) if marker else None, body))
        i = end + 1
    return found


ALL = [t for path in DOCS for t in transcripts(path)]


def _normalise(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        if not line.strip():
            continue  # a script prints no blank lines; a page may use them for air
        for pattern, placeholder in VARIES:
            line = pattern.sub(placeholder, line)
        out.append(line.rstrip())
    return out


def _play(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    capsys.readouterr()
    status = main(["play", *args])
    return status, capsys.readouterr().out.splitlines()


def _groups(lines: list[str]) -> list[tuple[str, list[str]]]:
    """(typed line, what it printed) pairs; a printed line is indented."""
    groups: list[tuple[str, list[str]]] = []
    for line in lines:
        if line.startswith("  ") and groups:
            groups[-1][1].append(line)
        else:
            groups.append((line, []))
    return groups


def _diff(expected: list[str], actual: list[str], where: str) -> str:
    return f"{where} is not what the table prints:\n" + "\n".join(
        difflib.unified_diff(expected, actual, "the page", "the table", lineterm="")
    )


def test_the_pages_have_the_transcripts_this_test_reads() -> None:
    """Guards the extraction itself: it must find the README's and the table guide's."""
    by_page = {t.path.name for t in ALL}
    assert {"README.md", "offline-table.md"} <= by_page
    assert all(TYPED.match(line) for t in ALL for line in t.body if line and line[0] != " ")


@pytest.mark.parametrize("doc", ALL, ids=[t.where for t in ALL])
def test_a_transcript_on_the_page_is_what_the_table_prints(
    doc: Transcript, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert doc.args is not None, (
        f"{doc.where}: say how to replay this transcript on the line above it, e.g. "
        "<!-- play: --seed 1 --> (the seed that gives the dice shown)"
    )
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--script", type=Path)
    parser.add_argument("--gm")
    parser.add_argument("--players")
    known = parser.parse_args(doc.args)
    expected = _normalise(doc.body)
    replay = ["--seed", str(known.seed)]
    replay += [f"--{name}={value}" for name in ("gm", "players") if (value := getattr(known, name))]

    if known.script is not None:
        status, printed = _play(["--script", str(ROOT / known.script), *replay], capsys)
        actual = _normalise(printed)
        assert status == 0, "\n".join(actual)
        windows = (
            actual[i : i + len(expected)] for i in range(len(actual) - len(expected) + 1)
        )
        if expected not in windows:
            start = next((i for i, line in enumerate(actual) if line == expected[0]), 0)
            raise AssertionError(
                _diff(expected, actual[start : start + len(expected)], doc.where)
            )
        return

    script = tmp_path / "transcript.txt"
    typed = [line for line in doc.body if line.strip() and not line.startswith(" ")]
    script.write_text("\n".join(typed) + "\n", encoding="utf-8")
    _, printed = _play(["--script", str(script), *replay], capsys)
    actual = _normalise(printed)
    # Each typed line's output as shown, or any output where the page shows "  …".
    merged: list[str] = []
    shown, got = _groups(expected), _groups(actual)
    for index, (line, output) in enumerate(got):
        merged.append(line)
        elided = index < len(shown) and shown[index][0] == line and shown[index][1] == [ELIDED]
        # Only a success may be left out: a page must not hide a refusal or an error.
        if elided and output and not any(o.startswith("  ✗") for o in output):
            merged.append(ELIDED)
        else:
            merged += output
    assert merged == expected, _diff(expected, merged, doc.where)
