"""Posts through the channel's webhook: as the character, into a thread through its parent's
webhook, and the bot's own embed when Discord refuses the webhook after all.

Tests bot/cogs/post/_webhooks.py.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord
import pytest
from simcord.enums import ChannelType

from tests.fixtures.table import Table
from tests.scenarios.test_posts import PORTRAIT, setup_table, stored


async def test_a_post_goes_through_the_channel_webhook_as_the_character(table: Table) -> None:
    await setup_table(table)
    done = await table.alice.slash(table.table, "character avatar", url=PORTRAIT)
    assert done.response is not None and "Portrait saved" in done.response.content
    assert done.response.embeds[0].thumbnail.url == PORTRAIT  # shown on the sheet
    result = await table.alice.slash(table.table, "post", text="Ayla slips into the shadows.")
    assert result.response is not None and result.response.ephemeral
    assert "Posted as **Ayla**" in result.response.content
    (message,) = [m for m in table.table.history() if m.webhook_id is not None]
    assert message.author.name == "Ayla"
    assert stored(table, message).author_avatar == PORTRAIT
    assert message.content == "Ayla slips into the shadows."
    # A second post reuses the webhook the first one created.
    await table.alice.slash(table.table, "post", text="And waits.")
    hooks = {m.webhook_id for m in table.table.history() if m.webhook_id is not None}
    assert len(hooks) == 1 and len(table.env.backend.webhooks) == 1


async def test_a_post_in_a_thread_is_sent_into_the_thread(table: Table) -> None:
    await setup_table(table)
    made = table.env.backend.create_thread(
        table.table.id, "scene 2", table.alice.id, type=ChannelType.PUBLIC_THREAD
    )
    thread = next(t for t in table.table.threads if t.id == made.id)
    start = len(table.env.http_requests)
    result = await table.alice.slash(thread, "post", text="Ayla, in the side scene.")
    assert result.response is not None and "Posted as **Ayla**" in result.response.content
    # Discord has no webhooks of threads: the parent channel's posts into the thread, by the
    # thread_id of its execute request. (SimCord 3.2 shows such a message in the parent.)
    (hook,) = table.env.backend.webhooks.values()
    assert hook.channel_id == table.table.id
    (sent,) = [
        r
        for r in table.env.http_requests[start:]
        if r.method == "POST" and r.path.startswith(f"/webhooks/{hook.id}/")
    ]
    assert str(sent.params.get("thread_id")) == str(thread.id)


async def test_a_webhook_refused_after_all_falls_back_to_the_bots_own_embed(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Discord said the bot may manage webhooks, then refused (a permission changed between).
    await setup_table(table)
    cog = table.bot.get_cog("PostCog")
    assert cog is not None

    async def refused(*_: Any) -> Any:
        raise discord.Forbidden(
            SimpleNamespace(status=403, reason="Forbidden"),
            {"code": 50013, "message": "Missing Permissions"},
        )

    monkeypatch.setattr(cog.webhooks, "for_channel", refused)
    result = await table.alice.slash(table.table, "post", text="Ayla, the hard way.")
    assert result.response is not None and result.response.ephemeral
    assert "Posted as **Ayla**" in result.response.content
    assert "Manage Webhooks" in result.response.content  # said once, to the poster
    (post,) = [m for m in table.table.history() if m.embeds and m.embeds[0].author.name]
    assert (
        post.embeds[0].author.name == "Ayla" and post.embeds[0].description == "Ayla, the hard way."
    )
    again = await table.alice.slash(table.table, "post", text="Ayla, again.")
    assert again.response is not None and "Manage Webhooks" not in again.response.content
