"""The campaign's game log checked as /verify log does: every roll linked to the one before,
a changed roll found by its number, and the answer in plain words with the head to compare.

Tests bot/services/trust/gamelog.py and bot/render/gamelog.py.
"""

from __future__ import annotations

from sqlalchemy import update

from bot.db.engine import Database
from bot.db.models import ledger
from bot.render import style
from bot.render.gamelog import log_check_embed, published_checkpoint
from bot.services.store.campaigns import CampaignView
from bot.services.trust import gamelog
from tests.fixtures.campaigns import ROLLS, play_rolls
from tests.ledger_triggers import drop_triggers


async def test_an_untouched_log_is_intact_and_says_so_with_its_head(
    db: Database, pd_campaign: CampaignView
) -> None:
    await play_rolls(db, pd_campaign)
    checked = await gamelog.check_campaign_log(db, pd_campaign)
    assert checked.intact and (checked.rolls, checked.last_number) == (ROLLS, ROLLS)
    embed = log_check_embed(checked)
    assert (embed.title, embed.colour) == ("The game log is intact", style.SUCCESS)
    assert f"All {ROLLS} rolls of this campaign link up" in (embed.description or "")
    # The next check reads the published head back from the message, as Discord shows it.
    assert published_checkpoint([embed]) == (ROLLS, checked.head)


async def test_a_roll_changed_after_it_was_written_breaks_the_log_at_its_number(
    db: Database, pd_campaign: CampaignView
) -> None:
    await play_rolls(db, pd_campaign)
    await drop_triggers(db.engine)  # an operator with full database access
    async with db.engine.begin() as connection:
        await connection.execute(
            update(ledger).where(ledger.c.number == 7).values(request="/check ability:WIT")
        )
    checked = await gamelog.check_campaign_log(db, pd_campaign)
    assert checked.broken is not None and checked.broken.number == 7
    embed = log_check_embed(checked)
    assert (embed.title, embed.colour) == ("The game log breaks at roll #7", style.FAILURE)
    assert "Everything before that roll still verifies." in (embed.description or "")
    assert published_checkpoint([embed]) is None  # a broken log publishes no checkpoint
