"""The command tree as Discord receives it, kept in ``tests/scenarios/command_tree.json``.

Every command's payload (names, descriptions, options, ``default_member_permissions``,
contexts) is what ``tree.sync`` sends. A change to the command surface shows as a diff of that
file, and ``tests/scenarios/test_command_tree.py`` fails until the file is regenerated on purpose:

    PYTHONPATH=. .venv/bin/python -m tests.scenarios.command_tree
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from bot.app import PbpBot, create_bot
from bot.config import Settings

DUMP = Path(__file__).resolve().parent / "command_tree.json"


async def built_bot() -> PbpBot:
    """The bot with every feature loaded (no database, no Discord: it never starts)."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_url="sqlite+aiosqlite:///:memory:", shard_count=1
    )
    bot = create_bot(settings)
    await bot.load_features()
    return bot


async def built_tree(bot: PbpBot | None = None) -> list[dict[str, Any]]:
    """Every top-level command's sync payload, sorted by type and name, of ``bot`` (one
    :func:`built_bot` makes when None)."""
    bot = bot or await built_bot()
    payload = [command.to_dict(bot.tree) for command in bot.tree.get_commands()]
    payload.sort(key=lambda c: (int(c.get("type") or 1), str(c["name"])))
    # Round-trip through JSON so the built tree compares equal to the stored one.
    loaded: list[dict[str, Any]] = json.loads(dump_text(payload))
    return loaded


def dump_text(payload: list[dict[str, Any]]) -> str:
    """The file's text: stable key order, one value a line, so a diff is readable."""
    return json.dumps(payload, indent=1, sort_keys=True, ensure_ascii=False, default=str) + "\n"


def stored_tree() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(DUMP.read_text(encoding="utf-8"))
    return found


def main() -> None:
    payload = asyncio.run(built_tree())
    DUMP.write_text(dump_text(payload), encoding="utf-8")
    print(f"wrote {len(payload)} commands to {DUMP}")


if __name__ == "__main__":
    main()
