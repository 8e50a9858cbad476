"""Who posted this? The member behind a post made with /post, for anyone in its server, named by
a mention no nickname can hide; any other message is not the bot's to vouch for.

Tests bot/services/trust/authorship.py and bot/render/authorship.py.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.db.engine import Database
from bot.db.post_models import posts
from bot.render.authorship import authorship_text
from bot.services.kit.context import Caller
from bot.services.kit.errors import NotFound
from bot.services.store.campaigns import CampaignView
from bot.services.trust.authorship import Authorship, who_posted
from tests.services.helpers import ALICE, BOB, CHANNEL, GUILD

MESSAGE = 5_000_000_000_000_001
POSTED = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


async def _posted(db: Database, campaign: CampaignView) -> None:
    async with db.engine.begin() as connection:
        await connection.execute(
            posts.insert().values(
                campaign_id=campaign.id,
                character_name="*Ayla*",
                guild_id=GUILD,
                channel_id=CHANNEL,
                user_id=ALICE,
                message_id=MESSAGE,
                created_at=POSTED,
            )
        )


async def test_anyone_in_the_server_learns_who_posted_and_as_whom(
    db: Database, pd_campaign: CampaignView
) -> None:
    await _posted(db, pd_campaign)
    found = await who_posted(db, Caller(BOB, CHANNEL, GUILD), CHANNEL, MESSAGE)
    assert (found.user_id, found.character_name, found.version, found.number) == (
        ALICE,
        "*Ayla*",
        1,
        0,
    )
    assert authorship_text(found) == (
        f"Posted by <@{ALICE}> (user id {ALICE}) as **\\*Ayla\\*** (post {found.post_id}), "
        f"<t:{int(POSTED.timestamp())}:f>."
    )


async def test_another_message_or_another_servers_post_is_not_vouched_for(
    db: Database, pd_campaign: CampaignView
) -> None:
    await _posted(db, pd_campaign)
    with pytest.raises(NotFound, match="not a post made with this bot's /post"):
        await who_posted(db, Caller(BOB, CHANNEL, GUILD), CHANNEL, MESSAGE + 1)
    with pytest.raises(NotFound):
        await who_posted(db, Caller(BOB, CHANNEL, GUILD + 1), CHANNEL, MESSAGE)


def test_an_edited_post_says_which_version_and_where_the_others_are() -> None:
    edited = Authorship(7, ALICE, "Ayla", POSTED, POSTED, version=2, number=34)
    text = authorship_text(edited)
    assert "(post 7, game log #34)" in text
    assert text.endswith(": version 2; /post-history shows every version to the GM and the author.")
