"""The Pen & Dagger rule system (shared/rules/pen-and-dagger.txt, Chapter I), as pure code.

Attempts on the Success Table, luck rolls, fortune dice, ability scores and group score
generation, each implementing the rulings of shared/rules/README.md ("Pen & Dagger" 1-9).
Ruling 9 (the GM rolls a player's attempt hidden) needs nothing here: the GM calls
:func:`attempt` with the player's stored rank and the bot keeps the result hidden.
"""

from bot.rules.pen_and_dagger.abilities import (
    ABILITIES,
    FIRST_LEVEL_MAX_SCORE,
    ability_modifier,
    ability_rank,
    parse_racial_adjustments,
    validate_assignment,
)
from bot.rules.pen_and_dagger.attempts import (
    LUCKY_ON,
    MAX_REROLLS,
    AttemptOutcome,
    LuckOutcome,
    RankAdjustment,
    Reliability,
    RerollOutcome,
    attempt,
    attempt_odds,
    best_reachable_level,
    can_reroll,
    check_fortune,
    final_level,
    luck_odds,
    luck_roll,
    reroll,
)
from bot.rules.pen_and_dagger.generation import (
    GeneratedScore,
    GenerationScheme,
    GroupGeneration,
    ScoreDie,
    generate_group_scores,
    group_rollers,
    plan_group_dice,
)
from bot.rules.pen_and_dagger.table import Rank, SuccessLevel, table_level

__all__ = [
    "ABILITIES",
    "FIRST_LEVEL_MAX_SCORE",
    "LUCKY_ON",
    "MAX_REROLLS",
    "AttemptOutcome",
    "GeneratedScore",
    "GenerationScheme",
    "GroupGeneration",
    "LuckOutcome",
    "Rank",
    "RankAdjustment",
    "Reliability",
    "RerollOutcome",
    "ScoreDie",
    "SuccessLevel",
    "ability_modifier",
    "ability_rank",
    "attempt",
    "attempt_odds",
    "best_reachable_level",
    "can_reroll",
    "check_fortune",
    "final_level",
    "generate_group_scores",
    "group_rollers",
    "luck_odds",
    "luck_roll",
    "parse_racial_adjustments",
    "plan_group_dice",
    "reroll",
    "table_level",
    "validate_assignment",
]
