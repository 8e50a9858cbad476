"""/catchup as one private message: newest first, clipped with a count of what was left out."""

from __future__ import annotations

from bot.render import style
from bot.services.table.catchup import NOW, CatchUp

#: At most this many items, and the message within Discord's limit with room for the count.
MAX_ITEMS = 20
BUDGET = style.MESSAGE_LIMIT - 80


def catchup_text(found: CatchUp) -> str:
    """The caller's catch-up."""
    if found.since is None:
        head = "Since you joined in (no roll of yours here yet):"
    else:
        head = f"Since your last action here (<t:{int(found.since.timestamp())}:R>):"
    if not found.items:
        return f"{head} nothing new."
    lines: list[str] = []
    used = len(head)
    for item in found.items[:MAX_ITEMS]:
        line = f"• {item.text}"
        if item.message is not None:
            channel, message = item.message
            line += f" (https://discord.com/channels/{found.guild_id}/{channel}/{message})"
        if item.at == NOW:
            line = f"• **Now:** {line[2:]}"
        if used + len(line) + 1 > BUDGET:
            break
        lines.append(line)
        used += len(line) + 1
    left = len(found.items) - len(lines)
    tail = f"\n…and {left} more not shown (see /history)." if left else ""
    return "\n".join([head, *lines]) + tail
