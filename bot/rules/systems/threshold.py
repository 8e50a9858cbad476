"""Threshold in the registry: a test against a threshold or tier, with carry-over."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from bot.rules import threshold
from bot.rules.common import Advantage
from bot.rules.errors import RulesError
from bot.rules.systems.base import (
    HIDDEN_CARRY_OVER,
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
    modifier_sum,
    named,
    number,
    refuse_options,
    score_of,
    signed,
)
from bot.rules.systems.d20 import SIX_ABILITIES
from bot.words import LedgerKind

_TONES = {
    threshold.ThresholdResult.CRITICAL_SUCCESS: Tone.CRITICAL_SUCCESS,
    threshold.ThresholdResult.SUCCESS: Tone.SUCCESS,
    threshold.ThresholdResult.FAILURE: Tone.FAILURE,
    threshold.ThresholdResult.CRITICAL_FAILURE: Tone.CRITICAL_FAILURE,
}


def tiers_of(table: Table) -> dict[threshold.Difficulty, int]:
    """The campaign's difficulty tier thresholds (ruling 2)."""
    return {
        threshold.Difficulty.VERY_EASY: table.tiers.very_easy,
        threshold.Difficulty.EASY: table.tiers.easy,
        threshold.Difficulty.MODERATE: table.tiers.moderate,
        threshold.Difficulty.HARD: table.tiers.hard,
        threshold.Difficulty.VERY_HARD: table.tiers.very_hard,
    }


@dataclass(frozen=True)
class ThresholdSystem(Defaults):
    """Threshold: d20 + attribute modifier against a threshold; criticals carry over."""

    key: str = "threshold"
    name: str = "Threshold"
    abilities: tuple[str, ...] = SIX_ABILITIES
    abilities_configurable: bool = True
    score_range: tuple[int, int] = (-20, 20)  # attribute modifiers
    score_word: str = "modifier"
    check_options: frozenset[str] = frozenset(
        {"dc", "difficulty", "crit_success_at", "crit_failure_at"}
    )
    save_options: frozenset[str] | None = None
    outcome_types: tuple[type, ...] = (threshold.ThresholdOutcome,)
    initiative_ability: str | None = "DEX"
    check_word: str = LedgerKind.TEST
    features: frozenset[Feature] = frozenset({Feature.TIERS, Feature.CARRY_OVER})
    instead: Mapping[str, str] = field(
        compare=False,
        default_factory=lambda: MappingProxyType(
            {
                "attacks": "Roll the attack as a test: /check ability:STR with the threshold "
                "to meet (dc: or difficulty:).",
                "saves": "Roll a test instead: /check with dc: or difficulty:.",
                "save-proficiencies": "Roll a test instead: /check with dc: or difficulty:.",
                "contest": "Each character rolls /check and the GM compares the results.",
                "luck": "The GM may ask for a /check instead.",
                "generation": "Set each modifier with /character set.",
            }
        ),
    )
    summary: str = (
        "`/check` rolls d20 plus your attribute modifier (your level is never added) and "
        "succeeds if it meets the threshold: give `dc:` or `difficulty:` (Very Easy 3, Easy 7, "
        "Moderate 12, Hard 17, Very Hard 20 unless the campaign changes them). A natural 20 is "
        "always a critical success and a natural 1 a critical failure; a critical also gives "
        "+2 or −2 on your next test with that attribute (a GM option)."
    )
    target_word: str = "threshold"
    group_needs_target: bool = True

    def summarize(self, outcome: Any, title: str) -> tuple[str, str]:
        shown = "?" if outcome.threshold_hidden else str(outcome.threshold)
        total = f"{outcome.result.display} ({number(outcome.total)} vs {shown})"
        detail = f"{title}: {d20_line(outcome.dice, outcome.kept, outcome.modifiers)}"
        if outcome.carry_over_next:
            detail += f"; {signed(outcome.carry_over_next)} on the next {outcome.attribute} test"
        return total, detail

    def roll_initiative(
        self, table: Table, sheets: Sequence[Sheet], rng: random.Random
    ) -> list[tuple[int, str]]:
        return d20_initiative(sheets, rng, "DEX", lambda modifier: modifier)

    def score_text(self, value: int) -> str:
        return signed(value)

    def plan_check(
        self, table: Table, sheet: Sheet, options: CheckOptions, carry_over: int | None
    ) -> Plan:
        refuse_options(self, options.given(), self.check_options, "/check")
        ability = table.ability(options.ability)
        score = score_of(sheet, ability, self.score_word)
        # Ruling 2: an exact threshold, or a difficulty tier with the campaign's defaults;
        # ruling 4: the stored carry-over applies once.
        target: int | threshold.Difficulty
        if options.dc is not None and options.difficulty:
            raise RulesError("Give either dc (the exact threshold) or difficulty, not both.")
        if options.dc is not None:
            target = options.dc
        elif options.difficulty:
            target = threshold.Difficulty.parse(options.difficulty)
        else:
            raise RulesError(
                "A threshold test needs a target: dc (the exact threshold) or difficulty."
            )
        tiers = tiers_of(table)
        # The caller passes the carry-over that applies (the one consumed, or for odds the
        # active one): a stored one from a hidden roll may be waiting.
        used = carry_over or 0
        cs_at, cf_at = options.crit_success_at, options.crit_failure_at
        if cs_at is not None or cf_at is not None:
            # Checked now, so a bad option refuses before anything changes.
            threshold.odds_of_test(
                score, target, used, tiers=tiers, crit_success_at=cs_at, crit_failure_at=cf_at
            )
        return Plan(
            self.key,
            LedgerKind.TEST,
            ability,
            f"{ability} test",
            lambda rng: threshold.roll_test(
                score,
                target,
                rng,
                attribute=ability,
                carry_over=used,
                tiers=tiers,
                carry_over_rule=table.carry_over,
                crit_success_at=cs_at,
                crit_failure_at=cf_at,
            ),
            lambda: named(
                threshold.odds_of_test(
                    score, target, used, tiers=tiers, crit_success_at=cs_at, crit_failure_at=cf_at
                ),
                lambda r: r.display,
            ),
        )

    def plan_save(self, table: Table, sheet: Sheet, options: CheckOptions) -> Plan:
        raise AssertionError("Threshold has no saving throws")  # save_options is None

    def uses_carry_over(self, table: Table) -> bool:
        return table.carry_over

    def carry_over_next(self, outcome: Any) -> int | None:
        if isinstance(outcome, threshold.ThresholdOutcome):
            return outcome.carry_over_next or None
        return None

    def odds_words(
        self, table: Table, sheet: Sheet, options: CheckOptions, ability: str, carry: int
    ) -> list[str]:
        words = [f"modifier {signed(sheet.scores[ability])}"]
        if options.dc is not None:
            words.append(f"threshold {options.dc}")
        elif options.difficulty:
            tier = threshold.Difficulty.parse(options.difficulty)
            target = threshold.resolve_threshold(tier, tiers_of(table))
            words.append(f"{tier.display} ({target})")
        if carry:
            words.append(f"carry-over {signed(carry)}")
        if options.crit_success_at is not None:
            words.append(f"critical success at {options.crit_success_at}+")
        if options.crit_failure_at is not None:
            words.append(f"critical failure at {options.crit_failure_at} or less")
        return words

    def explain(self, outcome: Any, view: View) -> tuple[tuple[str, str], ...]:
        lines: list[tuple[str, str]] = []
        lines.append(("d20", modifier_sum(outcome.roll, outcome.modifiers)))
        if not outcome.threshold_hidden:
            tier = f" ({outcome.difficulty.display})" if outcome.difficulty else ""
            lines.append(("Threshold", f"{outcome.threshold}{tier}"))
        crit_at = []
        if outcome.crit_success_at is not None:
            crit_at.append(f"success at {outcome.crit_success_at}+")
        if outcome.crit_failure_at is not None:
            crit_at.append(f"failure at {outcome.crit_failure_at} or less")
        if crit_at:
            lines.append(("Critical", ", ".join(crit_at) + " (and natural 20 / 1)"))
        if outcome.carry_over_next:
            value = signed(outcome.carry_over_next)
            text = f"{value} on the next {outcome.attribute} test"
            if view is View.HIDDEN:
                text = HIDDEN_CARRY_OVER.format(value=value, attribute=outcome.attribute)
            lines.append(("Next test", text))
        return tuple(lines)

    def one_line(self, outcome: Any) -> str:
        result = f"**{self.read(outcome).result}**"
        line = d20_sum(outcome.dice, outcome.kept, Advantage.NONE, outcome.modifiers)
        if outcome.threshold_hidden:
            return f"{line} · Threshold hidden by the GM → {result}"
        tier = f" ({outcome.difficulty.display})" if outcome.difficulty else ""
        return f"{line} · Threshold {outcome.threshold}{tier} → {result}"

    def read(self, outcome: Any) -> Reading:
        assert isinstance(outcome, threshold.ThresholdOutcome)
        return Reading(
            outcome.dice,
            outcome.result.display,
            outcome.succeeded,
            _TONES[outcome.result],
            kept=outcome.kept,
            modifiers=outcome.modifiers,
            total=outcome.total,
        )

    def group_verdict(
        self, passed: Sequence[str], failed: Sequence[str], members: int, dc: int | None
    ) -> tuple[bool | None, str]:
        return None, f"{len(passed)} of {members} succeeded"

    def outcome_from_record(self, data: Mapping[str, Any]) -> Any | None:
        if not ("attribute" in data and "threshold" in data):
            return None
        difficulty = data.get("difficulty")
        return threshold.ThresholdOutcome(
            attribute=str(data["attribute"]),
            roll=int(data["roll"]),
            modifier=int(data["modifier"]),
            carry_over_used=int(data.get("carry_over_used") or 0),
            threshold=int(data["threshold"]),
            result=threshold.ThresholdResult(data["result"]),
            threshold_hidden=bool(data.get("threshold_hidden")),
            difficulty=threshold.Difficulty(difficulty) if difficulty else None,
            crit_success_at=data.get("crit_success_at"),
            crit_failure_at=data.get("crit_failure_at"),
            carry_over_rule=data.get("carry_over_rule", True) is not False,
        )


THRESHOLD = ThresholdSystem()
