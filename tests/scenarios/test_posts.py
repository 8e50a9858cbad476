"""Posting as a character (docs/posting.md): /post through a webhook or, without Manage Webhooks, an
embed; inline rolls bound to the post; refused posts; edits that keep the rolls; portraits;
mentions that do not ping; names and texts escaped and clipped.

Tests bot/cogs/post/_cog.py and bot/render/posts.py.
"""

from __future__ import annotations

import re
from typing import Any

import discord
import pytest
from sqlalchemy import func, select

from bot.db.models import ledger
from bot.db.post_models import post_rolls, post_versions, posts
from bot.services.kit.context import Caller
from bot.services.kit.sql import transaction
from bot.services.store.ledger import DuplicateInteraction
from bot.services.table import posts as post_service
from tests.fixtures.table import Table, make_character, message_text, start_campaign
from tests.scenarios.test_permissions import every_permission, restrict_bot

PORTRAIT = "https://example.org/portraits/ayla.png"


def allow_webhooks(table: Table, on: bool) -> None:
    """The bot may (or may not) manage webhooks in #table; everything else allowed."""
    permissions = every_permission()
    permissions.manage_webhooks = on
    restrict_bot(table, table.table, permissions)


async def setup_table(table: Table, *, webhooks: bool = True, name: str = "Ayla") -> None:
    allow_webhooks(table, webhooks)
    await start_campaign(table, "d20-check")
    if name == "Ayla":
        await make_character(table, table.alice, name, {"DEX": 14})
    else:  # a name shown escaped: make_character looks for it as typed
        created = await table.alice.slash(table.table, "character create", name=name)
        assert created.response is not None and "joins the campaign" in created.response.content


async def counts(table: Table) -> tuple[int, int, int, int]:
    """Rows of posts, post versions, post rolls, ledger."""
    async with transaction(table.bot.db) as session:
        found = []
        for t in (posts, post_versions, post_rolls, ledger):
            found.append(
                int((await session.execute(select(func.count()).select_from(t))).scalar_one())
            )
    return found[0], found[1], found[2], found[3]


def stored(table: Table, message: discord.Message) -> Any:
    """SimCord's record of a message: who it pinged, what it allowed."""
    return table.env.backend.messages[message.channel.id][message.id]


def posted(table: Table) -> list[discord.Message]:
    """The messages in #table that are not interaction answers or the bot's notes."""
    return [m for m in table.table.history() if m.webhook_id is not None or m.embeds]


async def test_with_no_text_a_modal_opens_and_its_text_is_posted(table: Table) -> None:
    await setup_table(table)
    shown = await table.alice.slash(table.table, "post")
    assert shown.modal is not None and "Ayla" in shown.modal["title"]
    field = shown.modal["components"][0]["components"][0]
    assert field["style"] == 2 and field["max_length"] == 4000  # a paragraph, Discord's max
    text = "Line one.\nLine two, [[check DEX]]."
    table.dice(12)
    sent = await table.alice.submit_modal(shown, {field["custom_id"]: text})
    assert sent.acknowledged
    (message,) = [m for m in table.table.history() if m.webhook_id is not None]
    assert message.content.startswith("Line one.\nLine two, **14**.")  # d20 12, DEX +2


async def test_inline_rolls_are_bound_to_the_post_and_in_history(table: Table) -> None:
    await setup_table(table)
    table.dice(15)
    result = await table.alice.slash(
        table.table, "post", text="I check the lock [[check DEX]] and listen [[1d20]]."
    )
    assert result.response is not None
    (message,) = [m for m in table.table.history() if m.webhook_id is not None]
    async with transaction(table.bot.db) as session:
        listen = (
            await session.execute(select(post_rolls.c.total).where(post_rolls.c.position == 1))
        ).scalar_one()
    assert message.content.startswith(f"I check the lock **17** and listen **{listen}**.")
    numbers = re.findall(r"rolls #(\d+), #(\d+) bound", result.response.content)
    assert numbers, result.response.content
    async with transaction(table.bot.db) as session:
        bound = (await session.execute(select(post_rolls).order_by(post_rolls.c.position))).all()
        rows = (await session.execute(select(ledger).order_by(ledger.c.number))).all()
    assert [b.source for b in bound] == ["check DEX", "1d20"]
    assert [r.kind for r in rows] == ["check", "roll", "post"]
    assert rows[2].outcome["rolls"] == [rows[0].number, rows[1].number]
    assert all("in post " in r.request for r in rows[:2])
    shown = await table.bob.slash(table.table, "history")
    assert shown.response is not None
    listed = message_text(shown.response)
    assert f"**#{rows[2].number}**" in listed
    bound_line = f"post · in character · rolls #{rows[0].number}, #{rows[1].number} · text sha256"
    assert bound_line in listed


async def test_a_bad_inline_roll_refuses_the_whole_post(table: Table) -> None:
    await setup_table(table)
    before = await counts(table)
    seen = len(table.table.history())
    result = await table.alice.slash(
        table.table, "post", text="First [[1d20]], then [[1d0]] which cannot be."
    )
    answer = result.response or result.followups[-1]
    assert answer.ephemeral and "[[1d0]]" in answer.content.replace("\\", "")
    assert await counts(table) == before
    assert [m for m in table.table.history()[seen:] if not m.flags.ephemeral] == []


async def test_without_manage_webhooks_the_post_is_an_embed_and_the_hint_comes_once(
    table: Table,
) -> None:
    await setup_table(table, webhooks=False)
    await table.alice.slash(table.table, "character avatar", url=PORTRAIT)
    first = await table.alice.slash(table.table, "post", text="Ayla bows.")
    assert first.response is not None and not first.response.ephemeral
    (embed,) = first.response.embeds
    assert embed.author.name == "Ayla" and embed.author.icon_url == PORTRAIT
    assert embed.description == "Ayla bows."
    assert any("Manage Webhooks" in f.content for f in first.followups)
    second = await table.alice.slash(table.table, "post", text="Ayla bows again.")
    assert not any("Manage Webhooks" in f.content for f in second.followups)
    assert table.env.backend.webhooks == {}
    # The embed post is edited in place.
    link = f"https://discord.com/channels/{table.guild.id}/{table.table.id}/{first.response.id}"
    shown = await table.alice.slash(table.table, "post-edit", message=link)
    assert shown.modal is not None
    field = shown.modal["components"][0]["components"][0]
    assert field["value"] == "Ayla bows."
    await table.alice.submit_modal(shown, {field["custom_id"]: "Ayla bows deeply."})
    edited = next(m for m in table.table.history() if m.id == first.response.id)
    assert edited.embeds[0].description == "Ayla bows deeply."


async def post_with_roll(table: Table) -> discord.Message:
    table.dice(11)
    await table.alice.slash(table.table, "post", text="Ayla strikes [[check DEX]]!")
    return next(m for m in table.table.history() if m.webhook_id is not None)


async def edit(table: Table, who: Any, message: discord.Message, text: str) -> Any:
    shown = await who.slash(table.table, "post-edit", message=str(message.id))
    if shown.modal is None:
        return shown
    field = shown.modal["components"][0]["components"][0]
    return await who.submit_modal(shown, {field["custom_id"]: text})


async def test_an_edit_keeps_the_rolls_and_every_version(table: Table) -> None:
    await setup_table(table)
    message = await post_with_roll(table)
    assert message.content.startswith("Ayla strikes **13**!")  # d20 11, DEX +2
    before = await counts(table)
    done = await edit(table, table.alice, message, "Ayla strikes hard [[check  DEX]], twice!")
    assert done.acknowledged
    after = next(m for m in table.table.history() if m.id == message.id)
    assert after.content.startswith("Ayla strikes hard **13**, twice!")
    posts_, versions, rolls, rows = await counts(table)
    assert (posts_, rolls) == (before[0], before[2])  # no new roll: nothing rerolled
    assert versions == before[1] + 1 and rows == before[3] + 1  # the edit is in the ledger
    history = await table.gm.slash(table.table, "post-history", message=str(message.id))
    assert history.response is not None
    shown = message_text(history.response).replace("\\", "")
    assert (
        "Ayla strikes [[check DEX]]!" in shown
        and "Ayla strikes hard [[check  DEX]], twice!" in shown
    )


async def test_an_edit_that_changes_adds_or_removes_a_roll_is_refused(table: Table) -> None:
    await setup_table(table)
    message = await post_with_roll(table)
    before = await counts(table)
    for text, said in (
        ("Ayla strikes [[check DEX adv]]!", "Roll 1 was"),
        ("Ayla strikes!", "removes a roll"),
        ("Ayla strikes [[check DEX]] [[1d6]]!", "adds a roll"),
    ):
        refused = await edit(table, table.alice, message, text)
        answer = refused.response or refused.followups[-1]
        assert answer.ephemeral and said in answer.content, answer.content
        assert "Nothing was changed" in answer.content
    assert await counts(table) == before
    same = next(m for m in table.table.history() if m.id == message.id)
    assert same.content == message.content


async def test_only_the_author_edits_and_history_is_for_the_gm_and_author(table: Table) -> None:
    await setup_table(table)
    message = await post_with_roll(table)
    refused = await edit(table, table.bob, message, "Bob was here")
    answer = refused.response or refused.followups[-1]
    assert answer.ephemeral and "Only the player who wrote" in answer.content
    peek = await table.bob.slash(table.table, "post-history", message=str(message.id))
    assert peek.response is not None and "for the GM and its author" in peek.response.content
    own = await table.alice.slash(table.table, "post-history", message=str(message.id))
    assert own.response is not None and own.response.embeds
    # The GM may look from the GM channel, by the post's link.
    link = f"https://discord.com/channels/{table.guild.id}/{table.table.id}/{message.id}"
    from_gm = await table.gm.slash(table.gm_channel, "post-history", message=link)
    assert from_gm.response is not None and from_gm.response.embeds
    assert "Ayla strikes" in message_text(from_gm.response)


async def test_portraits_are_checked_and_bad_ones_change_nothing(table: Table) -> None:
    await setup_table(table)
    for url, said in (
        ("http://example.org/a.png", "https://"),
        ("https://example.org/a.txt", "image file"),
        ("https:///a.png", "web server"),
        ("https://exa mple.org/a.png", "spaces"),
    ):
        refused = await table.alice.slash(table.table, "character avatar", url=url)
        assert refused.response is not None and said in refused.response.content, url
    big = await table.alice.slash(
        table.table, "character avatar", image=("huge.png", b"\0" * (8 * 1024 * 1024 + 1))
    )
    assert big.response is not None and "at most 8 MB" in big.response.content
    text = await table.alice.slash(table.table, "character avatar", image=("notes.txt", b"hi"))
    assert text.response is not None and "not an image" in text.response.content
    sheet = await table.alice.slash(table.table, "character show")
    assert sheet.response is not None and sheet.response.embeds[0].thumbnail.url is None
    upload = await table.alice.slash(
        table.table, "character avatar", image=("ayla.png", b"\x89PNG fake")
    )
    assert upload.response is not None and "Portrait saved" in upload.response.content
    assert upload.response.embeds[0].thumbnail.url.endswith("/ayla.png")


async def test_mentions_ping_nobody_unless_the_gm_allows_players(table: Table) -> None:
    await setup_table(table)
    await make_character(table, table.bob, "Bram", {"DEX": 12})  # a player; carol is not
    text = (
        f"Hey <@{table.bob.id}> and <@{table.carol.id}>, "
        f"@everyone and <@&{table.gm_role.id}>, look!"
    )
    await table.alice.slash(table.table, "post", text=text)
    first = [m for m in table.table.history() if m.webhook_id is not None][-1]
    quiet = stored(table, first)
    assert quiet.ping_user_ids == [] and quiet.ping_role_ids == [] and not quiet.mention_everyone
    refused = await table.alice.slash(table.table, "campaign set post-mentions", on=True)
    assert refused.response is not None and "GM" in refused.response.content
    done = await table.gm.slash(table.table, "campaign set post-mentions", on=True)
    assert done.response is not None and "Setting saved" in done.response.content
    await table.alice.slash(table.table, "post", text=text)
    second = stored(table, [m for m in table.table.history() if m.webhook_id is not None][-1])
    assert second.ping_user_ids == [table.bob.id]  # the player only, not carol, no roles
    assert second.ping_role_ids == [] and not second.mention_everyone
    # Without Manage Webhooks the embed names the pinged player in its content too.
    allow_webhooks(table, False)
    shown = await table.alice.slash(table.table, "post", text=text)
    assert shown.response is not None and shown.response.content == f"<@{table.bob.id}>"
    embed_post = table.env.backend.messages[table.table.id][shown.response.id]
    assert embed_post.ping_user_ids == [table.bob.id]


async def test_names_show_as_typed_and_a_long_post_continues_in_a_second_message(
    table: Table,
) -> None:
    await setup_table(table, name="**@everyone** of Discord")
    long = "word " * 790  # 3,950 characters: more than a message holds
    await table.alice.slash(table.table, "post", text="**@everyone** ~~hi~~")
    await table.alice.slash(table.table, "post", text=long)
    first, *rest = [m for m in table.table.history() if m.webhook_id is not None]
    assert first.author.name == "**@everyone** of Disc\u043erd"  # a webhook shows it literally
    assert first.content == "**@everyone** ~~hi~~"  # the post's markdown, as written
    assert not stored(table, first).mention_everyone  # and no ping
    # Longer than a message's 2,000 characters: continued in a second one, nothing cut.
    assert len(rest) == 2 and all(len(m.content) <= 2000 for m in rest)
    assert " ".join(m.content for m in rest).split() == long.split()


async def test_erasure_deletes_her_posts_and_her_mentions_in_others(table: Table) -> None:
    await setup_table(table)
    await make_character(table, table.bob, "Bram", {"DEX": 12})
    await table.alice.slash(table.table, "post", text="Ayla waves [[1d20]].")
    await table.bob.slash(table.table, "post", text=f"Bram waves back at <@{table.alice.id}>.")
    shown = await table.alice.slash(table.table, "privacy show")
    assert shown.response is not None and "1 posts as your characters" in message_text(
        shown.response
    )
    asked = await table.alice.slash(table.table, "privacy delete")
    assert asked.response is not None
    done = await table.alice.click(asked.response, label="Erase my data")
    assert done.response is not None and "erased" in done.response.content
    async with transaction(table.bot.db) as session:
        left = (await session.execute(select(posts.c.user_id))).scalars().all()
        texts = (await session.execute(select(post_versions.c.text))).scalars().all()
    assert left == [table.bob.id]
    assert texts == ["Bram waves back at [erased]."]


async def test_no_form_opens_for_someone_without_a_character(table: Table) -> None:
    await setup_table(table)
    shown = await table.bob.slash(table.table, "post")
    assert shown.modal is None and shown.response is not None and shown.response.ephemeral
    assert "no active character" in shown.response.content


async def test_a_bad_roll_sent_from_the_form_posts_nothing_either(table: Table) -> None:
    await setup_table(table)
    before = await counts(table)
    shown = await table.alice.slash(table.table, "post")
    assert shown.modal is not None
    field = shown.modal["components"][0]["components"][0]
    sent = await table.alice.submit_modal(
        shown, {field["custom_id"]: "A long scene…\n[[check DEX]] and [[check LUCK]]"}
    )
    answer = sent.response or sent.followups[-1]
    assert answer.ephemeral and "Nothing was rolled" in answer.content
    assert await counts(table) == before
    assert [m for m in table.table.history() if m.webhook_id is not None] == []


async def test_a_post_delivered_twice_names_its_own_roll_number(table: Table) -> None:
    # A gateway replay of /post: the second delivery is told where the post went, by the
    # public number its ledger row shows (/history, /verify), not by an internal id.
    await setup_table(table)
    lobby = table.guild.create_text_channel("lobby")
    await table.alice.slash(lobby, "roll", dice="1d20")  # a row numbered in another scope
    caller = Caller(
        user_id=table.alice.id,
        channel_id=table.table.id,
        guild_id=table.guild.id,
        interaction_id=987_654_321,
    )
    first = await post_service.create_post(table.bot.db, caller, "I wait.", table.bot.rng)
    with pytest.raises(DuplicateInteraction) as replay:
        await post_service.create_post(table.bot.db, caller, "I wait.", table.bot.rng)
    assert replay.value.roll_id == first.number
