"""Every view, form and persistent button of the bot notes the clicks and forms it takes, so the
stale handler answers only the ones nothing took.

Tests bot/cogs/_views/noted.py.
"""

from __future__ import annotations

import importlib
import pkgutil

import discord

import bot.cogs
from bot.cogs._views.noted import Noted
from tests.scenarios.test_edges import _bot_classes


def test_every_view_form_and_persistent_button_notes_what_it_takes() -> None:
    """The stale cog answers any click no view noted: a view that forgot to note would be
    answered "expired" whenever its own answer took a moment."""
    for module in pkgutil.walk_packages(bot.cogs.__path__, "bot.cogs."):
        importlib.import_module(module.name)
    kinds = (discord.ui.View, discord.ui.Modal, discord.ui.DynamicItem)
    classes = {cls for kind in kinds for cls in _bot_classes(kind)}
    assert len(classes) >= 7  # confirm, pagers, post form and button, three persistent ones
    assert [cls.__qualname__ for cls in classes if not issubclass(cls, Noted)] == []
    assert [cls.__qualname__ for cls in classes if "interaction_check" in vars(cls)] == []
