"""Roll-under: saves, group saves and contests against STR / AGI / WIT (`roll-under.txt`).

Rulings (shared/rules/README.md, "Roll-under"):

1. A save passes when d20 ≤ the ability score (1–19).
2. A group save rolls one d20 for the whole group and compares it with each member's score.
3. A contest: each character rolls d20; total = score − roll; rank from highest total to lowest;
   tied characters repeat the contest among themselves, recursively, until every tie is broken.

Pure code: every function that rolls takes a ``random.Random``; odds are exact ``Fraction``s.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

from bot.quoting import quote
from bot.rules.common import D20_FACES, ONE_IN_20, roll_d20
from bot.rules.errors import RulesError

#: Lowest and highest ability score ("a score ranging between 1 and 19").
MIN_SCORE = 1
MAX_SCORE = 19

#: A contest repeats among tied characters until every tie is broken (ruling 3). Each tie-break
#: round ends in a full tie with probability at most 1/20, so this cap is never reached by fair
#: dice; it guards against a broken random source looping forever.
MAX_CONTEST_ROUNDS = 1000

#: Most participants :func:`contest_win_odds` computes exactly (its cost grows as 3ⁿ).
MAX_EXACT_CONTESTANTS = 8


class Ability(enum.Enum):
    """The three abilities of `roll-under.txt` ("Abilities")."""

    STR = "Strength"
    AGI = "Agility"
    WIT = "Wits"

    @property
    def display(self) -> str:
        """The full name, e.g. "Agility"."""
        return self.value

    @classmethod
    def parse(cls, text: str) -> Ability:
        """Read "AGI", "agi" or "Agility"; a :class:`RulesError` otherwise."""
        key = text.strip().upper()
        for ability in cls:
            if key in (ability.name, ability.value.upper()):
                return ability
        raise RulesError(f"Unknown ability {quote(text)}: use STR, AGI or WIT.")


class SaveResult(enum.Enum):
    """A save's result, in the text's words: "they pass … otherwise they fail"."""

    PASS = "Pass"
    FAIL = "Fail"

    @property
    def display(self) -> str:
        """Either "Pass" or "Fail"."""
        return self.value


def validate_score(score: int, who: str | None = None) -> int:
    """Return ``score`` if it is a legal ability score (1–19, ruling 1), else a RulesError."""
    if isinstance(score, bool) or not isinstance(score, int):
        raise RulesError("An ability score must be a whole number from 1 to 19.")
    if not MIN_SCORE <= score <= MAX_SCORE:
        owner = f"{who}'s " if who else ""
        raise RulesError(
            f"{owner}ability score {score} is out of range: scores go from "
            f"{MIN_SCORE} to {MAX_SCORE}."
        )
    return score


def _result(roll: int, score: int) -> SaveResult:
    # Ruling 1: "roll equal or less than the most relevant ability score".
    return SaveResult.PASS if roll <= score else SaveResult.FAIL


# --------------------------------------------------------------------------------------- saves


@dataclass(frozen=True, slots=True)
class SaveOutcome:
    """One save (`roll-under.txt` "Saves", ruling 1): the d20, the score, the result."""

    score: int
    roll: int
    result: SaveResult
    ability: Ability | None = None

    @property
    def passed(self) -> bool:
        """True when the roll was equal to or less than the score."""
        return self.result is SaveResult.PASS

    @property
    def target(self) -> int:
        """The number to roll equal or under: the score itself."""
        return self.score


def save(score: int, rng: random.Random, *, ability: Ability | None = None) -> SaveOutcome:
    """Roll a save ("Saves", ruling 1): pass when the d20 is equal to or less than ``score``."""
    validate_score(score)
    roll = roll_d20(rng)
    return SaveOutcome(score=score, roll=roll, result=_result(roll, score), ability=ability)


def save_odds(score: int) -> Fraction:
    """Exact P(pass) of a save (ruling 1): the score out of 20."""
    validate_score(score)
    return Fraction(score, 20)


# --------------------------------------------------------------------------------- group saves


@dataclass(frozen=True, slots=True)
class MemberSave:
    """One member's part of a group save: their score and whether the shared d20 beat it."""

    name: str
    score: int
    result: SaveResult

    @property
    def passed(self) -> bool:
        """True when the shared roll was equal to or less than this member's score."""
        return self.result is SaveResult.PASS


@dataclass(frozen=True, slots=True)
class GroupSaveOutcome:
    """A group save ("Group saves", ruling 2): ONE d20, compared with every member's score."""

    roll: int
    members: tuple[MemberSave, ...]
    ability: Ability | None = None

    @property
    def passed(self) -> tuple[str, ...]:
        """Names of the members who pass, in the order they were given."""
        return tuple(m.name for m in self.members if m.passed)

    @property
    def failed(self) -> tuple[str, ...]:
        """Names of the members who fail, in the order they were given."""
        return tuple(m.name for m in self.members if not m.passed)


def _validate_group(scores: Mapping[str, int], what: str, minimum: int) -> None:
    if len(scores) < minimum:
        raise RulesError(f"A {what} needs at least {minimum} character(s).")
    for name, score in scores.items():
        validate_score(score, name)


def group_save(
    scores: Mapping[str, int], rng: random.Random, *, ability: Ability | None = None
) -> GroupSaveOutcome:
    """Roll a group save (ruling 2): the d20 is rolled only once for the whole group.

    ``scores`` maps each character's name to their ability score; the outcome keeps that order.
    """
    _validate_group(scores, "group save", 1)
    roll = roll_d20(rng)
    members = tuple(
        MemberSave(name=name, score=score, result=_result(roll, score))
        for name, score in scores.items()
    )
    return GroupSaveOutcome(roll=roll, members=members, ability=ability)


class GroupSaveOdds(NamedTuple):
    """Exact odds of a group save: per member P(pass), P(everyone passes), P(nobody passes)."""

    per_member: dict[str, Fraction]
    everyone: Fraction
    nobody: Fraction


def group_save_odds(scores: Mapping[str, int]) -> GroupSaveOdds:
    """Exact odds of a group save (ruling 2).

    With one shared d20 the results are not independent: everyone passes exactly when the roll
    is at most the lowest score, and nobody passes exactly when it is above the highest.
    """
    _validate_group(scores, "group save", 1)
    per_member = {name: Fraction(score, 20) for name, score in scores.items()}
    everyone = Fraction(min(scores.values()), 20)
    nobody = Fraction(20 - max(scores.values()), 20)
    return GroupSaveOdds(per_member=per_member, everyone=everyone, nobody=nobody)


# ------------------------------------------------------------------------------------ contests


@dataclass(frozen=True, slots=True)
class ContestRoll:
    """One character's roll in one contest round: total = score − roll (ruling 3)."""

    name: str
    score: int
    roll: int

    @property
    def total(self) -> int:
        """Score minus the d20 ("subtract the result from the most relevant ability score")."""
        return self.score - self.roll


@dataclass(frozen=True, slots=True)
class ContestRound:
    """One round of a contest: who rolled, what, and which places it decided.

    Round 1 is everyone; later rounds are tie-breaks among the characters tied for places
    ``first_place``–``last_place`` (1-based) of the final ranking.
    """

    number: int
    rolls: tuple[ContestRoll, ...]
    first_place: int
    last_place: int

    @property
    def participants(self) -> tuple[str, ...]:
        """Names of the characters who rolled in this round."""
        return tuple(r.name for r in self.rolls)

    @property
    def is_tie_break(self) -> bool:
        """True for every round after the first."""
        return self.number > 1


@dataclass(frozen=True, slots=True)
class ContestOutcome:
    """A whole contest (ruling 3): the final ranking and every round that produced it."""

    ranking: tuple[str, ...]
    rounds: tuple[ContestRound, ...]
    ability: Ability | None = None

    @property
    def winner(self) -> str:
        """The character ranked first."""
        return self.ranking[0]

    def place(self, name: str) -> int:
        """The 1-based final place of ``name``."""
        return self.ranking.index(name) + 1


def contest(
    scores: Mapping[str, int],
    rng: random.Random,
    *,
    ability: Ability | None = None,
    max_rounds: int = MAX_CONTEST_ROUNDS,
) -> ContestOutcome:
    """Run a contest ("Contests", ruling 3) among two or more characters.

    Each character rolls a d20; total = score − roll; the ranking goes from the highest total to
    the lowest. Characters with equal totals repeat the contest among themselves — and ties in
    that repeat are repeated again — until every tie is broken; a tie-break only orders the tied
    characters within the places they share. Implemented iteratively: the ranking is a list of
    groups of still-tied characters, and the highest unresolved group is re-rolled first. Every
    round is kept so a renderer can show each roll and re-roll.
    """
    _validate_group(scores, "contest", 2)
    # The ranking so far: an ordered list of groups; a group of more than one is still tied.
    groups: list[list[str]] = [list(scores)]
    rounds: list[ContestRound] = []
    while True:
        index = next((i for i, g in enumerate(groups) if len(g) > 1), None)
        if index is None:
            break
        if len(rounds) >= max_rounds:
            raise RuntimeError(f"contest still tied after {max_rounds} rounds: broken rng?")
        group = groups[index]
        first_place = sum(len(g) for g in groups[:index]) + 1
        rolls = tuple(ContestRoll(name, scores[name], roll_d20(rng)) for name in group)
        rounds.append(
            ContestRound(
                number=len(rounds) + 1,
                rolls=rolls,
                first_place=first_place,
                last_place=first_place + len(group) - 1,
            )
        )
        by_total: dict[int, list[str]] = {}
        for r in rolls:
            by_total.setdefault(r.total, []).append(r.name)
        groups[index : index + 1] = [by_total[t] for t in sorted(by_total, reverse=True)]
    return ContestOutcome(
        ranking=tuple(g[0] for g in groups), rounds=tuple(rounds), ability=ability
    )


def _round_odds(score_a: int, score_b: int) -> tuple[Fraction, Fraction, Fraction]:
    """One round between two characters: P(A's total higher), P(B's higher), P(tie)."""
    a = b = tie = Fraction(0)
    p = ONE_IN_20 * ONE_IN_20
    for roll_a in D20_FACES:
        for roll_b in D20_FACES:
            diff = (score_a - roll_a) - (score_b - roll_b)
            if diff > 0:
                a += p
            elif diff < 0:
                b += p
            else:
                tie += p
    return a, b, tie


def contest_odds(score_a: int, score_b: int) -> tuple[Fraction, Fraction]:
    """Exact P(A wins), P(B wins) of a two-character contest, ties re-rolled (ruling 3).

    A tie repeats the contest with the same odds, so the winner is decided by the first round
    that is not a tie: P(A wins) = P(A ahead) / (1 − P(tie)). The two always sum to 1.
    """
    validate_score(score_a)
    validate_score(score_b)
    a, b, _ = _round_odds(score_a, score_b)
    return a / (a + b), b / (a + b)


def contest_win_odds(scores: Mapping[str, int]) -> dict[str, Fraction]:
    """Exact P(finishes first) for each character of a contest of up to 8 (ruling 3).

    For a set S still contending for first place, a round leaves the top group T (those sharing
    the highest total); if T is all of S the round repeats, so
    P_S(i) = Σ_{T ≠ S, i ∈ T} P(top = T) · P_T(i) / (1 − P(top = S)).
    """
    _validate_group(scores, "contest", 2)
    if len(scores) > MAX_EXACT_CONTESTANTS:
        raise RulesError(
            f"Exact contest odds are computed for at most {MAX_EXACT_CONTESTANTS} characters."
        )
    names = list(scores)
    # P(total_i = t) and P(total_i < t) for every total t a character can reach.
    totals = sorted({scores[n] - r for n in names for r in D20_FACES})
    equal = {
        n: {t: (ONE_IN_20 if 1 <= scores[n] - t <= 20 else Fraction(0)) for t in totals}
        for n in names
    }
    below = {
        n: {t: Fraction(sum(1 for r in D20_FACES if scores[n] - r < t), 20) for t in totals}
        for n in names
    }
    memo: dict[frozenset[str], dict[str, Fraction]] = {}

    def top_group_probability(group: frozenset[str], contenders: frozenset[str]) -> Fraction:
        total = Fraction(0)
        for t in totals:
            p = Fraction(1)
            for n in contenders:
                p *= equal[n][t] if n in group else below[n][t]
                if not p:
                    break
            total += p
        return total

    def solve(contenders: frozenset[str]) -> dict[str, Fraction]:
        if len(contenders) == 1:
            return {next(iter(contenders)): Fraction(1)}
        if contenders in memo:
            return memo[contenders]
        members = sorted(contenders)
        result = {n: Fraction(0) for n in members}
        for mask in range(1, (1 << len(members)) - 1):  # every proper, non-empty subset
            group = frozenset(m for k, m in enumerate(members) if mask >> k & 1)
            p = top_group_probability(group, contenders)
            if p:
                for n, q in solve(group).items():
                    result[n] += p * q
        repeat = top_group_probability(contenders, contenders)
        solved = {n: v / (1 - repeat) for n, v in result.items()}
        memo[contenders] = solved
        return solved

    solved = solve(frozenset(names))
    return {n: solved[n] for n in names}
