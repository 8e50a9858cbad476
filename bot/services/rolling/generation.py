"""Group ability-score generation (Pen & Dagger ruling 8) and assigning the six scores.

The GM runs the group activity once: every die is attributed to the player who rolled it
(the GM rolls as one more player when their number is odd), and the six scores are stored
with an id. Each player who took part then assigns exactly those six scores to their active
character, one per ability, in one transaction.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from bot.db.engine import Database
from bot.db.models import character_scores
from bot.db.party_models import ability_generations
from bot.db.types import utcnow
from bot.rules import pen_and_dagger as pd
from bot.rules.systems.commands import require as require_rule
from bot.services.kit import commitments as cm
from bot.services.kit import personal
from bot.services.kit.context import Caller
from bot.services.kit.errors import InvalidValue, NotAllowed, NotFound
from bot.services.kit.personal import Person, PersonalData, declare, holds_id
from bot.services.kit.serialize import to_jsonable
from bot.services.kit.sql import Executor, insert_for, transaction
from bot.services.rolling.groups import campaign_in
from bot.services.store import characters, ledger
from bot.services.store.campaigns import CampaignView, campaign_ids_in
from bot.services.store.characters import CharacterView
from bot.services.trust import fairness
from bot.services.trust.access import require_gm
from bot.words import LedgerKind, Visibility

_G = ability_generations
#: Most players one generation takes (the rules allow more; a message must stay readable).
MAX_PLAYERS = 24


@dataclass(frozen=True, slots=True)
class GenerationResult:
    """A stored generation: its id, the dice by roller, the ledger row."""

    id: int
    campaign: CampaignView
    generation: pd.GroupGeneration
    roll_id: int
    #: The ledger row's public number.
    number: int = 0
    #: The seed its draw used up, if it was due: the place is shown it.
    rotation: fairness.Rotation | None = None


def _unique_names(players: Sequence[tuple[int, str]]) -> list[str]:
    """Display names, made distinct ("Sam", "Sam (2)") so every die names one player."""
    seen: dict[str, int] = {}
    names: list[str] = []
    for _, name in players:
        base = " ".join(name.split()) or "player"
        count = seen.get(base.casefold(), 0) + 1
        seen[base.casefold()] = count
        names.append(base if count == 1 else f"{base} ({count})")
    return names


def _require_pd(campaign: CampaignView) -> None:
    require_rule(campaign.rules, "generation")


async def roll_scores(
    db: Database,
    rng: random.Random,
    caller: Caller,
    players: Sequence[tuple[int, str]],
    request: str,
) -> GenerationResult:
    """GM: roll the group's six scores for ``players`` (user id, display name), ruling 8."""
    if not players:
        raise InvalidValue("Mention the players who take part, e.g. players:@Ann @Bo @Cy.")
    ids = [uid for uid, _ in players]
    if len(set(ids)) != len(ids):
        raise InvalidValue("Each player can join the roll only once.")
    if len(players) > MAX_PLAYERS:
        raise InvalidValue(f"At most {MAX_PLAYERS} players can generate scores together.")
    names = _unique_names(players)
    gm = f"{' '.join(caller.display_name.split()) or 'GM'} (GM)"
    while gm in names:
        gm += "*"
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        _require_pd(campaign)
        require_gm(campaign, caller, "run the group ability-score generation")
        record = draw = None
        if fairness.chosen_source(rng):
            # Provably fair (docs/fair-dice.md): one draw for the GM's command, its d6s in
            # the order the rules roll them (score by score).
            draw = await fairness.draw_in(session, caller, campaign.id, Visibility.PUBLIC)
            rng, record = draw.rng, draw.record(fairness.D6_DRAWS)
        generation = pd.generate_group_scores(names, rng, gm=gm)
        outcome = to_jsonable(generation)
        if record is not None:
            outcome = {**outcome, "fair": record}
        recorded = await ledger.record_in(
            session,
            ledger.NewRoll(
                origin=ledger.Origin.of(caller),
                kind=LedgerKind.GENERATE,
                request=request,
                dice=[die.value for score in generation.scores for die in score.dice],
                outcome=outcome,
                campaign_id=campaign.id,
                named=ledger.naming(*zip(ids, names, strict=True)),
            ),
        )
        new_id = (
            await session.execute(
                _G.insert()
                .values(
                    campaign_id=campaign.id,
                    gm_user_id=caller.user_id,
                    player_ids=ids,
                    scores=list(generation.values),
                    roll_id=recorded.id,
                    created_at=utcnow(),
                )
                .returning(_G.c.id)
            )
        ).scalar_one()
    rotation = draw.rotation if draw is not None else None
    return GenerationResult(
        int(new_id), campaign, generation, recorded.id, recorded.number, rotation
    )


async def _generation_in(
    session: AsyncSession, campaign: CampaignView, caller: Caller, generation_id: int | None
) -> tuple[int, list[int]]:
    stmt = select(_G.c.id, _G.c.player_ids, _G.c.scores).where(_G.c.campaign_id == campaign.id)
    if generation_id is not None:
        row = (await session.execute(stmt.where(_G.c.id == generation_id))).first()
        if row is None:
            raise NotFound(f"No ability generation #{generation_id} in this campaign.")
        if caller.user_id not in row.player_ids:
            raise NotAllowed(
                f"Generation #{generation_id} was rolled by other players; ask the GM for "
                "/abilities roll with you in it."
            )
        return int(row.id), [int(s) for s in row.scores]
    for row in await session.execute(stmt.order_by(_G.c.id.desc()).limit(100)):
        if caller.user_id in row.player_ids:
            return int(row.id), [int(s) for s in row.scores]
    raise NotFound(
        "No group ability scores rolled with you in this campaign yet: the GM runs "
        "/abilities roll players:<mentions>."
    )


async def assign(
    db: Database,
    caller: Caller,
    assignment: Mapping[str, int],
    generation_id: int | None = None,
    racial: Mapping[str, int] | None = None,
) -> tuple[CharacterView, int, list[int]]:
    """Assign the group's six scores to the caller's active character (ruling 8).

    Uses the latest generation the caller took part in, unless ``generation_id`` is given.
    Each score exactly once, one per ability; at 1st level none may exceed 19. Returns the
    character, the generation's id and its scores.
    """
    async with transaction(db) as session:
        campaign = await campaign_in(session, caller)
        _require_pd(campaign)
        character = await characters.active_character_in(session, campaign.id, caller.user_id)
        gen_id, scores = await _generation_in(session, campaign, caller, generation_id)
        # Ruling 8: racial adjustments apply before the 1st-level cap of 19.
        final = pd.validate_assignment(scores, assignment, racial, level=character.level)
        table = character_scores
        for ability, value in final.items():
            canonical = campaign.ability(ability)
            await session.execute(
                insert_for(session, table)
                .values(character_id=character.id, ability=canonical, value=value)
                .on_conflict_do_update(
                    index_elements=["character_id", "ability"], set_={"value": value}
                )
            )
        return await characters.load_character_in(session, character.id), gen_id, scores


# --- what a score generation keeps about a person (bot/services/kit/personal.py) ----------------


async def _erase_in(session: Executor, person: Person) -> int:
    """Score generations: their seat as player or GM (the display names in the generation's
    ledger row are erased with the log: it names its players in ``ledger_names``)."""
    user_id = person.user_id
    gens = ability_generations

    def generation(row: Any) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if user_id in row.player_ids:
            values["player_ids"] = [p for p in row.player_ids if p != user_id]
        if row.gm_user_id == user_id:
            values["gm_user_id"] = cm.TOMBSTONE_ID
        return values

    selected = select(gens.c.id, gens.c.gm_user_id, gens.c.player_ids).where(
        gens.c.campaign_id.in_(campaign_ids_in(person.guild_id)),
        or_(gens.c.gm_user_id == user_id, holds_id(gens.c.player_ids, user_id)),
    )
    return await personal.rewrite(session, gens, selected, generation)


PERSONAL_DATA = declare(
    PersonalData(
        "score generations",
        holdings=(
            personal.holding(
                "ability_generations", "gm_user_id or player_ids", "gm_user_id", "player_ids"
            ),
        ),
        not_personal={"ability_generations.scores": "the numbers rolled, nothing typed"},
        erase=personal.each_in_its_transaction(_erase_in),
    )
)
