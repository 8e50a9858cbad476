"""Ability scores: modifier, rank and assigning the group's scores (Chapter I, "Ability
Scores"; rulings 7 and 8).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from bot.rules.errors import RulesError
from bot.rules.pen_and_dagger.table import Rank

__all__ = [
    "ABILITIES",
    "FIRST_LEVEL_MAX_SCORE",
    "ability_modifier",
    "ability_rank",
    "parse_racial_adjustments",
    "validate_assignment",
]

#: The six abilities, in the rule text's order.
ABILITIES: tuple[str, ...] = ("STR", "DEX", "CON", "INT", "WIS", "CHA")
#: "at 1st level no ability score can exceed 19" ("Assigning the Scores"; ruling 8)
FIRST_LEVEL_MAX_SCORE = 19

# The Ability Scores table's rank column: the lowest score of each rank (ruling 7).
# 1 Doomed | 2-3 Hopeless | 4-5 Inept | 6-7 Untrained | 8-9 Novice | 10-13 Trained |
# 14-17 Adept | 18-21 Master | 22-25 Epic | 26-29 Legendary | 30-31 Godlike (and above).
_RANK_FROM: tuple[tuple[int, Rank], ...] = (
    (30, Rank.GODLIKE),
    (26, Rank.LEGENDARY),
    (22, Rank.EPIC),
    (18, Rank.MASTER),
    (14, Rank.ADEPT),
    (10, Rank.TRAINED),
    (8, Rank.NOVICE),
    (6, Rank.UNTRAINED),
    (4, Rank.INEPT),
    (2, Rank.HOPELESS),
    (1, Rank.DOOMED),
)


def _check_score(score: int) -> None:
    if score < 1:
        raise RulesError(f"An ability score must be at least 1, not {score}.")


def ability_modifier(score: int) -> int:
    """The Ability Scores table's modifier (ruling 7).

    Every row of the table is floor((score − 10) / 2) (10-11 shows "-", i.e. 0), and ruling 7
    keeps that pattern above 31. Scores below 1 are invalid (:class:`RulesError`).
    """
    _check_score(score)
    return (score - 10) // 2


def ability_rank(score: int) -> Rank:
    """The Ability Scores table's rank (ruling 7): above 31 the rank stays Godlike."""
    _check_score(score)
    for lowest, rank in _RANK_FROM:
        if score >= lowest:
            return rank
    raise AssertionError("unreachable: scores below 1 are refused")


def _ability_key(name: str) -> str:
    key = name.strip().upper()
    if key not in ABILITIES:
        raise RulesError(f"“{name}” is not an ability. The abilities are {', '.join(ABILITIES)}.")
    return key


def validate_assignment(
    scores: Sequence[int],
    assignment: Mapping[str, int],
    racial_adjustments: Mapping[str, int] | None = None,
    *,
    level: int = 1,
) -> dict[str, int]:
    """Check a player's assignment of the group's six scores; return the final scores.

    Ruling 8 ("Assigning the Scores"): each of STR DEX CON INT WIS CHA gets exactly one of the
    six group scores, each score used once (duplicates count as separate scores); at 1st level
    no score may exceed 19 after racial adjustments. Ruling 7: no final score may be below 1.
    Ability names are read case-insensitively. Returns ability → score after racial
    adjustments, in :data:`ABILITIES` order; refuses anything else with :class:`RulesError`.
    """
    if level < 1:
        raise RulesError(f"A character's level is at least 1, not {level}.")
    if len(scores) != len(ABILITIES):
        raise RulesError(f"The group has six ability scores, not {len(scores)}.")
    chosen: dict[str, int] = {}
    for name, score in assignment.items():
        key = _ability_key(name)
        if key in chosen:
            raise RulesError(f"{key} is assigned twice.")
        chosen[key] = score
    missing = [ability for ability in ABILITIES if ability not in chosen]
    if missing:
        raise RulesError(f"Every ability needs a score; missing: {', '.join(missing)}.")
    if Counter(chosen.values()) != Counter(scores):
        group = ", ".join(str(score) for score in sorted(scores, reverse=True))
        raise RulesError(f"Use each of the group's scores ({group}) exactly once, one per ability.")
    adjustments: dict[str, int] = {}
    for name, delta in (racial_adjustments or {}).items():
        key = _ability_key(name)
        adjustments[key] = adjustments.get(key, 0) + delta
    final = {ability: chosen[ability] + adjustments.get(ability, 0) for ability in ABILITIES}
    for ability, score in final.items():
        if score < 1:
            raise RulesError(f"{ability} would be {score}; an ability score is at least 1.")
        if level == 1 and score > FIRST_LEVEL_MAX_SCORE:
            raise RulesError(
                f"{ability} would be {score} after racial adjustments; at 1st level no ability "
                f"score can exceed {FIRST_LEVEL_MAX_SCORE}."
            )
    return final


_ADJUSTMENT = re.compile(r"^\s*([A-Za-z]+)\s*([+\-\u2212])\s*(\d{1,2})\s*$")
#: A racial adjustment larger than this is a typo, not a race.
MAX_RACIAL_ADJUSTMENT = 10


def parse_racial_adjustments(text: str) -> dict[str, int]:
    """Read racial adjustments as a player types them: "STR+2, DEX-1" (commas or spaces).

    Returns ability → summed adjustment; refuses anything that is not ``<ability><+|-><n>``.
    """
    adjustments: dict[str, int] = {}
    pieces = [p for p in re.split(r"[,;]|\s+(?=[A-Za-z])", text) if p.strip()]
    if not pieces:
        raise RulesError("Give racial adjustments like STR+2, DEX-1.")
    for piece in pieces:
        match = _ADJUSTMENT.match(piece)
        if match is None:
            raise RulesError(
                f"“{piece.strip()[:20]}” is not a racial adjustment: write them like STR+2, DEX-1."
            )
        key = _ability_key(match.group(1))
        value = int(match.group(3))
        if value > MAX_RACIAL_ADJUSTMENT:
            raise RulesError(f"A racial adjustment of {value} is out of range (at most 10).")
        sign = 1 if match.group(2) == "+" else -1
        adjustments[key] = adjustments.get(key, 0) + sign * value
    return adjustments
