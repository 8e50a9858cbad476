"""Who is asking, and where: plain data the cogs build from an interaction.

Services decide permissions from this, never from a Discord object, so they stay testable
without Discord and the data flow stays one way (cog → service).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Caller:
    """The user behind a command and the place they used it."""

    user_id: int
    channel_id: int
    guild_id: int | None = None
    #: The parent channel when the command was used in a thread or forum post.
    parent_channel_id: int | None = None
    role_ids: frozenset[int] = field(default_factory=frozenset)
    #: Discord's Manage Server permission: such members are GMs of every campaign here.
    manage_guild: bool = False
    #: The Discord interaction id; the ledger refuses to record one twice.
    interaction_id: int | None = None
    display_name: str = ""
