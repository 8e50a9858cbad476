"""An old command name at work: it runs as before, and its caller is told the new name.

The names and the release that removes them are in :mod:`bot.render.renamed`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import discord

from bot.interaction import Interaction, answer
from bot.render.renamed import renamed_note


@contextlib.asynccontextmanager
async def ran_as_old_name(interaction: Interaction, old: str) -> AsyncIterator[None]:
    """Run the command's body, then tell the caller alone that ``old`` is renamed.

    After its answer when it succeeds; before its refusal when it fails, so the refusal is
    still the last thing the caller reads and the note is not lost with it.
    """
    try:
        yield
    except Exception:
        with contextlib.suppress(discord.HTTPException):
            await answer(interaction, renamed_note(old), ephemeral=True)
        raise
    await answer(interaction, renamed_note(old), ephemeral=True)
