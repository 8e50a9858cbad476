"""Roll-under in the registry: its check is a save, d20 equal to or under the score."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from bot.quoting import escape
from bot.rules import roll_under
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
    initiative_score,
    number,
    refuse_options,
    score_of,
)
from bot.words import LedgerKind

#: Up to this many members the group verdict names who passed and who failed; past it, counts
#: (a verdict of 100 names would outgrow an embed field and a /history line).
NAMED_MEMBERS = 20


@dataclass(frozen=True)
class RollUnderSystem(Defaults):
    """Roll-under: STR, AGI and WIT scores; a check or save passes on d20 <= score."""

    key: str = "roll-under"
    name: str = "Roll-under"
    abilities: tuple[str, ...] = ("STR", "AGI", "WIT")
    abilities_configurable: bool = False
    score_range: tuple[int, int] = (1, 19)  # ruling 1
    score_word: str = "score"
    check_options: frozenset[str] = frozenset()
    save_options: frozenset[str] | None = frozenset()
    outcome_types: tuple[type, ...] = (roll_under.SaveOutcome,)
    initiative_ability: str | None = "AGI"
    check_word: str = LedgerKind.SAVE
    instead: Mapping[str, str] = field(
        compare=False,
        default_factory=lambda: MappingProxyType(
            {
                "attacks": "Roll the ability the attack uses with /check (your score or lower "
                "passes); the GM says what a pass does.",
                "luck": "The GM may ask for a /check or a /save instead.",
                "generation": "Set each score with /character set.",
                "save-proficiencies": "A /save here passes on your score or lower, with no "
                "proficiency to mark.",
                "tiers": "A check needs no difficulty here: your score is the target.",
            }
        ),
    )
    summary: str = (
        "Three abilities, STR, AGI and WIT, scored 1 to 19. `/check` (or `/save`) rolls a d20: "
        "your score or lower passes. `/groupsave` rolls one d20 for everyone; in a `/contest` "
        "each subtracts a d20 from their score, the highest wins and ties roll again."
    )
    features: frozenset[Feature] = frozenset({Feature.CONTEST})
    group_no_dc: str | None = "a save passes on a d20 equal to or under the score"
    group_shares_die: bool = True
    contest_sides: str | None = (
        "Roll-under contests compare score minus d20 only: the first_… and second_… "
        "options are for d20 check. Nothing was rolled."
    )

    def summarize(self, outcome: Any, title: str) -> tuple[str, str]:
        name = outcome.ability.name if outcome.ability else "score"
        total = f"{outcome.result.display} ({outcome.roll} vs {outcome.score})"
        return total, f"{title}: d20 {outcome.roll} against {name} {outcome.score} (pass on ≤)"

    def explain(self, outcome: Any, view: View) -> tuple[tuple[str, str], ...]:
        name = outcome.ability.name if outcome.ability else "score"
        return (("d20", f"**{outcome.roll}** against {name} {outcome.score} (pass on ≤)"),)

    def one_line(self, outcome: Any) -> str:
        name = outcome.ability.name if outcome.ability else "score"
        result = f"**{self.read(outcome).result}**"
        return f"d20 **{outcome.roll}** against {name} {outcome.score} → {result}"

    def plan_check(
        self, table: Table, sheet: Sheet, options: CheckOptions, carry_over: int | None
    ) -> Plan:
        refuse_options(self, options.given(), self.check_options, "/check")
        ability = table.ability(options.ability)
        score = score_of(sheet, ability, self.score_word)
        # Ruling 1: the check is a save, d20 <= score.
        ru_ability = roll_under.Ability.parse(ability)

        def odds() -> dict[str, Fraction]:  # only /odds asks: no Fraction on a roll's path
            p = roll_under.save_odds(score)
            return {"Pass": p, "Fail": 1 - p}

        return Plan(
            self.key,
            LedgerKind.SAVE,
            ability,
            f"{ability} save",
            lambda rng: roll_under.save(score, rng, ability=ru_ability),
            odds,
        )

    def plan_save(self, table: Table, sheet: Sheet, options: CheckOptions) -> Plan:
        return self.plan_check(table, sheet, options, None)  # the save is its check

    def odds_words(
        self, table: Table, sheet: Sheet, options: CheckOptions, ability: str, carry: int
    ) -> list[str]:
        return [f"score {sheet.scores[ability]}"]

    def read(self, outcome: Any) -> Reading:
        assert isinstance(outcome, roll_under.SaveOutcome)
        tone = Tone.SUCCESS if outcome.passed else Tone.FAILURE
        name = outcome.ability.name if outcome.ability else "score"
        return Reading(
            (outcome.roll,),
            outcome.result.display,
            outcome.passed,
            tone,
            kept=outcome.roll,
            note=f"vs {name} {outcome.score}",
        )

    def roll_initiative(
        self, table: Table, sheets: Sequence[Sheet], rng: random.Random
    ) -> list[tuple[int, str]]:
        """Score − d20 each, the highest first; those tied re-roll until the tie breaks."""
        ability = "AGI"
        scores = [initiative_score(s, ability) for s in sheets]
        faces: list[list[int]] = [[] for _ in sheets]
        margins: list[list[int]] = [[] for _ in sheets]
        pending = list(range(len(sheets)))
        while pending:
            for i in pending:
                face = rng.randint(1, 20)
                faces[i].append(face)
                margins[i].append(scores[i] - face)
            # Re-roll only those still tied with someone on every roll so far.
            by_margins: dict[tuple[int, ...], list[int]] = {}
            for i in pending:
                by_margins.setdefault(tuple(margins[i]), []).append(i)
            pending = [i for group in by_margins.values() if len(group) > 1 for i in group]
            if any(len(margins[i]) > 50 for i in pending):  # a broken die source, not a rule
                break
        out = []
        for i in sorted(range(len(sheets)), key=lambda i: (tuple(-m for m in margins[i]), i)):
            # A true minus sign, as every number the bot shows (base.number).
            parts = [f"{scores[i]} − d20 **{f}** = **{number(scores[i] - f)}**" for f in faces[i]]
            out.append((i, f"{ability} " + " · tie, re-rolled: ".join(parts)))
        return out

    def contest(
        self,
        sheets: Sequence[Sheet],
        abilities: Sequence[str],
        sides: Sequence[CheckOptions],
        rng: random.Random,
    ) -> tuple[Any, list[list[int]]]:
        """Ruling 3: score − d20 each, ranked; ties re-contested among the tied until broken."""
        ability = abilities[0]
        outcome = roll_under.contest(
            {s.name: s.scores[ability] for s in sheets},
            rng,
            ability=roll_under.Ability.parse(ability),
        )
        at = {s.name: i for i, s in enumerate(sheets)}
        dice: list[list[int]] = [[] for _ in sheets]
        for rnd in outcome.rounds:
            for r in rnd.rolls:
                dice[at[r.name]].append(r.roll)
        return outcome, dice

    def explain_contest(self, outcome: Any) -> tuple[str, Tone, tuple[tuple[str, str], ...]]:
        ranking = "\n".join(
            f"{i}. {escape(name)}" for i, name in enumerate(outcome.ranking, start=1)
        )
        lines = []
        for rnd in outcome.rounds:
            label = f"Round {rnd.number}"
            if rnd.is_tie_break:
                label += f": tie-break for places {rnd.first_place}–{rnd.last_place}"
            text = "\n".join(
                f"{escape(r.name)}: {r.score} \N{MINUS SIGN} {r.roll} = **{number(r.total)}**"
                for r in rnd.rolls
            )
            lines.append((label, text))
        head = f"**{escape(outcome.winner)} wins**\n\n**Ranking**\n{ranking}"
        return head, Tone.SUCCESS, tuple(lines)

    def contest_from_record(self, data: Mapping[str, Any]) -> Any | None:
        if "ranking" not in data:
            return None
        ability = data.get("ability")
        return roll_under.ContestOutcome(
            ranking=tuple(str(name) for name in data["ranking"]),
            rounds=tuple(
                roll_under.ContestRound(
                    number=int(rnd["number"]),
                    rolls=tuple(
                        roll_under.ContestRoll(str(r["name"]), int(r["score"]), int(r["roll"]))
                        for r in rnd["rolls"]
                    ),
                    first_place=int(rnd["first_place"]),
                    last_place=int(rnd["last_place"]),
                )
                for rnd in data.get("rounds") or ()
            ),
            ability=roll_under.Ability(ability) if ability else None,
        )

    def contest_line(self, outcome: Any) -> str:
        places = ", ".join(f"{i}. {escape(name)}" for i, name in enumerate(outcome.ranking, 1))
        rounds = len(outcome.rounds)
        played = "1 round" if rounds == 1 else f"{rounds} rounds"
        return f"**{escape(outcome.winner)} wins** · ranking {places} · {played}"

    def group_verdict(
        self, passed: Sequence[str], failed: Sequence[str], members: int, dc: int | None
    ) -> tuple[bool | None, str]:
        # Ruling 2: one d20 compared with each member's score: who passes, who fails. A large
        # party is counted (its message lists the names by result; the ledger keeps the count).
        if members > NAMED_MEMBERS:
            return None, f"Pass: {len(passed)} of {members} · Fail: {len(failed)}"
        passing, failing = ", ".join(passed) or "nobody", ", ".join(failed) or "nobody"
        return None, f"Pass: {passing} · Fail: {failing}"

    def shared_outcome(self, sheet: Sheet, ability: str, roll: int) -> Any:
        """Ruling 2: the group's one d20 against this member's score (ruling 1: ≤)."""
        score = score_of(sheet, ability, self.score_word)
        result = roll_under.SaveResult.PASS if roll <= score else roll_under.SaveResult.FAIL
        return roll_under.SaveOutcome(
            score=score, roll=roll, result=result, ability=roll_under.Ability.parse(ability)
        )

    def roll_shared_die(self, sheets: Sequence[Sheet], ability: str, rng: random.Random) -> int:
        """Ruling 2: the d20 is rolled once for the whole group."""
        scores = {sheet.name: sheet.scores[ability] for sheet in sheets}
        return roll_under.group_save(scores, rng, ability=roll_under.Ability.parse(ability)).roll

    def outcome_from_record(self, data: Mapping[str, Any]) -> Any | None:
        if not ("score" in data and "roll" in data and "result" in data):
            return None
        ability = data.get("ability")
        return roll_under.SaveOutcome(
            score=int(data["score"]),
            roll=int(data["roll"]),
            result=roll_under.SaveResult(data["result"]),
            ability=roll_under.Ability(ability) if ability else None,
        )


ROLL_UNDER = RollUnderSystem()
