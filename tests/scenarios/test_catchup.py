"""/catchup: since my last action, only what I may see, newest first, clipped.

Tests bot/cogs/catchup.py, bot/services/table/catchup.py and bot/render/catchup.py.
"""

from __future__ import annotations

from tests.fixtures.table import Table, make_character, start_campaign


async def test_catchup_for_a_player_and_the_gm_after_a_hidden_roll(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ann", {"DEX": 14})
    await make_character(table, table.bob, "Bo", {"DEX": 12})
    table.dice(5)
    await table.gm.slash(table.table, "gm check", character="Ann", ability="DEX")  # GM's last
    table.dice(6)
    await table.bob.slash(table.table, "check", ability="DEX")  # Bo's last action
    table.dice(17)
    hidden = await table.alice.slash(table.table, "check", ability="DEX", secret="blind")
    assert hidden.response is not None
    await table.gm.slash(table.table, "gm request roll", ability="DEX", characters="Bo")

    player = await table.bob.slash(table.table, "catchup")
    assert player.ephemeral
    text = player.response.content
    assert "**Now:** Roll request #1 is waiting for your roll (Bo)" in text
    assert "/channels/" in text  # its jump link
    assert "a hidden roll" in text
    assert "dice 17" not in text and "total 19" not in text  # the stub, never the result

    gm = await table.gm.slash(table.table, "catchup")
    assert gm.ephemeral
    gm_text = gm.response.content
    assert "(Ann): check, dice 17, total 19" in gm_text  # the GM is entitled to it
    assert "(Bo): check, dice 6, total 7" in gm_text
    assert "waiting for your roll" not in gm_text  # the GM has nothing to roll
    assert gm_text.index("dice 17") < gm_text.index("dice 6")  # newest first


async def test_catchup_shows_results_and_turns_that_reached_me_and_clips(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Ann", {"DEX": 14})
    await make_character(table, table.bob, "Bo", {"DEX": 12})
    table.dice(9)
    await table.alice.slash(table.table, "check", ability="DEX")
    await table.gm.slash(table.table, "gm request roll", ability="DEX", characters="Bo, Ann", dc=10)
    buttons = [m for m in table.table.history() if m.components]
    table.dice(12, 3)
    await table.bob.click(buttons[-1], label="Roll")
    await table.gm.slash(table.table, "turns start", characters="Bo, Ann")
    await table.bob.slash(table.table, "turns next")  # reaches Ann
    for _ in range(30):
        table.dice(4)
        await table.bob.slash(table.table, "check", ability="DEX")
    found = await table.alice.slash(table.table, "catchup")
    text = found.response.content
    assert "Roll request #1 is waiting for your roll (Ann)" in text
    assert "It is your turn with Ann" in text
    assert "more not shown" in text  # 30 rolls and more do not fit
    assert len(text) <= 2000
    await table.alice.click(buttons[-1], label="Roll")  # my action: the request completes
    after = await table.alice.slash(table.table, "catchup")
    assert "waiting for your roll" not in after.response.content
