"""/odds: the rules engine's exact odds, for the caller's character, before anyone rolls.

Expected numbers come from each system's own odds function called here directly, and are
formatted independently (exact decimal, half up) from the bot's renderer.

Tests bot/cogs/odds.py, bot/services/rolling/odds.py and bot/render/odds.py.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from bot.dice import exact_odds
from bot.rules import d20_check, roll_under, threshold
from bot.rules import pen_and_dagger as pd
from tests.fixtures.table import Table, make_character, message_text, start_campaign


def shown(p: Fraction) -> str:
    """One decimal, rounded half up from the exact value (with the <0.1% / >99.9% edges)."""
    value = (Decimal(p.numerator) * 100 / Decimal(p.denominator)).quantize(
        Decimal("0.1"), rounding=ROUND_HALF_UP
    )
    if p > 0 and value == 0:
        return "<0.1%"
    if p < 1 and value == 100:
        return ">99.9%"
    return f"{value}%"


def chart_line(text: str, label: str) -> str:
    """The chart line starting with ``label``."""
    found = [line for line in text.splitlines() if line.startswith(label + " ")]
    assert len(found) == 1, (label, text)
    return found[0]


async def test_pen_and_dagger_attempt_odds_match_the_engine(table: Table) -> None:
    await start_campaign(table, "pen-and-dagger")
    await make_character(table, table.alice, "Angus", {"DEX": 13})
    result = await table.alice.slash(
        table.table, "odds check", ability="dex", advantage=True, reliable=True
    )
    assert result.ephemeral and result.response is not None
    text = message_text(result.response)
    rank = pd.ability_rank(13)
    assert f"Angus, DEX attempt, {rank.display_name}, advantage, reliable:" in text
    expected = pd.attempt_odds(rank, advantage=True, reliable=True)
    for level, p in expected.items():
        assert chart_line(text, level.display_name).endswith(shown(p)), level
        if p > 0:
            assert f"{level.display_name} {shown(p)}" in text
    luck = await table.alice.slash(table.table, "odds luck")
    lucky = pd.luck_odds()[True]
    assert f"**{shown(lucky)}** (exactly {lucky.numerator}/{lucky.denominator})" in message_text(
        luck.response
    )


async def test_roll_under_save_odds_match_the_engine(table: Table) -> None:
    await start_campaign(table, "roll-under")
    await make_character(table, table.alice, "Sybilla", {"WIT": 7})
    result = await table.alice.slash(table.table, "odds check", ability="wit")
    text = message_text(result.response)
    p = roll_under.save_odds(7)
    assert chart_line(text, "Pass").endswith(shown(p))
    assert f"exactly {p.numerator}/{p.denominator}" in text


async def test_threshold_odds_include_the_stored_carry_over(table: Table) -> None:
    await start_campaign(table, "threshold")
    await make_character(table, table.alice, "Mira", {"STR": 3})
    result = await table.alice.slash(table.table, "odds check", ability="str", difficulty="hard")
    text = message_text(result.response)
    odds = threshold.odds_of_test(3, threshold.Difficulty.HARD)
    for outcome, p in odds.items():
        assert chart_line(text, outcome.display).endswith(shown(p))
    success = sum((p for r, p in odds.items() if r.succeeded), Fraction(0))
    assert f"**{shown(success)}** (exactly {success.numerator}/{success.denominator})" in text
    assert "Hard (17)" in text


async def test_d20_check_odds_give_the_single_chance_against_a_dc(table: Table) -> None:
    await start_campaign(table, "d20-check")
    await make_character(table, table.alice, "Tor", {"DEX": 14})
    result = await table.alice.slash(
        table.table, "odds check", ability="dex", dc=15, advantage=True, bonus=1
    )
    text = message_text(result.response)
    check = d20_check.CheckInput(score=14, ability="DEX", level=1, bonus=1, advantage=True)
    p = d20_check.check_odds(check, 15)
    assert f"**{shown(p)}** (exactly {p.numerator}/{p.denominator})" in text
    assert chart_line(text, "Success").endswith(shown(p))
    assert "DC 15" in text


async def test_dice_expression_odds_match_exact_odds(table: Table) -> None:
    result = await table.alice.slash(table.table, "odds roll", dice="2d6+1", at_least=8)
    assert result.ephemeral
    text = message_text(result.response)
    odds = exact_odds("2d6+1")
    for total, p in odds.items():
        assert chart_line(text, str(total)).endswith(shown(p))
    at_least = sum((p for t, p in odds.items() if t >= 8), Fraction(0))
    assert f"exactly {at_least.numerator}/{at_least.denominator}" in text


async def test_odds_of_a_bad_expression_say_so_and_public_is_public(table: Table) -> None:
    bad = await table.alice.slash(table.table, "odds roll", dice="2d")
    assert bad.ephemeral and "Odds" not in message_text(bad.response)
    public = await table.alice.slash(table.table, "odds roll", dice="1d4", public=True)
    assert not public.ephemeral


async def test_odds_of_a_costly_expression_are_refused_in_plain_words(table: Table) -> None:
    # Such an expression once blocked the event loop for about 250 ms; now refused at once, only
    # to the caller, and the bot keeps answering.
    refused = await table.alice.slash(
        table.table, "odds roll", dice="(1d1000*5+1d1000)/10000", public=True
    )
    assert refused.ephemeral
    text = message_text(refused.response)
    assert "too many combinations to compute exact odds" in text
    assert "Odds" not in text
    after = await table.bob.slash(table.table, "odds roll", dice="1d4")
    assert chart_line(message_text(after.response), "4").endswith(shown(Fraction(1, 4)))
