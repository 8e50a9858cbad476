"""Commands renamed so that one word means one thing, each old name kept working one release.

One table, read by the cogs (the old command's description and answer name the new one) and
by /help (which lists only the new names, and the old ones beside them as renamed). An old
name whose release has come is deleted from this table with its command
(tests/scenarios/test_renamed.py fails once the version reaches it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Renamed:
    """A command's old name, the name that replaces it, and the release that removes it."""

    old: str
    new: str
    #: The release without the old name (``pyproject.toml``'s version when it goes).
    until: str


#: Old name → its row. One word per action: `/reveal` shows any hidden roll (its roller's
#: self roll, a GM's gm or blind roll: the service decides who may), and the list of sealed
#: pre-rolls is named apart from `/preroll`, which seals them, as `/post-edit` is from `/post`.
RENAMED: Mapping[str, Renamed] = {
    row.old: row
    for row in (
        Renamed(old="gm reveal", new="reveal", until="0.2.0"),
        Renamed(old="prerolls", new="preroll-list", until="0.2.0"),
    )
}


def old_description(old: str, what: str) -> str:
    """The old command's description: what it does, then the name to use instead."""
    return f"{what} (old name: use /{RENAMED[old].new})"


def renamed_note(old: str) -> str:
    """Said to whoever ran an old name, beside what the command answered."""
    row = RENAMED[old]
    return (
        f"`/{row.old}` is now `/{row.new}`; this time it ran as before. The old name stops "
        f"working in release {row.until}."
    )


def renamed_lines(names: Iterable[str]) -> list[str]:
    """For /help: one line per old name whose new name is among ``names``."""
    wanted = set(names)
    return [
        f"`/{row.old}` is now `/{row.new}` (the old name works until release {row.until})"
        for row in RENAMED.values()
        if row.new in wanted
    ]
