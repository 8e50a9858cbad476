"""A fifth rule system defined only here plays through the real bot (docs/rules/README.md).

"Coin flip": a character flips as many coins as the ability's score and needs ``dc`` heads
(one by default). Nothing in bot/services, bot/render or bot/cogs knows it: it is registered in
the rule-system registry before the bot is built, and every command asks the registry. How its
rolls read (its message, its /history line, its inline line) is written in its adapter only.

The database's CHECK on ``campaigns.system`` lists the systems a migration knows; a real fifth
system would widen it in its migration. The toy widens it in this test's database only
(``pytest.mark.rule_systems``, tests/fixtures/systems.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

import pytest
from discord import app_commands

from bot.rules.errors import RulesError
from bot.rules.systems import (
    SYSTEMS,
    CheckOptions,
    Plan,
    Reading,
    Sheet,
    Tone,
    View,
)
from bot.rules.systems import (
    Table as Campaign,
)
from bot.rules.systems.base import Defaults, refuse_options, score_of
from tests.fixtures.table import (
    Table,
    final_answer,
    make_character,
    message_text,
    start_campaign,
)

KEY = "coin-flip"
HEADS, TAILS = 1, 2  # what rng.randint(1, 2) shows, so tests script coins with table.dice


@dataclass(frozen=True, slots=True)
class CoinOutcome:
    """Coins flipped for one ability, and how many heads were needed."""

    ability: str
    coins: tuple[int, ...]
    need: int

    @property
    def heads(self) -> int:
        return sum(1 for c in self.coins if c == HEADS)

    @property
    def passed(self) -> bool:
        return self.heads >= self.need


def _flip_odds(coins: int, need: int) -> dict[str, Fraction]:
    p = sum((Fraction(comb(coins, k), 2**coins) for k in range(need, coins + 1)), Fraction(0))
    return {"Success": p, "Failure": 1 - p}


@dataclass(frozen=True)
class CoinFlip(Defaults):
    """The toy system: only what the System protocol asks, no bot code."""

    key: str = KEY
    name: str = "Coin flip"
    abilities: tuple[str, ...] = ("NERVE", "GRIT")
    abilities_configurable: bool = False
    score_range: tuple[int, int] = (1, 6)
    score_word: str = "score"
    check_options: frozenset[str] = frozenset({"dc"})
    save_options: frozenset[str] | None = frozenset({"dc"})
    outcome_types: tuple[type, ...] = (CoinOutcome,)
    check_word: str = "flip"
    group_saves: bool = True

    def _plan(self, kind: str, table: Campaign, sheet: Sheet, options: CheckOptions) -> Plan:
        ability = table.ability(options.ability)
        coins = score_of(sheet, ability)
        need = 1 if options.dc is None else options.dc
        if not 1 <= need <= coins:
            raise RulesError(f"{sheet.name} flips {coins} coins: need 1 to {coins} heads.")
        return Plan(
            self.key,
            kind,
            ability,
            f"{ability} {'save' if kind == 'save' else 'flip'}",
            lambda rng: CoinOutcome(ability, tuple(rng.randint(1, 2) for _ in range(coins)), need),
            lambda: _flip_odds(coins, need),
        )

    def plan_check(
        self, table: Campaign, sheet: Sheet, options: CheckOptions, carry_over: int | None
    ) -> Plan:
        refuse_options(self, options.given(), self.check_options, "/check")
        return self._plan("flip", table, sheet, options)

    def plan_save(self, table: Campaign, sheet: Sheet, options: CheckOptions) -> Plan:
        return self._plan("save", table, sheet, options)

    def read(self, outcome: Any) -> Reading:
        assert isinstance(outcome, CoinOutcome)
        result = f"{outcome.heads} heads of {outcome.need} needed"
        return Reading(
            outcome.coins,
            result,
            outcome.passed,
            Tone.SUCCESS if outcome.passed else Tone.FAILURE,
            word="Heads win" if outcome.passed else "Tails win",
        )

    # How its rolls read everywhere, written here only: its message, its /history line and
    # its line in an inline roll.

    def explain(self, outcome: Any, view: View) -> tuple[tuple[str, str], ...]:
        faces = " ".join("**H**" if c == HEADS else "T" for c in outcome.coins)
        lines = [("Coins", faces), ("Needed", f"{outcome.need} heads")]
        if view is View.HIDDEN:
            lines.append(("Secret", "nobody else sees these coins until the GM reveals them"))
        return tuple(lines)

    def one_line(self, outcome: Any) -> str:
        faces = " ".join("**H**" if c == HEADS else "T" for c in outcome.coins)
        return f"coins {faces}, {outcome.need} needed → **{self.read(outcome).word}**"

    def summarize(self, outcome: Any, title: str) -> tuple[str, str]:
        faces = "".join("H" if c == HEADS else "T" for c in outcome.coins)
        return str(self.read(outcome).word), f"{title}: coins {faces}, {outcome.need} needed"

    def outcome_from_record(self, data: Mapping[str, Any]) -> Any | None:
        if "coins" not in data or "need" not in data:
            return None
        return CoinOutcome(str(data["ability"]), tuple(data["coins"]), int(data["need"]))

    def group_verdict(
        self, passed: Sequence[str], failed: Sequence[str], members: int, dc: int | None
    ) -> tuple[bool | None, str]:
        ok = 2 * len(passed) > members
        return ok, f"{'Heads' if ok else 'Tails'} carry the party: {len(passed)} of {members}"


#: Registered before the bot is built, its key allowed in the database, for every test here.
pytestmark = pytest.mark.rule_systems(CoinFlip())


def _request_message(table: Table) -> Any:
    for message in reversed(table.table.history()):
        if message.embeds and (message.embeds[0].title or "").startswith("Roll request #"):
            return message
    raise AssertionError("no roll request message in #table")


async def _party(table: Table) -> None:
    await start_campaign(table, KEY)
    for player, name, scores in (
        (table.alice, "Pip", {"NERVE": 3, "GRIT": 2}),
        (table.bob, "Moss", {"NERVE": 1, "GRIT": 4}),
    ):
        await make_character(table, player, name, scores)
        await table.gm.slash(table.table, "party add", character=name)


async def test_the_toy_is_registered_and_offered_by_campaign_setup(table: Table) -> None:
    assert KEY in SYSTEMS
    campaign = table.bot.tree.get_command("campaign")
    assert isinstance(campaign, app_commands.Group)
    setup = campaign.get_command("setup")
    assert isinstance(setup, app_commands.Command)
    (system,) = [p for p in setup.parameters if p.name == "system"]
    offered = [c.value for c in system.choices]
    assert offered == ["pen-and-dagger", "roll-under", "threshold", "d20-check", KEY]


async def test_a_toy_system_plays_check_save_and_odds(table: Table) -> None:
    await _party(table)
    shown = await table.alice.slash(table.table, "campaign show")
    assert "Coin flip" in message_text(shown.response)

    too_high = await table.alice.slash(
        table.table, "character set", ability="NERVE", value=7, character="Pip"
    )
    assert "NERVE score must be between 1 and 6" in too_high.response.content

    refused = await table.alice.slash(table.table, "check", ability="NERVE", advantage=True)
    assert refused.ephemeral
    assert (
        "This campaign plays Coin flip, where /check has no advantage (it takes dc)."
        in refused.response.content
    )

    table.dice(HEADS, TAILS, HEADS)
    check = await table.alice.slash(table.table, "check", ability="nerve", dc=2)
    assert not check.ephemeral and check.response is not None
    embed = check.response.embeds[0]
    assert embed.title == "Pip: NERVE flip"
    assert embed.description == "**2 heads of 2 needed**"
    fields = [(f.name, f.value) for f in embed.fields]
    assert fields == [("Coins", "**H** T **H**"), ("Needed", "2 heads")]
    assert embed.footer.text is not None and embed.footer.text.startswith("Coin flip · roll #1")

    table.dice(TAILS, TAILS)
    save = await table.alice.slash(table.table, "save", ability="GRIT")
    assert save.response.embeds[0].title == "Pip: GRIT save"
    assert save.response.embeds[0].description == "**0 heads of 1 needed**"

    odds = await table.alice.slash(table.table, "odds check", ability="NERVE", dc=2)
    assert odds.ephemeral
    odds_text = message_text(odds.response)
    assert "Pip, NERVE flip, DC 2" in odds_text
    assert "exactly 1/2" in odds_text  # 2 or 3 heads of 3 coins: 4 of 8

    history = await table.bob.slash(table.table, "history")
    listed = message_text(history.response)
    assert "coins **H** T **H**, 2 needed → **Heads win**" in listed
    assert "coins T T, 1 needed → **Tails win**" in listed


async def test_a_toy_group_save_and_roll_request(table: Table) -> None:
    await _party(table)
    table.dice(HEADS, TAILS, TAILS, TAILS, TAILS, TAILS)  # Pip 1 head of 2; Moss 0 of 4
    group = await table.gm.slash(table.table, "groupsave", ability="GRIT")
    assert group.response is not None and not group.ephemeral
    text = message_text(group.response)
    assert "Tails carry the party: 1 of 2" in text
    assert "Heads win" in text and "Tails win" in text

    posted = await table.gm.slash(table.table, "gm request roll", ability="NERVE", characters="Pip")
    assert posted.response is not None and table.alice.mention in posted.response.content
    assert "Roll: **NERVE flip**" in message_text(_request_message(table))
    table.dice(HEADS, HEADS, TAILS)
    await table.alice.click(_request_message(table), label="Roll")
    answered = message_text(_request_message(table))
    assert "Heads win" in answered, answered
    assert "Heads carry the party: 1 of 1" in answered


async def test_a_hidden_toy_roll_shows_nowhere_until_the_gm_reveals_it(table: Table) -> None:
    await _party(table)
    table.dice(HEADS, HEADS, HEADS)
    hidden = await table.alice.slash(table.table, "check", ability="NERVE", secret="gm")
    coins = "coins **H** **H** **H**, 1 needed → **Heads win**"
    public = [
        m
        for m in table.table.history()
        if "3 heads" in message_text(m) or "**H**" in message_text(m)
    ]
    assert public == []
    before = message_text((await table.bob.slash(table.table, "history")).response)
    assert "3 heads" not in before and "**H**" not in before
    gm_view = message_text((await table.gm.slash(table.table, "history")).response)
    assert coins in gm_view
    assert hidden.response is not None

    number = int(before.split("#", 1)[1].split()[0].strip("*:·"))
    revealed = await table.gm.slash(table.table, "reveal", roll=number)
    assert revealed.response is not None
    after = message_text((await table.bob.slash(table.table, "history")).response)
    assert coins in after


async def test_the_rollers_own_copy_of_a_hidden_toy_roll_is_the_toys_explanation(
    table: Table,
) -> None:
    # The adapter is told whose copy it explains (View): the owner's copy of a hidden roll.
    await _party(table)
    table.dice(HEADS, TAILS, HEADS)
    own = await table.alice.slash(table.table, "check", ability="NERVE", secret="self")
    assert own.response is not None and own.ephemeral
    mine = message_text(own.response)
    assert "Coins: **H** T **H**" in mine and "Needed: 1 heads" in mine
    assert "Secret: nobody else sees these coins until the GM reveals them" in mine
    table.dice(HEADS, TAILS, HEADS)
    public = await table.alice.slash(table.table, "check", ability="NERVE")
    assert "Secret" not in message_text(public.response)


async def test_a_toy_check_in_a_message_reads_in_the_systems_words(table: Table) -> None:
    # Inline rolls ask the registry too: a check in a message plays the toy.
    menu = "Roll the dice in this message"
    await _party(table)
    message = await table.alice.send(table.table, "Pip holds on [[check NERVE dc:2]]")
    table.dice(HEADS, TAILS, HEADS)
    answer = final_answer(await table.alice.context_menu(table.table, menu, message))
    assert "Pip holds on **Heads win**" in answer.content
    assert "NERVE flip: coins HTH, 2 needed" in answer.content
