""" "Who posted this?": anyone learns the player behind a post, webhook or embed, and any other
message says it cannot tell.

Tests bot/cogs/whoposted.py and bot/services/trust/authorship.py.
"""

from __future__ import annotations

from bot.cogs.whoposted import MENU_NAME as WHO
from tests.fixtures.table import Table
from tests.scenarios.test_posts import setup_table


async def test_anyone_can_ask_who_posted_a_webhook_post(table: Table) -> None:
    await setup_table(table)
    await table.alice.slash(table.table, "post", text="I lean on the bar.")
    (message,) = [m for m in table.table.history() if m.webhook_id is not None]
    assert message.author.name == "Ayla"  # Discord shows the character, not the member
    asked = await table.bob.context_menu(table.table, WHO, message)
    assert asked.ephemeral and asked.response is not None
    text = asked.response.content
    assert f"<@{table.alice.id}>" in text and "**Ayla**" in text, text


async def test_who_posted_names_the_player_of_an_embed_post_too(table: Table) -> None:
    await setup_table(table, webhooks=False)
    await table.alice.slash(table.table, "post", text="I lean on the bar.")
    (message,) = [
        m for m in table.table.history() if m.embeds and "bar" in str(m.embeds[0].description)
    ]
    asked = await table.carol.context_menu(table.table, WHO, message)
    assert asked.response is not None and f"<@{table.alice.id}>" in asked.response.content


async def test_who_posted_on_any_other_message_says_it_cannot_tell(table: Table) -> None:
    await setup_table(table)
    message = await table.bob.send(table.table, "Just me talking")
    asked = await table.alice.context_menu(table.table, WHO, message)
    assert asked.ephemeral and asked.response is not None
    assert "not a post" in asked.response.content
