"""Fortune-dice buttons on roll results: persistent, resolved from the database by roll id.

The custom ids carry only the ledger roll id and the choice, so a button works after a
restart and on any shard process (``bot.add_dynamic_items`` in the cog's setup); who may click
and what happens is decided by the service from the stored roll, never from the message.
Shared views: /check, /reveal and /gm reveal attach them as well as /fortune.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.cogs._caller import bot_of, caller_from
from bot.cogs._views.noted import Noted
from bot.db.engine import Database
from bot.interaction import Interaction, answer, update_message
from bot.quoting import escape
from bot.render.fair import rotation_text
from bot.render.fortune import choice_embed, reroll_embed
from bot.rules import pen_and_dagger as pd
from bot.rules.systems.pen_and_dagger import fortune_roll, is_luck
from bot.services.rolling import fortune_table
from bot.services.rolling.checks import CheckResult
from bot.services.store.ledger import RollView
from bot.tree import answer_error
from bot.words import RollChoice, Visibility

KEEP_LABEL = "Keep the critical"
TRADE_LABEL = "Take a Normal success + a fortune die"
TRADE_LUCK_LABEL = "Take a 10 (lucky) + a fortune die"
REROLL_LABEL = "Spend a fortune die: reroll"


def _title(interaction: Interaction, fallback: str) -> str:
    """The result's title as it was shown (the message's own embed)."""
    message = interaction.message
    if message is not None and message.embeds and message.embeds[0].title:
        return message.embeds[0].title
    return fallback


class NaturalTwentyButton(
    Noted,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"pbp:n20:(?P<roll>\d+):(?P<choice>{RollChoice.KEEP}|{RollChoice.TRADE})",
):
    """Pen & Dagger ruling 5: keep a natural 20, or trade it for a Normal success and a die."""

    def __init__(self, roll_id: int, choice: str, *, luck: bool = False) -> None:
        if choice == RollChoice.KEEP:
            label, style = KEEP_LABEL, discord.ButtonStyle.success
        else:
            label, style = (TRADE_LUCK_LABEL if luck else TRADE_LABEL), discord.ButtonStyle.primary
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"pbp:n20:{roll_id}:{choice}")
        )
        self.roll_id = roll_id
        self.choice = choice

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> NaturalTwentyButton:
        return cls(int(match["roll"]), match["choice"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            bot = bot_of(interaction)
            caller = caller_from(interaction)
            if self.choice == RollChoice.KEEP:
                result = await fortune_table.keep_critical(bot.db, caller, self.roll_id)
            else:
                result = await fortune_table.trade_critical(bot.db, caller, self.roll_id)
            title = _title(interaction, f"{escape(result.character_name)}: roll #{result.number}")
            await update_message(interaction, embed=choice_embed(title, result), view=None)
        except Exception as error:  # every failure: the one error path
            await answer_error(interaction, error)


class RerollButton(
    Noted,
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pbp:reroll:(?P<roll>\d+)",
):
    """Pen & Dagger ruling 6: spend a fortune die to reroll until better."""

    def __init__(self, roll_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=REROLL_LABEL,
                style=discord.ButtonStyle.secondary,
                emoji="🎲",
                custom_id=f"pbp:reroll:{roll_id}",
            )
        )
        self.roll_id = roll_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> RerollButton:
        return cls(int(match["roll"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            bot = bot_of(interaction)
            result = await fortune_table.reroll_roll(
                bot.db, bot.rng, caller_from(interaction), self.roll_id
            )
            title = _title(interaction, f"{escape(result.character_name)}: roll #{result.number}")
            await update_message(
                interaction,
                embed=reroll_embed(title, result),
                view=fortune_view(result.new_roll_id, result.final, result.fortune) or None,
            )
            if result.rotation is not None:  # its seed was due: revealed to the table
                await answer(interaction, rotation_text(result.rotation))
        except Exception as error:  # every failure: the one error path
            await answer_error(interaction, error)


def fortune_view(roll_id: int, outcome: object, fortune: int) -> discord.ui.View | None:
    """The buttons a recorded roll offers its roller, or None.

    A natural 20 that may still be traded (ruling 5: below the maximum at the time of the
    roll): keep or trade. Otherwise, while the roller holds a fortune die, a reroll if one
    could improve the result (ruling 6, ``can_reroll``). Nothing for other systems' rolls.
    """
    rolled = fortune_roll(outcome)
    if rolled is None or rolled.traded:
        return None
    buttons: list[discord.ui.DynamicItem[discord.ui.Button[Any]]]
    if rolled.natural_20:
        if not rolled.trade_available:
            return None  # at the maximum: keeping is the only (default) choice
        luck = is_luck(rolled)
        buttons = [
            NaturalTwentyButton(roll_id, RollChoice.KEEP, luck=luck),
            NaturalTwentyButton(roll_id, RollChoice.TRADE, luck=luck),
        ]
    elif fortune > 0 and pd.can_reroll(rolled)[0]:
        buttons = [RerollButton(roll_id)]
    else:
        return None
    # Built only when there is a button: most checks offer none, and a View costs more to
    # make than the rest of the check's message.
    view = discord.ui.View(timeout=None)
    for button in buttons:
        view.add_item(button)
    return view


def fortune_view_for(
    result: CheckResult, character_fortune: int | None = None
) -> discord.ui.View | None:
    """The view to attach to a check or luck result message (None when no button applies).

    ``character_fortune`` defaults to the dice the character held when rolling (a check does
    not change them). None for a hidden roll: its choice waits for the reveal (see
    :func:`reveal_view`).
    """
    if result.visibility is not Visibility.PUBLIC:
        return None
    fortune = result.character.fortune if character_fortune is None else character_fortune
    return fortune_view(result.roll_id, result.outcome, fortune)


async def reveal_view(db: Database, row: RollView) -> discord.ui.View | None:
    """The buttons a just-revealed roll offers: the choice it could not offer
    while hidden, as a public roll would; only its roller can use them (the service checks)."""
    offer = await fortune_table.offer_after_reveal(db, row)
    if offer is None:
        return None
    outcome, fortune = offer
    return fortune_view(row.id, outcome, fortune)


#: Registered with ``bot.add_dynamic_items`` so the buttons outlive the process.
DYNAMIC_ITEMS = (NaturalTwentyButton, RerollButton)

__all__ = [
    "DYNAMIC_ITEMS",
    "KEEP_LABEL",
    "REROLL_LABEL",
    "TRADE_LABEL",
    "TRADE_LUCK_LABEL",
    "NaturalTwentyButton",
    "RerollButton",
    "fortune_view",
    "fortune_view_for",
    "reveal_view",
]
