"""The command tree: one error path for every app command.

Our own :class:`~bot.errors.UserError` is answered ephemerally with its message. Anything
unexpected is logged with a short incident id and the user sees only a generic message that
quotes the id, never the exception text (it could hold a hidden roll or an internal detail).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

import discord
from discord import app_commands

from bot.errors import UserError
from bot.interaction import Interaction, answer
from bot.ops import note_error, ops_of
from bot.rules.systems.commands import NotInSystem
from bot.services.store.ledger import DuplicateInteraction

log = logging.getLogger(__name__)


def new_incident_id() -> str:
    """A short id a user can quote and an operator can grep for in the logs."""
    return secrets.token_hex(4)


def _unwrap(error: BaseException) -> BaseException:
    while isinstance(error, (app_commands.CommandInvokeError, app_commands.TransformerError)):
        inner = error.__cause__ if isinstance(error, app_commands.TransformerError) else None
        original = getattr(error, "original", None) or inner
        if original is None:
            break
        error = original
    return error


def user_message(error: BaseException, command: str | None = None) -> str | None:
    """The safe message for an error the user can act on, or None for an incident; in the
    words of ``command`` (its qualified name) where it matters (/odds attack → /odds check)."""
    error = _unwrap(error)
    if isinstance(error, NotInSystem) and command is not None:
        return error.for_command(command)
    if isinstance(error, UserError):
        return error.message
    if isinstance(error, app_commands.TransformerError):
        return f"`{error.value}` is not a valid {error.type.name.lower().replace('_', ' ')}."
    if isinstance(error, app_commands.NoPrivateMessage):
        return "This command only works in a server channel."
    if isinstance(error, app_commands.MissingPermissions):
        return "You do not have the permissions this command needs."
    if isinstance(error, app_commands.BotMissingPermissions):
        missing = ", ".join(p.replace("_", " ") for p in error.missing_permissions)
        return f"I am missing permissions here: {missing}."
    if isinstance(error, app_commands.CommandOnCooldown):
        return f"Slow down: try again in {error.retry_after:.0f} s."
    if isinstance(error, app_commands.CheckFailure):
        return "You cannot use this command here."
    return None


async def send_ephemeral(interaction: Interaction, content: str) -> None:
    """Answer ephemerally whether or not the interaction was already acknowledged: a deferred
    "thinking…" response is edited (or, if public, replaced), never left thinking."""
    await answer(interaction, content, ephemeral=True)


class PbpTree(app_commands.CommandTree[Any]):
    """Command tree whose `on_error` is the bot's single error path."""

    async def interaction_check(self, interaction: Interaction, /) -> bool:
        # discord.py calls this first in the task that runs the command: in flight (for
        # graceful shutdown), timed, counted, with log context (bot/ops); while shutting
        # down, "the bot is restarting, try again in a moment".
        ops = ops_of(interaction)
        return ops is None or await ops.begin(interaction)

    async def on_error(
        self, interaction: Interaction, error: app_commands.AppCommandError, /
    ) -> None:
        await answer_error(interaction, error)


async def take_in_hand(interaction: discord.Interaction[Any]) -> bool:
    """For a view, form or persistent button, first thing in the task that runs it, as the
    tree does for commands: in flight, timed, counted, with log context (bot/ops); False
    (the player told to retry, nothing run) while the bot shuts down."""
    ops = ops_of(interaction)
    return ops is None or await ops.begin(interaction)


def count_unhandled(interaction: discord.Interaction[Any]) -> None:
    """Count a click no view of this bot took (bot/ops)."""
    ops = ops_of(interaction)
    if ops is not None:
        ops.unhandled(interaction)


#: How long a second delivery of an interaction leaves the first one to answer, within the
#: 3 s Discord gives an interaction.
DUPLICATE_GRACE_S = 1.5


async def _answer_duplicate(interaction: Interaction, duplicate: DuplicateInteraction) -> None:
    """The same interaction delivered again (a gateway replay, two processes on one shard
    during a deploy): the first delivery recorded it and normally answers it.

    Answering at once could win the race and take the real answer's place, so this waits,
    then tells the player where the roll went, unless the first answer is there by then
    (Discord refuses a second initial response). If the first process died before it
    answered, the player still learns the roll was recorded, not that the bot was silent.
    """
    log.info("interaction %s was already recorded as roll #%s", interaction.id, duplicate.roll_id)
    if interaction.type is discord.InteractionType.autocomplete:
        return
    await asyncio.sleep(DUPLICATE_GRACE_S)
    try:
        await interaction.response.send_message(
            f"This was already recorded as roll #{duplicate.roll_id}; its result is in the "
            "channel or in /history.",
            ephemeral=True,
        )
    except (discord.HTTPException, discord.InteractionResponded):
        log.debug("interaction %s: the first delivery answered it", interaction.id)


async def answer_error(interaction: Interaction, error: BaseException) -> None:
    """Answer a failed interaction (commands and components alike)."""
    command = interaction.command.qualified_name if interaction.command else None
    cause = _unwrap(error)
    if isinstance(cause, DuplicateInteraction):
        note_error(interaction, cause, None)
        await _answer_duplicate(interaction, cause)
        return
    message = user_message(error, command)
    incident = None if message is not None else new_incident_id()
    note_error(interaction, _unwrap(error), incident)
    if message is None:
        assert incident is not None
        log.error(
            "incident %s in %s (guild %s)",
            incident,
            command or interaction.type.name,
            interaction.guild_id,
            exc_info=_unwrap(error),
            extra={"incident": incident, "command": command, "guild": interaction.guild_id},
        )
        message = (
            f"Something went wrong on our side (incident `{incident}`). Please try again; "
            "if it keeps happening, give the bot's operator this id."
        )
    if interaction.type is discord.InteractionType.autocomplete:
        return  # autocomplete cannot show a message; an empty list is the answer
    try:
        await send_ephemeral(interaction, message)
    except discord.HTTPException:
        log.warning("could not deliver an error message for %s", command)
