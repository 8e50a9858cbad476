"""How a command answers Discord: the first answer to an interaction, deferred or not, and
the ``Interaction`` type every cog and the command tree take (the tree answers errors too, so
this sits below both).

Discord gives an interaction three seconds for its first response. So a command makes no REST
call (a member, a channel, a message) before it has answered, unless it deferred first with
:func:`defer`; whatever it fetches, it fetches concurrently. After a deferral the answer is the
deferred response *edited* (:func:`answer` does it): Discord documents sending the first
message after a deferral as a followup as deprecated.

``Interaction`` is a Discord interaction received by this bot, so ``interaction.client`` is a
:class:`~bot.app.PbpBot` to the type checker. At run time it is plain ``discord.Interaction``
(``bot.app`` imports the cogs, so nothing they import may import it back); discord.py never
evaluates the annotation of a callback's interaction.

Overrides of ``discord.ui`` methods (``View.interaction_check``/``on_error``, ``Item.callback``,
``DynamicItem.from_custom_id``) keep ``discord.Interaction[Any]``: discord.py types those for
any client, so an override narrowing it to this bot would break substitutability (mypy
``[override]``); they hand the interaction to helpers that take ``Interaction``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any, TypeAlias

import discord

from bot.services.kit.walks import Progress

if TYPE_CHECKING:
    from bot.app import PbpBot

    Interaction: TypeAlias = discord.Interaction[PbpBot]
else:
    Interaction = discord.Interaction

log = logging.getLogger(__name__)

# Kept on ``interaction.extras``: discord.py does not remember how a response was deferred.
_DEFERRED_EPHEMERAL = "pbp.deferred_ephemeral"
_ANSWERED = "pbp.deferred_answered"
_DEFERRING = "pbp.deferring"
_MISSING: Any = discord.utils.MISSING


async def defer(interaction: Interaction, *, ephemeral: bool) -> None:
    """Acknowledge now, answer later (no-op once acknowledged). ``ephemeral``: how the answer
    will be shown; the deferral fixes it (Discord shows "thinking…" to the same audience).

    A button's interaction is deferred as an update of its message, which the answer then
    edits; a command's as a "thinking…" response.
    """
    pending: asyncio.Future[None] | None = interaction.extras.get(_DEFERRING)
    if pending is not None:  # concurrent fetches: the first one defers, the others wait
        await asyncio.shield(pending)
        return
    if interaction.response.is_done():
        return
    pending = asyncio.get_running_loop().create_future()
    interaction.extras[_DEFERRING] = pending
    try:
        if interaction.type is discord.InteractionType.component:
            await interaction.response.defer()
        else:
            interaction.extras[_DEFERRED_EPHEMERAL] = ephemeral
            await interaction.response.defer(ephemeral=ephemeral, thinking=True)
    finally:
        pending.set_result(None)


def awaits_answer(interaction: Interaction) -> bool:
    """Deferred with "thinking…", and not answered yet: the answer edits the response."""
    return (
        interaction.response.type is discord.InteractionResponseType.deferred_channel_message
        and not interaction.extras.get(_ANSWERED, False)
    )


def deferred_ephemeral(interaction: Interaction) -> bool:
    """Whether a "thinking…" deferral was ephemeral (deferred elsewhere than here: assumed)."""
    return bool(interaction.extras.get(_DEFERRED_EPHEMERAL, True))


async def answer(
    interaction: Interaction,
    content: str | None = None,
    *,
    embed: discord.Embed | None = None,
    view: discord.ui.View | None = None,
    file: discord.File | None = None,
    ephemeral: bool = False,
    allowed_mentions: discord.AllowedMentions | None = None,
) -> int | None:
    """The interaction's first answer: sent, or the deferred response edited. Returns the
    message's id when Discord gives one.

    After a deferral the answer keeps the deferral's audience, except that an ephemeral answer
    (an error) to a public deferral is not shown to the channel: the "thinking…" message is
    removed and the answer sent to the caller alone. Once answered, a further call is a
    followup.
    """
    mentions = allowed_mentions if allowed_mentions is not None else _MISSING
    if awaits_answer(interaction):
        interaction.extras[_ANSWERED] = True
        if not (ephemeral and not deferred_ephemeral(interaction)):
            message = await interaction.edit_original_response(
                content=content,
                embed=embed,
                view=view,
                attachments=[file] if file is not None else _MISSING,
                allowed_mentions=mentions,
            )
            return message.id
        # Discord keeps a followup to a "thinking…" response in that response, with its
        # audience: the response is completed, then deleted, and the answer sent privately.
        try:
            await interaction.edit_original_response(content="…", embed=None, view=None)
            await interaction.delete_original_response()
        except discord.HTTPException as exc:
            log.info("deferred response not cleared: %s %s", exc.status, exc.code)
    if interaction.response.is_done():
        sent = await interaction.followup.send(
            content or _MISSING,
            embed=embed if embed is not None else _MISSING,
            view=view if view is not None else _MISSING,
            file=file if file is not None else _MISSING,
            ephemeral=ephemeral,
            allowed_mentions=mentions,
            wait=True,
        )
        return sent.id
    done = await interaction.response.send_message(
        content,
        embed=embed if embed is not None else _MISSING,
        view=view if view is not None else _MISSING,
        file=file if file is not None else _MISSING,
        ephemeral=ephemeral,
        allowed_mentions=mentions,
    )
    return done.message_id


async def update_message(
    interaction: Interaction,
    *,
    embed: discord.Embed = _MISSING,
    content: str = _MISSING,
    view: discord.ui.View | None = _MISSING,
) -> None:
    """A button's answer: its message edited (what is not given stays), whether or not the
    click was deferred."""
    if interaction.response.is_done():
        await interaction.edit_original_response(content=content, embed=embed, view=view)
    else:
        await interaction.response.edit_message(content=content, embed=embed, view=view)


#: Least seconds between two progress edits of one message (Discord rate-limits edits).
PROGRESS_EVERY_S = 2.0


def progress_edits(interaction: Interaction, noun: str, verb: str = "checked") -> Progress:
    """A walk's progress shown by editing the interaction's message ("checked 40,000 of
    100,000 rolls"), at most every :data:`PROGRESS_EVERY_S`; a failed edit only skips one."""
    shown = [-PROGRESS_EVERY_S]

    async def show(done: int, total: int) -> None:
        now = time.monotonic()
        if done and now - shown[0] < PROGRESS_EVERY_S:
            return
        shown[0] = now
        text = f"{verb.capitalize()} {done:,} of {total:,} {noun}…"
        try:
            await interaction.edit_original_response(content=text)
        except discord.HTTPException as exc:
            log.info("progress not shown: %s %s", exc.status, exc.code)

    return show
