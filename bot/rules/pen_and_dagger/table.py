"""Ranks, success levels and the Success Table (Chapter I, "Attempts" and "The Success Table").

Ruling 1: the table is exact, 11 ranks × 20 faces. A natural 1 is a Critical Failure for every
rank from Doomed to Epic; for Legendary it is a Failure and for Godlike a Limited success, as the
table shows.
"""

from __future__ import annotations

import enum

from bot.rules.errors import RulesError

__all__ = ["Rank", "SuccessLevel", "table_level"]


class Rank(enum.IntEnum):
    """A rank for an attempt, worst (Doomed) to best (Godlike) ("Attempts: Ranks"; ruling 1).

    Ordered: a higher value is a better rank. Ruling 3 clamps adjusted ranks to this range.
    """

    DOOMED = 0
    HOPELESS = 1
    INEPT = 2
    UNTRAINED = 3
    NOVICE = 4
    TRAINED = 5
    ADEPT = 6
    MASTER = 7
    EPIC = 8
    LEGENDARY = 9
    GODLIKE = 10

    @property
    def display_name(self) -> str:
        """The rank as the rule text writes it, e.g. "Trained"."""
        return self.name.capitalize()

    def __str__(self) -> str:
        return self.display_name

    def adjusted(self, adjustment: int) -> Rank:
        """This rank moved by ``adjustment`` steps, clamped to Doomed … Godlike (ruling 3)."""
        value = max(Rank.DOOMED, min(Rank.GODLIKE, int(self) + adjustment))
        return Rank(value)

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Read a rank name as a player types it, case-insensitively ("trained", " EPIC ").

        Raises :class:`RulesError` listing the valid names otherwise.
        """
        key = text.strip().upper()
        for rank in cls:
            if rank.name == key:
                return rank
        names = ", ".join(rank.display_name for rank in cls)
        raise RulesError(f"“{text.strip()}” is not a Pen & Dagger rank. Valid ranks: {names}.")


class SuccessLevel(enum.IntEnum):
    """The six success levels, worst to best ("Attempts: Success Levels"; ruling 1).

    Ordered: a higher value is a better result. Reliability moves one step along this order
    (ruling 4).
    """

    CRITICAL_FAILURE = 0
    FAILURE = 1
    LIMITED = 2
    NORMAL = 3
    MAJOR = 4
    CRITICAL_SUCCESS = 5

    @property
    def display_name(self) -> str:
        """The level as the rule text names it, e.g. "Limited Success"."""
        return _LEVEL_NAMES[self]

    def __str__(self) -> str:
        return self.display_name

    @property
    def is_success(self) -> bool:
        """Limited, Normal, Major and Critical Success are successes (Limited only partly)."""
        return self >= SuccessLevel.LIMITED

    def shifted(self, steps: int) -> SuccessLevel:
        """This level moved ``steps`` along the ladder, never past the ends (ruling 4)."""
        value = max(SuccessLevel.CRITICAL_FAILURE, min(SuccessLevel.CRITICAL_SUCCESS, self + steps))
        return SuccessLevel(value)


_LEVEL_NAMES: dict[SuccessLevel, str] = {
    SuccessLevel.CRITICAL_FAILURE: "Critical Failure",
    SuccessLevel.FAILURE: "Failure",
    SuccessLevel.LIMITED: "Limited Success",
    SuccessLevel.NORMAL: "Normal Success",
    SuccessLevel.MAJOR: "Major Success",
    SuccessLevel.CRITICAL_SUCCESS: "Critical Success",
}

_NEVER = 21  # a "-" cell: no face reaches this level

# The Success Table, one row per rank: the lowest face giving Limited, Normal, Major and
# Critical Success. Faces below the Limited threshold are Failures ("Failure" column), except
# the natural-1 rule applied in `table_level`. "15+" means 15-20; "-" means never.
_THRESHOLDS: dict[Rank, tuple[int, int, int, int]] = {
    Rank.GODLIKE: (1, 5, 11, 15),  # Failure "-", Limited 1-4, Normal 5-10, Major 11-14, 15+
    Rank.LEGENDARY: (2, 6, 12, 16),  # 1 | 2-5 | 6-11 | 12-15 | 16+
    Rank.EPIC: (3, 7, 13, 17),  # 1-2 | 3-6 | 7-12 | 13-16 | 17+
    Rank.MASTER: (4, 8, 14, 18),  # 1-3 | 4-7 | 8-13 | 14-17 | 18+
    Rank.ADEPT: (5, 9, 15, 19),  # 1-4 | 5-8 | 9-14 | 15-18 | 19+
    Rank.TRAINED: (6, 10, 16, 20),  # 1-5 | 6-9 | 10-15 | 16-19 | 20
    Rank.NOVICE: (7, 11, 17, 20),  # 1-6 | 7-10 | 11-16 | 17-19 | 20
    Rank.UNTRAINED: (8, 12, 18, 20),  # 1-7 | 8-11 | 12-17 | 18-19 | 20
    Rank.INEPT: (9, 13, 19, 20),  # 1-8 | 9-12 | 13-18 | 19 | 20
    Rank.HOPELESS: (10, 14, 20, _NEVER),  # 1-9 | 10-13 | 14-19 | 20 | -
    Rank.DOOMED: (11, 15, _NEVER, _NEVER),  # 1-10 | 11-14 | 15-20 | - | -
}


def table_level(rank: Rank, face: int) -> SuccessLevel:
    """The Success Table's level for a d20 ``face`` at ``rank`` (ruling 1).

    "Critical failures occur on a roll of 1, unless your rank for the attempt was Legendary or
    Godlike": for those two the table's own cell stands (Legendary Failure, Godlike Limited).
    """
    if not 1 <= face <= 20:
        raise ValueError(f"a d20 face is 1-20, not {face}")
    if face == 1 and rank <= Rank.EPIC:
        return SuccessLevel.CRITICAL_FAILURE
    level = SuccessLevel.FAILURE
    for step, threshold in enumerate(_THRESHOLDS[rank], start=1):
        if face >= threshold:
            level = SuccessLevel(SuccessLevel.FAILURE + step)
    return level
