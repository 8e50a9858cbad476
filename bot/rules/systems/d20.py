"""The d20 check system in the registry: checks, saves, odds and how its outcomes read."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from bot.quoting import escape, quote
from bot.rules import d20_check
from bot.rules.common import Advantage
from bot.rules.errors import RulesError
from bot.rules.systems.base import (
    CheckOptions,
    Defaults,
    Feature,
    Plan,
    Reading,
    Sheet,
    Table,
    Tone,
    View,
    d20_initiative,
    d20_line,
    d20_sum,
    kept_dice,
    modifier_sum,
    number,
    refuse_options,
    score_of,
    signed,
    skill_of,
)
from bot.words import LedgerKind

SIX_ABILITIES: tuple[str, ...] = ("STR", "DEX", "CON", "INT", "WIS", "CHA")

#: What a save's DC may be computed against (ruling 6): a Weapon DC or the spell save DC.
AGAINST = ("melee", "ranged", "spell")


def check_input(
    sheet: Sheet, ability: str, options: CheckOptions
) -> tuple[d20_check.CheckInput, str]:
    """A d20 check's input for ``sheet`` (rulings 1-3) and its title, e.g. "STR
    (Athletics) check": d20 + ability modifier + proficiency bonus x degree + bonus."""
    score = score_of(sheet, ability)
    degree = d20_check.ProficiencyDegree.NONE
    prof_name: str | None = None
    title = f"{ability} check"
    if options.proficiency:
        prof_name, _, stored_degree = skill_of(sheet, options.proficiency)
        # Stored degrees are 1 (Proficient), 2 (Expert) or -1 (Half); ruling 1 caps it there.
        degree = d20_check.ProficiencyDegree.parse(str(stored_degree or 0))
        title = f"{ability} ({prof_name}) check"
    check = d20_check.CheckInput(
        score=score,
        ability=ability,
        level=sheet.level,
        degree=degree,
        bonus=options.bonus or 0,
        advantage=options.advantage,
        disadvantage=options.disadvantage,
        proficiency_name=prof_name,
        name=sheet.name,
    )
    return check, title


def save_ability(table: Table, options: CheckOptions) -> str:
    """The save's ability: the one named, or the spell school's ("Spell Effect Saves")."""
    if not options.school:
        if not options.ability.strip():
            raise RulesError("Name the ability the save uses, or the spell's school.")
        return table.ability(options.ability)
    key = options.school.strip().casefold()
    if key not in d20_check.SPELL_SCHOOLS:
        names = ", ".join(d20_check.SPELL_SCHOOLS)
        raise RulesError(f"Unknown school {quote(options.school)}: use one of {names}.")
    candidates = d20_check.SPELL_SCHOOLS[key]
    found = next(
        (a for a in table.ability_names if a.casefold() in {c.casefold() for c in candidates}),
        None,
    )
    if found is None:
        raise RulesError(
            f"A {key} spell effect is saved with {candidates[0]}, which this campaign does not "
            "have: a GM can add it with /campaign set abilities."
        )
    if options.ability.strip() and table.ability(options.ability) != found:
        raise RulesError(
            f"A {key} spell effect is saved with {found}, not {options.ability}: give one of "
            "ability or school."
        )
    return found


def save_dc(table: Table, against: str) -> Callable[[Sheet], tuple[int, str]]:
    """Ruling 6: the Weapon DC is 8 + STR (melee) or DEX (ranged) modifier + proficiency
    bonus; the spell save DC 8 + Mana modifier + proficiency bonus, all of the source's."""
    kind = against.strip().casefold()
    if kind not in AGAINST:
        raise RulesError(f"Unknown against {quote(against)}: use melee, ranged or spell.")
    wanted = d20_check.NULL_SAVE_ABILITY if kind == "spell" else d20_check.WeaponKind(kind).ability

    def compute(source: Sheet) -> tuple[int, str]:
        ability = next((a for a in table.ability_names if a.casefold() == wanted.casefold()), None)
        if ability is None:
            raise RulesError(
                f"A {'spell save' if kind == 'spell' else 'Weapon'} DC uses {wanted}, which this "
                "campaign does not have: a GM can add it with /campaign set abilities."
            )
        modifier = d20_check.ability_modifier(score_of(source, ability))
        bonus = d20_check.proficiency_bonus(source.level)
        if kind == "spell":
            dc = d20_check.spell_save_dc(modifier, bonus)
            what = "spell save DC"
        else:
            dc = d20_check.weapon_dc(kind, modifier, bonus)
            what = f"{kind} Weapon DC"
        sign = "+" if modifier >= 0 else "−"
        terms = f"8 {sign} {abs(modifier)} {ability} + {bonus} proficiency"
        note = f"{source.name}'s {what} {dc} ({terms})"
        return dc, note

    return compute


def d20_plan(
    key: str, kind: str, ability: str, title: str, check: d20_check.CheckInput, dc: int | None
) -> Plan:
    """A plan rolling ``check`` against ``dc`` (None: the GM reads the total)."""

    def odds() -> Mapping[str, Fraction]:
        if dc is None:
            return {f"total {k}": p for k, p in d20_check.total_distribution(check).items()}
        p = d20_check.check_odds(check, dc)
        return {"Success": p, "Failure": 1 - p}

    return Plan(key, kind, ability, title, lambda rng: d20_check.roll_check(check, rng, dc), odds)


def check_from_record(data: Mapping[str, Any]) -> d20_check.CheckOutcome:
    """A :class:`~d20_check.CheckOutcome` from its ``to_jsonable`` form (check and save rows,
    a contest's sides, a reroll's new roll); KeyError, TypeError or ValueError if malformed."""
    result = data.get("result")
    dc = data.get("dc")
    return d20_check.CheckOutcome(
        kind=d20_check.CheckKind(data["kind"]),
        ability=str(data["ability"]),
        dice=tuple(int(d) for d in data["dice"]),
        kept=int(data["kept"]),
        advantage=Advantage(data.get("advantage") or "none"),
        modifiers=tuple((str(name), int(value)) for name, value in data["modifiers"]),
        dc=None if dc is None else int(dc),
        result=None if result is None else d20_check.CheckResult(result),
        name=str(data.get("name") or ""),
    )


def item_save_from_record(data: Any) -> d20_check.ItemSaveOutcome | None:
    """An item's save (ruling 8) from its stored form; None when none was rolled."""
    if data is None:
        return None
    quality = data.get("quality")
    return d20_check.ItemSaveOutcome(
        quality=None if quality is None else d20_check.ItemQuality(quality),
        magic_bonus=int(data["magic_bonus"]),
        roll=int(data["roll"]),
        bonus=int(data["bonus"]),
        dc=int(data["dc"]),
    )


def attack_from_record(data: Mapping[str, Any]) -> d20_check.AttackOutcome:
    """An :class:`~d20_check.AttackOutcome` from its stored form (an attack row's ``attack``,
    an attack's reroll); KeyError, TypeError or ValueError if malformed."""
    return d20_check.AttackOutcome(
        dice=tuple(int(d) for d in data["dice"]),
        kept=int(data["kept"]),
        advantage=Advantage(data["advantage"]),
        modifiers=tuple((str(n), int(v)) for n, v in data["modifiers"]),
        ac=int(data["ac"]),
        crit_rules=bool(data["crit_rules"]),
        weapon_save=item_save_from_record(data.get("weapon_save")),
        armor_save=item_save_from_record(data.get("armor_save")),
    )


def attack_line(outcome: d20_check.AttackOutcome) -> str:
    """An attack in one line of /history, /verify and reveals: the d20 and modifiers against
    the AC, the result (ruling 7) in bold, and a fumble."""
    line = d20_sum(outcome.dice, outcome.kept, outcome.advantage, outcome.modifiers)
    words = f"{line} · AC {outcome.ac} → **{outcome.result.display}**"
    return words + " · fumble" if outcome.fumble else words


def group_verdict(passed: int, members: int) -> tuple[bool, str]:
    """d20 check ruling 9: the group succeeds when at least half its members succeed."""
    ok = 2 * passed >= members
    word = d20_check.GroupResult.SUCCESS if ok else d20_check.GroupResult.FAILURE
    needed = (members + 1) // 2
    return ok, f"{word.display}: {passed} of {members} succeeded ({needed} needed)"


@dataclass(frozen=True)
class D20System(Defaults):
    """d20 check: d20 + modifier + proficiency against a DC; saves with Weapon and spell DCs."""

    key: str = "d20-check"
    name: str = "d20 check"
    abilities: tuple[str, ...] = SIX_ABILITIES
    abilities_configurable: bool = True
    score_range: tuple[int, int] = (1, 30)
    score_word: str = "score"
    check_options: frozenset[str] = frozenset(
        {
            "proficiency",
            "dc",
            "advantage",
            "disadvantage",
            "bonus",
            "helper",
            "helper_needs_proficiency",
        }
    )
    save_options: frozenset[str] | None = frozenset(
        {"dc", "advantage", "disadvantage", "bonus", "against", "source", "school"}
    )
    outcome_types: tuple[type, ...] = (d20_check.CheckOutcome,)
    initiative_ability: str | None = "DEX"
    check_word: str = LedgerKind.CHECK
    instead: Mapping[str, str] = field(
        compare=False,
        default_factory=lambda: MappingProxyType(
            {
                "luck": "The GM may ask for a /check or a /save instead.",
                "generation": "Set each score with /character set.",
                "tiers": "A check takes its DC itself: /check dc:<number>.",
            }
        ),
    )
    summary: str = (
        "`/check` rolls d20 plus your ability modifier, your proficiency bonus if proficient "
        "(doubled for Expert; set by `/character level`) and any `bonus:`; meet or beat the "
        "`dc:` to succeed. Advantage keeps the higher of two dice. Natural 20s and 1s mean "
        "nothing special on checks and saves. `/save` rolls a saving throw; `helper:` gives "
        "advantage for working together. `/attack ac:15 damage:1d8+3` rolls an attack "
        "(critical hits and fumbles when the GM turns on crit rules)."
    )
    features: frozenset[Feature] = frozenset(
        {
            Feature.ATTACKS,
            Feature.REROLLS,
            Feature.SAVE_PROFICIENCIES,
            Feature.NULLS,
            Feature.DEGREES,
            Feature.CONTEST,
        }
    )
    group_saves: bool = True
    group_needs_dc: bool = True

    def summarize(self, outcome: Any, title: str) -> tuple[str, str]:
        detail = f"{title}: {d20_line(outcome.dice, outcome.kept, outcome.modifiers)}"
        if outcome.result is None:
            return number(outcome.total), detail
        return f"{outcome.result_text} ({number(outcome.total)} vs DC {outcome.dc})", detail

    def roll_initiative(
        self, table: Table, sheets: Sequence[Sheet], rng: random.Random
    ) -> list[tuple[int, str]]:
        return d20_initiative(sheets, rng, "DEX", d20_check.ability_modifier)

    def contest(
        self,
        sheets: Sequence[Sheet],
        abilities: Sequence[str],
        sides: Sequence[CheckOptions],
        rng: random.Random,
    ) -> tuple[Any, list[list[int]]]:
        """Ruling 4: both roll their checks, each applying everything its /check would; the
        higher total wins, a tie changes nothing."""
        if len(sheets) != 2:
            raise RulesError(
                "A d20-check contest is between two characters (ruling 4: both roll their "
                "checks, the higher total wins)."
            )
        first, second = (
            check_input(sheet, used, side)[0]
            for sheet, used, side in zip(sheets, abilities, sides, strict=True)
        )
        outcome = d20_check.contest(first, second, rng)
        return outcome, [list(outcome.first.dice), list(outcome.second.dice)]

    def explain_contest(self, outcome: Any) -> tuple[str, Tone, tuple[tuple[str, str], ...]]:
        lines = []
        for check in (outcome.first, outcome.second):
            terms = "".join(f" {signed(v)} {n}" for n, v in check.modifiers)
            dice = f"**{check.kept}**"
            if len(check.dice) > 1:  # advantage or disadvantage: both dice, the kept one bold
                dice = kept_dice(check.dice, check.kept, check.advantage)
            lines.append((escape(check.name), f"d20 {dice}{terms} = **{number(check.total)}**"))
        tone = Tone.NEUTRAL if outcome.winner is None else Tone.SUCCESS
        return f"**{escape(outcome.result_text)}**", tone, tuple(lines)  # "<name> wins"

    def contest_from_record(self, data: Mapping[str, Any]) -> Any | None:
        if not ("first" in data and "second" in data and "result" in data):
            return None
        return d20_check.D20ContestOutcome(
            first=check_from_record(data["first"]),
            second=check_from_record(data["second"]),
            result=d20_check.ContestResult(data["result"]),
        )

    def contest_line(self, outcome: Any) -> str:
        first, second = outcome.first, outcome.second
        return (
            f"{escape(first.name)} {number(first.total)} against {escape(second.name)} "
            f"{number(second.total)} → **{escape(outcome.result_text)}**"
        )

    def score_text(self, value: int) -> str:
        return f"{value} ({signed(d20_check.ability_modifier(value))})"

    def plan_check(
        self, table: Table, sheet: Sheet, options: CheckOptions, carry_over: int | None
    ) -> Plan:
        refuse_options(self, options.given(), self.check_options, "/check")
        ability = table.ability(options.ability)
        score_of(sheet, ability, self.score_word)
        check, title = check_input(sheet, ability, options)
        if options.helper:
            # d20 check ruling 8: working together, the leader rolls with advantage.
            if " ".join(options.helper.split()).casefold() == sheet.name.casefold():
                raise RulesError(
                    f"{escape(sheet.name)} cannot help themselves: name another character."
                )
            check = d20_check.helped_input(check, {options.helper: True})
            title += f", helped by {options.helper}"
        return d20_plan(self.key, LedgerKind.CHECK, ability, title, check, options.dc)

    def save_dc(self, table: Table, against: str) -> Callable[[Sheet], tuple[int, str]]:
        return save_dc(table, against)

    def plan_save(self, table: Table, sheet: Sheet, options: CheckOptions) -> Plan:
        ability = save_ability(table, options)
        score = score_of(sheet, ability, self.score_word)
        # "Null Saves": a Null always adds proficiency and the Null bonus to Mana saves.
        null_proficient, extra = d20_check.null_save_extra(ability, sheet.null_bonus)
        proficient = ability in sheet.save_proficiencies or null_proficient
        check = d20_check.CheckInput.save(
            score=score,
            ability=ability,
            level=sheet.level,
            proficient=proficient,
            bonus=options.bonus or 0,
            advantage=options.advantage,
            disadvantage=options.disadvantage,
            name=sheet.name,
            extra=extra,
        )
        title = f"{ability} saving throw"
        if options.school:
            title += f" ({options.school.strip().casefold()} spell effect)"
        if options.dc_from:
            title += f" against {options.dc_from}"
        return d20_plan(self.key, LedgerKind.SAVE, ability, title, check, options.dc)

    def explain(self, outcome: Any, view: View) -> tuple[tuple[str, str], ...]:
        lines = [
            ("d20", kept_dice(outcome.dice, outcome.kept, outcome.advantage)),
            ("Total", modifier_sum(outcome.kept, outcome.modifiers)),
        ]
        if outcome.dc is not None:
            lines.append(("DC", str(outcome.dc)))
        return tuple(lines)

    def one_line(self, outcome: Any) -> str:
        line = d20_sum(outcome.dice, outcome.kept, outcome.advantage, outcome.modifiers)
        if outcome.dc is None:
            return f"{line} · no DC: the GM reads the total"
        return f"{line} · DC {outcome.dc} → **{self.read(outcome).result}**"

    def read(self, outcome: Any) -> Reading:
        assert isinstance(outcome, d20_check.CheckOutcome)
        if outcome.result is None:
            total = outcome.total
            shown = f"\N{MINUS SIGN}{-total}" if total < 0 else str(total)
            return Reading(
                outcome.dice,
                f"Total {shown}",
                None,
                Tone.NEUTRAL,
                kept=outcome.kept,
                modifiers=outcome.modifiers,
                total=total,
                word="",
            )
        ok = bool(outcome.succeeded)
        return Reading(
            outcome.dice,
            outcome.result_text,
            ok,
            Tone.SUCCESS if ok else Tone.FAILURE,
            kept=outcome.kept,
            modifiers=outcome.modifiers,
            total=outcome.total,
            word=outcome.result.display,
        )

    def group_verdict(
        self, passed: Sequence[str], failed: Sequence[str], members: int, dc: int | None
    ) -> tuple[bool | None, str]:
        if dc is None:
            # A request without a DC: the rule needs one, so the totals are the GM's to judge.
            return None, "No DC given: the GM reads the totals."
        return group_verdict(len(passed), members)

    def outcome_from_record(self, data: Mapping[str, Any]) -> Any | None:
        if not ("kept" in data and "modifiers" in data and "kind" in data):
            return None
        return check_from_record(data)


D20 = D20System()
