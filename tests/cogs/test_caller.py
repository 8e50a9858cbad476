"""What a command records as typed (the ledger's request, /history's line): the command, its
subcommands and each option as ``name:value``, read from the interaction Discord sent.

Tests bot/cogs/_caller.py.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bot.cogs._caller import request_text

SUBCOMMAND, GROUP, STRING, INTEGER, BOOLEAN = 1, 2, 3, 4, 5


def _typed(name: str, *options: dict[str, Any]) -> Any:
    """An interaction as discord.py hands it to a command: only its ``data`` is read."""
    return SimpleNamespace(data={"name": name, "options": list(options)})


def _option(name: str, kind: int, value: Any = None, *nested: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {"name": name, "type": kind}
    if nested:
        found["options"] = list(nested)
    else:
        found["value"] = value
    return found


def test_a_command_and_its_options_read_as_typed() -> None:
    typed = _typed("check", _option("ability", STRING, "DEX"), _option("advantage", BOOLEAN, True))
    assert request_text(typed) == "/check ability:DEX advantage:True"


def test_subcommands_come_before_the_options_wherever_discord_nests_them() -> None:
    typed = _typed(
        "gm",
        _option(
            "request",
            GROUP,
            None,
            _option(
                "roll",
                SUBCOMMAND,
                None,
                _option("ability", STRING, "WIT"),
                _option("dc", INTEGER, 12),
            ),
        ),
    )
    assert request_text(typed) == "/gm request roll ability:WIT dc:12"
    assert request_text(_typed("luck")) == "/luck"


def test_a_request_is_kept_within_the_ledgers_4000_characters() -> None:
    typed = _typed("roll", _option("dice", STRING, "1d6+" * 2000))
    assert len(request_text(typed)) == 4000
