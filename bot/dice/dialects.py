"""Dialects: where dice bots genuinely disagree on what the same text means, and how each
dialect reads it (docs/dice.md, "Dialects", is generated from :data:`READINGS`).

A player (``/me dice dialect:…``) or a campaign's GM picks a dialect so a group that moved
from another bot keeps its habits. The parser switches the readings this table marks for the
dialect, and every reading that a bot of another dialect would make differently is said in the
answer itself, in one short line (:attr:`bot.dice.Expression.notes`): the player at the table
does not read the docs. The table is data only; the parser (``bot.dice.parser``) applies it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

#: Every dialect, the default first.
DIALECTS: tuple[str, ...] = ("pbp", "avrae", "roll20", "dice-maiden")
DEFAULT_DIALECT = "pbp"
#: How the answer names each dialect.
DIALECT_NAMES = {
    "pbp": "pbp-dice",
    "avrae": "Avrae",
    "roll20": "Roll20",
    "dice-maiden": "Dice Maiden",
}


@dataclass(frozen=True, slots=True)
class Reading:
    """One point of disagreement: ``example`` as each dialect reads it.

    ``readings`` maps a dialect to its meaning; a dialect not named reads it as ``pbp`` does.
    ``switch`` is the name the parser tests to apply the dialect's reading.
    """

    switch: str
    topic: str
    example: str
    readings: dict[str, str]

    def differs(self, dialect: str) -> bool:
        """This dialect reads the example otherwise than pbp-dice's default."""
        return dialect != DEFAULT_DIALECT and dialect in self.readings

    def meaning(self, dialect: str) -> str:
        return self.readings.get(dialect, self.readings[DEFAULT_DIALECT])


#: The table that drives the parser's dialect switches and the docs.
READINGS: tuple[Reading, ...] = (
    Reading(
        "inclusive",
        "comparison points on dice",
        "10d6>4",
        {
            "pbp": "`>4` and `<2` are strict: dice showing more than 4 (5 and 6)",
            "roll20": "`>4` and `<2` include the number: dice showing 4 or more",
        },
    ),
    Reading(
        "left-to-right",
        "arithmetic order",
        "1d1+2*3",
        {
            "pbp": "`*` and `/` before `+` and `-`: 7",
            "dice-maiden": "strictly left to right: (1+2)*3 = 9",
        },
    ),
    Reading(
        "maiden-modifiers",
        "`e`, `r` and `f` with no space before them",
        "3d6e6",
        {
            "pbp": "Roll20's: `e6` explodes on exactly 6, again and again; `r2` rerolls a 2; "
            "`f1` fails on exactly 1 (with a space: Dice Maiden's)",
            "dice-maiden": "Dice Maiden's, space or not: `e6` explodes once on 6 or more; "
            "`r2` rerolls 2 or less; `f2` fails on 2 or less (and `cs5`, its Cypher System, "
            "is refused with the target to write)",
        },
    ),
    Reading(
        "shortcuts",
        "Dice Maiden's game-system shortcuts",
        "4cod",
        {
            "pbp": "refused, with the dice to write (`4d10 t8 ie10`)",
            "dice-maiden": "expanded as Dice Maiden does (`4d10 t8 ie10`: successes), for "
            + ", ".join(
                (
                    "`4cod`",
                    "`5wod8`",
                    "`sr6`",
                    "`sp4`",
                    "`6yz`",
                    "`snm5`",
                    "`3wh4+`",
                    "`ex5`",
                    "`ed15`",
                    "`alien4s2`",
                    "`fitd3`",
                    "`wng 4d6`",
                    "`2lf4`",
                    "`gb 2d8`",
                    "`a5e +5 ex1`",
                    "`+d%`",
                    "`dd34`",
                    "`4df`",
                    "`attack +5`",
                    "`dndstats`",
                    "`age`",
                    "`dheart`",
                    "`ess1d8`",
                    "`tdh4`",
                    "`cpd3`",
                    "`wfrp67`",
                    "`cs 3`",
                    "`3hsk`",
                    "`8d6l`",
                    "`conan3`",
                    "`cd4`",
                    "`4dp`",
                    "`ol5a1`",
                    "`cpr + 5`",
                    "`wit`",
                )
            )
            + "; the answer names what Dice Maiden also shows; math before a target applies "
            "to each die (`1d20+5 t6` counts every die, as `1d20 t1`); `(Label)` before a roll, "
            "or after its count (`3 (Stat) 4d6 k3`), is a label",
        },
    ),
    Reading(
        "display-options",
        "Dice Maiden's display options before a roll",
        "ul 4d6 k3",
        {
            "pbp": "refused: write the roll without `s`, `nr` or `ul`",
            "dice-maiden": "left out (the total is the same), said in the answer",
        },
    ),
    Reading(
        "keep-face",
        "`k` followed by a number",
        "4d6k3",
        {
            "pbp": "keep the highest 3",
            "avrae": "keep the dice showing 3 (`k=3`); `kh3` keeps the highest 3",
        },
    ),
    Reading(
        "unary-sign",
        "`+d20` / `-d20` at the start",
        "+d20",
        {
            "pbp": "Dice Maiden's advantage / disadvantage: `2d20kh1` / `2d20kl1`",
            "avrae": "one d20 with a sign, as in Avrae",
            "roll20": "one d20 with a sign, as in Roll20",
        },
    ),
    Reading(
        "decimals",
        "decimals and `/`",
        "7/2*2",
        {
            "pbp": "whole numbers only, `/` rounds down: 3*2 = 6",
            "avrae": "decimals (`1.5`) allowed and `/` keeps the fraction, as in Avrae: 7 (the "
            "total drops any fraction at the end)",
        },
    ),
    Reading(
        "empty-set",
        "empty parentheses",
        "()",
        {
            "pbp": "refused: write a number",
            "avrae": "an empty set, as in Avrae: 0",
        },
    ),
    Reading(
        "zero-dice",
        "no dice",
        "0d6",
        {
            "pbp": "refused: roll at least one die",
            "avrae": "no dice, as in Avrae: 0",
        },
    ),
    Reading(
        "tens-die",
        "`d%`",
        "1d%",
        {
            "pbp": "a d100: 1 to 100",
            "avrae": "a tens die: 0, 10, … 90 (`(1d10-1)*10`)",
        },
    ),
    Reading(
        "group-dice",
        "a target after one lone roll in braces",
        "{5d6!!}>8",
        {
            "pbp": "rpg-dice-roller's: the group's total counts once (1 if over 8)",
            "roll20": "Roll20's: each die counts (how many are 8 or more)",
        },
    ),
    Reading(
        "reroll-repeats",
        "`r` without another letter",
        "2d6r1",
        {
            "pbp": "reroll a 1 once (the new face stands)",
            "roll20": "reroll until no die shows 1 (at most 10 times; `ro1` rerolls once)",
        },
    ),
    Reading(
        "united-drops",
        "drops in a row",
        "4d6pl1pl1",
        {
            "pbp": "one after the other: two dice dropped",
            "avrae": "united into one drop: the lowest die, once",
        },
    ),
    Reading(
        "trailing-text",
        "words after a roll",
        "1d20+5 sneak attack",
        {
            "pbp": "refused: start a comment with `#`",
            "avrae": "a comment, as in Avrae: `1d20+5 # sneak attack`",
            "roll20": "a comment, as in Roll20: `1d20+5 # sneak attack`",
        },
    ),
    Reading(
        "total-comparison",
        "a comparison after dice, with a space",
        "2d6 >= 7",
        {
            "pbp": "refused: `2d6>=7` counts dice, `(2d6) >= 7` compares the total",
            "avrae": "the total is compared, as in Avrae: pass or fail",
        },
    ),
    Reading(
        "advantage-d20",
        "`adv` / `dis` on another die",
        "1d6adv",
        {
            "pbp": "the better of two d6: `2d6kh1`",
            "avrae": "refused: Avrae's advantage applies to d20s (write `2d6kh1`)",
        },
    ),
)

#: Readings no dialect changes, but that other bots make differently: always said in the answer.
ALWAYS_SAID: tuple[tuple[str, str, str], ...] = (
    ("`/`", "7/2", "rounds down (3); Avrae and rpg-dice-roller keep the fraction (3.5)"),
    (
        "several keep/drop operations",
        "3d6kh2dl1",
        "one after the other; rpg-dice-roller applies each to all the dice",
    ),
    (
        "successes added to other terms",
        "1d20+1d6>=4",
        "the count of successes is added to the rest",
    ),
    (
        "rerolls with explosions",
        "3d6r1e6",
        "exploded dice can be rerolled too; Dice Maiden rerolls only the first dice",
    ),
    (
        "Roll20's critical ranges",
        "10d20cs>=15",
        "they mark dice and count nothing; Foundry's `cs` counts successes (write `>=15`)",
    ),
    ("penetrating dice", "5d6!p", "Roll20's: each extra die counts one less"),
    (
        "the remainder of a negative number",
        "(1d6-4)%3",
        "rounds down as `/` does; Roll20 and rpg-dice-roller keep the dividend's sign",
    ),
    (
        "`>` and `<` on dice",
        "10d6>4",
        "strict (except in the roll20 dialect); Roll20 counts the number itself too",
    ),
    (
        "`r` on its own",
        "2d6r1",
        "once (except in the roll20 dialect); Roll20 and rpg-dice-roller reroll again",
    ),
    (
        "`f` with no success target before it",
        "10d10f<4",
        "GNOLL's filter: keeps the dice below 4; Roll20 and Dice Maiden count failures, after a "
        "target",
    ),
    (
        "`r==N`",
        "2d4r==1",
        "rerolls each die showing 1; GNOLL rerolls the whole roll while its total is 1",
    ),
    ("`rr` with a comparison", "1d10rr>4", "rerolls while above 4; GNOLL rerolls until above 4"),
    (
        "rerolls or explosions likely to go on",
        "1d20rr<20",
        "at most 10 a die (then the last roll stands); other bots go on longer",
    ),
    (
        "keeping or dropping more items of a set than it has",
        "{4d6+1}kh2",
        "keeps or drops them all, as rpg-dice-roller does",
    ),
    (
        "a target after one lone roll in braces",
        "{4d6}>10",
        "counts the group's total once (rpg-dice-roller); Roll20 counts each die (the roll20 "
        "dialect)",
    ),
    (
        "`mi`/`ma` written after keep/drop",
        "4d6kh3mi2",
        "worked out before the keep/drop; Avrae applies them in the order written",
    ),
    (
        "arithmetic where the order matters",
        "1d4+2*3",
        "`*` and `/` first (except in the dice-maiden dialect); Dice Maiden goes left to right",
    ),
)


@functools.cache
def switches(dialect: str) -> frozenset[str]:
    """The parser switches a dialect turns on (worked out once per dialect)."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}")
    return frozenset(r.switch for r in READINGS if r.differs(dialect))


def differences(dialect: str) -> list[Reading]:
    """The readings where ``dialect`` differs from the default, in table order."""
    return [r for r in READINGS if r.differs(dialect)]


def markdown() -> str:
    """docs/dice.md's "Dialects" tables, generated from :data:`READINGS` (a test checks the
    docs hold exactly this text)."""
    out: list[str] = []
    for dialect in DIALECTS[1:]:
        name = DIALECT_NAMES[dialect]
        out += [
            f"**{name}** (`/me dice dialect:{dialect}`):",
            "",
            f"| you type | pbp-dice reads | the {dialect} dialect reads |",
            "|---|---|---|",
        ]
        for r in differences(dialect):
            pbp, theirs = r.meaning(DEFAULT_DIALECT), r.meaning(dialect)
            out.append(f"| `{r.example}` ({r.topic}) | {pbp} | {theirs} |")
        out.append("")
    out += ["Said in the answer in every dialect, since other bots read them otherwise:", ""]
    out += [f"- {what} (`{example}`): {how}" for what, example, how in ALWAYS_SAID]
    return "\n".join(out)
