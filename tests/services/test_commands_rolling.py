"""What runs a roll text (an inline roll, a saved roll): one entry per command it can stand
for, prepared then rolled in the caller's transaction as its slash command would be, and a
saved text refused when its command could never run here.

Tests bot/services/rolling/commands.py.
"""

from __future__ import annotations

import itertools

import pytest

from bot.db.engine import Database
from bot.errors import UserError
from bot.services.kit.context import Caller
from bot.services.kit.sql import transaction
from bot.services.rolling import commands
from bot.services.rolling.reads import Reads
from bot.services.rolling.roll_text import Command, parse_roll_text
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView
from tests.scripted import ScriptedRandom
from tests.services.helpers import ALICE, CHANNEL, GUILD

_interactions = itertools.count(7_200_000_000_000_000)


def _alice() -> Caller:
    return Caller(ALICE, CHANNEL, GUILD, interaction_id=next(_interactions))


def test_every_command_a_text_can_stand_for_has_its_one_entry() -> None:
    assert set(commands.COMMANDS) == set(Command)
    assert all(entry.command is key for key, entry in commands.COMMANDS.items())


async def test_a_text_is_prepared_then_rolled_and_recorded_as_its_command(
    db: Database, angus: CharacterView, pd_campaign: CampaignView
) -> None:
    caller = _alice()
    async with transaction(db) as session:
        ready = await commands.prepare_in(
            session, caller, parse_roll_text("check DEX"), Reads(caller)
        )
        result = await ready.roll_in(
            session, ScriptedRandom(20), caller, "[[check DEX]]", visibility=None
        )
    assert result.character.name == angus.name
    said, dice = ready.summary(result)
    assert said.startswith("Critical Success") and "20" in dice
    [row] = await ledger.latest_rolls(db, pd_campaign.id)
    assert (row.request, row.dice) == ("[[check DEX]]", [20])


async def test_a_saved_text_its_system_cannot_run_is_refused_before_any_roll(
    db: Database, d20_campaign: CampaignView
) -> None:
    caller = _alice()
    async with transaction(db) as session:
        await commands.check_saved_in(session, parse_roll_text("check DEX dc:12"), Reads(caller))
        with pytest.raises(UserError, match="luck"):
            await commands.check_saved_in(session, parse_roll_text("luck"), Reads(caller))
    assert await ledger.latest_rolls(db, d20_campaign.id) == []
