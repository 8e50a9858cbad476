"""Tables of fortune-dice choices on rolls: filled by that feature."""

from __future__ import annotations
