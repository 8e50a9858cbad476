"""The generated parts of docs/dice.md: the dialect tables (from bot/dice/dialects.py) and the
per-peer shares (from the peers corpus). Rewrite them after changing either:

    .venv/bin/python -m tests.dice.dialect_docs --write

tests/dice/test_dialect_docs.py (the dialect tables) and tests/dice/peers/test_peers.py (the
shares) check the docs hold exactly what this generates.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from bot.dice.dialects import markdown
from tests.dice.peers.report import table

DOCS = Path(__file__).resolve().parents[2] / "docs" / "dice.md"
BLOCKS = {"dialects": markdown, "peers": table}


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- {name}: generated[^>]*-->\n)(.*?)(\n<!-- /{name} -->)", re.DOTALL)


def block(text: str, name: str) -> str | None:
    """What the docs hold between a block's markers, or None without them."""
    m = _pattern(name).search(text)
    return None if m is None else m.group(2)


def rewrite(text: str) -> str:
    for name, make in BLOCKS.items():
        text = _pattern(name).sub(lambda m, make=make: m.group(1) + make() + m.group(3), text)
    return text


if __name__ == "__main__":
    if "--write" in sys.argv:
        DOCS.write_text(rewrite(DOCS.read_text()))
    else:
        print(rewrite(DOCS.read_text()))
