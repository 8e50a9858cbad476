"""Erasing a player (docs/privacy.md, "Erasing your data"), on SQLite and PostgreSQL: nothing of
theirs is left in any table or export, every roll and the log still verify, and everyone else's
data is as it was."""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from bot.db.engine import Database
from bot.db.models import RuleSystem, Visibility, ledger
from bot.db.party_models import roll_request_targets
from bot.db.schema import metadata
from bot.services.kit import commitments as cm
from bot.services.kit.context import Caller
from bot.services.rolling import checks, fortune_table, generation, rolls
from bot.services.store import campaigns as campaigns_svc
from bot.services.store import fortune
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView, create_character, set_score
from bot.services.table import requests
from bot.services.trust import export, gamelog, privacy, secrecy
from tests.scripted import ScriptedRandom
from tests.services.helpers import ALICE, BOB, CHANNEL, GM_ROLE, GM_USER, GUILD, origin

OTHER_GUILD = GUILD + 7
OTHER_CHANNEL = CHANNEL + 7
#: Alice's names: her character's, and her display name in the server.
JADE = "Jadeleaf"
ALICE_SHOWN = "Alice Wonder"
QUILL = "Quillon"
_ids = itertools.count(7_000_000_000_000_000)
FORGED_TOTAL = json.dumps({"total": 99, "label": cm.TOMBSTONE, "expression": "1d20"})
FORGED_LABEL = json.dumps({"total": 12, "label": "Bob", "expression": "1d20"})


def caller(user_id: int, *, guild: int = GUILD, channel: int = CHANNEL) -> Caller:
    roles = frozenset({GM_ROLE}) if user_id == GM_USER else frozenset()
    return Caller(
        user_id=user_id,
        channel_id=channel,
        guild_id=guild,
        role_ids=roles,
        interaction_id=next(_ids),
        display_name={ALICE: ALICE_SHOWN, BOB: "Bob Builder", GM_USER: "Gemma"}[user_id],
    )


async def _characters(db: Database, campaign: CampaignView) -> tuple[CharacterView, CharacterView]:
    jade = await create_character(db, campaign.id, ALICE, JADE)
    quill = await create_character(db, campaign.id, BOB, QUILL)
    for character in (jade, quill):
        await set_score(db, character.id, "DEX", 12)
    return jade, quill


async def play(db: Database, campaign: CampaignView) -> dict[str, int]:
    """Alice and Bob play: public, hidden and revealed rolls, a reroll with a fortune die, a
    note, a GM's roll request both answer, and a score generation naming Alice."""
    jade, _ = await _characters(db, campaign)
    numbers: dict[str, int] = {}
    for user in (ALICE, BOB):
        label = f"{JADE} sneaks" if user == ALICE else f"{QUILL} strikes"
        done = await rolls.roll_dice(
            db,
            ScriptedRandom(then=12),
            caller(user),
            "1d20+2 [sneak] # quiet now",
            label=label,
            request=f"/roll dice:1d20+2 label:{label}",
        )
        numbers[f"public-{user}"] = done.number
    hidden = await rolls.roll_dice(
        db,
        ScriptedRandom(then=12),
        caller(ALICE),
        "1d20",
        label="only me",
        request="/roll dice:1d20 secret:self",
        visibility=Visibility.SELF,
    )
    numbers["self"] = hidden.number
    blind = await checks.perform_check(
        db,
        ScriptedRandom(9, then=12),
        caller(ALICE),
        checks.CheckOptions(ability="DEX"),
        f"/check ability:DEX character:{JADE} secret:blind",
        visibility=Visibility.BLIND,
    )
    numbers["revealed"] = blind.number
    await secrecy.reveal(db, caller(GM_USER), blind.number)
    await fortune.give_fortune(db, jade.id, origin(GM_USER), 2)
    checked = await checks.perform_check(
        db,
        ScriptedRandom(5, then=12),
        caller(ALICE),
        checks.CheckOptions(ability="DEX"),
        "/check ability:DEX",
    )
    await fortune_table.reroll_roll(db, ScriptedRandom(15, then=12), caller(ALICE), checked.roll_id)
    await fortune_table.spend(db, caller(ALICE), "hint", note=f"{JADE} reads the map")
    bob_check = await checks.perform_check(
        db,
        ScriptedRandom(14, then=12),
        caller(BOB),
        checks.CheckOptions(ability="DEX"),
        "/check ability:DEX",
    )
    numbers["bob-check"] = bob_check.number
    request = await requests.create(
        db,
        caller(GM_USER),
        "DEX",
        f"/request ability:DEX characters:{JADE}, {QUILL}",
        characters_text=f"{JADE}, {QUILL}",
    )
    for user in (ALICE, BOB):
        await requests.answer(
            db, ScriptedRandom(11, then=12), caller(user), request.id, "Roll button"
        )
    await generation.roll_scores(
        db,
        random.Random(5),
        caller(GM_USER),
        [(ALICE, ALICE_SHOWN), (BOB, "Bob Builder")],
        "/generate players:@Alice @Bob",
    )
    return numbers


async def every_value(db: Database) -> list[tuple[str, str]]:
    """Every value of every table, as text (JSON for JSON columns): (table, text)."""
    found: list[tuple[str, str]] = []
    async with db.sessionmaker() as session:
        for table in metadata.sorted_tables:
            for row in await session.execute(select(table)):
                for value in row:
                    if value is not None:
                        found.append((table.name, json.dumps(value, default=str)))
    return found


def traces(values: list[tuple[str, str]], *needles: str) -> list[tuple[str, str]]:
    lowered = [n.casefold() for n in needles]
    return [(t, v) for t, v in values if any(n in v.casefold() for n in lowered)]


async def rows_of(db: Database, user_id: int) -> list[dict[str, Any]]:
    async with db.sessionmaker() as session:
        stmt = select(ledger).where(ledger.c.user_id == user_id).order_by(ledger.c.id)
        return [dict(r._mapping) for r in await session.execute(stmt)]


async def test_an_erased_player_leaves_no_trace_and_every_roll_still_verifies(
    db: Database, pd_campaign: CampaignView
) -> None:
    numbers = await play(db, pd_campaign)
    before = await every_value(db)
    assert traces(before, str(ALICE), JADE, ALICE_SHOWN)  # the search finds her before
    bob_rows = await rows_of(db, BOB)
    assert (await gamelog.check_campaign_log(db, pd_campaign)).intact

    erased = await privacy.erase_user(db, ALICE, GUILD, names=[ALICE_SHOWN])

    assert erased.characters_deleted == 1 and erased.rolls_erased >= 6
    assert traces(await every_value(db), str(ALICE), JADE, ALICE_SHOWN) == []
    for redact in (False, True):
        data = await export.export_campaigns(db, campaign_id=pd_campaign.id, redact_private=redact)
        dumped = json.dumps(data)
        assert str(ALICE) not in dumped and JADE not in dumped and ALICE_SHOWN not in dumped
    # The log and every commitment still verify: the chain, a revealed roll for anyone...
    log = await gamelog.check_campaign_log(db, pd_campaign)
    async with db.sessionmaker() as session:
        total = len(list(await session.scalars(select(ledger.c.id))))
    assert log.intact and log.rolls == total
    checked = await secrecy.verify(db, caller(BOB), numbers["revealed"])
    assert checked.matches and checked.who_ok is True
    # The other players' data is as it was.
    assert await rows_of(db, BOB) == bob_rows
    # ...and every commitment, revealed or not: an operator's export imports (the importer
    # checks each one, and refuses a file whose log breaks).
    data = await export.export_campaigns(db, campaign_id=pd_campaign.id)
    (imported,) = await export.import_campaigns(
        db, data, guild_id=OTHER_GUILD, channel_id=OTHER_CHANNEL
    )
    assert imported.rows["ledger"] == log.rolls
    async with db.sessionmaker() as session:
        names = set(await session.scalars(text("SELECT name FROM characters")))
    assert names == {QUILL}
    # Erased rows carry the tombstone where her data was, the dice and results untouched.
    async with db.sessionmaker() as session:
        self_row = (
            await session.execute(
                select(ledger).where(
                    ledger.c.number == numbers["self"], ledger.c.campaign_id == pd_campaign.id
                )
            )
        ).one()
    assert self_row.user_id == cm.TOMBSTONE_ID and self_row.request == cm.TOMBSTONE
    assert self_row.outcome["label"] == cm.TOMBSTONE and isinstance(self_row.outcome["total"], int)


async def test_erasing_in_one_server_leaves_the_others(
    db: Database, pd_campaign: CampaignView
) -> None:
    await _characters(db, pd_campaign)
    await rolls.roll_dice(
        db, ScriptedRandom(then=12), caller(ALICE), "1d20", label=JADE, request="/roll dice:1d20"
    )
    elsewhere = caller(ALICE, guild=OTHER_GUILD, channel=OTHER_CHANNEL)
    await rolls.roll_dice(
        db, ScriptedRandom(then=12), elsewhere, "1d20", label=JADE, request="/roll dice:1d20"
    )
    await privacy.erase_user(db, ALICE, GUILD)
    shown = await privacy.stored_data(db, ALICE)
    assert [s.guild_id for s in shown.servers] == [OTHER_GUILD]
    assert shown.servers[0].rolls == 1
    await privacy.erase_user(db, ALICE, None)
    assert (await privacy.stored_data(db, ALICE)).empty


async def test_show_lists_what_is_stored_per_server(
    db: Database, pd_campaign: CampaignView
) -> None:
    await play(db, pd_campaign)
    shown = await privacy.stored_data(db, ALICE)
    (here,) = shown.servers
    assert here.guild_id == GUILD
    assert [(c.name, c.scores) for c in here.characters] == [(JADE, (("DEX", 12),))]
    assert here.characters[0].fortune == 0  # given two: one spent on the reroll, one on a hint
    assert here.rolls >= 6 and here.first_roll is not None and here.last_roll is not None
    assert here.first_roll <= here.last_roll
    assert here.fortune_choices == 1 and here.requests_received == 1
    assert (await privacy.stored_data(db, BOB)).servers[0].rolls >= 2


async def test_the_ledger_still_refuses_anything_but_a_tombstone(
    db: Database, pd_campaign: CampaignView
) -> None:
    await _characters(db, pd_campaign)
    done = await rolls.roll_dice(
        db, ScriptedRandom(then=12), caller(ALICE), "1d20", label=JADE, request="/roll dice:1d20"
    )
    bad = [
        "UPDATE ledger SET user_id = 5 WHERE id = :id",
        "UPDATE ledger SET request = 'something else' WHERE id = :id",
        # A number changed, or text changed to anything but the tombstone:
        "UPDATE ledger SET outcome = '" + FORGED_TOTAL + "' WHERE id = :id",
        "UPDATE ledger SET outcome = '" + FORGED_LABEL + "' WHERE id = :id",
        "UPDATE ledger SET who = 'x' WHERE id = :id",
        "DELETE FROM ledger WHERE id = :id",
    ]
    for statement in bad:
        with pytest.raises(DBAPIError, match="append-only"):
            async with db.engine.begin() as connection:
                await connection.execute(text(statement), {"id": done.roll_id})
    async with db.engine.begin() as connection:
        row = (
            await connection.execute(select(ledger.c.outcome).where(ledger.c.id == done.roll_id))
        ).one()
        tombstoned = dict(row.outcome, label=cm.TOMBSTONE)
        await connection.execute(
            ledger.update()
            .where(ledger.c.id == done.roll_id)
            .values(user_id=0, request=cm.TOMBSTONE, outcome=tombstoned)
        )
    # Un-erasing is refused too.
    with pytest.raises(DBAPIError, match="append-only"):
        async with db.engine.begin() as connection:
            await connection.execute(
                ledger.update().where(ledger.c.id == done.roll_id).values(user_id=ALICE)
            )


DOC = Path(__file__).resolve().parents[2] / "docs" / "privacy.md"


def test_the_privacy_note_covers_every_table_and_says_what_the_code_does() -> None:
    """docs/privacy.md is a claim: a table added later must say what it keeps of a person."""
    note = DOC.read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z_]+)`", note))
    assert {table.name for table in metadata.sorted_tables} <= documented
    assert f"`{cm.TOMBSTONE}`" in note and f"becomes `{cm.TOMBSTONE_ID}`" in note
    # "A name of one or two letters is only matched as a whole field".
    assert privacy.MIN_NAME_IN_TEXT == 3 and "A name of one or two" in note
    assert privacy.DOC_URL == "docs/privacy.md"


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Sybilla", True),
        ("sybilla (2)", True),  # a display name made distinct in a generation
        ("Sybilla (GM)", True),
        ("Pass: Sybilla, Bo · Fail: nobody", True),
        ("Sybillan", False),  # another name that starts with hers
        ("Bob", False),  # "Bo" is too short to look for inside text
        ("Bo", True),  # but a whole field that is her name is hers
        (f"<@{ALICE}> rolls", True),
        (f"{ALICE}1", False),
    ],
)
def test_what_counts_as_naming_her(text: str, named: bool) -> None:
    matcher = privacy._Matcher(ALICE, ["Sybilla", "Bo"])
    assert matcher(text) is named


def test_a_name_that_is_a_command_word_does_not_erase_every_command() -> None:
    matcher = privacy._Matcher(ALICE, ["Roll", "Check"])
    assert not matcher("/roll dice:1d20 label:fire", command=True)
    assert not matcher("/gm check ability:DEX", command=True)
    assert matcher("/roll dice:1d20 label:Roll for initiative", command=True)
    kept = privacy._tombstoned(
        {"ability": "Check", "result": "Roll", "label": "Check this"}, None, False, matcher
    )
    assert kept == {"ability": "Check", "result": "Roll", "label": cm.TOMBSTONE}


def test_a_character_named_after_a_rule_system_leaves_stored_rolls_decodable() -> None:
    # A stored outcome names its system ("system": key), which decodes it: a character
    # called "Threshold" erased from a row keeps the key as it was.
    matcher = privacy._Matcher(ALICE, ["threshold"])
    kept = privacy._tombstoned({"system": "threshold", "label": "threshold"}, None, True, matcher)
    assert kept == {"system": "threshold", "label": cm.TOMBSTONE}


async def test_a_nickname_or_character_named_after_someone_else_erases_nothing_of_theirs(
    db: Database, pd_campaign: CampaignView
) -> None:
    """A player who names a character in another campaign, or sets a nickname, after Bob's
    character, then erases their data, leaves Bob's rolls as they were."""
    await play(db, pd_campaign)
    other = await campaigns_svc.setup_campaign(db, GUILD, CHANNEL + 1, RuleSystem.PEN_AND_DAGGER)
    await create_character(db, other.id, ALICE, QUILL)
    bob_rows = await rows_of(db, BOB)
    await privacy.erase_user(db, ALICE, GUILD, names=[QUILL, ALICE_SHOWN])
    assert await rows_of(db, BOB) == bob_rows
    async with db.sessionmaker() as session:
        targets = list(await session.scalars(select(roll_request_targets.c.character_name)))
    assert sorted(targets) == sorted([cm.TOMBSTONE, QUILL])


async def test_a_name_from_another_campaign_never_erases_rolls_of_no_campaign(
    db: Database, pd_campaign: CampaignView
) -> None:
    # Bob's roll in a channel with no campaign names his character; Alice names a character
    # of hers the same in another campaign, then asks to be erased: Bob's words stay.
    await play(db, pd_campaign)
    await rolls.roll_dice(
        db,
        ScriptedRandom(then=12),
        caller(BOB, channel=CHANNEL + 50),
        "1d20",
        label=f"{QUILL} attacks",
        request="/roll dice:1d20",
    )
    other = await campaigns_svc.setup_campaign(db, GUILD, CHANNEL + 1, RuleSystem.PEN_AND_DAGGER)
    await create_character(db, other.id, ALICE, QUILL)
    bob_rows = await rows_of(db, BOB)
    await privacy.erase_user(db, ALICE, GUILD, names=[ALICE_SHOWN])
    assert await rows_of(db, BOB) == bob_rows


async def test_attack_damage_is_charged_to_the_work_budget(db: Database) -> None:
    # A loop of /roll 1000d20kh500 is refused; the same dice as an attack's damage
    # must not get round the budget.
    from dataclasses import replace

    from bot.services.kit import budgets
    from bot.services.rolling import attacks

    campaign = await campaigns_svc.setup_campaign(
        db, GUILD, CHANNEL, RuleSystem.D20_CHECK, gm_role_ids=[GM_ROLE]
    )
    hero = await create_character(db, campaign.id, ALICE, "Jade")
    await set_score(db, hero.id, "STR", 12)
    tight = budgets.Budgets(budgets.Rate(50, 0.0001), budgets.Rate(1e9, 1))
    spent = replace(caller(ALICE), budget=tight)
    await rolls.roll_dice(db, ScriptedRandom(then=12), spent, "1000d20kh500", request="/roll")
    before = await rows_of(db, ALICE)
    with pytest.raises(budgets.OverBudget):
        await attacks.perform_attack(
            db,
            ScriptedRandom(then=12),
            spent,
            attacks.AttackOptions(ac=1, damage="1000d20kh500"),
            "/attack",
        )
    assert await rows_of(db, ALICE) == before  # refused: nothing recorded
