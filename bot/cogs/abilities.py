"""/abilities roll | assign: Pen & Dagger group ability-score generation.

/abilities roll (GM) and /abilities assign (each player): ruling 8's group activity.
"""

from __future__ import annotations

import asyncio
import re

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._delivery import announce_rotation
from bot.interaction import Interaction, answer, defer
from bot.quoting import escape, quote
from bot.render.groups import generation_embed
from bot.rules import pen_and_dagger as pd
from bot.rules.systems.base import signed
from bot.services.kit.errors import InvalidValue, NotFound
from bot.services.rolling import generation as generations
from bot.words import Visibility

_MENTION = re.compile(r"<@!?(\d+)>")
#: 4d6 drop the lowest: every group score is 3 to 18 (ruling 8).
Score = app_commands.Range[int, 3, 18]


async def _member(guild: discord.Guild, user_id: int) -> discord.Member:
    try:
        return await guild.fetch_member(user_id)
    except discord.HTTPException:
        raise NotFound(f"<@{user_id}> is not a member of this server.") from None


async def _players(interaction: Interaction, text: str) -> list[tuple[int, str]]:
    """Mentioned members in the order typed, with their display names; anything else refused.

    Members the cache lacks (without the members intent, most) are fetched concurrently,
    after deferring: one fetch each in a row would miss Discord's 3 s for a large group.
    """
    leftover = _MENTION.sub(" ", text).replace(",", " ").strip()
    if leftover:
        raise InvalidValue(
            f"Mention the players (e.g. @Ann @Bo); {quote(leftover.split()[0])} is not a mention."
        )
    guild = interaction.guild
    if guild is None:
        raise InvalidValue("Group generation happens in a server channel.")
    ids = [int(raw) for raw in _MENTION.findall(text)]
    if len(set(ids)) > generations.MAX_PLAYERS:  # refused before fetching anyone
        raise InvalidValue(
            f"At most {generations.MAX_PLAYERS} players can generate scores together."
        )
    known = {uid: m for uid in set(ids) if (m := guild.get_member(uid)) is not None}
    missing = [uid for uid in dict.fromkeys(ids) if uid not in known]
    if missing:
        await defer(interaction, ephemeral=False)  # the scores are for the whole table
        fetched = await asyncio.gather(*(_member(guild, uid) for uid in missing))
        known.update((m.id, m) for m in fetched)
    found: list[tuple[int, str]] = []
    for user_id in ids:
        member = known[user_id]
        if member.bot:
            raise InvalidValue(f"{quote(member.display_name)} is a bot and cannot roll dice.")
        found.append((member.id, member.display_name))
    return found


@app_commands.guild_only()  # every subcommand needs a server: none offered in DMs
class AbilitiesCog(commands.GroupCog, group_name="abilities"):
    """Pen & Dagger group ability-score generation (ruling 8)."""

    @app_commands.command(
        name="roll", description="Pen & Dagger GM: the group rolls six ability scores"
    )
    @app_commands.describe(players="@mentions of the players who take part")
    @app_commands.guild_only()
    async def roll(
        self, interaction: Interaction, players: app_commands.Range[str, 1, 1500]
    ) -> None:
        bot = bot_of(interaction)
        result = await generations.roll_scores(
            bot.db,
            bot.rng,
            caller_from(interaction),
            await _players(interaction, players),
            request_text(interaction),
        )
        await answer(
            interaction,
            embed=generation_embed(result),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        await announce_rotation(interaction, result.rotation, Visibility.PUBLIC)

    @app_commands.command(
        name="assign", description="Pen & Dagger: give your character the group's six scores"
    )
    @app_commands.describe(
        str_="The group's score you give to STR (Strength)",
        dex="The group's score you give to DEX (Dexterity)",
        con="The group's score you give to CON (Constitution)",
        int_="The group's score you give to INT (Intelligence)",
        wis="The group's score you give to WIS (Wisdom)",
        cha="The group's score you give to CHA (Charisma)",
        generation="The generation's number (default: your latest)",
        racial="Racial adjustments, e.g. STR+2, DEX-1 (applied before the 1st-level cap of 19)",
    )
    @app_commands.rename(str_="str", int_="int")
    @app_commands.guild_only()
    async def assign(
        self,
        interaction: Interaction,
        str_: Score,
        dex: Score,
        con: Score,
        int_: Score,
        wis: Score,
        cha: Score,
        generation: app_commands.Range[int, 1] | None = None,
        racial: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        chosen = {"STR": str_, "DEX": dex, "CON": con, "INT": int_, "WIS": wis, "CHA": cha}
        adjustments = pd.parse_racial_adjustments(racial) if racial else {}
        character, gen_id, _ = await generations.assign(
            bot_of(interaction).db, caller_from(interaction), chosen, generation, adjustments
        )
        line = ", ".join(f"{a} {v}" for a, v in chosen.items())
        text = (
            f"**{escape(character.name)}** takes the group's scores of generation "
            f"#{gen_id}: {line}."
        )
        if adjustments:
            final = ", ".join(f"{a} {character.scores[a]}" for a in chosen)
            given = ", ".join(f"{a}{signed(v)}" for a, v in adjustments.items())
            text += f"\nAfter racial adjustments ({given}): {final}."
        await answer(interaction, text)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(AbilitiesCog())
