"""The cyclic garbage collector and a long-running bot.

After start-up nearly everything in the heap lives as long as the process: modules, classes,
discord.py's and SQLAlchemy's machinery, the command tree, the cogs (~130,000 objects). Every
full collection walks all of them: a 61 ms pause on the reference machine, taken inside
whatever command happens to be running. ``gc.freeze()`` once set up moves them to the
permanent generation, so full collections walk only what was made since (measured: the 61 ms
full collection takes under 1 ms after). Frozen objects are never collected, which is why
this runs once, after start-up, and never in the tests, which build a bot per test.
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> int:
    """Collect, then exempt every surviving object from future collections; how many."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
