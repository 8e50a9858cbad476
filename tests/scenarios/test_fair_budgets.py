"""Budgets that are fair: one person's command draws at most that person's share of the
server's bucket, and every rolling path is charged by the rows and dice it makes, before any
die is rolled."""

from __future__ import annotations

from bot.services.kit.budgets import ROLL_ROW, Budgets, Rate
from tests.fixtures.table import (
    Table,
    answered_ephemeral,
    final_answer,
    make_character,
    start_campaign,
)
from tests.scenarios.test_inline_rolls import MENU, rows

CHECKS = " ".join(["[[check DEX dc:12]]"] * 20)


def test_one_persons_command_draws_only_their_share_of_the_servers_bucket() -> None:
    # The finding: /stats on a 15,000-row campaign cost the player 5,000 and the server all
    # 30,000, and every other member's larger command was refused for about 100 s.
    now = [0.0]
    budgets = Budgets(Rate(5_000, 50), Rate(30_000, 300), clock=lambda: now[0], wall=lambda: 0)
    budgets.take(1, 99, 15_000)
    user, server = budgets.level(1, 99)
    assert user == 0 and server == 25_000
    budgets.take(2, 99, 5_000)  # the others still play
    budgets.spend(1, 99, 50_000)  # work metered afterwards: the same share, no more
    user, server = budgets.level(1, 99)
    assert user == -5_000 and server == 15_000


async def _spent(table: Table) -> None:
    """Alice has spent her whole budget (a flood of large rolls a moment ago)."""
    budgets = table.bot.budgets
    assert budgets is not None
    user, _ = budgets.level(table.alice.id, table.guild.id)
    budgets.spend(table.alice.id, table.guild.id, user + 100)
    assert budgets.level(table.alice.id, table.guild.id)[0] < 0


async def test_twenty_inline_checks_in_a_post_are_charged_and_refused_when_spent(
    table: Table,
) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Vex", {"DEX": 14})
    await _spent(table)
    refused = await table.alice.slash(table.table, "post", text=f"I dance {CHECKS}")
    assert answered_ephemeral(refused)
    assert "try again" in final_answer(refused).content
    assert await rows(table) == []


async def test_the_context_menu_charges_its_checks_too(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Vex", {"DEX": 14})
    message = await table.alice.send(table.table, f"I dance {CHECKS}")
    await _spent(table)
    refused = await table.alice.context_menu(table.table, MENU, message)
    assert answered_ephemeral(refused) and "try again" in final_answer(refused).content
    assert await rows(table) == []


async def test_a_macro_a_check_a_luck_roll_and_pre_rolls_are_charged_by_their_rows(
    table: Table,
) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Vex", {"DEX": 14})
    saved = await table.alice.slash(table.table, "macro save", name="dance", roll="check DEX")
    assert saved.response is not None
    budgets = table.bot.budgets
    assert budgets is not None
    level = budgets.level(table.alice.id, table.guild.id)[0]
    await table.alice.slash(table.table, "macro run", name="dance")
    await table.alice.slash(table.table, "check", ability="DEX")
    await table.alice.slash(table.table, "preroll", count=3)
    spent = level - budgets.level(table.alice.id, table.guild.id)[0]
    # Refilling at 50 a second on SimCord's clock: at least the rows' work was taken.
    assert spent >= 5 * ROLL_ROW - 50
    await _spent(table)
    for command, options in (("macro run", {"name": "dance"}), ("preroll", {"count": 1})):
        refused = await table.alice.slash(table.table, command, **options)
        assert answered_ephemeral(refused), command
        assert "try again" in final_answer(refused).content, command


async def test_odds_of_a_division_by_a_large_die_are_priced_before_the_work(
    table: Table,
) -> None:
    # 1d200/1d200: the engine meters ~166,000 steps (about 830 units); the estimate taken up
    # front was 3-4 times lower, so a nearly spent budget still bought the whole computation.
    await start_campaign(table, "d20-check")
    budgets = table.bot.budgets
    assert budgets is not None
    user, _ = budgets.level(table.alice.id, table.guild.id)
    budgets.spend(table.alice.id, table.guild.id, user - 500)
    refused = await table.alice.slash(table.table, "odds roll", dice="1d200/1d200")
    assert answered_ephemeral(refused)
    assert "try again" in final_answer(refused).content
