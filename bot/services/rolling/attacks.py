"""Attack rolls (d20 check ruling 7): d20 + modifiers vs AC, with the optional critical rules.

With the campaign's crit rules on (``/campaign set crit-rules``), a natural 20 that still hits
is a Critical Hit: its damage is rolled as normal ("Roll all of the attack's damage dice, add
any relevant modifiers as normal") and also lowers the target's AC unless the armour's quality
save holds. Rolling every damage die twice is the project's addition, a GM option
(``/campaign set crit-damage double:true``), off by default. A natural 1 is a fumble that
breaks the weapon unless the weapon's quality save holds. The rules engine decides all of this
(:func:`bot.rules.d20_check.roll_attack`); this module binds the attacker's stats, rolls the
damage, records the roll and stores a named target character's lost AC, in one transaction.

A hidden attack (gm, blind, self) changes nothing others can observe until it is revealed:
the AC its critical takes away is stored by its reveal
(:func:`bot.services.store.pending.ac_loss_on_reveal_in`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import partial
from typing import Any

from bot.db.engine import Database
from bot.dice import RollResult, parse, roll
from bot.dice.errors import DiceError
from bot.quoting import escape
from bot.rules import d20_check
from bot.rules.systems.base import signed
from bot.rules.systems.commands import require as require_rule
from bot.services.kit import budgets
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue
from bot.services.kit.serialize import to_jsonable
from bot.services.kit.sql import Executor, transaction
from bot.services.rolling.reads import Reads, one_roll
from bot.services.store import characters, ledger
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import MAX_AC_LOSS, CharacterView, character_by_name_in
from bot.services.trust import fairness, secrecy
from bot.services.trust.access import require_gm
from bot.words import LedgerKind, SecrecyCommand, Visibility

#: The AC an attack may target: a typo's 0 or 1000 is refused.
MIN_AC = 1
MAX_AC = d20_check.MAX_TARGET

#: Options that only mean something with the campaign's crit rules on.
_CRIT_OPTIONS = ("weapon_quality", "magic_bonus", "armour_quality", "armour_magic")


@dataclass(frozen=True, slots=True)
class AttackOptions:
    """What the player asked for; None / False means "not given"."""

    #: The target's Armour Class; None: the target character's own, from its sheet.
    ac: int | None = None
    #: The ability whose modifier is added: STR for melee, DEX for ranged, or any other.
    ability: str = "STR"
    #: Proficient with the weapon: the proficiency bonus is added (never doubled on attacks).
    proficiency: bool = True
    advantage: bool = False
    disadvantage: bool = False
    bonus: int | None = None
    #: Damage dice, rolled on a hit (all of its dice again on a critical, with the GM's
    #: crit-damage option).
    damage: str | None = None
    weapon_quality: str | None = None
    magic_bonus: int | None = None
    #: A character of the campaign being attacked: a critical's AC loss is stored for them.
    target: str | None = None
    armour_quality: str | None = None
    armour_magic: int | None = None
    #: /gm attack for an unnamed monster: its stat block's attack bonus (proficiency included).
    attacker_bonus: int | None = None


@dataclass(frozen=True, slots=True)
class Damage:
    """The damage of a hit: the roll, and on a critical the same dice rolled again."""

    roll: RollResult
    again: RollResult | None = None

    @property
    def extra(self) -> int:
        """What the critical's second roll of every damage die adds (modifiers count once)."""
        if self.again is None:
            return 0
        return sum(term.subtotal for term in self.again.terms)

    @property
    def total(self) -> int:
        """The damage dealt (never below 0)."""
        return max(0, self.roll.total + self.extra)

    def to_record(self) -> dict[str, Any]:
        """Every die, for the ledger."""
        return {
            "expression": self.roll.expression,
            "roll": self.roll.to_record(),
            "again": self.again.to_record() if self.again else None,
            "total": self.total,
        }


@dataclass(frozen=True, slots=True)
class KeptDamage:
    """A hit's damage as the attack a reroll replaced rolled it (bot/services/rolling/rerolls.py): a
    reroll of the d20 leaves the damage dice as they fell. Only a critical's second roll of
    every die (the GM's crit-damage option) follows the new result: rolled now for a new
    critical (``again``), dropped for a lost one."""

    expression: str
    #: The kept roll's total, and what its critical's second roll added (0: none, or dropped).
    rolled: int
    extra: int
    #: The public number of the roll the damage was rolled with.
    number: int
    #: A new critical's second roll of every damage die, rolled with the reroll.
    again: RollResult | None = None

    @property
    def added(self) -> int:
        """What a second roll of every die adds, kept or new (modifiers count once)."""
        fresh = 0 if self.again is None else sum(term.subtotal for term in self.again.terms)
        return self.extra + fresh

    @property
    def total(self) -> int:
        """The damage dealt (never below 0), as :attr:`Damage.total`."""
        return max(0, self.rolled + self.added)


@dataclass(frozen=True, slots=True)
class AttackResult:
    """A recorded attack: who attacked whom, the rules outcome, damage and the AC lost."""

    roll_id: int
    campaign: CampaignView
    attacker: str
    title: str
    outcome: d20_check.AttackOutcome
    #: The AC as given, and what critical hits had already taken from a target character.
    ac_given: int
    ac_loss_before: int = 0
    target: str | None = None
    damage: Damage | None = None
    #: The AC a critical's damage took away now (0: none), and the target's total loss after.
    ac_lost: int = 0
    ac_loss_after: int = 0
    #: True when ``ac_lost`` is stored on the target character (a public attack on a named
    #: target); a hidden one stores it when revealed.
    stored: bool = False
    #: True when the target's sheet may not change: another player's character attacked
    #: against an AC its sheet does not hold (only its own AC, or the GM, changes it).
    sheet_locked: bool = False
    #: True when the AC and armour came from the target character's own sheet.
    ac_from_sheet: bool = False
    visibility: Visibility = Visibility.PUBLIC
    commitment: str | None = None
    number: int = 0
    chain: str = ""
    character_id: int | None = None
    #: A reroll's damage when the attack was a hit before and still is (rerolls.py).
    kept_damage: KeptDamage | None = None
    #: The seed rotation this roll set off (its old seed revealed), to announce.
    rotation: fairness.Rotation | None = None

    @property
    def damage_total(self) -> int | None:
        """The damage dealt, rolled now or kept; None when none was rolled."""
        if self.kept_damage is not None:
            return self.kept_damage.total
        return None if self.damage is None else self.damage.total

    @property
    def gm_targets(self) -> secrecy.GmTargets:
        """Where the GM copy of a hidden attack goes."""
        return secrecy.GmTargets.of(self.campaign)


def _quality(text: str | None) -> d20_check.ItemQuality | None:
    return d20_check.ItemQuality.parse(text) if text else None


def _check_ac(ac: int | None) -> None:
    if ac is None:
        raise InvalidValue(
            "Give the target's Armour Class (ac:15), or name a target character whose sheet "
            "holds one (/character armour). Nothing was rolled."
        )
    if isinstance(ac, bool) or not isinstance(ac, int) or not MIN_AC <= ac <= MAX_AC:
        raise InvalidValue(
            f"AC {ac} is out of range: an Armour Class is {MIN_AC} to {MAX_AC}. Nothing was rolled."
        )


def damage_expression(text: str | None) -> Any:
    """The parsed damage dice (None: none given); a bad expression is the player's error."""
    if not text:
        return None
    try:
        return parse(text)
    except DiceError as exc:
        raise InvalidValue(
            f"The damage is not dice I can roll: {exc} Nothing was rolled."
        ) from None


def _require_d20(campaign: CampaignView) -> None:
    require_rule(campaign.rules, "attacks")


def _refuse_crit_options(campaign: CampaignView, options: AttackOptions) -> None:
    given = [name for name in _CRIT_OPTIONS if getattr(options, name) is not None]
    if given and not campaign.crit_rules:
        raise InvalidValue(
            f"{', '.join(given)} only matter for critical hits and fumbles, which this campaign "
            "does not use (a GM can turn them on with /campaign set crit-rules). Nothing was "
            "rolled."
        )


def attack_input(
    campaign: CampaignView,
    attacker: CharacterView | None,
    options: AttackOptions,
    *,
    ac_loss: int = 0,
) -> tuple[d20_check.AttackInput, str]:
    """The rules engine's input for this attack, and its title (no dice rolled).

    ``attacker`` None: an unnamed monster with ``options.attacker_bonus``. ``ac_loss``: what
    critical hits already took from the target's AC (the AC used never goes below 0).
    """
    _require_d20(campaign)
    _check_ac(options.ac)
    _refuse_crit_options(campaign, options)
    weapon = _quality(options.weapon_quality)
    armour = _quality(options.armour_quality)
    assert options.ac is not None  # _check_ac
    common: dict[str, Any] = {
        "ac": max(0, options.ac - ac_loss),
        "bonus": options.bonus or 0,
        "advantage": options.advantage,
        "disadvantage": options.disadvantage,
        "crit_rules": campaign.crit_rules,
        "weapon_quality": weapon,
        "weapon_magic_bonus": options.magic_bonus or 0,
        "armor_quality": armour,
        "armor_magic_bonus": options.armour_magic or 0,
    }
    if attacker is None:
        if options.attacker_bonus is None:
            raise InvalidValue(
                "Name the attacking character, or give the monster's attacker_bonus."
            )
        return d20_check.AttackInput(attack_bonus=options.attacker_bonus, **common), "attack"
    if options.attacker_bonus is not None:
        raise InvalidValue(
            "attacker_bonus is for a monster; a character attacks with their own scores."
        )
    ability = campaign.ability(options.ability)
    if ability not in attacker.scores:
        raise InvalidValue(
            f"{attacker.name} has no {ability} score yet: set it with "
            f"/character set ability:{ability} value:<number>."
        )
    attack = d20_check.AttackInput(
        score=attacker.scores[ability],
        ability=ability,
        level=attacker.level,
        proficient=options.proficiency,
        **common,
    )
    return attack, f"{ability} attack"


def reroll_inputs(
    attack: d20_check.AttackInput, damage: str | None, *, double: bool
) -> dict[str, Any]:
    """What a reroll of this attack needs besides its outcome (bot/services/rolling/rerolls.py): the
    damage as given, the items whose quality saves a new fumble or critical rolls, and whether
    the GM's crit-damage option rolled a critical's dice twice."""
    return {
        "damage": damage or None,
        "weapon_quality": attack.weapon_quality.value if attack.weapon_quality else None,
        "weapon_magic": attack.weapon_magic_bonus,
        "armour_quality": attack.armor_quality.value if attack.armor_quality else None,
        "armour_magic": attack.armor_magic_bonus,
        "crit_double_dice": double,
    }


def roll_damage(
    expression: Any, outcome: d20_check.AttackOutcome, rng: random.Random, *, double: bool
) -> Damage | None:
    """A hit's damage (none on a miss): rolled as normal; every die again on a critical only
    with the GM's crit-damage option."""
    if expression is None or not outcome.hit:
        return None
    first = roll(expression, rng)
    # The text: "Roll all of the attack's damage dice, add any relevant modifiers as normal":
    # a critical's damage is rolled once. Only the GM's crit-damage option rolls every die
    # again (modifiers still count once).
    again = roll(expression, rng) if outcome.critical and double else None
    return Damage(first, again)


def against_target(
    options: AttackOptions, target: CharacterView | None, user_id: int, as_gm: bool
) -> tuple[AttackOptions, bool, bool]:
    """The options an attack rolls with, whether the target's sheet may change, and whether
    the AC came from it.

    A character's sheet belongs to its player: another player's attack changes it (a
    critical's lost AC) only when rolled against the character's own AC and armour, as its
    sheet holds them (``/character armour``); the attacker's word for them is refused where it
    differs, and without an AC on the sheet the attack is rolled against the stated AC and
    stores nothing. The GM's attack, or one on the player's own character, uses what is
    stated, else the sheet's.
    """
    if target is None:
        return options, False, False
    sheet: dict[str, Any] = {
        "ac": target.ac,
        "armour_quality": target.armour_quality,
        "armour_magic": target.armour_magic,
    }
    if as_gm or target.user_id == user_id:
        if options.ac is not None or target.ac is None:
            return options, True, False
        filled = {k: v for k, v in sheet.items() if getattr(options, k) is None}
        return replace(options, **filled), True, True
    if target.ac is None:
        return options, False, False
    differs = [
        f"{name}:{given}"
        for name, given in (
            ("ac", options.ac),
            ("armour_quality", options.armour_quality),
            ("armour_magic", options.armour_magic),
        )
        if given is not None and str(given).casefold() != str(sheet[name]).casefold()
    ]
    if differs:
        magic = f"+{target.armour_magic}" if target.armour_magic else None
        armour = " ".join(p for p in (target.armour_quality, magic) if p)
        raise InvalidValue(
            f"{escape(target.name)} is another player's character: an attack on them uses "
            f"their own sheet (AC {target.ac}{', ' + armour + ' armour' if armour else ''}), "
            f"not {', '.join(differs)}. Leave those out, or ask the GM to run it with "
            "/gm attack. Nothing was rolled."
        )
    return replace(options, **sheet), True, True


async def _attacker_in(
    session: Executor,
    caller: Caller,
    options: AttackOptions,
    character_name: str | None,
    as_gm: bool,
    reads: Reads,
) -> tuple[CampaignView, CharacterView | None]:
    campaign = await reads.campaign_in(session)
    _require_d20(campaign)
    if as_gm:
        require_gm(campaign, caller, "attack for a character or a monster")
        if (character_name is None) == (options.attacker_bonus is None):
            raise InvalidValue(
                "Give either character (a player's character attacks) or attacker_bonus "
                "(a monster's attack bonus), not both."
            )
        if character_name is None:
            return campaign, None
    attacker = await reads.character_in(session, character_name, any_owner=as_gm)
    return campaign, attacker


# --- two phases: prepared (read and checked, no dice), then rolled and recorded ---------------


@dataclass(frozen=True, slots=True)
class PreparedAttack:
    """An attack read and checked, no die rolled: the campaign and attacker as read, the
    options as given and the damage parsed. Its target is read when it is rolled (after the
    draw, and after an earlier roll of the same text lowered its AC).
    :func:`roll_prepared_in` rolls it."""

    campaign: CampaignView
    #: None: the GM's unnamed monster (``options.attacker_bonus``).
    attacker: CharacterView | None
    #: Who attacks, as shown: the character, the GM's monster's name, or "Monster".
    name: str
    options: AttackOptions
    expression: Any
    #: The command whose campaign default a visibility of None means.
    command: str
    as_gm: bool = False
    #: The place as the statement that took this roll's fair draw found it (:class:`Reads`).
    here: fairness.Here | None = None

    @property
    def work(self) -> int:
        """What it takes from the budgets, before any die (:func:`attack_work`)."""
        return _work(self.expression)


async def prepare_in(
    session: Executor,
    caller: Caller,
    options: AttackOptions,
    *,
    reads: Reads | None = None,
    character_name: str | None = None,
    monster_name: str | None = None,
    as_gm: bool = False,
) -> PreparedAttack:
    """/attack read and checked for the caller's active character; with ``as_gm`` (/gm
    attack) for the campaign's character ``character_name`` or an unnamed monster."""
    if options.attacker_bonus is not None and not as_gm:
        raise InvalidValue("attacker_bonus is for a GM's monster (/gm attack).")
    expression = damage_expression(options.damage)  # a bad expression changes nothing
    reads = reads or Reads(caller)
    campaign, attacker = await _attacker_in(session, caller, options, character_name, as_gm, reads)
    # What the roll refuses whatever its target (the system, the crit options, the attacker's
    # score); the AC too, unless a target is named whose sheet may hold it.
    stated = (
        options if options.ac is not None or not options.target else replace(options, ac=MIN_AC)
    )
    attack_input(campaign, attacker, stated)
    name = attacker.name if attacker is not None else (monster_name or "Monster")
    command = SecrecyCommand.GM_CHECK if as_gm else SecrecyCommand.CHECK
    return PreparedAttack(
        campaign, attacker, name, options, expression, command, as_gm, reads.take_draw()
    )


async def roll_prepared_in(
    session: Executor,
    prepared: PreparedAttack,
    rng: random.Random,
    caller: Caller,
    request: str,
    *,
    visibility: Visibility | str | None = None,
) -> AttackResult:
    """Roll a prepared attack and record it, with the AC a named target loses, in the
    caller's transaction. ``visibility`` None means the campaign's default for the command
    (an attack is a d20 roll: /check's, or /gm check's)."""
    campaign, attacker = prepared.campaign, prepared.attacker
    chosen = secrecy.resolve_visibility(visibility, campaign, prepared.command)
    draw = None
    if fairness.chosen_source(rng):
        # Provably fair dice (docs/fair-dice.md). The draw comes first: every command takes
        # the seed's row, then the ledger chain's, then a character's (the target's lost AC),
        # so two commands never hold one lock each while waiting for the other's.
        draw = await fairness.draw_for_in(session, caller, prepared.here, campaign.id, chosen)
        rng = draw.rng
    target = None
    if prepared.options.target:
        target = await character_by_name_in(session, campaign.id, prepared.options.target)
    options, may_change, from_sheet = against_target(
        prepared.options, target, caller.user_id, prepared.as_gm
    )
    ac_loss = target.ac_loss if target is not None else 0
    attack, title = attack_input(campaign, attacker, options, ac_loss=ac_loss)
    outcome = d20_check.roll_attack(attack, rng)
    damage = roll_damage(prepared.expression, outcome, rng, double=campaign.crit_double_dice)
    lost = damage.total if damage is not None and outcome.lowers_target_ac else 0
    lost = min(lost, MAX_AC_LOSS - ac_loss)
    name = prepared.name
    record = {
        "attack": to_jsonable(outcome),
        "ac_given": options.ac,
        "ac_from_sheet": from_sheet,
        "ac_loss_before": ac_loss,
        "damage": damage.to_record() if damage else None,
        "target": target.name if target else None,
        "target_id": target.id if target else None,
        # Whether the target's sheet may change: a hidden attack's reveal stores its lost AC
        # there only then (bot/services/store/pending.py).
        "sheet_changes": may_change,
        "ac_lost": lost,
        "inputs": reroll_inputs(attack, options.damage, double=campaign.crit_double_dice),
    }
    if draw is not None:
        record["fair"] = fairness.attack_record(draw, fairness.attack_parts(record))
    recorded = await ledger.record_in(
        session,
        ledger.NewRoll(
            origin=ledger.Origin.of(caller),
            kind=LedgerKind.ATTACK,
            request=request,
            dice=list(outcome.dice),
            outcome=record,
            visibility=chosen,
            campaign_id=campaign.id,
            character_id=attacker.id if attacker else None,
            character_name=name,
            named=ledger.naming(
                None if attacker is None else (attacker.user_id, attacker.name),
                None if target is None else (target.user_id, target.name),
            ),
        ),
    )
    stored = False
    if target is not None and lost and may_change and chosen is Visibility.PUBLIC:
        await characters.lower_ac_in(session, target.id, lost)
        stored = True
    return AttackResult(
        roll_id=recorded.id,
        campaign=campaign,
        attacker=name,
        title=title,
        outcome=outcome,
        ac_given=options.ac or 0,
        ac_loss_before=ac_loss,
        target=target.name if target else None,
        damage=damage,
        ac_lost=lost,
        ac_loss_after=ac_loss + lost,
        stored=stored,
        sheet_locked=target is not None and not may_change,
        ac_from_sheet=from_sheet,
        visibility=chosen,
        commitment=recorded.commitment,
        number=recorded.number,
        chain=recorded.chain,
        character_id=attacker.id if attacker else None,
        rotation=draw.rotation if draw is not None else None,
    )


async def _perform(
    db: Database,
    rng: random.Random,
    caller: Caller,
    options: AttackOptions,
    request: str,
    *,
    visibility: Visibility | str | None,
    character_name: str | None = None,
    monster_name: str | None = None,
    as_gm: bool = False,
) -> AttackResult:
    # The roll and its row, and the damage's worst case twice (the GM's crit-damage option
    # rolls every die again); a bad expression or an OverBudget here changes nothing.
    prepare = partial(
        prepare_in,
        caller=caller,
        options=options,
        character_name=character_name,
        monster_name=monster_name,
        as_gm=as_gm,
    )
    work = attack_work(options)
    return await one_roll(db, rng, caller, request, visibility, work, prepare, roll_prepared_in)


async def perform_attack(
    db: Database,
    rng: random.Random,
    caller: Caller,
    options: AttackOptions,
    request: str,
    *,
    visibility: Visibility | str | None = None,
) -> AttackResult:
    """Roll an attack with the caller's active character and record it.

    ``visibility`` None means the campaign's default for /check (an attack is a d20 roll).
    """
    if options.attacker_bonus is not None:
        raise InvalidValue("attacker_bonus is for a GM's monster (/gm attack).")
    return await _perform(db, rng, caller, options, request, visibility=visibility)


async def perform_gm_attack(
    db: Database,
    rng: random.Random,
    caller: Caller,
    options: AttackOptions,
    request: str,
    *,
    character_name: str | None = None,
    monster_name: str | None = None,
    visibility: Visibility | str | None = None,
) -> AttackResult:
    """GM only: a player's character attacks with their stored scores, or an unnamed monster
    with its attack bonus (default: the campaign's /gm check default, normally blind)."""
    return await _perform(
        db,
        rng,
        caller,
        options,
        request,
        visibility=visibility,
        character_name=character_name,
        monster_name=" ".join(monster_name.split()) if monster_name else None,
        as_gm=True,
    )


@dataclass(frozen=True, slots=True)
class AttackOddsReport:
    """Exact odds of an attack, with the words describing what they assume."""

    title: str
    odds: d20_check.AttackOdds
    crit_rules: bool


async def attack_odds(db: Database, caller: Caller, options: AttackOptions) -> AttackOddsReport:
    """Exact odds of ``/attack`` with these options for the caller's active character."""
    if options.attacker_bonus is not None:
        raise InvalidValue("attacker_bonus is for a GM's monster (/gm attack).")
    async with transaction(db) as session:
        reads = Reads(caller)
        campaign, attacker = await _attacker_in(session, caller, options, None, False, reads)
        target = None
        if options.target:
            target = await character_by_name_in(session, campaign.id, options.target)
    assert attacker is not None
    options, _, _ = against_target(options, target, caller.user_id, False)
    ac_loss = target.ac_loss if target is not None else 0
    attack, title = attack_input(campaign, attacker, options, ac_loss=ac_loss)
    words = [f"{attacker.name}, {title}", f"AC {attack.ac}"]
    if options.advantage != options.disadvantage:
        words.append("advantage" if options.advantage else "disadvantage")
    if options.bonus:
        words.append(f"bonus {signed(options.bonus)}")
    return AttackOddsReport(", ".join(words), d20_check.attack_odds(attack), campaign.crit_rules)


def odds_rows(report: AttackOddsReport) -> tuple[tuple[str, Fraction], ...]:
    """The chart's rows: Critical Hit / Hit / Miss (they sum to 1), then fumble chances."""
    odds = report.odds
    rows: list[tuple[str, Fraction]] = []
    if report.crit_rules:
        rows.append(("Critical Hit", odds.critical))
    rows += [("Hit", odds.hit - odds.critical), ("Miss", 1 - odds.hit)]
    if report.crit_rules:
        rows += [("Fumble (natural 1)", odds.fumble), ("Weapon breaks", odds.weapon_breaks)]
        rows.append(("Critical lowers AC", odds.lowers_target_ac))
    return tuple(rows)


def _work(expression: Any) -> int:
    dice = 0 if expression is None else 2 * budgets.dice_work(expression)
    return budgets.ROLL_ROW + dice


def attack_work(options: AttackOptions) -> int:
    """What an attack charges the budgets (as :func:`perform_attack`): the roll recorded and
    its damage's worst case, twice; refuses a bad damage expression before anything changes."""
    return _work(damage_expression(options.damage))
