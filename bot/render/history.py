"""/history, /gm log and /stats as embeds: one line per roll, hidden ones as stubs."""

from __future__ import annotations

import discord

from bot.render import style
from bot.render.outcomes import outcome_words
from bot.render.secrecy import who
from bot.services.rolling.history import Entry, HistoryPage
from bot.services.rolling.stats import MIN_ROLLS, CampaignStats
from bot.words import Visibility


def entry_line(entry: Entry, *, with_request: bool = False) -> str:
    """`#42 · <t:…:R> · Ayla (@alice) · check · dice 17 · total 20 · Success`, or a stub."""
    row = entry.row
    when = f"<t:{int(row.created_at.timestamp())}:R>"
    head = f"**#{row.number}** · {when} · {who(row)} · {row.kind}"
    if not entry.visible:
        sealed = f"commitment `{row.commitment}`" if row.commitment else "no commitment"
        return f"{head} · hidden ({row.visibility.value}) · {sealed}"
    tags = []
    if row.visibility is not Visibility.PUBLIC:
        tags.append("revealed" if row.revealed_at else f"hidden: {row.visibility.value}")
    line = f"{head} · {outcome_words(row)}"
    if tags:
        line += f" ({', '.join(tags)})"
    if with_request:
        # A backtick in what was typed would end the code span early: shown as a quote mark.
        typed = style.clip(row.request, 120).replace("`", "ˋ")
        line += f"\n  `{typed}`"
    return line


def history_embed(page: HistoryPage, *, title: str, number: int, gm_log: bool) -> discord.Embed:
    """A page of rolls, newest first."""
    if not page.entries:
        return style.new_embed(title, "No rolls match.", style.INFO)
    lines = [entry_line(e, with_request=gm_log) for e in page.entries]
    body = ""
    for line in lines:
        if len(body) + len(line) + 1 > style.DESCRIPTION_LIMIT - 20:
            body += "\n…"
            break
        body += ("\n" if body else "") + line
    embed = style.new_embed(title, body, style.NEUTRAL)
    style.set_footer(
        embed, f"page {number} · newest first · /verify roll:<number> checks a hidden roll"
    )
    return embed


def stats_embed(stats: CampaignStats) -> discord.Embed:
    """Each player's natural d20 faces, the chi-square test and a verdict."""
    embed = style.new_embed(
        "Natural d20 faces",
        "Every d20 rolled (kept or not) against a fair die, which shows each face 1 time in 20. "
        f"A verdict needs {MIN_ROLLS} rolls.",
        style.INFO,
    )
    if not stats.players:
        embed.description = (embed.description or "") + "\n\nNo d20 rolls yet."
    for player in stats.players:
        counts = " ".join(f"{face}:{n}" for face, n in enumerate(player.counts, start=1))
        lines = [f"<@{player.user_id}>: {style.count(player.rolls, 'd20', 'd20s')}"]
        if player.mean is not None:
            lines[0] += f", mean {player.mean:.2f} (fair: 10.50)"
        lines.append(f"faces {counts}")
        if player.chi_square is not None and player.p_value is not None:
            lines.append(
                f"chi-square {player.chi_square:.2f} (19 df), p = {player.p_value:.3f}: "
                f"{player.verdict}"
            )
        else:
            lines.append(player.verdict)
        style.add_field(embed, f"Player {len(embed.fields) + 1}", "\n".join(lines))
    if stats.hidden_skipped:
        style.set_footer(
            embed, f"{stats.hidden_skipped} hidden rolls you may not see are not counted"
        )
    return embed
