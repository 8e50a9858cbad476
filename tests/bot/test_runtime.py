"""The bot as a whole: factory, command tree, sync, error path."""

from __future__ import annotations

import random

from bot.app import extension_names
from bot.dice import roll
from tests.bot.conftest import SEED, Table, message_text


def test_every_feature_package_is_loaded() -> None:
    assert {"bot.cogs.campaign", "bot.cogs.character", "bot.cogs.checks", "bot.cogs.dice"} <= set(
        extension_names()
    )


async def test_roll_answers_publicly_with_the_injected_rng_and_is_recorded(table: Table) -> None:
    result = await table.alice.slash(table.table, "roll", dice="4d6kh3", label="strength")
    assert result.response is not None
    assert not result.ephemeral
    text = message_text(result.response)
    expected = roll("4d6kh3", random.Random(SEED))
    assert "alice rolls strength" in text
    assert f"Total: {expected.total}" in text
    assert "roll #1" in text
