"""The GM's group ability-score generation as one recorded roll, and each player assigning its
six scores to their own character; refusals change nothing (Pen & Dagger ruling 8).

Tests bot/services/rolling/generation.py.
"""

from __future__ import annotations

import random

import pytest

from bot.db.engine import Database
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NotAllowed
from bot.services.rolling import generation
from bot.services.store import ledger
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView, get_character_by_id
from tests.services.helpers import ALICE, BOB, CHANNEL, GUILD, gm_caller


def _gm() -> Caller:
    found = gm_caller()
    return Caller(
        found.user_id,
        found.channel_id,
        found.guild_id,
        role_ids=found.role_ids,
        display_name="Morgan",
    )


async def test_the_gm_rolls_six_scores_recorded_as_one_roll_with_every_die_named(
    db: Database, pd_campaign: CampaignView
) -> None:
    made = await generation.roll_scores(
        db, random.Random(3), _gm(), [(ALICE, "Ann"), (BOB, "Bo")], "/abilities roll"
    )
    assert len(made.generation.values) == 6 and all(3 <= v <= 18 for v in made.generation.values)
    assert made.generation.rollers == ("Ann", "Bo")  # an even group: the GM does not roll
    [row] = await ledger.latest_rolls(db, pd_campaign.id)
    assert (row.id, row.kind, len(row.dice)) == (made.roll_id, "generate", 24)


async def test_with_an_odd_group_the_gm_rolls_too_under_their_name(
    db: Database, pd_campaign: CampaignView
) -> None:
    made = await generation.roll_scores(db, random.Random(3), _gm(), [(ALICE, "Ann")], "/x")
    assert made.generation.rollers == ("Ann", "Morgan (GM)")


async def test_a_player_assigns_the_six_scores_to_their_active_character(
    db: Database, hero: CharacterView
) -> None:
    made = await generation.roll_scores(
        db, random.Random(3), _gm(), [(ALICE, "Ann"), (BOB, "Bo")], "/abilities roll"
    )
    scores = made.generation.values
    chosen = dict(zip(("STR", "DEX", "CON", "INT", "WIS", "CHA"), scores, strict=True))
    character, used, stored = await generation.assign(db, Caller(ALICE, CHANNEL, GUILD), chosen)
    assert (character.id, used, list(stored)) == (hero.id, made.id, list(scores))
    assert (await get_character_by_id(db, hero.id)).scores == chosen


async def test_refusals_say_why_and_record_nothing(db: Database, pd_campaign: CampaignView) -> None:
    with pytest.raises(InvalidValue, match="Mention the players who take part"):
        await generation.roll_scores(db, random.Random(1), _gm(), [], "/x")
    with pytest.raises(InvalidValue, match="only once"):
        await generation.roll_scores(
            db, random.Random(1), _gm(), [(ALICE, "A"), (ALICE, "A")], "/x"
        )
    with pytest.raises(NotAllowed):  # only the GM runs the group generation
        await generation.roll_scores(
            db, random.Random(1), Caller(ALICE, CHANNEL, GUILD), [(BOB, "Bo")], "/x"
        )
    assert await ledger.latest_rolls(db, pd_campaign.id) == []
