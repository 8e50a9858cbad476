"""Which commands belong to which rule systems, and what a campaign of another system uses.

Some commands work only in a system with a given rule (/attack: d20 check's attack rolls;
/fortune: Pen & Dagger's fortune dice). :data:`COMMANDS` says which, once; a service refuses
such a command with :class:`NotInSystem`, and :func:`refusal` words every such answer alike:
the system the campaign plays, the systems the command is for, and the command that does the
job here (each system's ``instead``), so a player is never left guessing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bot.rules.errors import RulesError
from bot.rules.systems.base import SYSTEMS, Feature, System


@dataclass(frozen=True, slots=True)
class Rule:
    """An optional rule some systems have, and the commands that need it."""

    key: str
    #: What it is, as in "this campaign plays Threshold, which has no <what>".
    what: str
    has: Callable[[System], bool]


def _feature(feature: Feature) -> Callable[[System], bool]:
    return lambda system: feature in system.features


RULES: Mapping[str, Rule] = {
    rule.key: rule
    for rule in (
        Rule("attacks", "attack rolls", _feature(Feature.ATTACKS)),
        Rule("rerolls", "rerolls of one die of an advantage roll", _feature(Feature.REROLLS)),
        Rule("luck", "luck rolls", _feature(Feature.LUCK)),
        Rule("fortune", "fortune dice", _feature(Feature.FORTUNE)),
        Rule("generation", "group ability-score generation", _feature(Feature.GENERATION)),
        Rule(
            "save-proficiencies",
            "saving-throw proficiencies",
            _feature(Feature.SAVE_PROFICIENCIES),
        ),
        Rule("nulls", "Nulls", _feature(Feature.NULLS)),
        Rule("carry-over", "carry-over, +2 / −2 after a critical", _feature(Feature.CARRY_OVER)),
        Rule("tiers", "difficulty tiers", _feature(Feature.TIERS)),
        Rule("contest", "contest rule", _feature(Feature.CONTEST)),
        # A system without saving throws says so by having no save options.
        Rule("saves", "saving throws", lambda system: system.save_options is not None),
    )
}

#: Every command (its name as a player types it) that works only in the systems with a rule.
COMMANDS: Mapping[str, str] = {
    "attack": "attacks",
    "gm attack": "attacks",
    "odds attack": "attacks",
    "character armour": "attacks",
    "character restore-ac": "attacks",
    "campaign set crit-rules": "attacks",
    "campaign set crit-damage": "attacks",
    "reroll": "rerolls",
    "campaign set rerolls": "rerolls",
    "luck": "luck",
    "odds luck": "luck",
    "campaign set luck-trade": "luck",
    "fortune show": "fortune",
    "fortune spend": "fortune",
    "fortune give": "fortune",
    "fortune take": "fortune",
    "character boon": "fortune",
    "campaign set fortune-boon": "fortune",
    "abilities roll": "generation",
    "abilities assign": "generation",
    "character save": "save-proficiencies",
    "character null": "nulls",
    "gm clear-modifier": "carry-over",
    "campaign set carry-over": "carry-over",
    "campaign set tier": "tiers",
    "contest": "contest",
    "save": "saves",
    "odds save": "saves",
}

#: A system's ``instead`` names /check and /save; from these commands the player's own
#: version of them does the job (/odds attack → /odds check).
_SAME_KIND: Mapping[str, Mapping[str, str]] = {
    "odds": {"/check": "/odds check", "/save": "/odds save"},
    "gm": {"/check": "/gm check"},
    "gm request roll": {"/check": "/gm request roll"},
    "groupsave": {"/check": "/groupsave"},
    "groupcheck": {"/check": "/groupcheck", "/save": "/groupsave"},
}


def systems_with(rule: str) -> list[System]:
    """The registered systems that have ``rule``."""
    return [system for system in SYSTEMS.values() if RULES[rule].has(system)]


def has(system: System, rule: str) -> bool:
    """Whether ``system`` has ``rule`` (a key of :data:`RULES`)."""
    return RULES[rule].has(system)


def _names(systems: list[System]) -> str:
    names = [system.name for system in systems]
    if len(names) <= 1:
        return names[0] if names else "no rule system here"
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _instead(system: System, rule: str, command: str | None) -> str:
    if command is not None and command.startswith("campaign set "):
        return ""  # a setting of another system's rule: nothing to use instead
    text = system.instead.get(rule)
    if text is None:
        return f"Nothing in {system.name} takes its place."
    same = _SAME_KIND.get(command or "") or _SAME_KIND.get((command or "").split(" ")[0], {})
    for old, new in same.items():
        text = text.replace(f"{old} ", f"{new} ").replace(f"{old}.", f"{new}.")
    return text


def refusal(system: System, rule: str, command: str | None = None) -> str:
    """Why ``command`` (one of :data:`COMMANDS`; another command, or none, asked for an option
    or a roll needing ``rule``) does nothing in a campaign of ``system``, and what does the job
    there instead (in the words of the command used: /odds attack → /odds check)."""
    found = RULES[rule]
    owners = _names(systems_with(rule))
    if COMMANDS.get(command or "") == rule:
        head = f"This campaign plays {system.name}; /{command} is for {owners} ({found.what})."
    else:
        head = f"This campaign plays {system.name}, which has no {found.what} ({owners} only)."
    instead = _instead(system, rule, command)
    return f"{head} {instead} Nothing changed." if instead else f"{head} Nothing changed."


class NotInSystem(RulesError):
    """A command or option of a rule the campaign's system does not have."""

    def __init__(self, system: System, rule: str) -> None:
        super().__init__(refusal(system, rule))
        self.system = system
        self.rule = rule

    def for_command(self, command: str) -> str:
        """The refusal as the player who ran ``command`` reads it (:func:`refusal`)."""
        return refusal(self.system, self.rule, command)


def require(system: System, rule: str) -> None:
    """Refuse (:class:`NotInSystem`) unless ``system`` has ``rule``."""
    if not RULES[rule].has(system):
        raise NotInSystem(system, rule)
