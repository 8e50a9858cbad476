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
import os
import re
import shlex
import subprocess
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
        windows = (actual[i : i + len(expected)] for i in range(len(actual) - len(expected) + 1))
        if expected not in windows:
            start = next((i for i, line in enumerate(actual) if line == expected[0]), 0)
            raise AssertionError(_diff(expected, actual[start : start + len(expected)], doc.where))
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


# --- the commands the pages tell a reader to type --------------------------------------------

#: `make play` with its arguments, as a page writes it for a reader to paste.
PASTED = re.compile(r'`(make play(?: ARGS="([^"]*)")?)`')


def _pasted() -> list[tuple[str, str, Transcript | None]]:
    """(command, where, the transcript it replays): each distinct command of the README once
    (the guides write theirs the same way; each run costs a new interpreter)."""
    found: dict[str, tuple[str, str, Transcript | None]] = {}
    for path in DOCS[:1]:
        text = path.read_text(encoding="utf-8")
        for match in PASTED.finditer(text):
            command, args = match[1], shlex.split(match[2] or "")
            if {"FILE", "..."} & set(args) or command in found:
                continue  # a placeholder, not a command to paste
            same = sorted(args)
            shown = next((t for t in transcripts(path) if sorted(t.args or []) == same), None)
            line = text[: match.start()].count("\n") + 1
            found[command] = (command, f"{path.relative_to(ROOT)}:{line}", shown)
    return list(found.values())


PASTES = _pasted()


def test_the_readme_tells_readers_how_to_replay_its_transcripts() -> None:
    """Each README transcript has the command that replays it on the page, as pasted."""
    replayed = {t.where for _, _, t in PASTES if t is not None}
    with_seed = {t.where for t in ALL if t.path.name == "README.md"}
    assert with_seed <= replayed, sorted(with_seed - replayed)


def _fresh_shell_env() -> dict[str, str]:
    """A new terminal: no virtual environment active, nothing of a test run in the
    environment, no PYTHONPATH."""
    keep = ("HOME", "LANG", "LC_ALL", "TERM", "USER", "TMPDIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    return env


def _subsequence(expected: list[str], actual: list[str]) -> list[str]:
    """The lines of ``expected`` not found in ``actual`` in order (``  …`` matches nothing)."""
    missing, at = [], 0
    for line in expected:
        if line == ELIDED:
            continue
        try:
            at = actual.index(line, at) + 1
        except ValueError:
            missing.append(line)
    return missing


@pytest.mark.parametrize(("command", "where", "shown"), PASTES, ids=[p[1] for p in PASTES])
def test_a_command_on_the_page_works_as_pasted_in_a_fresh_shell(
    command: str, where: str, shown: Transcript | None
) -> None:
    """Run by bash in the checkout, as a reader would paste it. At the prompt it gets the
    transcript's typed lines (or just `quit`), and prints what the page shows."""
    typed = "quit\n"
    if shown is not None and "--script" not in (shown.args or []):
        typed = "\n".join(line for line in shown.body if line and line[0] != " ") + "\n"
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=ROOT,
        env=_fresh_shell_env(),
        input=typed,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{where}: {command}\n{done.stdout}\n{done.stderr}"
    assert "Traceback" not in done.stderr, done.stderr
    if shown is not None:
        # At the prompt each answer follows a prompt on its line: what the page shows is
        # what was printed, in order.
        printed = _normalise(
            [
                re.sub(r"^(?:[a-z][\w-]*(?: #[\w-]+)?> )+", "", line)
                for line in done.stdout.splitlines()
            ]
        )
        shown_output = [line for line in _normalise(shown.body) if line.startswith("  ")]
        assert _subsequence(shown_output, printed) == [], f"{where}: {command}"
