"""A command of another rule system answers what to use instead.

``bot.rules.systems.commands.COMMANDS`` says which commands work only in the systems with a
rule. Each is played here in a campaign of every system without that rule: the answer is
private, names the system the campaign plays and the systems the command is for, says what
does the job here (the system's ``instead``), and nothing is recorded or changed.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from bot.rules.systems import SYSTEMS, system_for
from bot.rules.systems.commands import COMMANDS, RULES, has, refusal, systems_with
from bot.services.store import characters, ledger
from bot.services.store.campaigns import campaign_for_channel
from tests.fixtures.table import (
    Table,
    answered_ephemeral,
    final_answer,
    message_text,
    start_campaign,
)
from tests.scenarios.command_tree import DUMP

#: Each command's options, enough to get past everything but the system.
OPTIONS: dict[str, dict[str, Any]] = {
    "attack": {"ac": 12},
    "gm attack": {"ac": 12, "character": "Ann"},
    "odds attack": {"ac": 12},
    "character armour": {"ac": 14},
    "character restore-ac": {"character": "Ann"},
    "campaign set crit-rules": {"on": True},
    "campaign set crit-damage": {"double": True},
    "reroll": {"die": "first"},
    "campaign set rerolls": {"on": True},
    "luck": {},
    "odds luck": {},
    "campaign set luck-trade": {"on": False},
    "fortune show": {},
    "fortune spend": {"purpose": "hint"},
    "fortune give": {"character": "Ann"},
    "fortune take": {"character": "Ann"},
    "character boon": {"double_fortune": True, "character": "Ann"},
    "campaign set fortune-boon": {"on": True},
    "abilities roll": {"players": "<@{alice}>"},
    "abilities assign": {"str": 15, "dex": 14, "con": 13, "int": 12, "wis": 10, "cha": 8},
    "character save": {"ability": "STR"},
    "character null": {"bonus": 1},
    "gm clear-modifier": {"character": "Ann"},
    "campaign set carry-over": {"on": False},
    "campaign set tier": {"difficulty": "hard", "threshold": 16},
    "contest": {"ability": "STR", "characters": "Ann, Bo"},
    "save": {"ability": "STR"},
    "odds save": {"ability": "STR"},
}
#: Who runs each command: the GM for GM tools and settings, else the player.
BY_GM = {"gm", "campaign", "fortune give", "fortune take", "character restore-ac"}
BY_GM |= {"character boon", "abilities roll"}


def _runner(table: Table, command: str) -> Any:
    gm = command in BY_GM or command.split(" ")[0] in BY_GM
    return table.gm if gm else table.alice


async def _state(table: Table) -> tuple[Any, ...]:
    campaign = await campaign_for_channel(table.bot.db, table.guild.id, table.table.id)
    rolls = await ledger.latest_rolls(table.bot.db, campaign.id, limit=50)
    # The GMs the bot has seen are remembered on any command (for notices), not a change.
    seen = replace(campaign, gm_user_ids=())
    return seen, await characters.list_characters(table.bot.db, campaign.id), rolls


def test_every_command_of_one_system_is_a_real_command_that_names_its_systems() -> None:
    leaves: dict[str, str] = {}

    def walk(node: dict[str, Any], prefix: str) -> None:
        groups = [o for o in node.get("options", []) if o["type"] in (1, 2)]
        name = f"{prefix} {node['name']}".strip()
        if not groups:
            leaves[name] = node.get("description", "")
        for option in groups:
            walk(option, name)

    for command in json.loads(DUMP.read_text(encoding="utf-8")):
        walk(command, "")
    assert set(COMMANDS) <= set(leaves), set(COMMANDS) - set(leaves)
    assert set(COMMANDS) == set(OPTIONS)
    # The command picker says which systems each one is for, before anyone runs it.
    for command, rule in COMMANDS.items():
        for owner in systems_with(rule):
            assert owner.name.casefold() in leaves[command].casefold(), (command, owner.name)
    # Every rule is somebody's, and some system lacks it: else it would not be optional.
    for rule in RULES:
        assert 0 < len(systems_with(rule)) < len(SYSTEMS), rule


@pytest.mark.parametrize("key", ["pen-and-dagger", "roll-under", "threshold", "d20-check"])
async def test_a_command_of_another_system_says_what_to_use_here(table: Table, key: str) -> None:
    system = system_for(key)
    await start_campaign(table, key)
    for player, name in ((table.alice, "Ann"), (table.bob, "Bo")):
        await player.slash(table.table, "character create", name=name)
        for ability in system.abilities:
            await player.slash(table.table, "character set", ability=ability, value=10)
    before = await _state(table)
    refused = [command for command, rule in COMMANDS.items() if not has(system, rule)]
    assert refused, "every built-in system lacks some other system's rule"
    for command in refused:
        options = {
            k: v.format(alice=table.alice.id) if isinstance(v, str) else v
            for k, v in OPTIONS[command].items()
        }
        result = await _runner(table, command).slash(table.table, command, **options)
        text = message_text(final_answer(result))
        assert answered_ephemeral(result), command
        assert text == refusal(system, COMMANDS[command], command), command
        assert text.startswith(f"This campaign plays {system.name}; /{command} is for "), text
        owners = systems_with(COMMANDS[command])
        assert all(owner.name in text for owner in owners), text
        assert text.endswith("Nothing changed."), text
        if not command.startswith(("campaign set ", "character armour", "character restore")):
            # What to use here: a command of this system, or that there is none.
            assert "/" in text.split(").", 1)[1] or f"Nothing in {system.name}" in text, text
    assert await _state(table) == before


async def test_the_answer_is_in_the_words_of_the_command_used(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await table.alice.slash(table.table, "character create", name="Ann")
    odds = await table.alice.slash(table.table, "odds attack", ac=12)
    assert "An attack is an attempt here: /odds check ability:STR" in message_text(
        final_answer(odds)
    )
    gm = await table.gm.slash(table.table, "gm attack", ac=12, monster="Orc")
    assert "/gm check ability:STR" in message_text(final_answer(gm))
    save = await table.alice.slash(table.table, "save", ability="STR")
    assert "Roll an attempt instead: /check ability:<ability>." in message_text(final_answer(save))


async def test_an_option_of_another_system_says_what_to_use_here(table: Table) -> None:
    await start_campaign(table, "d20-check")
    result = await table.gm.slash(table.table, "groupcheck", ability="STR", difficulty="hard")
    assert answered_ephemeral(result)
    assert message_text(final_answer(result)) == (
        "This campaign plays d20 check, which has no difficulty tiers (Threshold only). "
        "A check takes its DC itself: /groupcheck dc:<number>. Nothing changed."
    )
