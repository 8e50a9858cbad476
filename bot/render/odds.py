"""Odds as a small text bar chart: exact Fractions in, rounded percentages out."""

from __future__ import annotations

from fractions import Fraction

import discord

from bot.quoting import escape
from bot.render import style
from bot.services.rolling.odds import OddsReport

BAR_WIDTH = 20
#: More distinct totals than this are grouped into ranges, so the chart fits an embed.
MAX_ROWS = 24
_EIGHTHS = " ▏▎▍▌▋▊▉"


def percent(p: Fraction) -> str:
    """``p`` as a percentage with one decimal, rounded half up from the exact value.

    A possible result never shows as 0.0% (it is "<0.1%"), an uncertain one never as 100.0%.
    """
    tenths = p * 1000
    rounded = int(tenths + Fraction(1, 2))  # p >= 0: floor(x + 1/2) is round half up
    if p > 0 and rounded == 0:
        return "<0.1%"
    if p < 1 and rounded == 1000:
        return ">99.9%"
    return f"{rounded // 10}.{rounded % 10}%"


def bar(p: Fraction, width: int = BAR_WIDTH) -> str:
    """A bar ``p`` of ``width`` cells long, in eighths of a cell."""
    eighths = int(p * width * 8 + Fraction(1, 2))
    full, rest = divmod(eighths, 8)
    return ("█" * full + (_EIGHTHS[rest] if rest else "")).ljust(width)


def _grouped(rows: tuple[tuple[str, Fraction], ...]) -> list[tuple[str, Fraction]]:
    """Numeric totals grouped into at most ``MAX_ROWS`` equal ranges (exact sums)."""
    if len(rows) <= MAX_ROWS:
        return list(rows)
    totals = [(int(k), p) for k, p in rows]
    low, high = totals[0][0], totals[-1][0]
    width = -(-(high - low + 1) // MAX_ROWS)
    groups: list[tuple[str, Fraction]] = []
    for start in range(low, high + 1, width):
        end = min(start + width - 1, high)
        p = sum((q for k, q in totals if start <= k <= end), Fraction(0))
        groups.append((f"{start}–{end}" if end > start else str(start), p))
    return groups


def chart(rows: list[tuple[str, Fraction]]) -> str:
    """One line per outcome: name, bar, percentage, in a code block so the bars line up."""
    label_width = max((len(name) for name, _ in rows), default=0)
    lines = [f"{name.ljust(label_width)} {bar(p)} {percent(p):>6}" for name, p in rows]
    return "```\n" + "\n".join(lines) + "\n```"


def summary(report: OddsReport) -> str:
    """One line: "Angus, DEX attempt, Trained: Critical Success 10.0%, …"."""
    parts = ", ".join(f"{name} {percent(p)}" for name, p in report.outcomes if p > 0)
    return f"{report.title}: {parts}"


def odds_embed(report: OddsReport) -> discord.Embed:
    """The odds of one roll, before anyone rolls it."""
    rows = _grouped(report.outcomes) if report.numeric else list(report.outcomes)
    if report.numeric:  # totals and ranges: "−3", "−5–−1" (one minus sign: style.MINUS)
        rows = [(name.replace("-", style.MINUS), p) for name, p in rows]
    # The title holds a character's name and the player's dice text: shown literally.
    lead = escape(style.clip(report.title if report.numeric else summary(report), 1000))
    embed = style.new_embed(f"Odds: {escape(report.title)}", lead + "\n" + chart(rows), style.INFO)
    if report.success is not None:
        p = report.success
        style.add_field(
            embed,
            report.success_label,
            f"**{percent(p)}** (exactly {p.numerator}/{p.denominator})",
        )
    if report.numeric and len(rows) < len(report.outcomes):
        style.add_field(embed, "Grouped", "Totals are grouped into ranges to fit.")
    style.set_footer(embed, "Exact odds from the rules engine; nothing was rolled.")
    return embed
