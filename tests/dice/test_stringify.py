"""Rendering: Avrae-like markdown, readable plain text, and a hard length cap.

Tests bot/dice/stringify.py.
"""

from __future__ import annotations

import random

import pytest

from bot.dice import render_markdown, render_plain, roll


def seed_for(expression: str, want) -> random.Random:
    for seed in range(5000):
        if want(roll(expression, random.Random(seed))):
            return random.Random(seed)
    raise AssertionError("no seed found")


def test_markdown_strikes_dropped_and_bolds_extremes():
    rng = seed_for("4d6kh3", lambda r: sorted(r.terms[0].faces) == [1, 3, 4, 6])
    result = roll("4d6kh3", rng)
    text = render_markdown(result)
    assert text.startswith("4d6kh3 (") and text.endswith(") = 13")
    assert "**6**" in text and "~~1~~" in text and "**1**" not in text


def test_plain_marks_uncounted_dice_with_x():
    rng = seed_for("2d20kh1", lambda r: r.terms[0].faces[0] < r.terms[0].faces[1])
    result = roll("2d20kh1+3", rng)
    a, b = result.terms[0].faces
    assert render_plain(result) == f"2d20kh1 ({a}x, {b}) + 3 = {b + 3}"


def test_explosions_labels_and_comment():
    rng = seed_for("2d6e", lambda r: len(r.terms[0].faces) == 3)
    result = roll("2d6e [fire] # burn", rng)
    plain = render_plain(result)
    assert "6!" in plain and plain.endswith(f"[fire] = {result.total} # burn")


def test_markdown_escapes_player_text():
    result = roll("1d4 [**x**] # @everyone _hi_", random.Random(0))
    text = render_markdown(result)
    assert "\\*\\*x\\*\\*" in text and "@everyone" not in text and "\\_hi\\_" in text


@pytest.mark.parametrize("limit", [1, 5, 20, 50, 100, 300, 2000])
@pytest.mark.parametrize("render", [render_markdown, render_plain])
def test_never_exceeds_max_length(render, limit):
    result = roll("1000d20 [" + "x" * 300 + "] # " + "y" * 300, random.Random(1))
    text = render(result, limit)
    assert len(text) <= limit


def test_long_lists_are_summarised():
    result = roll("1000d20", random.Random(1))
    text = render_plain(result, 2000)
    assert "more dice" in text and text.endswith(f"= {result.total}")
    shown = text.split("(")[1].split("…")[0].count(",")
    assert f"… {1000 - shown} more dice" in text
