"""Posts read as written: a long post with its rolls whole, markdown and mentions as Discord
shows them (pinging nobody unless the GM allows), a refused post's text given back, and the
same for declarations and the context menu."""

from __future__ import annotations

import re

import pytest

from tests.fixtures.places import open_thread
from tests.fixtures.table import Table, final_answer, make_character, message_text
from tests.scenarios.test_posts import setup_table, stored


def _hooked(table: Table, place: object | None = None) -> list[object]:
    channel = place or table.table
    return [m for m in channel.history() if m.webhook_id is not None]  # type: ignore[attr-defined]


async def test_a_long_post_with_five_checks_keeps_every_total_in_place_and_nothing_is_cut(
    table: Table,
) -> None:
    await setup_table(table)
    paragraph = "The rain keeps on over the harbour while Ayla waits by the crates. " * 11
    text = "\n\n".join(f"{paragraph}She tries [[check DEX]]." for _ in range(5))
    assert 3700 < len(text) <= 4000
    table.dice(3, 5, 7, 9, 11)
    result = await table.alice.slash(table.table, "post", text=text)
    assert "Posted as **Ayla**" in final_answer(result).content
    parts = [m.content for m in _hooked(table)]  # type: ignore[attr-defined]
    assert len(parts) >= 2 and all(len(p) <= 2000 for p in parts)
    whole = "\n\n".join(parts)
    assert "…" not in whole
    # Each total in its place, in order (d20 + 2 DEX), and the five roll lines after.
    for total in (5, 7, 9, 11, 13):
        assert f"She tries **{total}**." in whole
    assert whole.index("**5**") < whole.index("**13**")
    assert len(re.findall(r"`#\d+` check DEX: ", whole)) == 5
    assert whole.replace("\n", " ").count("Ayla waits by the crates.") == 55


async def test_markdown_and_mentions_show_as_written_and_ping_nobody(table: Table) -> None:
    await setup_table(table)
    await make_character(table, table.bob, "Bram", {"DEX": 12})
    text = (
        f"*whispers* to <@{table.bob.id}>: **run**! ||the idol is fake||\n"
        f"> a line quoted, <#{table.table.id}>, <@&{table.gm_role.id}>, @everyone"
    )
    await table.alice.slash(table.table, "post", text=text)
    (post,) = _hooked(table)
    assert post.content == text  # type: ignore[attr-defined]
    quiet = stored(table, post)
    assert quiet.ping_user_ids == [] and quiet.ping_role_ids == [] and not quiet.mention_everyone
    # The GM allows pings: the player mentioned is pinged, still no role and no @everyone.
    await table.gm.slash(table.table, "campaign set post-mentions", on=True)
    await table.alice.slash(table.table, "post", text=text)
    loud = stored(table, _hooked(table)[-1])
    assert loud.ping_user_ids == [table.bob.id] and loud.ping_role_ids == []
    assert not loud.mention_everyone
    # A declaration reads as written in the reveal too.
    await table.gm.slash(table.table, "gm round open")
    await table.alice.slash(table.table, "declare", text=f"*I* shove <@{table.bob.id}> aside")
    revealed = await table.gm.slash(table.table, "gm round reveal")
    shown = "\n".join(message_text(m) for m in [revealed.response, *revealed.followups] if m)
    assert f"*I* shove <@{table.bob.id}> aside" in shown


async def test_a_refused_post_gives_the_text_back_and_reopens_the_form(table: Table) -> None:
    await setup_table(table)
    shown = await table.alice.slash(table.table, "post")
    field = shown.modal["components"][0]["components"][0]
    text = "A long scene, written with care…\n" * 40 + "[[check DEX]] and [[check LUCK]]"
    sent = await table.alice.submit_modal(shown, {field["custom_id"]: text})
    answer = final_answer(sent)
    assert answer.ephemeral and "Nothing was posted" in answer.content
    (attached,) = answer.attachments
    assert attached.filename == "your-post.txt"
    assert (await attached.read()).decode("utf-8") == text
    again = await table.alice.click(answer, label="Edit it and post again")
    assert again.modal is not None
    assert again.modal["components"][0]["components"][0]["value"] == text
    assert _hooked(table) == []


async def test_an_edit_longer_than_the_posts_messages_is_refused_before_it_is_kept(
    table: Table,
) -> None:
    await setup_table(table)
    await table.alice.slash(table.table, "post", text="Short.")
    (post,) = _hooked(table)
    link = f"https://discord.com/channels/{table.guild.id}/{table.table.id}/{post.id}"  # type: ignore[attr-defined]
    shown = await table.alice.slash(table.table, "post-edit", message=link)
    field = shown.modal["components"][0]["components"][0]
    sent = await table.alice.submit_modal(shown, {field["custom_id"]: "word " * 700})
    answer = final_answer(sent)
    assert "needs 2 messages and the post has 1" in answer.content
    history = await table.alice.slash(table.table, "post-history", message=link)
    assert "1 version(s)" in message_text(final_answer(history))


async def test_the_context_menu_keeps_markdown_and_each_total_in_place(table: Table) -> None:
    await setup_table(table)
    said = await table.alice.send(table.table, "*Ayla* leaps [[1d20+2]] and lands **softly**")
    table.dice(10)
    result = await table.alice.context_menu(table.table, "Roll the dice in this message", said)
    body = final_answer(result).content
    assert "*Ayla* leaps **12** and lands **softly**" in body


@pytest.mark.usefixtures("discord_thread_rules")
async def test_a_post_in_a_thread_lands_in_the_thread(table: Table) -> None:
    await setup_table(table)
    scene = open_thread(table, table.table, "Scene")
    await table.alice.slash(scene, "post", text="Ayla, in the side scene.")
    assert [m.content for m in _hooked(table, scene)] == ["Ayla, in the side scene."]  # type: ignore[attr-defined]
    assert _hooked(table) == []
