"""Campaigns and characters as the table meets them: players change only their own characters,
the GM any and the settings; a sheet and the character list read as on paper.

Tests bot/services/table/sheets.py and bot/render/sheets.py.
"""

from __future__ import annotations

import pytest

from bot.db.engine import Database
from bot.render.sheets import character_embed, character_list_text, score_line
from bot.services.kit.context import Caller
from bot.services.kit.errors import NotAllowed
from bot.services.store.campaigns import CampaignView
from bot.services.table import sheets
from tests.services.helpers import ALICE, BOB, CHANNEL, GUILD, gm_caller


def _player(user_id: int) -> Caller:
    return Caller(user_id, CHANNEL, GUILD)


async def test_a_player_changes_only_their_own_character_and_the_gm_any(
    db: Database, pd_campaign: CampaignView
) -> None:
    await sheets.create_character(db, _player(ALICE), "Jade")
    await sheets.set_score(db, _player(ALICE), "DEX", 14)
    with pytest.raises(NotAllowed):
        await sheets.set_score(db, _player(BOB), "DEX", 3, name="Jade")
    await sheets.set_score(db, gm_caller(), "WIS", 11, name="Jade")
    campaign, sheet = await sheets.show_character(db, _player(BOB), name="Jade")
    assert (sheet.name, sheet.scores) == ("Jade", {"DEX": 14, "WIS": 11})
    shown = character_embed(campaign, sheet)
    assert "Jade" in (shown.title or "")


async def test_only_the_gm_changes_the_campaigns_settings(
    db: Database, pd_campaign: CampaignView
) -> None:
    with pytest.raises(NotAllowed):
        await sheets.change_settings(db, _player(ALICE), fortune_boon_default=True)
    changed = await sheets.change_settings(db, gm_caller(), fortune_boon_default=True)
    assert changed.fortune_boon_default is True


async def test_the_list_names_each_character_its_player_and_who_is_active(
    db: Database, pd_campaign: CampaignView
) -> None:
    campaign, none_yet = await sheets.list_characters(db, _player(ALICE))
    assert character_list_text(campaign, none_yet) == (
        "No characters yet: create one with /character create."
    )
    await sheets.create_character(db, _player(ALICE), "*Jade*")
    await sheets.create_character(db, _player(ALICE), "Rook")
    campaign, found = await sheets.list_characters(db, _player(BOB))
    assert character_list_text(campaign, found).splitlines() == [
        # A player's first character is active; a new character joins the party.
        f"**\\*Jade\\*** (<@{ALICE}>) · active · party",
        f"**Rook** (<@{ALICE}>) · party",
    ]


def test_a_score_reads_with_what_it_means_in_its_system() -> None:
    assert score_line("d20-check", "DEX", 14) == "**DEX** 14 (+2)"
    assert score_line("d20-check", "STR", 8) == "**STR** 8 (−1)"
