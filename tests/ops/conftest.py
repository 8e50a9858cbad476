"""Ops tests reuse the SimCord table of the bot tests."""

from __future__ import annotations

from tests.scenarios.conftest import rng, settings, simcord_bot, table

__all__ = ["rng", "settings", "simcord_bot", "table"]
