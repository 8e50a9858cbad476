"""Every benchmark command the docs and the README print (the command line each figure was
measured with) names a script in ``bench/`` and only options that script takes, so a reader
can run it again. Scripts are read, not run: each declares its options as string literals
(argparse's ``"--per-command"``, or ``"--fair" in sys.argv``)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"

#: Inline code holding a bench command; it may wrap over a line break in the Markdown.
_COMMAND = re.compile(r"`([^`]*?python bench/[^`]*)`")


def _commands() -> list[tuple[str, str]]:
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for match in _COMMAND.finditer(page.read_text(encoding="utf-8")):
            found.append((page.relative_to(ROOT).as_posix(), " ".join(match.group(1).split())))
    return found


COMMANDS = _commands()


def test_the_docs_print_bench_commands() -> None:
    assert len(COMMANDS) >= 10, COMMANDS


def _options(words: list[str]) -> list[str]:
    return [w.split("=", 1)[0] for w in words if w.startswith("--")]


def _declared(script: Path) -> str:
    return script.read_text(encoding="utf-8")


@pytest.mark.parametrize(("page", "command"), COMMANDS)
def test_a_printed_bench_command_names_options_its_script_takes(page: str, command: str) -> None:
    words = shlex.split(command[command.index("bench/") :])
    script = ROOT / words[0]
    assert script.is_file(), f"{page}: {command!r} names no script"
    mine, forwarded = words[1:], []
    if "--" in mine:  # bench/compare.py passes what follows to bench/commands.py
        at = mine.index("--")
        mine, forwarded = mine[:at], mine[at + 1 :]
    for options, source in ((mine, script), (forwarded, BENCH / "commands.py")):
        text = _declared(source)
        for option in _options(options):
            assert f'"{option}"' in text, f"{page}: {source.name} takes no {option} ({command})"
