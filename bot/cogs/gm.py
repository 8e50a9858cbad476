"""/gm roll, /gm check, /gm log: the GM's hidden rolls and the full ledger.

The GM's rolls for players (default blind) and the full log; /gm reveal, the old name of
/reveal, until the release bot/render/renamed.py names.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import _autocomplete as ac
from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._delivery import announce_rotation, deliver, post_reveal
from bot.cogs._gm import ensure_gm_group, gm_group
from bot.cogs._options import (
    AbilityName,
    Bonus,
    CritAt,
    Dc,
    DifficultyChoice,
    HistoryKind,
    Label,
    Name,
    Next,
    Notation,
    RankBonus,
    Secret,
    check_options,
    declared,
)
from bot.cogs._renamed import ran_as_old_name
from bot.cogs._views.fortune import reveal_view
from bot.cogs._views.history import send_history
from bot.commands import ROLLING
from bot.interaction import Interaction, answer, defer
from bot.render.checks import check_embed
from bot.render.dice import roll_embed
from bot.render.fair import rotation_text
from bot.render.prerolls import applied_field
from bot.render.renamed import old_description
from bot.render.secrecy import Delivery
from bot.services.rolling import checks, prerolls
from bot.services.rolling.rolls import roll_dice
from bot.services.trust import secrecy
from bot.words import SecrecyCommand

GM_ROLL, GM_CHECK = ROLLING["gm roll"], ROLLING["gm check"]


class GmRollsCog(commands.Cog):
    """Holds nothing: the commands live on the shared /gm group (bot/cogs/_gm.py)."""


@gm_group.command(name=GM_ROLL.leaf, description=GM_ROLL.help)
@declared(GM_ROLL)
async def gm_roll(
    interaction: Interaction,
    dice: Notation,
    label: Label | None = None,
    secret: Secret | None = None,
) -> None:
    bot = bot_of(interaction)
    rolled = await roll_dice(
        bot.db,
        bot.rng,
        caller_from(interaction),
        dice,
        label=label,
        request=request_text(interaction),
        visibility=secret,
        command=SecrecyCommand.GM_ROLL,
    )
    name = "The GM"
    await deliver(
        interaction,
        Delivery.of(rolled, roll_embed(name, rolled), roller=name, what=label or "dice"),
        roller_is_gm=True,
    )
    if rolled.rotation is not None:  # its seed was due: revealed to all (hidden rolls blinded)
        await answer(interaction, rotation_text(rolled.rotation))


@gm_group.command(name=GM_CHECK.leaf, description=GM_CHECK.help)
@declared(GM_CHECK)
async def gm_check(
    interaction: Interaction,
    character: Name,
    ability: AbilityName,
    proficiency: Name | None = None,
    dc: Dc | None = None,
    difficulty: DifficultyChoice | None = None,
    advantage: bool = False,
    disadvantage: bool = False,
    bonus: Bonus | None = None,
    rank_bonus: RankBonus | None = None,
    reliable: bool = False,
    unreliable: bool = False,
    helper: Name | None = None,
    helper_needs_proficiency: bool = False,
    crit_success_at: CritAt | None = None,
    crit_failure_at: CritAt | None = None,
    secret: Secret | None = None,
    preroll: Next | None = None,
) -> None:
    options = check_options(GM_CHECK, locals())
    bot = bot_of(interaction)
    if preroll is not None:  # the character's sealed d20s (docs/prerolls.md), shown as sealed
        used = await prerolls.perform_gm_check(
            bot.db,
            bot.rng,
            caller_from(interaction),
            character,
            options,
            request_text(interaction),
            visibility=secret,
        )
        full = applied_field(check_embed(used.result, gm_copy=True), used.applied)
        await answer(interaction, embed=full, allowed_mentions=discord.AllowedMentions.none())
        return
    result = await checks.perform_gm_check(
        bot.db,
        bot.rng,
        caller_from(interaction),
        character,
        options,
        request_text(interaction),
        visibility=secret,
    )
    await deliver(
        interaction,
        Delivery.of(
            result,
            # The GM rolled it: every copy of a hidden one is a GM's (no "you may trade it").
            check_embed(result, gm_copy=True),
            roller=result.character.name,
            what=result.plan_title,
        ),
        roller_is_gm=True,
    )
    await announce_rotation(interaction, result.rotation, result.visibility)


@gm_group.command(
    name="reveal",
    description=old_description("gm reveal", "Show a hidden roll to everyone, with its salt"),
)
@app_commands.describe(roll="The roll's number, e.g. 42 for #42")
async def gm_reveal(interaction: Interaction, roll: app_commands.Range[int, 1, None]) -> None:
    """The old name of /reveal (bot/render/renamed.py): the same service, the same answer."""
    async with ran_as_old_name(interaction, "gm reveal"):
        await defer(interaction, ephemeral=False)  # as /reveal (_views/history.py: SCOPED)
        db = bot_of(interaction).db
        found = await secrecy.reveal(db, caller_from(interaction), roll)
        await post_reveal(interaction, found, await reveal_view(db, found.row))


@gm_group.command(name="log", description="Every roll of this campaign, hidden ones included (GM)")
@app_commands.describe(
    player="Only this player's rolls",
    character="Only this character's rolls",
    kind="Only rolls of this kind",
    limit="Rolls per page (default 10, at most 25)",
)
@app_commands.autocomplete(character=ac.any_character)
async def gm_log(
    interaction: Interaction,
    player: discord.Member | None = None,
    character: app_commands.Range[str, 1, 64] | None = None,
    kind: HistoryKind | None = None,
    limit: app_commands.Range[int, 1, 25] = 10,
) -> None:
    await send_history(interaction, player, character, kind, limit, gm_log=True)


async def setup(bot: commands.Bot) -> None:
    ensure_gm_group(bot)  # the subcommands are attached to it in _cog
    await bot.add_cog(GmRollsCog())
