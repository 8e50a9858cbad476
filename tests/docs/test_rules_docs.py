"""docs/rules/ shows players the numbers the bot uses: each table there is the engine's own.

A doc table that drifted from `bot/rules/` would tell a player one thing while the bot does
another, so every table marked ``<!-- table: NAME -->`` is rebuilt here from the engine and
compared cell for cell.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from bot.db.models import RuleSystem
from bot.render.help import DOCS_URL, rules_page
from bot.render.odds import percent
from bot.rules import d20_check, threshold
from bot.rules.pen_and_dagger.abilities import ability_modifier, ability_rank
from bot.rules.pen_and_dagger.table import Rank, SuccessLevel, table_level

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules"


def _table(page: str, name: str) -> list[list[str]]:
    """The rows (cells stripped, header and rule line dropped) of the marked table."""
    text = (DOCS / page).read_text(encoding="utf-8")
    match = re.search(rf"<!-- table: {name} -->\n((?:\|.*\n)+)", text)
    assert match, f"{page} has no table marked {name}"
    lines = match.group(1).strip().splitlines()[2:]
    return [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines]


def _span(values: list[int]) -> str:
    if not values:
        return "–"
    return str(values[0]) if len(values) == 1 else f"{values[0]}–{values[-1]}"


def _signed(value: int) -> str:
    return "0" if value == 0 else (f"+{value}" if value > 0 else f"−{-value}")


def test_success_table_is_the_engines() -> None:
    levels = list(SuccessLevel)
    expected = [
        [rank.display_name]
        + [_span([f for f in range(1, 21) if table_level(rank, f) is level]) for level in levels]
        for rank in sorted(Rank, reverse=True)
    ]
    assert _table("pen-and-dagger.md", "success") == expected


def test_ability_scores_table_is_the_engines() -> None:
    rows = _table("pen-and-dagger.md", "abilities")
    for score_cell, modifier, rank in rows:
        low, _, high = score_cell.partition("–")
        for score in range(int(low), int(high or low) + 1):
            assert (modifier, rank) == (
                _signed(ability_modifier(score)),
                ability_rank(score).display_name,
            ), f"score {score}"
    covered = [int(row[0].split("–")[-1]) for row in rows]
    assert covered[-1] == 31, "the table runs to 31, where the rank stops changing"


def test_proficiency_bonus_table_is_the_engines() -> None:
    for levels, bonus in _table("d20-check.md", "proficiency"):
        low, _, high = levels.partition("–")
        for level in range(int(low), int(high) + 1):
            assert _signed(d20_check.proficiency_bonus(level)) == bonus, f"level {level}"


def test_threshold_tiers_are_the_defaults() -> None:
    rows = dict(_table("threshold.md", "tiers"))
    expected = {
        difficulty.display: threshold.resolve_threshold(difficulty)
        for difficulty in threshold.Difficulty
    }
    assert {name: int(value) for name, value in rows.items()} == expected


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_every_link_between_rule_pages_resolves(page: str) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#:]+\.md)\)", text):
        assert (DOCS / target).is_file(), f"{page} links to a missing {target}"


@pytest.mark.parametrize("system", list(RuleSystem))
def test_help_links_a_rules_page_that_exists(system: RuleSystem) -> None:
    link = rules_page(system)
    assert link.startswith(f"{DOCS_URL}/")
    assert (DOCS.parent / link.removeprefix(f"{DOCS_URL}/")).is_file()


def test_spell_school_table_is_the_engines() -> None:
    rows = _table("d20-check.md", "schools")
    shown = {school: cell for school, cell in rows}
    assert set(shown) == set(d20_check.SPELL_SCHOOLS)
    for school, names in d20_check.SPELL_SCHOOLS.items():
        full, *short = names
        assert shown[school] == (f"{full} ({short[0]})" if short else full), school


def _percent(p: Fraction) -> str:
    """`60%`: the docs' whole percentages, as the bot's own rounding gives them."""
    return percent(p).removesuffix(".0%") + "%"


def test_quality_save_table_is_the_engines() -> None:
    rows = _table("d20-check.md", "quality-saves")
    for item, save, chance in rows:
        if item.startswith("magic +"):
            quality, magic = None, int(item.removeprefix("magic +"))
        else:
            quality, magic = d20_check.ItemQuality.parse(item), 0
        terms = d20_check.quality_save_terms(quality, magic)
        expected = "none" if terms is None else f"d20 +{terms.bonus} vs DC {terms.dc}"
        assert save == expected, item
        assert chance == _percent(d20_check.item_save_odds(quality, magic)), item
