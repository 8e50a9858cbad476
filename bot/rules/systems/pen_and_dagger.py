"""Pen & Dagger in the registry: attempts, luck rolls, odds and how its outcomes read."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, TypeVar

from bot.rules import pen_and_dagger as pd
from bot.rules.systems.base import (
    GM_NATURAL_20,
    HIDDEN_NATURAL_20,
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
    kept_dice,
    named,
    refuse_options,
    score_of,
    signed,
    skill_of,
)
from bot.rules.systems.d20 import SIX_ABILITIES
from bot.words import LedgerKind, fortune_maximum

_PdRoll = TypeVar("_PdRoll", pd.AttemptOutcome, pd.LuckOutcome)

_TONES = {
    pd.SuccessLevel.CRITICAL_SUCCESS: Tone.CRITICAL_SUCCESS,
    pd.SuccessLevel.MAJOR: Tone.SUCCESS,
    pd.SuccessLevel.NORMAL: Tone.SUCCESS,
    pd.SuccessLevel.LIMITED: Tone.PARTIAL,
    pd.SuccessLevel.FAILURE: Tone.FAILURE,
    pd.SuccessLevel.CRITICAL_FAILURE: Tone.CRITICAL_FAILURE,
}


def fortune_roll(outcome: object) -> pd.AttemptOutcome | pd.LuckOutcome | None:
    """``outcome`` if fortune dice act on it (an attempt or a luck roll), else None."""
    return outcome if isinstance(outcome, (pd.AttemptOutcome, pd.LuckOutcome)) else None


def is_luck(outcome: object) -> bool:
    """Whether ``outcome`` is a luck roll (a traded natural 20 counts as a 10), not an attempt."""
    return isinstance(outcome, pd.LuckOutcome)


def trade_rule(outcome: _PdRoll, table: Table) -> _PdRoll:
    """A luck roll's natural 20 is traded only where the GM rules that the best luck brings no
    extra benefit ("Luck Rolls": the campaign's ``luck_trade``, on by default). An attempt's
    natural 20 may always be traded: the text gives that choice to the player ("you can make
    the result a normal success and gain a fortune die instead")."""
    if table.luck_trade or not outcome.trade_available or isinstance(outcome, pd.AttemptOutcome):
        return outcome
    return replace(outcome, trade_available=False)


def attempt_from_record(data: Mapping[str, Any]) -> pd.AttemptOutcome:
    """An :class:`~pd.AttemptOutcome` from its ``to_jsonable`` form (the checks' ledger rows)."""
    return pd.AttemptOutcome(
        base_rank=pd.Rank(int(data["base_rank"])),
        adjustments=tuple(int(a) for a in data["adjustments"]),
        effective_rank=pd.Rank(int(data["effective_rank"])),
        dice=tuple(int(d) for d in data["dice"]),
        kept=int(data["kept"]),
        table_level=pd.SuccessLevel(int(data["table_level"])),
        shifted_level=pd.SuccessLevel(int(data["shifted_level"])),
        level=pd.SuccessLevel(int(data["level"])),
        advantage=bool(data["advantage"]),
        disadvantage=bool(data["disadvantage"]),
        reliable=bool(data["reliable"]),
        unreliable=bool(data["unreliable"]),
        trade_available=bool(data["trade_available"]),
        traded=bool(data["traded"]),
        fortune_gained=int(data["fortune_gained"]),
    )


def luck_from_record(data: Mapping[str, Any]) -> pd.LuckOutcome:
    """A :class:`~pd.LuckOutcome` from its ``to_jsonable`` form."""
    return pd.LuckOutcome(
        die=int(data["die"]),
        lucky=bool(data["lucky"]),
        trade_available=bool(data["trade_available"]),
        traded=bool(data["traded"]),
        fortune_gained=int(data["fortune_gained"]),
    )


def _attempt_lines(outcome: pd.AttemptOutcome, view: View) -> tuple[tuple[str, str], ...]:
    lines: list[tuple[str, str]] = []
    lines.append(("d20", kept_dice(outcome.dice, outcome.kept, outcome.advantage_state)))
    rank = outcome.base_rank.display_name
    if outcome.adjustment:
        rank += f" {signed(outcome.adjustment)} → {outcome.effective_rank.display_name}"
    lines.append(("Rank", rank))
    level = f"{outcome.table_level.display_name} on the Success Table"
    if outcome.shifted_level != outcome.table_level:
        why = "reliable" if outcome.shifted_level > outcome.table_level else "unreliable"
        level += f", {why} → {outcome.shifted_level.display_name}"
    elif outcome.reliable != outcome.unreliable:
        why = "reliable" if outcome.reliable else "unreliable"
        level += f" ({why}: no shift on a natural {outcome.kept})"
    lines.append(("Level", level))
    if outcome.traded:
        lines.append(("Natural 20", "traded for a Normal Success and a fortune die"))
    elif outcome.trade_available and view is View.GM_COPY:
        lines.append(("Natural 20", GM_NATURAL_20.format(kept="A critical")))
    elif outcome.trade_available and view is View.HIDDEN:
        what = "You may trade it for a Normal Success and a fortune die"
        lines.append(("Natural 20", HIDDEN_NATURAL_20.format(what=what)))
    elif outcome.trade_available:
        lines.append(("Natural 20", "you may trade it for a Normal Success and a fortune die"))
    return tuple(lines)


def _luck_lines(outcome: pd.LuckOutcome, view: View) -> tuple[tuple[str, str], ...]:
    lines: list[tuple[str, str]] = []
    lines.append(("d20", f"**{outcome.die}** (lucky on {pd.LUCKY_ON} or higher)"))
    if outcome.traded:
        lines.append(("Natural 20", "treated as a 10, and a fortune die gained"))
    elif outcome.trade_available and view is View.GM_COPY:
        lines.append(("Natural 20", GM_NATURAL_20.format(kept="Lucky")))
    elif outcome.trade_available and view is View.HIDDEN:
        what = "You may treat it as a 10 and gain a fortune die"
        lines.append(("Natural 20", HIDDEN_NATURAL_20.format(what=what)))
    elif outcome.trade_available:
        lines.append(("Natural 20", "you may treat it as a 10 and gain a fortune die"))
    return tuple(lines)


@dataclass(frozen=True)
class PenAndDaggerSystem(Defaults):
    """Pen & Dagger: a rank read against the Success Table; luck rolls and fortune dice."""

    key: str = "pen-and-dagger"
    name: str = "Pen & Dagger"
    abilities: tuple[str, ...] = SIX_ABILITIES
    abilities_configurable: bool = False
    score_range: tuple[int, int] = (1, 100)  # ruling 7: below 1 is invalid
    score_word: str = "score"
    check_options: frozenset[str] = frozenset(
        {"proficiency", "advantage", "disadvantage", "rank_bonus", "reliable", "unreliable"}
    )
    save_options: frozenset[str] | None = None
    outcome_types: tuple[type, ...] = (pd.AttemptOutcome, pd.LuckOutcome)
    initiative_ability: str | None = "DEX"
    check_word: str = LedgerKind.ATTEMPT
    instead: Mapping[str, str] = field(
        compare=False,
        default_factory=lambda: MappingProxyType(
            {
                # "Offensive attempts, also referred to as attacks" (docs/rules/pen-and-dagger.md).
                "attacks": "An attack is an attempt here: /check ability:STR proficiency:<weapon>.",
                "rerolls": "A reroll costs a fortune die here: /fortune spend purpose:reroll.",
                "saves": "Roll an attempt instead: /check ability:<ability>.",
                "save-proficiencies": "A proficiency here is a skill with a rank: "
                "/character proficiency.",
                "contest": "Each character rolls /check and the GM compares the results.",
                "tiers": "An attempt needs no difficulty: /check reads the Success Table by "
                "your rank.",
            }
        ),
    )
    summary: str = (
        "`/check` is an attempt: a d20 against your rank in the skill (Doomed up to Godlike), "
        "looked up on the Success Table: Critical Failure, Failure, Limited, Normal, Major or "
        "Critical Success. `rank_bonus` moves your rank; advantage keeps the better of two "
        "dice; `reliable` raises the result one step (not on a natural 1). A natural 20 lets "
        "you trade the critical for a fortune die. `/luck` is lucky on 10 or more."
    )
    features: frozenset[Feature] = frozenset(
        {Feature.FORTUNE, Feature.LUCK, Feature.GENERATION, Feature.FIRST_LEVEL_CAP, Feature.RANKS}
    )
    group_no_dc: str | None = "attempts use the Success Table, not a DC"

    def summarize(self, outcome: Any, title: str) -> tuple[str, str]:
        if isinstance(outcome, pd.LuckOutcome):
            words = "Lucky" if outcome.lucky else "Not lucky"
            return words, f"{title}: d20 {outcome.die} (lucky on {pd.LUCKY_ON} or higher)"
        faces = ", ".join(map(str, outcome.dice))
        rank = outcome.effective_rank.display_name
        detail = f"{title}: d20 {faces} → {outcome.kept}, Rank {rank}"
        if outcome.trade_available:
            detail += " (natural 20: may be traded for a fortune die)"
        return outcome.level.display_name, detail

    def explain(self, outcome: Any, view: View) -> tuple[tuple[str, str], ...]:
        if isinstance(outcome, pd.LuckOutcome):
            return _luck_lines(outcome, view)
        return _attempt_lines(outcome, view)

    def one_line(self, outcome: Any) -> str:
        result = f"**{self.read(outcome).result}**"
        if isinstance(outcome, pd.LuckOutcome):
            if outcome.traded:
                return f"d20 **{outcome.die}**, treated as a 10 → {result} (a fortune die gained)"
            return f"d20 **{outcome.die}** (lucky on {pd.LUCKY_ON} or higher) → {result}"
        dice = kept_dice(outcome.dice, outcome.kept, outcome.advantage_state)
        line = f"d20 {dice} · Rank {outcome.effective_rank.display_name} → {result}"
        if outcome.traded:
            line += " (natural 20 traded for a fortune die)"
        return line

    def outcome_from_record(self, data: Mapping[str, Any]) -> Any | None:
        if "base_rank" in data:
            return attempt_from_record(data)
        if "die" in data and "lucky" in data:
            return luck_from_record(data)
        return None

    def roll_initiative(
        self, table: Table, sheets: Sequence[Sheet], rng: random.Random
    ) -> list[tuple[int, str]]:
        """A DEX attempt each: the better success level, then the higher die, goes first."""
        keyed: list[tuple[tuple[int, int], int, str]] = []
        for index, sheet in enumerate(sheets):
            initiative_score(sheet, "DEX")
            outcome = self.plan_check(table, sheet, CheckOptions(ability="DEX"), None).roll(rng)
            assert isinstance(outcome, pd.AttemptOutcome)
            dice = " ".join(f"**{d}**" for d in outcome.dice)
            text = f"DEX attempt: d20 {dice} → {outcome.level.display_name}"
            keyed.append(((int(outcome.level), int(outcome.kept)), index, text))
        keyed.sort(key=lambda k: (tuple(-v for v in k[0]), k[1]))
        return [(index, text) for _, index, text in keyed]

    def score_text(self, value: int) -> str:
        rank = pd.ability_rank(value).display_name
        return f"{value} ({signed(pd.ability_modifier(value))}, {rank})"

    def plan_check(
        self, table: Table, sheet: Sheet, options: CheckOptions, carry_over: int | None
    ) -> Plan:
        refuse_options(self, options.given(), self.check_options, "/check")
        ability = table.ability(options.ability)
        # "Attempts": the rank comes from the named proficiency, or else from the ability
        # score (Ability Scores table, ruling 7). With a proficiency the score plays no part,
        # so an unset score does not stop the attempt.
        if options.proficiency:
            skill, rank_name, _ = skill_of(sheet, options.proficiency)
            rank = pd.Rank.parse(rank_name or "")
            title = f"{ability} ({skill}) attempt"
        else:
            rank = pd.ability_rank(score_of(sheet, ability, self.score_word))
            title = f"{ability} attempt"
        fortune_max = fortune_maximum(sheet.double_fortune)
        kwargs: dict[str, Any] = {
            "advantage": options.advantage,
            "disadvantage": options.disadvantage,
            "rank_adjustment": options.rank_bonus or 0,
            "reliable": options.reliable,
            "unreliable": options.unreliable,
        }
        return Plan(
            self.key,
            LedgerKind.ATTEMPT,
            ability,
            title,
            lambda rng: trade_rule(
                pd.attempt(rank, rng, fortune=sheet.fortune, fortune_max=fortune_max, **kwargs),
                table,
            ),
            lambda: named(pd.attempt_odds(rank, **kwargs), lambda lv: lv.display_name),
        )

    def plan_save(self, table: Table, sheet: Sheet, options: CheckOptions) -> Plan:
        raise AssertionError("Pen & Dagger has no saving throws")  # save_options is None

    def plan_luck(self, table: Table, sheet: Sheet) -> Plan | None:
        """ "Luck Rolls": lucky on 10 or higher."""
        fortune_max = fortune_maximum(sheet.double_fortune)
        return Plan(
            self.key,
            LedgerKind.LUCK,
            "",
            "luck roll",
            lambda rng: trade_rule(
                pd.luck_roll(rng, fortune=sheet.fortune, fortune_max=fortune_max), table
            ),
            lambda: {("Lucky" if k else "Not lucky"): p for k, p in pd.luck_odds().items()},
        )

    def odds_words(
        self, table: Table, sheet: Sheet, options: CheckOptions, ability: str, carry: int
    ) -> list[str]:
        found = (
            sheet.proficiencies.get(" ".join(options.proficiency.split()).casefold())
            if options.proficiency
            else None
        )
        words = []
        if found is not None and found.rank:
            words.append(found.rank)
        else:
            words.append(pd.ability_rank(sheet.scores[ability]).display_name)
        if options.rank_bonus:
            words.append(f"rank {signed(options.rank_bonus)}")
        return words

    def read(self, outcome: Any) -> Reading:
        if isinstance(outcome, pd.LuckOutcome):
            tone = Tone.SUCCESS if outcome.lucky else Tone.FAILURE
            word = "Lucky" if outcome.lucky else "Not lucky"
            return Reading((outcome.die,), word, outcome.lucky, tone, kept=outcome.die)
        assert isinstance(outcome, pd.AttemptOutcome)
        return Reading(
            outcome.dice,
            outcome.level.display_name,
            None,
            _TONES[outcome.level],
            kept=outcome.kept,
            note=f"({outcome.effective_rank.display_name})",
        )


PEN_AND_DAGGER = PenAndDaggerSystem()
