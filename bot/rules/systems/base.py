"""What a rule system is, once: the `System` protocol, the shapes it plans with, the registry.

A system says what its check, save and luck roll mean (a :class:`Plan`: the rules call with the
character's stats bound, and its exact odds), which options each accepts, its ability names and
ranges, and how an outcome reads (:class:`Reading`: dice, result words, passed, tone). Services
and renderers look a system up by its stored key (:func:`system_for`) or an outcome's system by
its type (:func:`read`); they do not branch on which system it is (docs/rules/README.md).

Pure: no Discord, no database. The campaign and the character arrive as the small read-only
protocols :class:`Table` and :class:`Sheet`, which the services' views satisfy.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

from bot.quoting import escape, quote
from bot.rules.common import Advantage
from bot.rules.errors import RulesError


class Tone(enum.StrEnum):
    """How a result feels, which a renderer turns into a colour."""

    CRITICAL_SUCCESS = "critical-success"
    SUCCESS = "success"
    PARTIAL = "partial"
    FAILURE = "failure"
    CRITICAL_FAILURE = "critical-failure"
    NEUTRAL = "neutral"


class Feature(enum.StrEnum):
    """An optional rule a system has; commands for it refuse in a system without it."""

    #: Pen & Dagger: fortune dice, their table and choices; group score generation; the
    #: first-level score cap; proficiencies with a rank.
    FORTUNE = "fortune"
    GENERATION = "generation"
    FIRST_LEVEL_CAP = "first-level-cap"
    RANKS = "ranks"
    #: Pen & Dagger "Luck Rolls": /luck (plan_luck answers a plan).
    LUCK = "luck"
    #: d20 check: attack rolls, rerolling one die of an advantage roll, saving-throw
    #: proficiencies, Nulls, proficiencies with a degree.
    ATTACKS = "attacks"
    REROLLS = "rerolls"
    SAVE_PROFICIENCIES = "save-proficiencies"
    NULLS = "nulls"
    DEGREES = "degrees"
    #: A contest rule (roll-under ruling 3, d20 check ruling 4).
    CONTEST = "contest"
    #: Threshold: difficulty tiers a GM sets, and +2 / −2 after a critical (ruling 4).
    TIERS = "tiers"
    CARRY_OVER = "carry-over"


class View(enum.StrEnum):
    """Whose copy of a roll an explanation is for: it changes only what a hidden roll offers."""

    #: The public message (or a revealed roll): the roller's choices are offered.
    LIVE = "live"
    #: The roller's own copy of a hidden roll: its choices and carry-over wait for the reveal.
    HIDDEN = "hidden"
    #: The GM's copy of a hidden roll: the choice is the player's, so none is offered.
    GM_COPY = "gm-copy"


@dataclass(frozen=True, slots=True)
class Reading:
    """An outcome as every view reads it, whatever its system.

    ``passed`` is None when the roll decides nothing by itself (a d20 check with no DC);
    ``lines`` are (label, text) pairs explaining the roll, for a system that does not write its
    own :meth:`System.explain` and :meth:`System.one_line`.
    """

    dice: tuple[int, ...]
    result: str
    passed: bool | None
    tone: Tone
    lines: tuple[tuple[str, str], ...] = ()
    #: For a group's list of rolls: the die that counts, the modifiers by name, the total
    #: (None: the die alone decides), a note ("vs STR 12") and the result word there (None:
    #: ``result``; "" for none, e.g. a d20 check's bare total).
    kept: int = 0
    modifiers: tuple[tuple[str, int], ...] = ()
    total: int | None = None
    note: str = ""
    word: str | None = None


class TierSettings(Protocol):
    """Threshold difficulty tiers of a campaign."""

    @property
    def very_easy(self) -> int: ...
    @property
    def easy(self) -> int: ...
    @property
    def moderate(self) -> int: ...
    @property
    def hard(self) -> int: ...
    @property
    def very_hard(self) -> int: ...


class Table(Protocol):
    """What a system reads of a campaign (services' ``CampaignView`` satisfies it)."""

    @property
    def ability_names(self) -> tuple[str, ...]: ...
    @property
    def tiers(self) -> TierSettings: ...
    @property
    def carry_over(self) -> bool: ...
    @property
    def luck_trade(self) -> bool: ...

    def ability(self, name: str) -> str: ...


class Skill(Protocol):
    """A stored proficiency: a Pen & Dagger rank or a d20-check degree."""

    @property
    def name(self) -> str: ...
    @property
    def rank(self) -> str | None: ...
    @property
    def degree(self) -> int | None: ...


class Sheet(Protocol):
    """What a system reads of a character (services' ``CharacterView`` satisfies it)."""

    @property
    def name(self) -> str: ...
    @property
    def level(self) -> int: ...
    @property
    def fortune(self) -> int: ...
    @property
    def double_fortune(self) -> bool: ...
    @property
    def scores(self) -> Mapping[str, int]: ...
    @property
    def proficiencies(self) -> Mapping[str, Skill]: ...
    @property
    def save_proficiencies(self) -> frozenset[str]: ...
    @property
    def null_bonus(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """What the player asked for; None / False means "not given"."""

    ability: str
    proficiency: str | None = None
    dc: int | None = None
    difficulty: str | None = None
    advantage: bool = False
    disadvantage: bool = False
    bonus: int | None = None
    rank_bonus: int | None = None
    reliable: bool = False
    unreliable: bool = False
    #: d20 check ruling 8: a character working together with the leader (any owner).
    helper: str | None = None
    #: The task needs the named proficiency: a helper without it cannot help (ruling 8).
    helper_needs_proficiency: bool = False
    #: d20 check saves, ruling 6: the DC comes from ``source``'s abilities: "melee" or
    #: "ranged" (the Weapon DC) or "spell" (the spell save DC).
    against: str | None = None
    source: str | None = None
    #: d20 check "Spell Effect Saves": the spell's school picks the ability.
    school: str | None = None
    #: Threshold: this action's own critical thresholds (totals), besides natural 20 / 1.
    crit_success_at: int | None = None
    crit_failure_at: int | None = None
    #: Set by the save's DC lookup, not by the player: how the DC was computed.
    dc_from: str | None = None

    def given(self) -> list[str]:
        """Names of the options that were set, besides the ability."""
        return [name for name in _OPTION_NAMES if getattr(self, name) not in (None, False)]


#: CheckOptions' option names, once (``fields()`` per call showed in group saves' profile).
_OPTION_NAMES = tuple(f.name for f in fields(CheckOptions) if f.name not in ("ability", "dc_from"))


@dataclass(frozen=True, slots=True)
class Plan:
    """A check ready to roll or to price: the rules call with the character's stats bound."""

    system: str
    kind: str
    ability: str
    title: str
    roll: Callable[[random.Random], Any]
    odds: Callable[[], Mapping[str, Fraction]]


class System(Protocol):
    """One rule system: everything the services and renderers need to know about it."""

    #: The key stored in ``campaigns.system`` and offered by /campaign setup.
    @property
    def key(self) -> str: ...
    #: Its name in messages ("Roll-under"): refusals name the system a campaign plays.
    @property
    def name(self) -> str: ...
    #: The ability names a campaign starts with, and whether a GM may change them.
    @property
    def abilities(self) -> tuple[str, ...]: ...
    @property
    def abilities_configurable(self) -> bool: ...
    #: Allowed ability score (or modifier), lowest and highest, and what a score is called.
    @property
    def score_range(self) -> tuple[int, int]: ...
    @property
    def score_word(self) -> str: ...
    #: Options /check takes besides the ability; /save's (None: no saving throws).
    @property
    def check_options(self) -> frozenset[str]: ...
    @property
    def save_options(self) -> frozenset[str] | None: ...
    #: The outcome types its rolls produce (renderers find the system of an outcome by type).
    @property
    def outcome_types(self) -> tuple[type, ...]: ...
    #: The ability initiative rolls with (None: this system has no initiative roll).
    @property
    def initiative_ability(self) -> str | None: ...
    #: The optional rules it has.
    @property
    def features(self) -> frozenset[Feature]: ...
    #: What /help system says of it (a paragraph, Discord markdown).
    @property
    def summary(self) -> str: ...
    #: For a rule it lacks (a key of ``bot.rules.systems.commands.RULES``), what does the
    #: job here, in a sentence naming the command ("An attack is an attempt here: /check …").
    @property
    def instead(self) -> Mapping[str, str]: ...
    #: Its check's word, both the ledger kind and the title's noun ("attempt", "test").
    @property
    def check_word(self) -> str: ...
    #: What it calls the number to reach ("DC", "threshold").
    @property
    def target_word(self) -> str: ...
    #: Group rolls: why a dc is refused (None: a dc is taken), whether a target (dc or
    #: difficulty) is required, whether a group may roll saves, whether a group save needs a
    #: dc, and whether the whole group shares one d20 (roll-under ruling 2).
    @property
    def group_no_dc(self) -> str | None: ...
    @property
    def group_needs_target(self) -> bool: ...
    @property
    def group_saves(self) -> bool: ...
    @property
    def group_needs_dc(self) -> bool: ...
    @property
    def group_shares_die(self) -> bool: ...

    def plan_check(
        self, table: Table, sheet: Sheet, options: CheckOptions, carry_over: int | None
    ) -> Plan:
        """Bind the character's stats to this system's check."""
        ...

    def plan_save(self, table: Table, sheet: Sheet, options: CheckOptions) -> Plan:
        """Bind the character's stats to this system's saving throw (options already checked)."""
        ...

    def plan_luck(self, table: Table, sheet: Sheet) -> Plan | None:
        """A luck-like roll, or None when the system has none."""
        ...

    def save_dc(self, table: Table, against: str) -> Callable[[Sheet], tuple[int, str]]:
        """A save's DC from a character's abilities (only where ``save_options`` has
        "against"): ``against`` is checked now; the function returned computes the DC from the
        source character's sheet, with how it was computed in words."""
        ...

    def uses_carry_over(self, table: Table) -> bool:
        """Whether a check consumes a stored modifier of the ability (threshold ruling 4)."""
        ...

    def carry_over_next(self, outcome: Any) -> int | None:
        """The modifier an outcome leaves for the next roll of its ability, if any."""
        ...

    def read(self, outcome: Any) -> Reading:
        """How one of its outcomes reads."""
        ...

    def explain(self, outcome: Any, view: View) -> tuple[tuple[str, str], ...]:
        """(label, text) lines explaining one of its outcomes in its message (Discord markdown):
        each die, kept and dropped, the modifiers by name, what the roll offers ``view``."""
        ...

    def one_line(self, outcome: Any) -> str:
        """One of its stored outcomes in one line of /history, /verify and reveals (Discord
        markdown): the dice, what they met, and the result word in bold at the end."""
        ...

    def summarize(self, outcome: Any, title: str) -> tuple[str, str]:
        """One of its outcomes in a line of text (an inline roll, docs/in-character.md): the
        result in the system's words, and the dice with the modifiers by name."""
        ...

    def outcome_from_record(self, data: Mapping[str, Any]) -> Any | None:
        """Rebuild one of its outcomes from its stored form (``to_jsonable``'s, with its key);
        None if the shape is not one of its own (a row stored before the key, asked in turn)."""
        ...

    def group_verdict(
        self, passed: Sequence[str], failed: Sequence[str], members: int, dc: int | None
    ) -> tuple[bool | None, str]:
        """The group's result from who passed and who failed (None: no group rule)."""
        ...

    def shared_outcome(self, sheet: Sheet, ability: str, roll: int) -> Any:
        """One member's outcome of the group's one shared die (``group_shares_die``)."""
        ...

    def roll_shared_die(self, sheets: Sequence[Sheet], ability: str, rng: random.Random) -> int:
        """The group's one shared die (``group_shares_die``), rolled for ``sheets``."""
        ...

    def roll_initiative(
        self, table: Table, sheets: Sequence[Sheet], rng: random.Random
    ) -> list[tuple[int, str]]:
        """Initiative: the members' positions in ``sheets``, first to act first, each with its
        roll in words (``initiative_ability`` names the ability it uses)."""
        ...

    @property
    def contest_sides(self) -> str | None:
        """None when each side of a two-way contest may bring its own options (ability,
        proficiency, bonus, advantage); else why they are refused."""
        ...

    def contest(
        self,
        sheets: Sequence[Sheet],
        abilities: Sequence[str],
        sides: Sequence[CheckOptions],
        rng: random.Random,
    ) -> tuple[Any, list[list[int]]]:
        """A contest (only with :attr:`Feature.CONTEST`): its outcome, and each member's dice."""
        ...

    def explain_contest(self, outcome: Any) -> tuple[str, Tone, tuple[tuple[str, str], ...]]:
        """A contest's outcome (only with :attr:`Feature.CONTEST`): its result (Discord
        markdown, the message's headline), its tone, and (label, text) lines of its rolls."""
        ...

    def contest_from_record(self, data: Mapping[str, Any]) -> Any | None:
        """Rebuild one of its contests from its stored form (only with
        :attr:`Feature.CONTEST`); None if the shape is not one of its own."""
        ...

    def contest_line(self, outcome: Any) -> str:
        """One of its contests in one line of /history, /verify and reveals (Discord
        markdown), the result in bold."""
        ...

    def score_text(self, value: int) -> str:
        """A score as the sheet shows it, with what it means here ("13 (+1, Trained)")."""
        ...

    def odds_words(
        self, table: Table, sheet: Sheet, options: CheckOptions, ability: str, carry: int
    ) -> list[str]:
        """What /odds assumes, in the table's words: rank, score, DC, carry-over…"""
        ...


class Defaults:
    """What a system without the optional rules says; the built-in systems start from it."""

    initiative_ability: str | None = None
    features: frozenset[Feature] = frozenset()
    summary: str = ""
    instead: Mapping[str, str] = MappingProxyType({})
    target_word: str = "DC"
    group_no_dc: str | None = None
    group_needs_target: bool = False
    group_saves: bool = False
    group_needs_dc: bool = False
    group_shares_die: bool = False

    def read(self, outcome: Any) -> Reading:
        # Every system says how its own outcomes read: there is no sensible default.
        raise NotImplementedError(f"{type(self).__name__} must define read()")

    def explain(self, outcome: Any, view: View) -> tuple[tuple[str, str], ...]:
        return self.read(outcome).lines

    def one_line(self, outcome: Any) -> str:
        reading = self.read(outcome)
        shown = " · ".join(f"{label}: {text}" for label, text in reading.lines)
        if not shown:
            shown = "dice " + ", ".join(f"**{d}**" for d in reading.dice)
        return f"{shown} → **{reading.result}**"

    def summarize(self, outcome: Any, title: str) -> tuple[str, str]:
        reading = self.read(outcome)
        shown = "; ".join(f"{label}: {text}" for label, text in reading.lines)
        return reading.result, f"{title}: {shown or ', '.join(map(str, reading.dice))}"

    def plan_luck(self, table: Table, sheet: Sheet) -> Plan | None:
        return None

    def save_dc(self, table: Table, against: str) -> Callable[[Sheet], tuple[int, str]]:
        raise RulesError("This system computes no DC from a character: give dc.")

    def uses_carry_over(self, table: Table) -> bool:
        return False

    def carry_over_next(self, outcome: Any) -> int | None:
        return None

    def outcome_from_record(self, data: Mapping[str, Any]) -> Any | None:
        return None

    def group_verdict(
        self, passed: Sequence[str], failed: Sequence[str], members: int, dc: int | None
    ) -> tuple[bool | None, str]:
        return None, "Each result stands on its own (no group rule in this system)."

    def shared_outcome(self, sheet: Sheet, ability: str, roll: int) -> Any:
        raise NotImplementedError("this system rolls a die per member")

    def roll_shared_die(self, sheets: Sequence[Sheet], ability: str, rng: random.Random) -> int:
        raise NotImplementedError("this system rolls a die per member")

    contest_sides: str | None = None

    def contest_from_record(self, data: Mapping[str, Any]) -> Any | None:
        return None  # no contests here

    def contest_line(self, outcome: Any) -> str:
        raise NotImplementedError("this system has no contests")

    def score_text(self, value: int) -> str:
        return str(value)

    def contest(
        self,
        sheets: Sequence[Sheet],
        abilities: Sequence[str],
        sides: Sequence[CheckOptions],
        rng: random.Random,
    ) -> tuple[Any, list[list[int]]]:
        raise RulesError("This system has no contest rule.")

    def explain_contest(self, outcome: Any) -> tuple[str, Tone, tuple[tuple[str, str], ...]]:
        raise NotImplementedError("this system has no contest rule")

    def roll_initiative(
        self, table: Table, sheets: Sequence[Sheet], rng: random.Random
    ) -> list[tuple[int, str]]:
        raise RulesError(
            f"{getattr(self, 'name', 'This system')} has no initiative roll: use order:listed."
        )

    def odds_words(
        self, table: Table, sheet: Sheet, options: CheckOptions, ability: str, carry: int
    ) -> list[str]:
        words = []
        if options.dc is not None:
            words.append(f"DC {options.dc}")
        if options.bonus:
            words.append(f"bonus {signed(options.bonus)}")
        return words


def signed(value: int) -> str:
    """+2 / −1 / +0, the way modifiers are written on a sheet."""
    return f"+{value}" if value >= 0 else f"\N{MINUS SIGN}{-value}"


# --- the registry -------------------------------------------------------------------------------

_SYSTEMS: dict[str, System] = {}
_BY_OUTCOME: dict[type, System] = {}


class _Registry(Mapping[str, System]):
    """Read-only view of the registered systems, in registration order."""

    def __getitem__(self, key: str) -> System:
        return _SYSTEMS[key]

    def __iter__(self) -> Iterator[str]:
        return iter(_SYSTEMS)

    def __len__(self) -> int:
        return len(_SYSTEMS)


#: Every registered system by its stored key (``RuleSystem`` values are the built-in keys).
SYSTEMS: Mapping[str, System] = _Registry()


def register(system: System) -> System:
    """Add ``system`` (or replace the one with its key); returns it."""
    _forget_last_read()
    old = _SYSTEMS.get(system.key)
    if old is not None:
        unregister(old.key)
    _SYSTEMS[system.key] = system
    for kind in system.outcome_types:
        _BY_OUTCOME[kind] = system
    return system


def unregister(key: str) -> None:
    """Remove a registered system (a test's toy system, at teardown)."""
    _forget_last_read()
    system = _SYSTEMS.pop(key, None)
    if system is not None:
        for kind in system.outcome_types:
            _BY_OUTCOME.pop(kind, None)


_V = TypeVar("_V")


class _PerSystem(Mapping[str, _V]):
    """A system attribute by key, always in step with the registry (toy systems included)."""

    def __init__(self, get: Callable[[System], _V | None], skip_none: bool) -> None:
        self._get = get
        self._skip_none = skip_none

    def _items(self) -> dict[str, _V]:
        found = {key: self._get(system) for key, system in _SYSTEMS.items()}
        return {k: v for k, v in found.items() if v is not None or not self._skip_none}  # type: ignore[misc]

    def __getitem__(self, key: str) -> _V:
        return self._items()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())


def per_system(get: Callable[[System], _V | None], *, skip_none: bool = False) -> Mapping[str, _V]:
    """``{key: get(system)}`` over the registered systems, read live (the old per-system tables
    such as ``SYSTEM_NAMES`` are these views now)."""
    return _PerSystem(get, skip_none)


class UnknownSystem(RulesError):
    """A system key no registered system has."""


def system_for(key: str) -> System:
    """The system of a stored key, or :class:`UnknownSystem` naming the ones there are."""
    found = _SYSTEMS.get(str(key))
    if found is None:
        known = ", ".join(_SYSTEMS)
        raise UnknownSystem(f"Unknown rule system {quote(str(key))}: choose one of {known}.")
    return found


def system_of(outcome: Any) -> System | None:
    """The system an outcome belongs to, by its type (None: not a system's roll)."""
    return _BY_OUTCOME.get(type(outcome))


#: The last outcome read and its reading. Outcomes and readings are immutable, so the same
#: object reads the same: a check is read by its service (the dice to record) and again by its
#: embed, and this saves the second. Kept by identity, holding the outcome, so a new object
#: at a reused address can never match.
_last_read: tuple[Any, Reading] | None = None


def _forget_last_read() -> None:
    global _last_read
    _last_read = None  # the registry changed: an outcome may read otherwise, or not at all


def read(outcome: Any) -> Reading:
    """How any system's outcome reads."""
    global _last_read
    last = _last_read
    if last is not None and last[0] is outcome:
        return last[1]
    reading = _system(outcome).read(outcome)
    _last_read = (outcome, reading)
    return reading


def explain(outcome: Any, view: View = View.LIVE) -> tuple[tuple[str, str], ...]:
    """Any system's outcome explained in (label, text) lines, for ``view``'s copy."""
    return _system(outcome).explain(outcome, view)


def one_line(outcome: Any) -> str:
    """Any system's outcome in one line, its result word last."""
    return _system(outcome).one_line(outcome)


def summarize(outcome: Any, title: str) -> tuple[str, str]:
    """Any system's outcome in an inline post's words: the result, and the dice."""
    return _system(outcome).summarize(outcome, title)


def _system(outcome: Any) -> System:
    system = system_of(outcome)
    if system is None:
        raise TypeError(f"no registered system rolls {type(outcome).__name__}")
    return system


#: The key of a stored outcome naming its system (``to_jsonable`` writes it).
SYSTEM_FIELD = "system"


def outcome_from_record(data: Mapping[str, Any]) -> Any | None:
    """The outcome a stored row holds, rebuilt by its system's decoder (None: no system's).

    Raises what the decoder raises on a malformed record of its system (KeyError, ValueError…).
    """
    key = data.get(SYSTEM_FIELD)
    if key is not None:
        system = _SYSTEMS.get(str(key))
        return None if system is None else system.outcome_from_record(data)
    # A row written before outcomes named their system: the first system that knows its
    # shape rebuilds it (the ledger is append-only, so these rows are never rewritten).
    for system in _SYSTEMS.values():
        found = system.outcome_from_record(data)
        if found is not None:
            return found
    return None


def contest_line(data: Mapping[str, Any]) -> str | None:
    """A stored contest in one line, by the contest system whose shape it has (contests do
    not name their system); None if none rebuilds it.

    Raises what the decoder raises on a malformed record of its shape (KeyError, ValueError…).
    """
    for system in _SYSTEMS.values():
        if Feature.CONTEST in system.features:
            found = system.contest_from_record(data)
            if found is not None:
                return system.contest_line(found)
    return None


# --- helpers the built-in systems share ---------------------------------------------------------


def refuse_options(system: System, given: list[str], allowed: frozenset[str], cmd: str) -> None:
    """An option the campaign's system does not have gets a clear error naming the system."""
    extra = [name for name in given if name not in allowed]
    if extra:
        has = ", ".join(sorted(allowed)) if allowed else "no options besides ability"
        raise RulesError(
            f"This campaign plays {system.name}, where {cmd} has no "
            f"{', '.join(extra)} (it takes {has})."
        )


def score_of(sheet: Sheet, ability: str, word: str = "score") -> int:
    """The character's score (or modifier) of ``ability``, or how to set it."""
    if ability not in sheet.scores:
        raise RulesError(
            f"{escape(sheet.name)} has no {ability} {word} yet: set it with "
            f"/character set ability:{ability} value:<number>."
        )
    return sheet.scores[ability]


def skill_of(sheet: Sheet, name: str) -> tuple[str, str | None, int | None]:
    """The character's proficiency called ``name`` (any case and spacing), or how to add it."""
    found = sheet.proficiencies.get(" ".join(name.split()).casefold())
    if found is None:
        raise RulesError(
            f"{escape(sheet.name)} has no proficiency called {quote(name)}: add it with "
            "/character proficiency, or roll without it."
        )
    return found.name, found.rank, found.degree


def initiative_score(sheet: Sheet, ability: str) -> int:
    """The score initiative uses (any case), or how to set it."""
    for name, value in sheet.scores.items():
        if name.casefold() == ability.casefold():
            return value
    raise RulesError(
        f"{sheet.name} has no {ability} score, which initiative uses in this system: set "
        f"it with /character set ability:{ability} value:<number>, or use order:listed."
    )


def d20_initiative(
    sheets: Sequence[Sheet], rng: random.Random, ability: str, modifier: Callable[[int], int]
) -> list[tuple[int, str]]:
    """d20 + a modifier from the ability's score; the higher total, then modifier, goes first."""
    keyed: list[tuple[tuple[int, int], int, str]] = []
    for index, sheet in enumerate(sheets):
        bonus = modifier(initiative_score(sheet, ability))
        face = rng.randint(1, 20)
        total = face + bonus
        text = f"d20 **{face}** {signed(bonus)} {ability} = **{number(total)}**"
        keyed.append(((total, bonus), index, text))
    keyed.sort(key=lambda k: (tuple(-v for v in k[0]), k[1]))
    return [(index, text) for _, index, text in keyed]


def named(odds: Mapping[Any, Fraction], name: Callable[[Any], str]) -> dict[str, Fraction]:
    """Odds keyed by their display names."""
    return {name(key): p for key, p in odds.items()}


def number(value: int) -> str:
    """A number as the bot shows it: a true minus sign."""
    return f"−{-value}" if value < 0 else str(value)


def d20_line(dice: tuple[int, ...], kept: int, modifiers: tuple[tuple[str, int], ...]) -> str:
    """``d20 12, 17 → 17 +3 DEX = 20``: the dice, the one kept, the modifiers by name."""
    faces = str(kept) if len(dice) <= 1 else f"{', '.join(map(str, dice))} → {kept}"
    terms = "".join(f" {signed(v)} {name}" for name, v in modifiers)
    return f"d20 {faces}{terms} = {number(kept + sum(v for _, v in modifiers))}"


def kept_dice(dice: Sequence[int], kept: int, advantage: Advantage) -> str:
    """`**17**, ~~4~~ (advantage)`: the kept d20 in bold, the other struck through."""
    kept_at = list(dice).index(kept) if kept in dice else 0
    parts = [f"**{f}**" if i == kept_at else f"~~{f}~~" for i, f in enumerate(dice)]
    note = f" ({advantage.value})" if len(dice) > 1 and advantage is not Advantage.NONE else ""
    return ", ".join(parts or [f"**{kept}**"]) + note


def modifier_sum(kept: int, modifiers: Sequence[tuple[str, int]]) -> str:
    """`12 +3 DEX = **15**`: the kept die, the modifiers by name, the total in bold."""
    terms = "".join(f" {signed(v)} {name}" for name, v in modifiers)
    return f"{kept}{terms} = **{number(kept + sum(v for _, v in modifiers))}**"


def d20_sum(
    dice: Sequence[int], kept: int, advantage: Advantage, modifiers: Sequence[tuple[str, int]]
) -> str:
    """`d20 10 +2 STR = **12**`, with the other die struck through when there are two."""
    total = modifier_sum(kept, modifiers)
    if len(dice) <= 1:
        return f"d20 {total}"
    return f"d20 {kept_dice(dice, kept, advantage)}: {total}"


#: A hidden natural 20 in the GM's copy (docs/secret-rolls.md): the choice to trade it is the
#: player's, and none is offered while the roll is hidden, so the GM copy never says "you may
#: trade it".
GM_NATURAL_20 = "{kept} while the roll is hidden: no trade for a fortune die before it is revealed"

#: The roller's own copy of a hidden roll: its consequences wait for the reveal.
HIDDEN_NATURAL_20 = "{what} when the roll is revealed (nothing is offered while it is hidden)"
HIDDEN_CARRY_OVER = "{value} on the next {attribute} test, from when the roll is revealed"
