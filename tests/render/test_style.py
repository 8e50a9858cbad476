"""What every message shares: one minus sign, signed modifiers, and Discord's size limits kept
by clipping and summarising, never by an error from Discord.

Tests bot/render/style.py.
"""

from __future__ import annotations

from bot.render import style


def test_negative_numbers_use_the_one_minus_sign() -> None:
    assert [style.number(n) for n in (-3, 0, 12)] == ["−3", "0", "12"]
    assert [style.signed(n) for n in (2, 0, -1)] == ["+2", "+0", "−1"]
    assert (style.count(1, "d20", "d20s"), style.count(2, "d20", "d20s")) == ("1 d20", "2 d20s")


def test_long_text_is_clipped_with_an_ellipsis() -> None:
    assert style.clip("abc", 3) == "abc"
    assert style.clip("abcdef", 4) == "abc…"
    embed = style.new_embed("t" * 300, "d" * 5000)
    assert len(embed.title or "") == style.TITLE_LIMIT and (embed.title or "").endswith("…")
    assert len(embed.description or "") == style.DESCRIPTION_LIMIT


def test_fields_past_discords_limits_are_summarised_once() -> None:
    embed = style.new_embed("Party")
    for n in range(40):
        style.add_field(embed, f"Member {n}", "rolled")
    assert len(embed.fields) == style.FIELDS_LIMIT
    assert [f.name for f in embed.fields].count("…") == 1
    assert embed.fields[-1].value == "more not shown (Discord's size limit)"
    assert len(embed) <= style.EMBED_TOTAL_LIMIT


def test_an_empty_field_shows_a_dash_and_a_roll_names_its_log_head() -> None:
    embed = style.new_embed("t")
    style.add_field(embed, "Note", "")
    assert embed.fields[0].value == "—"
    assert style.roll_ref(12) == "roll #12"
    assert style.roll_ref(12, "3f9a1c2b7d0e55aa") == "roll #12 · log 3f9a1c2b7d0e"
