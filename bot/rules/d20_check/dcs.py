"""DCs from abilities (ruling 6): weapon and spell save DCs, the null-save extra."""

from __future__ import annotations

import enum
from collections.abc import Mapping

from bot.quoting import quote
from bot.rules.d20_check._d20 import bonus as _bonus
from bot.rules.errors import RulesError

# -------------------------------------------------------------------------- DCs from abilities


class WeaponKind(enum.Enum):
    """Melee or ranged, for the Weapon DC (ruling 6)."""

    MELEE = "melee"
    RANGED = "ranged"

    @property
    def ability(self) -> str:
        """The ability whose modifier the Weapon DC uses: STR for melee, DEX for ranged."""
        return "STR" if self is WeaponKind.MELEE else "DEX"


def weapon_dc(kind: WeaponKind | str, str_or_dex_mod: int, prof_bonus: int) -> int:
    """The Weapon DC (ruling 6): 8 + STR (melee) or DEX (ranged) modifier + proficiency bonus."""
    if isinstance(kind, str):
        try:
            kind = WeaponKind(kind.strip().casefold())
        except ValueError:
            shown = quote(str(kind))
            raise RulesError(f"Unknown weapon kind {shown}: use melee or ranged.") from None
    return 8 + _bonus(str_or_dex_mod, "A modifier") + _bonus(prof_bonus, "A proficiency bonus")


def spell_save_dc(mana_mod: int, prof_bonus: int) -> int:
    """The spell save DC (ruling 6): 8 + Mana modifier + proficiency bonus."""
    return 8 + _bonus(mana_mod, "A modifier") + _bonus(prof_bonus, "A proficiency bonus")


#: "Spell Effect Saves": the ability a spell effect of each school is saved with, as the text
#: names it and as a campaign usually abbreviates it (Divine: Wisdom, i.e. WIS).
SPELL_SCHOOLS: Mapping[str, tuple[str, ...]] = {
    "arcane": ("Knowledge",),
    "mystical": ("Perception",),
    "divine": ("Wisdom", "WIS"),
    "eldritch": ("Sanity",),
    "primal": ("Charisma", "CHA"),
    "psychic": ("Psyche",),
    "corruption": ("Heart",),
    "necrotic": ("Vitality",),
}

#: "Null Saves": the ability whose saves a Null adds proficiency and Null bonus to.
NULL_SAVE_ABILITY = "Mana"


def null_save_extra(
    ability: str, null_bonus: int | None
) -> tuple[bool, tuple[tuple[str, int], ...]]:
    """(always proficient, extra bonuses) of a save for a Null ("Null Saves").

    "Nulls always add their proficiency bonus and their Null bonus to their Mana Saves": on a
    Mana save a Null is proficient (the bonus still counts once, ruling 1) and adds the Null
    bonus; any other save, or a character who is not a Null (``null_bonus`` None), gets nothing.
    """
    if null_bonus is None or ability.casefold() != NULL_SAVE_ABILITY.casefold():
        return False, ()
    return True, (("Null bonus", _bonus(null_bonus, "A Null bonus")),)
