"""d20 check (5e-like): ability checks, saves, contests, attacks, group checks (`d20-check.txt`).

Rulings (shared/rules/README.md, "d20 check"):

1. Check total = d20 + ability modifier (floor((score − 10) / 2)) + proficiency bonus × degree
   (None 0, Proficient 1, Expert 2) + situational bonus; success when total ≥ DC. The proficiency
   bonus is added at most once and doubled at most once. Natural 20 and 1 have no special effect
   on checks and saves.
2. Proficiency bonus by level: 1–4 +2, 5–8 +3, 9–12 +4, 13–16 +5, 17–20 +6.
3. Advantage and disadvantage: any number of sources; both present → neither; never more than one
   extra d20.
4. Contest: both roll their checks; the higher total wins; a tie leaves the situation unchanged.
5. Saving throw: d20 + ability modifier + proficiency bonus if proficient in that save + bonus.
6. Weapon DC: melee 8 + STR modifier + proficiency bonus; ranged 8 + DEX modifier + proficiency
   bonus. Spell save DC: 8 + Mana modifier + proficiency bonus. Abilities are a campaign setting.
7. Attack rolls: d20 + modifiers vs AC. Critical hits and fumbles are optional, off by default:
   a natural 20 that still hits is a critical (damage also lowers the target's AC); a natural 1 is
   a fumble that breaks the weapon unless its quality save succeeds (DC 10, +1 Adept, +2 Master,
   +3 Grand Master; magic items DC 10 − their bonus, +3).
8. Working together: the leader rolls with advantage.
9. Group check: everyone rolls; the group succeeds when at least half succeed.

Modules: ``checks`` (checks, saves, rerolls), ``contests``, ``dcs`` (DCs from abilities),
``items`` (quality saves), ``attacks`` (attacks and their rerolls), ``groups`` (working
together, group checks); every public name is re-exported here, so
``from bot.rules.d20_check import X`` is the way in.

Pure code: every function that rolls takes a ``random.Random``; odds are exact ``Fraction``s.
"""

from bot.rules.d20_check._d20 import MAX_ABS_BONUS, MAX_TARGET, MIN_TARGET
from bot.rules.d20_check.attacks import (
    AttackInput,
    AttackOdds,
    AttackOutcome,
    AttackResult,
    attack_odds,
    attack_roll,
    reroll_attack,
    roll_attack,
)
from bot.rules.d20_check.checks import (
    DEFAULT_ABILITIES,
    EXTRA_ABILITIES,
    MAGIC_ITEM_SAVE_BONUS,
    MAX_LEVEL,
    MAX_MAGIC_BONUS,
    MAX_SCORE,
    MIN_LEVEL,
    MIN_SCORE,
    NO_RESULT_TEXT,
    QUALITY_SAVE_DC,
    CheckInput,
    CheckKind,
    CheckOutcome,
    CheckResult,
    ProficiencyDegree,
    ability_check,
    ability_modifier,
    check_odds,
    proficiency_bonus,
    reroll_one,
    roll_check,
    saving_throw,
    total_distribution,
)
from bot.rules.d20_check.contests import (
    ContestResult,
    D20ContestOutcome,
    contest,
    contest_odds,
)
from bot.rules.d20_check.dcs import (
    NULL_SAVE_ABILITY,
    SPELL_SCHOOLS,
    WeaponKind,
    null_save_extra,
    spell_save_dc,
    weapon_dc,
)
from bot.rules.d20_check.groups import (
    GroupCheckOutcome,
    GroupResult,
    WorkingTogetherOutcome,
    group_check,
    group_check_odds,
    helped_input,
    working_together,
)
from bot.rules.d20_check.items import (
    ItemQuality,
    ItemSaveOutcome,
    ItemSaveResult,
    QualitySaveTerms,
    item_quality_save,
    item_save_odds,
    quality_save_terms,
)

__all__ = [
    "DEFAULT_ABILITIES",
    "EXTRA_ABILITIES",
    "MAGIC_ITEM_SAVE_BONUS",
    "MAX_ABS_BONUS",
    "MAX_LEVEL",
    "MAX_MAGIC_BONUS",
    "MAX_SCORE",
    "MAX_TARGET",
    "MIN_LEVEL",
    "MIN_SCORE",
    "MIN_TARGET",
    "NO_RESULT_TEXT",
    "NULL_SAVE_ABILITY",
    "QUALITY_SAVE_DC",
    "SPELL_SCHOOLS",
    "AttackInput",
    "AttackOdds",
    "AttackOutcome",
    "AttackResult",
    "CheckInput",
    "CheckKind",
    "CheckOutcome",
    "CheckResult",
    "ContestResult",
    "D20ContestOutcome",
    "GroupCheckOutcome",
    "GroupResult",
    "ItemQuality",
    "ItemSaveOutcome",
    "ItemSaveResult",
    "ProficiencyDegree",
    "QualitySaveTerms",
    "WeaponKind",
    "WorkingTogetherOutcome",
    "ability_check",
    "ability_modifier",
    "attack_odds",
    "attack_roll",
    "check_odds",
    "contest",
    "contest_odds",
    "group_check",
    "group_check_odds",
    "helped_input",
    "item_quality_save",
    "item_save_odds",
    "null_save_extra",
    "proficiency_bonus",
    "quality_save_terms",
    "reroll_attack",
    "reroll_one",
    "roll_attack",
    "roll_check",
    "saving_throw",
    "spell_save_dc",
    "total_distribution",
    "weapon_dc",
    "working_together",
]
