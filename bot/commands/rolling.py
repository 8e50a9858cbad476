"""Every rolling command, declared once: its options, who runs it, who sees it, how it is typed.

One :class:`RollingCommand` per slash command that rolls or gives odds (``/check``,
``/gm check``, ``/odds check``, the group rolls ``/groupsave``, ``/groupcheck``,
``/gm request roll`` and ``/contest``…), in :data:`ROLLING`. Each holds its options in order
(:class:`Option`: name, :class:`Shape` — type, range, choices — description, required,
default), who may run it, its default visibility and the campaign setting that changes it,
and its inline spelling (:class:`Spelling`: ``[[check DEX Stealth adv]]``, also a saved roll's).
From it come:

- the slash commands' option types, descriptions, renames and autocompletes
  (``bot/cogs/_options.py``; the callbacks keep their signatures, which discord.py reads);
- the inline and saved roll grammar (``bot/services/rolling/roll_text.py``);
- ``/help``'s lines for these commands (``bot/render/help.py``) and ``docs/commands.md``
  (``python -m bot.commands.docs``);
- the campaign's default visibility of each rolling command (``secrecy_defaults``).

Which rule systems take an option is each system's own word (``System.check_options`` and
``save_options``; its group rules ``group_no_dc`` and ``group_saves``; its ``contest_sides``;
the rule a command of some systems needs, such as /attack's, is ``bot.rules.systems.commands``),
read here by :meth:`RollingCommand.systems_for`: /help and docs/commands.md say which systems
take an option without a second list of them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from bot.rules.d20_check import ItemQuality
from bot.rules.d20_check.dcs import SPELL_SCHOOLS
from bot.rules.systems import SYSTEMS, System
from bot.rules.systems.commands import COMMANDS, systems_with
from bot.rules.systems.d20 import AGAINST
from bot.rules.threshold import Difficulty
from bot.words import DefaultAction, SecrecyCommand, Visibility


class Kind(enum.StrEnum):
    """What an option's value is (Discord's string, integer and boolean option types)."""

    TEXT = "text"
    INT = "int"
    BOOL = "bool"


@dataclass(frozen=True, slots=True)
class Shape:
    """An option's type: its kind, its range (a number's values, a text's length) and choices."""

    kind: Kind
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()

    def words(self) -> str:
        """What it accepts, as docs/commands.md says it."""
        if self.choices:
            return "one of " + ", ".join(f"`{c}`" for c in self.choices)
        if self.kind is Kind.BOOL:
            return "true or false"
        if self.kind is Kind.INT:
            low = "" if self.low is None else f"{self.low}"
            high = "" if self.high is None else f"{self.high}"
            return f"whole number {low} to {high}" if low and high else "whole number"
        return f"text, {self.low} to {self.high} characters"


FLAG = Shape(Kind.BOOL)
ABILITY = Shape(Kind.TEXT, 1, 32)
NAME = Shape(Kind.TEXT, 1, 64)
#: Names or @mentions, comma-separated: a contest's, and a roll request's (up to 100 names).
CHARACTERS = Shape(Kind.TEXT, 1, 1000)
REQUESTED = Shape(Kind.TEXT, 1, 6000)
#: A game-clock span as typed (``90m``, ``1d12h``).
DURATION = Shape(Kind.TEXT, 1, 20)
NOTATION = Shape(Kind.TEXT, 1, 1000)
DAMAGE = Shape(Kind.TEXT, 1, 200)
LABEL = Shape(Kind.TEXT, 1, 100)
DC = Shape(Kind.INT, 1, 100)
BONUS = Shape(Kind.INT, -100, 100)
RANK_BONUS = Shape(Kind.INT, -10, 10)
CRIT_AT = Shape(Kind.INT, -100, 200)
#: Wider than an AC can be, so the bot (not Discord) explains what an AC may be.
AC = Shape(Kind.INT, -1000, 1000)
MAGIC = Shape(Kind.INT, 0, 9)
AT_LEAST = Shape(Kind.INT, -100000, 100000)
#: Threshold's tiers as typed (``very-easy``); the rules read them spaced (``very easy``).
DIFFICULTY = Shape(Kind.TEXT, choices=tuple(d.value.lower().replace(" ", "-") for d in Difficulty))
AGAINST_CHOICES = Shape(Kind.TEXT, choices=AGAINST)
SCHOOL = Shape(Kind.TEXT, choices=tuple(SPELL_SCHOOLS))
QUALITY = Shape(Kind.TEXT, choices=tuple(q.value for q in ItemQuality))
VISIBILITY = Shape(Kind.TEXT, choices=tuple(Visibility))
NEXT = Shape(Kind.TEXT, choices=("next",))
ROLL_MODE = Shape(Kind.TEXT, choices=("advantage", "disadvantage"))
DEFAULT_ACTION = Shape(Kind.TEXT, choices=tuple(DefaultAction))


class Complete(enum.StrEnum):
    """What an option's autocomplete offers (``bot/cogs/_autocomplete.py``)."""

    ABILITY = "ability"
    PROFICIENCY = "proficiency"
    CHARACTER = "character"


def _spaced(value: Any) -> Any:
    return value.replace("-", " ") if isinstance(value, str) else value


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a rolling command."""

    #: As the player types it, after the slash and inside ``[[…]]``.
    name: str
    shape: Shape
    #: Its description in the command picker (at most 100 characters: Discord's limit).
    help: str
    required: bool = False
    #: What the roll takes when it is left out (None: nothing; shown in docs/commands.md).
    default: object = None
    #: The callback's parameter and the roll options' field, when not ``name`` (``from`` is a
    #: Python keyword: ``source``).
    param: str = ""
    #: One of the roll's own options, which each system takes or refuses: a check's, a save's
    #: or an attack's goes into ``CheckOptions`` or ``AttackOptions`` under ``key``; a group
    #: roll's or a contest's the cog passes on itself. False: the command reads it itself,
    #: the same in every system (``secret``, ``character``, ``dice``, ``deadline``…).
    field: bool = True
    complete: Complete | None = None
    #: Bare words that set a true/false option inline (``adv``).
    aliases: tuple[str, ...] = ()
    #: From the value as typed to the value the roll options hold.
    convert: Callable[[Any], Any] | None = None
    #: Typed inside ``[[…]]`` and saved rolls too (not who sees it: an inline roll is public).
    inline: bool = True

    @property
    def key(self) -> str:
        """The Python name: the callback's parameter, the roll options' field."""
        return self.param or self.name

    @property
    def kind(self) -> Kind:
        return self.shape.kind

    def value(self, given: object) -> object:
        """``given`` (None: left out) as the roll options hold it (None: their default)."""
        if given is None:
            given = self.default
        if given is None or self.convert is None:
            return given
        return self.convert(given)


class Who(enum.StrEnum):
    """Who may run a command."""

    ANYONE = "anyone"  # in any channel, no campaign needed
    PLAYER = "player"  # a campaign's player, with their active character
    GM = "gm"  # a campaign's GM
    TAKING_PART = "taking-part"  # a campaign's GM, or a player whose character takes part


class Where(enum.StrEnum):
    SERVER = "server"
    ANYWHERE = "anywhere"


class Rolls(enum.StrEnum):
    """What a command rolls, which says whose options a system declares for it."""

    DICE = "dice"
    CHECK = "check"  # System.check_options
    SAVE = "save"  # System.save_options
    LUCK = "luck"
    ATTACK = "attack"
    GROUP = "group"  # each member of the party, or each named character: the group rules
    CONTEST = "contest"


class Word(enum.StrEnum):
    """The first word of an inline or saved roll: the slash command it stands for."""

    ROLL = "roll"
    CHECK = "check"
    SAVE = "save"
    ATTACK = "attack"
    LUCK = "luck"


@dataclass(frozen=True, slots=True)
class Spelling:
    """How a command is typed inside ``[[…]]`` and in a saved roll (docs/in-character.md)."""

    word: Word
    #: What the bare words before the ``name:value`` options are, in order: an option's name,
    #: or ``weapon`` (/attack's: a label shown with the result).
    words: tuple[str, ...] = ()
    #: The last of ``words`` takes every word left (``check DEX Thieves' Tools``).
    rest: bool = False
    example: str = ""


@dataclass(frozen=True, slots=True)
class RollingCommand:
    """One slash command that rolls or gives odds."""

    #: The qualified name, as typed after the slash (``gm check``).
    name: str
    #: Its description in the command picker and /help.
    help: str
    options: tuple[Option, ...]
    who: Who
    rolls: Rolls
    #: Who sees the result when ``secret`` is left out, and the campaign setting that changes
    #: it (``/campaign set secrecy``; None: not settable, /odds answers only the caller).
    visibility: Visibility
    secrecy: SecrecyCommand | None
    where: Where = Where.SERVER
    spelling: Spelling | None = None

    @property
    def leaf(self) -> str:
        """Its own name in its group (``check`` of ``gm check``)."""
        return self.name.rpartition(" ")[2]

    @property
    def under_gm(self) -> bool:
        """Whether it is a command of the /gm group (a server's, the GM's, as a whole)."""
        return self.name.split(" ", 1)[0] == "gm"

    @property
    def rule(self) -> str | None:
        """The optional rule it needs (``attacks``), from ``bot.rules.systems.commands``."""
        return COMMANDS.get(self.name)

    def option(self, name: str) -> Option:
        """Its option typed ``name`` (KeyError: it has none)."""
        for option in self.options:
            if option.name == name:
                return option
        raise KeyError(f"/{self.name} has no option {name!r}")

    @property
    def inline_options(self) -> tuple[Option, ...]:
        """The options a ``[[…]]`` of it may give (its spelling's)."""
        return tuple(option for option in self.options if option.inline)

    def systems(self) -> list[System]:
        """The registered systems it works in."""
        return systems_with(self.rule) if self.rule else list(SYSTEMS.values())

    def systems_for(self, option: Option) -> list[System]:
        """The registered systems whose rolls of this command take ``option``: each system
        declares its check's and its save's (``System.check_options``, ``save_options``), its
        group rolls' and its contests' (:func:`group_options`, :func:`contest_options`);
        every system's takes an ability, and the command's own options (``secret``…)."""
        found = self.systems()
        declared = _DECLARED.get(self.rolls)
        if declared is None or not option.field or option.key == "ability":
            return found
        return [s for s in found if option.key in (declared(s) or ())]

    def fields(self, given: Mapping[str, object]) -> dict[str, Any]:
        """The roll options' fields from ``given`` (keyed by :attr:`Option.key`; a callback's
        parameters, or an inline roll's values): left-out options take their default, or
        the options object's (absent)."""
        found: dict[str, Any] = {}
        for option in self.options:
            if option.field and (value := option.value(given.get(option.key))) is not None:
                found[option.key] = value
        return found


def group_options(system: System) -> frozenset[str]:
    """The options a group roll (/groupsave, /groupcheck, /gm request roll) takes in
    ``system``'s campaigns, from its own words, as the group rolls' service reads them
    (``check_spec`` in bot/services/rolling/groups.py): a dc (shown or hidden) unless its
    ``group_no_dc`` says why not, a difficulty tier and a proficiency where its check takes
    them, a saving throw where its ``group_saves``."""
    taken = {"difficulty", "proficiency"} & system.check_options
    if system.group_no_dc is None:
        taken |= {"dc", "hidden_dc"}
    if system.group_saves:
        taken.add("save")
    return frozenset(taken)


#: A two-way contest's sides' own options (/contest's ``first_…`` and ``second_…``).
CONTEST_SIDES = frozenset(
    {
        "first_proficiency",
        "first_bonus",
        "first_roll",
        "second_ability",
        "second_proficiency",
        "second_bonus",
        "second_roll",
    }
)


def contest_options(system: System) -> frozenset[str]:
    """The options a contest takes in ``system``'s campaigns: each side's own where its
    ``contest_sides`` refuses none."""
    return CONTEST_SIDES if system.contest_sides is None else frozenset()


_DECLARED: Mapping[Rolls, Callable[[System], frozenset[str] | None]] = {
    Rolls.CHECK: lambda system: system.check_options,
    Rolls.SAVE: lambda system: system.save_options,
    Rolls.GROUP: group_options,
    Rolls.CONTEST: contest_options,
}


def _changed(options: Iterable[Option], **changes: Mapping[str, Any]) -> tuple[Option, ...]:
    """``options`` with some of them changed for another command (/gm check's words)."""
    return tuple(replace(o, **changes[o.key]) if o.key in changes else o for o in options)


# --- the options ------------------------------------------------------------------------------

_ADVANTAGE = Option(
    "advantage", FLAG, "Roll two d20 and keep the better", default=False, aliases=("adv",)
)
_DISADVANTAGE = Option(
    "disadvantage", FLAG, "Roll two d20 and keep the worse", default=False, aliases=("dis",)
)
_SECRET = Option(
    "secret",
    VISIBILITY,
    "Who sees the result: public, gm (GM and you), blind (GM only), self (you only)",
    field=False,
    inline=False,
)
_GM_SECRET = replace(
    _SECRET, help="Who sees the result (default: the campaign's, normally blind: only the GM)"
)
_PUBLIC = Option(
    "public",
    FLAG,
    "Show the odds to the whole channel (default: only you)",
    default=False,
    field=False,
    inline=False,
)

#: /check's options (besides who sees it); /gm check and /odds check take them too.
CHECK_OPTIONS: tuple[Option, ...] = (
    Option(
        "ability",
        ABILITY,
        "The ability (or attribute) the check uses",
        required=True,
        complete=Complete.ABILITY,
    ),
    Option(
        "proficiency",
        NAME,
        "A proficiency on the sheet (Pen & Dagger rank / d20 degree)",
        complete=Complete.PROFICIENCY,
    ),
    Option("dc", DC, "The DC (d20 check) or exact threshold (threshold system)"),
    Option(
        "difficulty",
        DIFFICULTY,
        "Threshold system: a difficulty tier instead of dc",
        convert=_spaced,
    ),
    _ADVANTAGE,
    _DISADVANTAGE,
    Option("bonus", BONUS, "d20 check: a situational bonus or penalty"),
    Option("rank_bonus", RANK_BONUS, "Pen & Dagger: rank bonus or penalty, e.g. 1 or -1"),
    Option(
        "reliable",
        FLAG,
        "Pen & Dagger: raise the result one level (not on a natural 1)",
        default=False,
    ),
    Option(
        "unreliable",
        FLAG,
        "Pen & Dagger: lower the result one level (not on a natural 20)",
        default=False,
    ),
    Option(
        "helper",
        NAME,
        "d20 check: a character working with you (you roll with advantage)",
        complete=Complete.CHARACTER,
    ),
    Option(
        "helper_needs_proficiency",
        FLAG,
        "d20 check: the helper must have the proficiency too (a lock)",
        default=False,
    ),
    Option(
        "crit_success_at",
        CRIT_AT,
        "Threshold: this action is also a critical success at this total or more",
    ),
    Option(
        "crit_failure_at",
        CRIT_AT,
        "Threshold: this action is also a critical failure at this total or less",
    ),
)

#: /save's options (besides who sees it), shared with /odds save.
SAVE_OPTIONS: tuple[Option, ...] = (
    Option(
        "ability", ABILITY, "The ability the save uses (or give school)", complete=Complete.ABILITY
    ),
    Option("dc", DC, "The DC (d20 check), or give against and from"),
    _ADVANTAGE,
    _DISADVANTAGE,
    Option("bonus", BONUS, "A situational bonus or penalty (d20 check)"),
    Option(
        "against",
        AGAINST_CHOICES,
        "d20 check: the DC is from's melee or ranged Weapon DC, or spell save DC",
    ),
    Option(
        "from",
        NAME,
        "d20 check: the attacker or caster whose abilities set the DC",
        param="source",
        complete=Complete.CHARACTER,
    ),
    Option(
        "school",
        SCHOOL,
        "d20 check: a spell effect's school picks the save's ability (arcane: Knowledge…)",
    ),
)

_AC = Option(
    "ac", AC, "The target's Armour Class (a target character's own, from its sheet, if left out)"
)
_DAMAGE = Option(
    "damage", DAMAGE, "Damage dice rolled on a hit, e.g. 1d8+3 (a critical rolls every die again)"
)
#: /attack's options after ``ac`` and before ``damage``, and after ``damage``.
_TO_HIT: tuple[Option, ...] = (
    Option(
        "ability",
        ABILITY,
        "STR for melee (default), DEX for ranged, or another ability",
        default="STR",
        complete=Complete.ABILITY,
    ),
    Option(
        "proficiency",
        FLAG,
        "Proficient with the weapon: add your proficiency bonus (default yes)",
        default=True,
    ),
    _ADVANTAGE,
    _DISADVANTAGE,
    Option("bonus", BONUS, "A situational bonus or penalty to hit"),
)
_CRIT_RULES: tuple[Option, ...] = (
    Option(
        "weapon_quality", QUALITY, "Crit rules: the weapon's quality, for its save against a fumble"
    ),
    Option(
        "magic_bonus",
        MAGIC,
        "Crit rules: the weapon's magic bonus, for its save (add its to-hit as bonus)",
    ),
    Option(
        "target",
        NAME,
        "The character attacked: their own sheet's AC; a critical's AC loss is stored",
        complete=Complete.CHARACTER,
    ),
    Option(
        "armour_quality",
        QUALITY,
        "Crit rules: the target's armour quality, for its save against a critical",
    ),
    Option("armour_magic", MAGIC, "Crit rules: the target's magic armour bonus, for its save"),
)
#: /attack's options (besides who sees it).
ATTACK_OPTIONS: tuple[Option, ...] = (_AC, *_TO_HIT, _DAMAGE, *_CRIT_RULES)

_DICE = Option(
    "dice",
    NOTATION,
    "Dice notation, e.g. 1d20+5, 4d6kh3, adv+3, 8d6 [fire]; all of it: /help topic:dice",
    required=True,
    field=False,
)
_LABEL = Option("label", LABEL, "What the roll is for (shown as the title)", field=False)

_GM_CHARACTER = Option(
    "character",
    NAME,
    "Whose character (their stored scores and proficiencies are used)",
    required=True,
    field=False,
    complete=Complete.CHARACTER,
)

_GROUP_DIFFICULTY = Option(
    "difficulty", DIFFICULTY, "Threshold: a difficulty tier instead of dc", convert=_spaced
)

#: /contest's options of each side of a two-way contest (d20 check), after ``characters``.
_CONTEST_SIDES: tuple[Option, ...] = (
    Option(
        "first_proficiency",
        NAME,
        "d20 check: a proficiency on the first character's sheet",
        complete=Complete.PROFICIENCY,
    ),
    Option("first_bonus", BONUS, "d20 check: the first character's bonus or penalty"),
    Option(
        "first_roll",
        ROLL_MODE,
        "d20 check: the first character rolls with advantage or disadvantage",
    ),
    Option(
        "second_ability",
        ABILITY,
        "d20 check: the second character's ability, if not the same",
        complete=Complete.ABILITY,
    ),
    Option(
        "second_proficiency",
        NAME,
        "d20 check: a proficiency on the second character's sheet",
        complete=Complete.PROFICIENCY,
    ),
    Option("second_bonus", BONUS, "d20 check: the second character's bonus or penalty"),
    Option(
        "second_roll",
        ROLL_MODE,
        "d20 check: the second character rolls with advantage or disadvantage",
    ),
)


# --- the commands -----------------------------------------------------------------------------

_COMMANDS: tuple[RollingCommand, ...] = (
    RollingCommand(
        "roll",
        "Roll dice, e.g. 4d6kh3, 1d20+5, 2d20kl1 [fire]",
        (_DICE, _LABEL, _SECRET),
        Who.ANYONE,
        Rolls.DICE,
        Visibility.PUBLIC,
        SecrecyCommand.ROLL,
        where=Where.ANYWHERE,
        spelling=Spelling(Word.ROLL, ("dice",), rest=True, example="1d20+5"),
    ),
    RollingCommand(
        "check",
        "Roll your active character's check in this campaign's system",
        (*CHECK_OPTIONS, _SECRET),
        Who.PLAYER,
        Rolls.CHECK,
        Visibility.PUBLIC,
        SecrecyCommand.CHECK,
        spelling=Spelling(
            Word.CHECK, ("ability", "proficiency"), rest=True, example="check DEX Stealth adv"
        ),
    ),
    RollingCommand(
        "save",
        "Roll a saving throw (d20 check, roll-under)",
        (*SAVE_OPTIONS, _SECRET),
        Who.PLAYER,
        Rolls.SAVE,
        Visibility.PUBLIC,
        SecrecyCommand.SAVE,
        spelling=Spelling(Word.SAVE, ("ability",), example="save WIS dc:12"),
    ),
    RollingCommand(
        "luck",
        "Pen & Dagger: a luck roll (lucky on 10+)",
        (_SECRET,),
        Who.PLAYER,
        Rolls.LUCK,
        Visibility.PUBLIC,
        SecrecyCommand.LUCK,
        spelling=Spelling(Word.LUCK, example="luck"),
    ),
    RollingCommand(
        "attack",
        "d20 check: an attack roll against an AC",
        (*ATTACK_OPTIONS, _SECRET),
        Who.PLAYER,
        Rolls.ATTACK,
        Visibility.PUBLIC,
        SecrecyCommand.CHECK,
        spelling=Spelling(
            Word.ATTACK, ("weapon",), rest=True, example="attack longsword ac:15 damage:1d8+3"
        ),
    ),
    RollingCommand(
        "gm roll",
        "Roll dice as the GM, hidden by default",
        (
            replace(
                _DICE, help="Dice notation, e.g. 1d20+5, 4d6kh3, adv+3; all of it: /help topic:dice"
            ),
            replace(_LABEL, help="What the roll is for"),
            _GM_SECRET,
        ),
        Who.GM,
        Rolls.DICE,
        Visibility.BLIND,
        SecrecyCommand.GM_ROLL,
    ),
    RollingCommand(
        "gm check",
        "Roll a check for a player's character, hidden by default",
        (
            _GM_CHARACTER,
            *_changed(
                CHECK_OPTIONS,
                # The caller's own proficiencies would be the wrong ones to offer.
                proficiency={"help": "A proficiency on that character's sheet", "complete": None},
                helper={
                    "help": "d20 check: a character working with them (they roll with advantage)"
                },
            ),
            _GM_SECRET,
            Option(
                "preroll",
                NEXT,
                "next: use their oldest sealed d20s (/preroll) instead of fresh ones, publicly",
                field=False,
            ),
        ),
        Who.GM,
        Rolls.CHECK,
        Visibility.BLIND,
        SecrecyCommand.GM_CHECK,
    ),
    RollingCommand(
        "gm attack",
        "d20 check: attack for a character or a monster, hidden by default",
        (
            _AC,
            Option(
                "character",
                NAME,
                "A player's character attacks with their stored scores",
                field=False,
                complete=Complete.CHARACTER,
            ),
            Option(
                "attacker_bonus",
                BONUS,
                "Or a monster: its attack bonus from the stat block (proficiency included)",
            ),
            Option("monster", NAME, "The monster's name, shown on the result", field=False),
            *_TO_HIT,
            _DAMAGE,
            *_CRIT_RULES,
            _GM_SECRET,
        ),
        Who.GM,
        Rolls.ATTACK,
        Visibility.BLIND,
        SecrecyCommand.GM_CHECK,
    ),
    RollingCommand(
        "gm request roll",
        "Ask characters to roll: each player clicks Roll",
        (
            Option(
                "ability",
                ABILITY,
                "The ability everyone rolls",
                required=True,
                complete=Complete.ABILITY,
            ),
            Option(
                "characters",
                REQUESTED,
                "Names or @mentions, comma-separated (up to 100); empty for the whole party",
                field=False,
            ),
            Option(
                "dc", DC, "The DC (d20 check) or exact threshold (threshold), shown to everyone"
            ),
            Option(
                "hidden_dc",
                DC,
                "Like dc, but only the GM sees it and pass/fail until /gm request reveal",
            ),
            _GROUP_DIFFICULTY,
            Option(
                "save",
                FLAG,
                "d20 check: a saving throw instead of an ability check",
                default=False,
            ),
            Option(
                "proficiency", NAME, "A skill, e.g. Survival: each character who has it adds it"
            ),
            Option(
                "deadline",
                DURATION,
                "How long players have, like 90m, 24h, 2d or 1d12h (at most 30d)",
                field=False,
            ),
            Option(
                "default",
                DEFAULT_ACTION,
                "At the deadline, whoever has not rolled: roll for them, skip them, or fail them",
                field=False,
            ),
            Option(
                "remind",
                DURATION,
                "Remind whoever has not rolled after this long, like 12h",
                field=False,
            ),
        ),
        Who.GM,
        Rolls.GROUP,
        Visibility.PUBLIC,
        None,
    ),
    RollingCommand(
        "groupsave",
        "GM: the whole party saves at once",
        (
            Option(
                "ability",
                ABILITY,
                "The ability the party saves with",
                required=True,
                complete=Complete.ABILITY,
            ),
            Option("dc", DC, "The DC (d20 check) or exact threshold (threshold)"),
            _GROUP_DIFFICULTY,
        ),
        Who.GM,
        Rolls.GROUP,
        Visibility.PUBLIC,
        None,
    ),
    RollingCommand(
        "groupcheck",
        "GM: the whole party makes a check",
        (
            Option(
                "ability",
                ABILITY,
                "The ability everyone uses, e.g. WIS",
                required=True,
                complete=Complete.ABILITY,
            ),
            Option("proficiency", NAME, "A skill, e.g. Survival: each member who has it adds it"),
            Option(
                "dc",
                DC,
                "The DC (d20 check: the group succeeds if at least half succeed) or threshold",
            ),
            _GROUP_DIFFICULTY,
        ),
        Who.GM,
        Rolls.GROUP,
        Visibility.PUBLIC,
        None,
    ),
    RollingCommand(
        "contest",
        "Roll-under, d20 check: characters contest an ability",
        (
            Option(
                "ability",
                ABILITY,
                "The ability everyone rolls (d20 check: the first character's)",
                required=True,
                complete=Complete.ABILITY,
            ),
            Option(
                "characters",
                CHARACTERS,
                "Names or @mentions, comma-separated, e.g. Sybilla, @bob",
                required=True,
                field=False,
            ),
            *_CONTEST_SIDES,
        ),
        Who.TAKING_PART,
        Rolls.CONTEST,
        Visibility.PUBLIC,
        None,
    ),
    RollingCommand(
        "odds roll",
        "Odds of a /roll expression's total",
        (
            replace(
                _DICE,
                help="Dice notation, as for /roll: 1d20+5, 4d6kh3; all of it: /help topic:dice",
            ),
            Option(
                "at_least",
                AT_LEAST,
                "Also give the chance of a total of at least this",
                field=False,
            ),
            _PUBLIC,
        ),
        Who.ANYONE,
        Rolls.DICE,
        Visibility.SELF,
        None,
        where=Where.ANYWHERE,
    ),
    RollingCommand(
        "odds check",
        "Odds of a /check with these options",
        (*CHECK_OPTIONS, _PUBLIC),
        Who.PLAYER,
        Rolls.CHECK,
        Visibility.SELF,
        None,
    ),
    RollingCommand(
        "odds save",
        "Odds of a /save with these options (d20 check, roll-under)",
        (*SAVE_OPTIONS, _PUBLIC),
        Who.PLAYER,
        Rolls.SAVE,
        Visibility.SELF,
        None,
    ),
    RollingCommand(
        "odds luck",
        "Odds of a Pen & Dagger luck roll",
        (_PUBLIC,),
        Who.PLAYER,
        Rolls.LUCK,
        Visibility.SELF,
        None,
    ),
    RollingCommand(
        "odds attack",
        "d20 check: odds of an /attack: hit, critical, fumble",
        (replace(_AC, required=True), *_TO_HIT, *_CRIT_RULES, _PUBLIC),
        Who.PLAYER,
        Rolls.ATTACK,
        Visibility.SELF,
        None,
    ),
)

#: Every rolling command by its qualified name, in the order docs/commands.md lists them.
ROLLING: Mapping[str, RollingCommand] = {command.name: command for command in _COMMANDS}


def spelled(word: str) -> RollingCommand:
    """The command an inline roll's first word stands for (KeyError: none)."""
    for command in ROLLING.values():
        if command.spelling is not None and command.spelling.word == word:
            return command
    raise KeyError(word)


def secrecy_defaults(
    commands: Iterable[RollingCommand] = ROLLING.values(),
) -> dict[str, Visibility]:
    """Each campaign setting of who sees a rolling command's result (a ``SecrecyCommand``),
    and its default."""
    found: dict[str, Visibility] = {}
    for command in commands:
        if command.secrecy is None:
            continue
        if found.setdefault(command.secrecy, command.visibility) is not command.visibility:
            raise ValueError(f"/{command.name}: two defaults for {command.secrecy}")
    return found
