"""The code speaks in the present: no comment, docstring, test name or doc points at a tracker
entry by number. A reader has the code and docs/, not the tracker: a reference says what it
stands for instead (a rule or ruling, a doc section, a migration, or the requirement itself).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Where our own prose lives (the peers' corpora in tests/dice/peers/ are their JSON, not ours).
SCANNED = ("bot", "tests", "docs", "bench", "migrations", "tools", "README.md")
SUFFIXES = (".py", ".md")

#: Files left out (none: every reference is cleared).
EXCLUDED: tuple[str, ...] = ()

#: "issue N", "Issue N's", "issues N and M", "issue_N" in a name, "issue-N", "issue #N"; not
#: preceded by a letter ("tissue"), so a test named ``test_issue_N_...`` is caught too.
TRACKER_NUMBER = re.compile(r"(?<![a-z])issues?[ _-]?#?\d", re.IGNORECASE)


def _files() -> list[Path]:
    found: list[Path] = []
    for name in SCANNED:
        top = ROOT / name
        candidates = [top] if top.is_file() else sorted(top.rglob("*"))
        for path in candidates:
            relative = path.relative_to(ROOT).as_posix()
            if not path.is_file() or path.suffix not in SUFFIXES or "__pycache__" in relative:
                continue
            # Hidden folders hold what tools made (bench/dice.py's throwaway virtualenv of a
            # peer's library), not our prose.
            if any(part.startswith(".") for part in path.relative_to(ROOT).parts):
                continue
            if any(relative == e or relative.startswith(e + "/") for e in EXCLUDED):
                continue
            found.append(path)
    return found


def test_no_reference_to_a_tracker_entry_by_number() -> None:
    files = _files()
    assert len(files) > 100, "the scan found too few files to mean anything"
    hits = [
        f"{path.relative_to(ROOT).as_posix()}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if TRACKER_NUMBER.search(line)
    ]
    assert not hits, "say what the number stood for (a rule, a doc section, a migration):\n" + (
        "\n".join(hits)
    )


def test_the_pattern_catches_each_spelling_and_spares_ordinary_words() -> None:
    # Built by hand so this file holds none of them literally.
    for caught in ("issue" + " 22", "Issue" + " 15's", "issues" + " 9 and", "test_issue" + "_15_"):
        assert TRACKER_NUMBER.search(caught), caught
    for spared in ("roll #42", "tissue 3", "no issue here", "issued 3 tokens", "issues: none"):
        assert not TRACKER_NUMBER.search(spared), spared
