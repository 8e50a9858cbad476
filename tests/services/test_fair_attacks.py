"""Provably fair attacks, /reroll and fortune rerolls (docs/fair-dice.md), SQLite and
PostgreSQL: each draws its dice from the committed seeds, records what it drew, and after a
rotation /verify and tools/verify_fair.py recompute every die; a changed face does not."""

from __future__ import annotations

import copy
import io
import json
from dataclasses import replace
from typing import Any

from bot.db.engine import Database
from bot.db.models import RuleSystem
from bot.dice.fair import FairDice
from bot.rules.systems.base import CheckOptions
from bot.services.kit.context import Caller
from bot.services.rolling import attacks, checks, fortune_table, rerolls
from bot.services.rolling.attacks import AttackOptions
from bot.services.store import fortune
from bot.services.store.campaigns import CampaignView, setup_campaign, update_settings
from bot.services.store.characters import CharacterView, create_character, set_score
from bot.services.store.ledger import find_number_in
from bot.services.trust import export, fairness, secrecy
from bot.words import Visibility
from tests.dice.test_fair_docs import verifier
from tests.services.helpers import ALICE, BOB, CHANNEL, GM_ROLE, GUILD, gm_caller, origin

#: Low AC and both items with a quality save: hits, criticals (the armour's save, every damage
#: die again with the GM's option) and fumbles (the weapon's save) all come up.
ATTACK = AttackOptions(ac=3, damage="2d6+1d4e4+2", weapon_quality="Master", armour_quality="Master")
ALL_PARTS = set(fairness.ATTACK_PARTS)


def _alice() -> Caller:
    return Caller(user_id=ALICE, channel_id=CHANNEL, guild_id=GUILD)


def _bob() -> Caller:
    return Caller(user_id=BOB, channel_id=CHANNEL, guild_id=GUILD)


async def _table(db: Database) -> tuple[CampaignView, CharacterView]:
    campaign = await setup_campaign(
        db, GUILD, CHANNEL, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE], crit_rules=True
    )
    campaign = await update_settings(db, campaign.id, rerolls=True, crit_double_dice=True)
    await fairness.show(db, gm_caller(), campaign)  # published, as at /campaign setup
    ayla = await create_character(db, campaign.id, ALICE, "Ayla")
    await set_score(db, ayla.id, "STR", 14)
    await set_score(db, ayla.id, "DEX", 14)
    return campaign, ayla


async def _row(db: Database, campaign_id: int, number: int) -> dict[str, Any]:
    async with db.sessionmaker() as session:
        row = await find_number_in(session, number, campaign_id=campaign_id)
    assert row is not None
    return {"outcome": copy.deepcopy(row.outcome), "dice": list(row.dice)}


async def _attack(db: Database, i: int, ac: int = 3, **kw: Any) -> int:
    options = replace(ATTACK, ac=ac, advantage=i % 2 == 0, disadvantage=i % 2 == 1)
    done = await attacks.perform_attack(db, FairDice(), _alice(), options, "/attack", **kw)
    return done.number


def _tampered(row: dict[str, Any], part: str) -> dict[str, Any]:
    """The row with one shown value of ``part`` changed."""
    changed = copy.deepcopy(row)
    outcome = changed["outcome"]
    if part == "d20":
        changed["dice"][0] = changed["dice"][0] % 20 + 1
    elif part in ("weapon_save", "armor_save"):
        save = outcome["attack"][part]
        save["roll"] = save["roll"] % 20 + 1
    else:
        die = outcome["damage"]["roll" if part == "damage" else "again"]["terms"][0]["dice"][0]
        die["face"] = die["face"] % 6 + 1
    return changed


async def test_attacks_draw_fair_dice_that_recompute_after_a_rotation(db: Database) -> None:
    campaign, _ = await _table(db)
    numbers: list[int] = []
    shown: dict[str, int] = {}  # a roll that drew each part
    for i in range(400):  # a critical and a fumble come up within a few dozen
        number = await _attack(db, i)
        numbers.append(number)
        record = (await _row(db, campaign.id, number))["outcome"]["fair"]
        assert record["dice"] == fairness.ATTACK_DRAWS
        for part in record["parts"]:
            shown.setdefault(part, number)
        if set(shown) == ALL_PARTS:
            break
    assert set(shown) == ALL_PARTS
    hidden = await _attack(db, 0, visibility=Visibility.GM)
    draws = [(await _row(db, campaign.id, n))["outcome"]["fair"]["draw"] for n in numbers]
    assert draws == list(range(1, len(numbers) + 1))  # one draw each, in order

    assert (await fairness.verify_roll(db, _bob(), numbers[0])).matched is None  # not yet
    rotation = await fairness.rotate(db, gm_caller(), campaign)
    seed = rotation.revealed.seed
    assert seed is not None
    for n in numbers:
        assert (await fairness.verify_roll(db, _bob(), n)).matched is True, n
    # The hidden attack: its faces need its blinding value, secret until revealed.
    assert (await fairness.verify_roll(db, _bob(), hidden)).matched is None
    assert (await fairness.verify_roll(db, _alice(), hidden)).matched is True
    await secrecy.reveal(db, gm_caller(), hidden)
    assert (await fairness.verify_roll(db, _bob(), hidden)).matched is True

    for part, number in shown.items():
        row = await _row(db, campaign.id, number)
        record = row["outcome"]["fair"]
        assert fairness.recompute(seed, record, row["dice"], row["outcome"])
        bad = _tampered(row, part)
        assert not fairness.recompute(seed, record, bad["dice"], bad["outcome"]), part
        skipped = {**record, "parts": [p for p in record["parts"] if p != part]}
        assert not fairness.recompute(seed, skipped, row["dice"], row["outcome"]), part

    data = json.loads(export.dumps(await export.export_campaigns(db, campaign_id=campaign.id)))
    tool = verifier()
    out = io.StringIO()
    assert tool.check(data, out) == 0, out.getvalue()
    assert f"{len(numbers) + 1} rolls recomputed and matching, 0 wrong" in out.getvalue()
    for part, number in shown.items():
        changed = copy.deepcopy(data)
        rows = changed["campaigns"][0]["tables"]["ledger"]
        row = next(r for r in rows if r["number"] == number)
        row.update(_tampered(row, part))
        out = io.StringIO()
        assert tool.check(changed, out) == 1, part
        assert f"BAD roll #{number}" in out.getvalue()


async def test_rerolls_draw_their_new_dice_from_a_draw_of_their_own(db: Database) -> None:
    """A check's rerolled die and an attack's (with the damage it then rolls) come from the
    reroll's own draw, recorded on its row; a hidden roll's reroll stays hidden."""
    campaign, _ = await _table(db)
    advantage = CheckOptions(ability="DEX", advantage=True)
    checked = await checks.perform_check(db, FairDice(), _alice(), advantage, "/check")
    again = await rerolls.reroll(db, FairDice(), _alice(), "first", "/reroll")
    assert again.check is not None
    original = (await _row(db, campaign.id, checked.number))["outcome"]["fair"]
    record = (await _row(db, campaign.id, again.check.number))["outcome"]["fair"]
    assert record["dice"] == fairness.D20_DRAWS and record["draw"] == original["draw"] + 1
    numbers = [checked.number, again.check.number]
    parts: dict[str, int] = {}
    for i in range(60):  # damage newly rolled (a miss turned hit) comes up within a few
        await _attack(db, i, ac=16)
        done = await rerolls.reroll(db, FairDice(), _alice(), "second", "/reroll")
        assert done.attack is not None
        numbers.append(done.attack.number)
        row = await _row(db, campaign.id, done.attack.number)
        assert row["outcome"]["fair"]["dice"] == fairness.ATTACK_DRAWS
        for part in row["outcome"]["fair"]["parts"]:
            parts.setdefault(part, done.attack.number)
        if "damage" in parts and i >= 3:
            break
    assert {"d20", "damage"} <= set(parts)
    await _attack(db, 0, visibility=Visibility.GM)
    hidden = await rerolls.reroll(db, FairDice(), _alice(), "first", "/reroll")
    assert hidden.attack is not None and hidden.attack.visibility is Visibility.GM
    hidden_row = await _row(db, campaign.id, hidden.attack.number)
    assert len(hidden_row["outcome"]["fair"]["blind"]) == 64

    rotation = await fairness.rotate(db, gm_caller(), campaign)
    seed = rotation.revealed.seed
    assert seed is not None
    for n in numbers:
        assert (await fairness.verify_roll(db, _bob(), n)).matched is True, n
    assert (await fairness.verify_roll(db, _bob(), hidden.attack.number)).matched is None
    assert (await fairness.verify_roll(db, _alice(), hidden.attack.number)).matched is True
    for part, number in parts.items():
        row = await _row(db, campaign.id, number)
        bad = _tampered(row, part)
        assert not fairness.recompute(seed, row["outcome"]["fair"], bad["dice"], bad["outcome"])
    row = await _row(db, campaign.id, again.check.number)
    row["dice"][0] = row["dice"][0] % 20 + 1
    assert not fairness.recompute(seed, row["outcome"]["fair"], row["dice"], row["outcome"])

    data = json.loads(export.dumps(await export.export_campaigns(db, campaign_id=campaign.id)))
    out = io.StringIO()
    assert verifier().check(data, out) == 0, out.getvalue()
    assert ", 0 wrong" in out.getvalue()


async def test_a_fortune_reroll_draws_fair_d20s(db: Database, hero: CharacterView) -> None:
    """Every reroll a fortune die pays for, its d20s in order, from one draw of its own."""
    await set_score(db, hero.id, "DEX", 12)
    await fortune.give_fortune(db, hero.id, origin(), 2)
    campaign_id = hero.campaign_id
    for _ in range(100):  # an attempt a fortune die can improve comes up within a few
        tried = await checks.perform_check(
            db, FairDice(), _alice(), CheckOptions(ability="DEX"), "/check"
        )
        outcome = tried.outcome
        if fortune_table.reroll_refusal(outcome) is None:  # type: ignore[arg-type]
            break
    done = await fortune_table.reroll_roll(db, FairDice(), _alice(), tried.roll_id)
    row = await _row(db, campaign_id, done.new_number)
    record = row["outcome"]["fair"]
    assert record["dice"] == fairness.D20_DRAWS and "blind" not in record
    assert len(row["dice"]) >= 1
    campaign = await fairness.campaign_here(db, _alice())
    rotation = await fairness.rotate(db, gm_caller(), campaign)
    assert (await fairness.verify_roll(db, _bob(), done.new_number)).matched is True
    assert rotation.revealed.seed is not None
    row["dice"][-1] = row["dice"][-1] % 20 + 1
    assert not fairness.recompute(rotation.revealed.seed, record, row["dice"], row["outcome"])
    data = json.loads(export.dumps(await export.export_campaigns(db, campaign_id=campaign_id)))
    out = io.StringIO()
    assert verifier().check(data, out) == 0, out.getvalue()
