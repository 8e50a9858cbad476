"""bot.quoting: how a player's own text is shown back."""

from __future__ import annotations

import pytest

from bot.quoting import QUOTE_LIMIT, escape, quote


@pytest.mark.parametrize("unit", ["\\", "\u00ad", "\ue000", "*", "@everyone "])
def test_a_quote_stays_short_however_long_or_odd_the_input(unit: str) -> None:
    shown = quote(unit * 6000)
    assert len(shown) <= 2 * QUOTE_LIMIT + 20
    assert shown.startswith("“") and shown.endswith("…”")


def test_a_quote_shows_the_text_itself_not_its_repr() -> None:
    assert quote("Nobody") == "“Nobody”"
    assert quote("  two\nlines ") == "“two lines”"
    assert "\\xad" not in quote("a\u00adb") and "'" not in quote("a\u00adb")


def test_markdown_and_mentions_show_literally() -> None:
    assert escape("**Bold** __u__ `c` ||s|| ~~x~~ [l](u)") == (
        "\\*\\*Bold\\*\\* \\_\\_u\\_\\_ \\`c\\` \\|\\|s\\|\\| \\~\\~x\\~\\~ \\[l\\](u)"
    )
    assert escape("# Big\n> quoted\n- item") == "\\# Big\n\\> quoted\n\\- item"
    assert escape("Jean-Luc #1") == "Jean-Luc #1"  # only a line's start makes a heading/list
    assert escape("@everyone @here <@123> <@&4> <#5>") == (
        "@\u200beveryone @\u200bhere <@\u200b123> <@&\u200b4> <#\u200b5>"
    )
