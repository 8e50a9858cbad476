"""The whole schema: importing this module registers every table on ``Base.metadata``.

Feature tables live in their own modules beside :mod:`bot.db.models`; Alembic's env.py and the
tests import this module so autogenerate and cleanup always see all of them.
"""

from __future__ import annotations

from bot.db import (
    delivery_models,
    dialect_models,
    fair_models,
    fortune_models,
    inline_models,
    macro_models,
    models,
    party_models,
    post_models,
    preroll_models,
    round_models,
)

metadata = models.Base.metadata

__all__ = [
    "delivery_models",
    "dialect_models",
    "fair_models",
    "fortune_models",
    "inline_models",
    "macro_models",
    "metadata",
    "models",
    "party_models",
    "post_models",
    "preroll_models",
    "round_models",
]
