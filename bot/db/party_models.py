"""Tables of party play (GM roll requests, group ability generation): filled by that feature."""

from __future__ import annotations
