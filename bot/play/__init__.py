"""The offline table: the real bot in SimCord's simulated Discord, with a prompt or a script.

`python -m bot play` (what `make play` runs) needs no Discord token and uses its own SQLite
database, so it never touches a real server's data. See docs/offline-table.md.
"""

from __future__ import annotations

from bot.play._repl import PlayOptions, play, run

__all__ = ["PlayOptions", "play", "run"]
