"""A check, save, test or luck roll as the embed shows it: the result in its system's words,
a colour per result, and lines that offer nothing while the roll is hidden.

Tests bot/render/checks.py.
"""

from __future__ import annotations

from bot.render import style
from bot.render.checks import breakdown, colour, result_text
from bot.rules import pen_and_dagger as pd
from bot.rules import roll_under as ru
from bot.rules import threshold as th
from tests.scripted import ScriptedRandom

NATURAL_20 = pd.attempt(pd.Rank.parse("Trained"), ScriptedRandom(20))


def test_the_result_in_its_systems_words_and_a_colour_per_result() -> None:
    assert (result_text(NATURAL_20), colour(NATURAL_20)) == (
        "Critical Success",
        style.CRITICAL_SUCCESS,
    )
    failed = ru.save(12, ScriptedRandom(13), ability=ru.Ability.parse("AGI"))
    assert (result_text(failed), colour(failed)) == ("Fail", style.FAILURE)
    assert breakdown(failed) == [("d20", "**13** against AGI 12 (pass on ≤)")]


def test_a_natural_20_offers_its_trade_live_and_waits_while_hidden() -> None:
    live = dict(breakdown(NATURAL_20))
    hidden = dict(breakdown(NATURAL_20, hidden=True))
    gm_copy = dict(breakdown(NATURAL_20, for_gm=True))
    assert live["Natural 20"] == "you may trade it for a Normal Success and a fortune die"
    assert "when the roll is revealed" in hidden["Natural 20"]
    assert "no trade for a fortune die before it is revealed" in gm_copy["Natural 20"]


def test_a_critical_tests_carry_over_counts_from_its_reveal_when_hidden() -> None:
    critical = th.roll_test(2, 12, ScriptedRandom(20), attribute="DEX")
    assert dict(breakdown(critical))["Next test"] == "+2 on the next DEX test"
    assert dict(breakdown(critical, hidden=True))["Next test"] == (
        "+2 on the next DEX test, from when the roll is revealed"
    )
