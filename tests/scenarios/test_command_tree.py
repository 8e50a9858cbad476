"""The command surface does not change by accident: the built tree equals the stored dump.

A failure names each command added, removed or changed (with the changed lines); if the
change is meant, regenerate the dump (``PYTHONPATH=. .venv/bin/python -m
tests.scenarios.command_tree``) and commit it, so the diff of ``tests/scenarios/command_tree.json``
shows what the change did to the surface.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from tests.scenarios.command_tree import built_tree, stored_tree


def _key(command: dict[str, Any]) -> str:
    kind = {1: "/", 2: "user menu ", 3: "message menu "}.get(int(command.get("type") or 1), "?")
    return f"{kind}{command['name']}"


def differences(stored: list[dict[str, Any]], built: list[dict[str, Any]]) -> list[str]:
    """Each difference in words: a command added, removed, or changed with its changed lines."""
    old = {_key(c): c for c in stored}
    new = {_key(c): c for c in built}
    found = [f"added: {name}" for name in new if name not in old]
    found += [f"removed: {name}" for name in old if name not in new]
    for name in (n for n in new if n in old and new[n] != old[n]):
        lines = difflib.unified_diff(
            json.dumps(old[name], indent=1, sort_keys=True).splitlines(),
            json.dumps(new[name], indent=1, sort_keys=True).splitlines(),
            "stored",
            "built",
            n=2,
            lineterm="",
        )
        found.append(f"changed: {name}\n" + "\n".join(lines))
    return found


async def test_the_command_tree_is_the_stored_one() -> None:
    found = differences(stored_tree(), await built_tree())
    assert not found, (
        "The command tree differs from tests/scenarios/command_tree.json (if meant, run "
        "`PYTHONPATH=. .venv/bin/python -m tests.scenarios.command_tree` and commit the file):\n"
        + "\n".join(found)
    )


def test_a_difference_is_named() -> None:
    stored = [{"name": "check", "type": 1, "options": []}, {"name": "gone", "type": 1}]
    built = [
        {"name": "check", "type": 1, "options": [{"name": "dc"}]},
        {"name": "new", "type": 3},
    ]
    found = differences(stored, built)
    assert found[:2] == ["added: message menu new", "removed: /gone"]
    assert found[2].startswith("changed: /check") and '+   "name": "dc"' in found[2]
