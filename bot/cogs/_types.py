"""``Interaction``: a Discord interaction received by this bot, so ``interaction.client`` is a
:class:`~bot.app.PbpBot` to the type checker.

At run time it is plain ``discord.Interaction`` (``bot.app`` imports the cogs, so the cogs may
not import it back); discord.py never evaluates the annotation of a callback's interaction.

Overrides of ``discord.ui`` methods (``View.interaction_check``/``on_error``, ``Item.callback``,
``DynamicItem.from_custom_id``) keep ``discord.Interaction[Any]``: discord.py types those for
any client, so an override narrowing it to this bot would break substitutability (mypy
``[override]``); they hand the interaction to helpers that take ``Interaction``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

import discord

if TYPE_CHECKING:
    from bot.app import PbpBot

    Interaction: TypeAlias = discord.Interaction[PbpBot]
else:
    Interaction = discord.Interaction
