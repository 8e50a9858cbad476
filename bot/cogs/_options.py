"""Slash-command option types and help shared by every command that rolls a check.

/check, /gm check and /odds check take the same options; declaring them once keeps the three
from drifting apart (a GM rolling for a player has every option the player has).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Any, Literal

import discord
from discord import AppCommandOptionType, app_commands

from bot.services.rolling.checks import CheckOptions
from bot.words import LedgerKind, Visibility


class WordChoices(app_commands.Transformer):
    """A text option whose choices are a word list of bot/words.py, each shown as it is typed
    and stored (``public``, not the member name ``PUBLIC`` that an ``enum`` annotation shows).

    The value reaches the command unchanged, as a ``Literal`` option's did, so a value outside
    the list (only a forged interaction sends one) meets the same checks as before.
    """

    def __init__(self, words: Iterable[enum.StrEnum]) -> None:
        self._choices: list[app_commands.Choice[int | float | str]] = [
            app_commands.Choice(name=str(word), value=str(word)) for word in words
        ]

    @property
    def type(self) -> AppCommandOptionType:
        return AppCommandOptionType.string

    @property
    def choices(self) -> list[app_commands.Choice[int | float | str]]:
        return self._choices

    async def transform(self, interaction: discord.Interaction[Any], value: Any, /) -> Any:
        return value


Secret = app_commands.Transform[str, WordChoices(Visibility)]
DifficultyChoice = Literal["very-easy", "easy", "moderate", "hard", "very-hard"]
AbilityName = app_commands.Range[str, 1, 32]
Name = app_commands.Range[str, 1, 64]
Dc = app_commands.Range[int, 1, 100]
Bonus = app_commands.Range[int, -100, 100]
RankBonus = app_commands.Range[int, -10, 10]
CritAt = app_commands.Range[int, -100, 200]
Against = Literal["melee", "ranged", "spell"]
School = Literal[
    "arcane", "mystical", "divine", "eldritch", "primal", "psychic", "corruption", "necrotic"
]

SECRET_HELP = "Who sees the result: public, gm (GM and you), blind (GM only), self (you only)"

_HELP = {
    "ability": "The ability (or attribute) the check uses",
    "proficiency": "A proficiency on the sheet (Pen & Dagger rank / d20 degree)",
    "dc": "The DC (d20 check) or exact threshold (threshold system)",
    "difficulty": "Threshold system: a difficulty tier instead of dc",
    "advantage": "Roll two d20 and keep the better",
    "disadvantage": "Roll two d20 and keep the worse",
    "bonus": "d20 check: a situational bonus or penalty",
    "rank_bonus": "Pen & Dagger: rank bonus or penalty, e.g. 1 or -1",
    "reliable": "Pen & Dagger: raise the result one level (not on a natural 1)",
    "unreliable": "Pen & Dagger: lower the result one level (not on a natural 20)",
    "helper": "d20 check: a character working with you (you roll with advantage)",
    "helper_needs_proficiency": "d20 check: the helper must have the proficiency too (a lock)",
    "crit_success_at": "Threshold: this action is also a critical success at this total or more",
    "crit_failure_at": "Threshold: this action is also a critical failure at this total or less",
    "secret": SECRET_HELP,
}

#: The options of /check, in order (besides who rolls and who sees it).
CHECK_OPTION_NAMES = (
    "ability",
    "proficiency",
    "dc",
    "difficulty",
    "advantage",
    "disadvantage",
    "bonus",
    "rank_bonus",
    "reliable",
    "unreliable",
    "helper",
    "helper_needs_proficiency",
    "crit_success_at",
    "crit_failure_at",
)


#: /save's and /odds save's options (besides secret / public).
SAVE_HELP = {
    "ability": "The ability the save uses (or give school)",
    "dc": "The DC (d20 check), or give against and from",
    "advantage": _HELP["advantage"],
    "disadvantage": _HELP["disadvantage"],
    "bonus": "A situational bonus or penalty (d20 check)",
    "against": "d20 check: the DC is from's melee or ranged Weapon DC, or spell save DC",
    "source": "d20 check: the attacker or caster whose abilities set the DC",
    "school": "d20 check: a spell effect's school picks the save's ability (arcane: Knowledge…)",
}


def option_help(*names: str, **overrides: str) -> dict[str, str]:
    """Descriptions for `app_commands.describe` of these options (overrides win)."""
    return {name: overrides.get(name, _HELP[name]) for name in names} | overrides


def save_options(
    ability: str | None,
    *,
    dc: int | None = None,
    advantage: bool = False,
    disadvantage: bool = False,
    bonus: int | None = None,
    against: str | None = None,
    source: str | None = None,
    school: str | None = None,
) -> CheckOptions:
    """/save's options as the checks service takes them (no ability: the school's)."""
    return CheckOptions(
        ability=ability or "",
        dc=dc,
        advantage=advantage,
        disadvantage=disadvantage,
        bonus=bonus,
        against=against,
        source=source,
        school=school,
    )


def check_options(
    ability: str,
    *,
    proficiency: str | None = None,
    dc: int | None = None,
    difficulty: DifficultyChoice | None = None,
    advantage: bool = False,
    disadvantage: bool = False,
    bonus: int | None = None,
    rank_bonus: int | None = None,
    reliable: bool = False,
    unreliable: bool = False,
    helper: str | None = None,
    helper_needs_proficiency: bool = False,
    crit_success_at: int | None = None,
    crit_failure_at: int | None = None,
) -> CheckOptions:
    """What the slash options ask for, as the checks service takes it."""
    return CheckOptions(
        ability=ability,
        proficiency=proficiency,
        dc=dc,
        difficulty=difficulty.replace("-", " ") if difficulty else None,
        advantage=advantage,
        disadvantage=disadvantage,
        bonus=bonus,
        rank_bonus=rank_bonus,
        reliable=reliable,
        unreliable=unreliable,
        helper=helper,
        helper_needs_proficiency=helper_needs_proficiency,
        crit_success_at=crit_success_at,
        crit_failure_at=crit_failure_at,
    )


Quality = Literal["Novice", "Yeoman", "Adept", "Master", "Grand Master"]
#: Wider than an AC can be, so the bot (not Discord) explains what an AC may be.
Ac = app_commands.Range[int, -1000, 1000]
Magic = app_commands.Range[int, 0, 9]

#: Every /attack option's help, shared with /gm attack and /odds attack.
ATTACK_HELP = {
    "ac": "The target's Armour Class (a target character's own, from its sheet, if left out)",
    "ability": "STR for melee (default), DEX for ranged, or another ability",
    "proficiency": "Proficient with the weapon: add your proficiency bonus (default yes)",
    "advantage": "Roll two d20 and keep the better",
    "disadvantage": "Roll two d20 and keep the worse",
    "bonus": "A situational bonus or penalty to hit",
    "damage": "Damage dice rolled on a hit, e.g. 1d8+3 (a critical rolls every die again)",
    "weapon_quality": "Crit rules: the weapon's quality, for its save against a fumble",
    "magic_bonus": "Crit rules: the weapon's magic bonus, for its save (add its to-hit as bonus)",
    "target": "The character attacked: their own sheet's AC; a critical's AC loss is stored",
    "armour_quality": "Crit rules: the target's armour quality, for its save against a critical",
    "armour_magic": "Crit rules: the target's magic armour bonus, for its save",
    "secret": SECRET_HELP,
}

#: Every kind of roll the ledger records (a turn-order change is not a roll).
HistoryKind = app_commands.Transform[
    str, WordChoices(k for k in LedgerKind if k is not LedgerKind.TURN)
]
