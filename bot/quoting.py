"""Showing a player's own text back to them: short, literal, never markdown or a ping.

Pure (no Discord import) so the rules, the services and the renderers can all use it: an
error raised deep in a service quotes the input the same way an embed shows a name.
"""

from __future__ import annotations

import re
import unicodedata

#: How much of a player's input an error message quotes; the rest is cut with "…".
QUOTE_LIMIT = 60

# Discord markdown: a backslash before punctuation shows it literally. Escaped: the inline
# marks and masked links anywhere, and the block marks (heading, quote, list) at the start.
_MARKDOWN = re.compile(r"([\\*_~|`\[\]])|^([#>\-])", re.MULTILINE)
# @everyone, @here, <@id>, <@&id>, <#id>: a zero-width space after the @/# stops the ping.
_MENTION = re.compile(r"@(everyone|here)|<(@[!&]?|#)(\d+)>")


def _visible(text: str) -> str:
    """Whitespace runs (newlines too) as one space; controls dropped."""
    text = " ".join(text.split())
    return "".join(c for c in text if unicodedata.category(c) != "Cc")


def clip_text(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the cut marked with "…"."""
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def escape(text: str) -> str:
    """``text`` shown literally in a Discord message or embed: no markdown, no mentions."""
    text = _MARKDOWN.sub(lambda m: "\\" + m.group(0), text)
    return _MENTION.sub(
        lambda m: f"@\u200b{m.group(1)}" if m.group(1) else f"<{m.group(2)}\u200b{m.group(3)}>",
        text,
    )


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A player's input quoted in a message: “clipped and escaped”, never a repr().

    Clipped before escaping, so the result is at most about twice ``limit`` however many
    backslashes, soft hyphens or private-use characters the input holds.
    """
    return f"“{escape(clip_text(_visible(text), limit))}”"
