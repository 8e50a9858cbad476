"""Constants and helpers shared by the service tests (``tests.services.helpers``)."""

from __future__ import annotations

import itertools

from bot.services.kit.context import Caller
from bot.services.store.ledger import Origin

GUILD = 1_000_000_000_000_001
CHANNEL = 2_000_000_000_000_001
GM_ROLE = 3_000_000_000_000_001
ALICE = 4_000_000_000_000_001
BOB = 4_000_000_000_000_002
GM_USER = 4_000_000_000_000_009

_interactions = itertools.count(9_000_000_000_000_000)


def origin(user_id: int = ALICE, *, interaction_id: int | None = None) -> Origin:
    """A ledger origin in the test channel, with a fresh interaction id unless given."""
    return Origin(
        channel_id=CHANNEL,
        user_id=user_id,
        guild_id=GUILD,
        interaction_id=next(_interactions) if interaction_id is None else interaction_id,
    )


def gm_caller() -> Caller:
    """A GM (by the campaigns' GM role) using a command in the test channel."""
    return Caller(
        user_id=GM_USER, channel_id=CHANNEL, guild_id=GUILD, role_ids=frozenset({GM_ROLE})
    )
