"""/history, /verify, /stats: the ledger as players may see it; /reveal: a hidden roll shown.

/history [player] [character] [kind] [limit], /verify roll:<number> | log:True, /stats [player],
/reveal roll:<number>.

Every answer but a reveal's is ephemeral: it is shaped by what the caller may see (hidden
rolls as stubs, nothing from channels or threads they cannot read), so it must not be shown
to anyone else; except the game log's check, the same for everyone, posted for the channel as
the checkpoint the next check walks on from.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import _autocomplete as ac
from bot.cogs._caller import bot_of, caller_from
from bot.cogs._delivery import StubUnreadable, post_reveal, published_commitment
from bot.cogs._options import HistoryKind
from bot.cogs._views.fortune import reveal_view
from bot.cogs._views.history import send_history
from bot.interaction import Interaction, answer, defer, progress_edits
from bot.render.fair import fair_check_line, seed_check_text
from bot.render.gamelog import log_check_embed, published_checkpoint
from bot.render.history import stats_embed
from bot.render.secrecy import verify_embed
from bot.services.kit.errors import InvalidValue
from bot.services.rolling import stats
from bot.services.trust import fairness, gamelog, secrecy


async def _checkpoint_reads_back(client: discord.Client, checkpoint: gamelog.Checkpoint) -> bool:
    """Whether the checkpoint's message, as Discord shows it now, was posted by this bot and
    shows the checkpoint's number and head (a database edit alone cannot make it so)."""
    try:
        channel = client.get_channel(checkpoint.channel_id) or await client.fetch_channel(
            checkpoint.channel_id
        )
        if not isinstance(channel, discord.abc.Messageable):
            return False
        message = await channel.fetch_message(checkpoint.message_id)
    except discord.HTTPException:
        return False
    if client.user is None or message.author.id != client.user.id:
        return False
    return published_checkpoint(message.embeds) == (checkpoint.number, checkpoint.head)


async def _verify_log(interaction: Interaction, full: bool) -> None:
    """``/verify log:True``: walked from the last published checkpoint (or all: ``full``),
    showing its progress; an intact result becomes the next checkpoint."""
    db, caller = bot_of(interaction).db, caller_from(interaction)

    async def confirm(checkpoint: gamelog.Checkpoint) -> bool:
        return await _checkpoint_reads_back(interaction.client, checkpoint)

    checked = await gamelog.verify_log(
        db, caller, full=full, confirm=confirm, progress=progress_edits(interaction, "rolls")
    )
    message_id = await answer(interaction, embed=log_check_embed(checked))
    if (
        checked.intact
        and checked.campaign is not None
        and checked.last_number
        and message_id is not None
        and interaction.channel_id is not None
    ):
        await gamelog.record_checkpoint(
            db,
            checked.campaign.id,
            gamelog.Checkpoint(
                checked.last_number, checked.head, interaction.channel_id, message_id
            ),
        )


# SCOPED: why every command here defers first is told in bot/cogs/_views/history.py.
class HistoryCog(commands.Cog):
    """The ledger you can ask."""

    @app_commands.command(name="history", description="This campaign's rolls, newest first")
    @app_commands.describe(
        player="Only this player's rolls",
        character="Only this character's rolls",
        kind="Only rolls of this kind",
        limit="Rolls per page (default 10, at most 25)",
    )
    @app_commands.autocomplete(character=ac.any_character)
    @app_commands.guild_only()
    async def history(
        self,
        interaction: Interaction,
        player: discord.Member | None = None,
        character: app_commands.Range[str, 1, 64] | None = None,
        kind: HistoryKind | None = None,
        limit: app_commands.Range[int, 1, 25] = 10,
    ) -> None:
        await send_history(interaction, player, character, kind, limit, gm_log=False)

    @app_commands.command(
        name="verify", description="Check a hidden roll against its stub, or the whole game log"
    )
    @app_commands.describe(
        roll="The roll's number, e.g. 42 for #42",
        log="Check that no roll of this campaign was changed, removed or reordered",
        seed="A revealed dice seed: check it against the hash published before its use",
        full="With log: walk every roll again, not only those since the last check",
    )
    # Not server-only: rolls and seeds of a DM with the bot are checked there too.
    async def verify(
        self,
        interaction: Interaction,
        roll: app_commands.Range[int, 1, None] | None = None,
        log: bool = False,
        seed: app_commands.Range[str, 1, 100] | None = None,
        full: bool = False,
    ) -> None:
        """``/verify roll:42`` against the stub as Discord shows it and recomputed from its
        seeds; ``/verify log:True``; ``/verify seed:<hex>``.

        The log's check is posted for the channel: it shows nothing hidden, and its head is
        the checkpoint the next check reads back and walks on from.
        """
        await defer(interaction, ephemeral=not log or seed is not None)  # see SCOPED
        db, caller = bot_of(interaction).db, caller_from(interaction)
        if seed is not None:
            checked_seed = await fairness.verify_seed(db, caller, seed)
            await answer(interaction, seed_check_text(checked_seed), ephemeral=True)
            return
        if log:
            await _verify_log(interaction, full)
            return
        if roll is None:
            raise InvalidValue(
                "Say which roll to check (/verify roll:42), or check the whole game log "
                "(/verify log:True)."
            )
        found = await secrecy.verify(db, caller, roll)
        if found.stub is not None and found.stored is not None:
            # Reading the stub is a REST call: deferred above, within Discord's 3 s.
            try:
                published = await published_commitment(interaction.client, found.stub)
                found = secrecy.against_published(found, published)
            except StubUnreadable:
                found = secrecy.against_published(found, None, unreadable=True)
        else:
            found = secrecy.against_published(found, None)
        embed = verify_embed(found)
        # The faces recomputed from the roll's seeds, once its server seed is revealed.
        fair_check = await fairness.verify_roll(db, caller, roll)
        embed.add_field(name="Fair dice", value=fair_check_line(fair_check), inline=False)
        await answer(interaction, embed=embed, ephemeral=True)

    @app_commands.command(
        name="reveal",
        description=(
            "Show a hidden roll to the table: your own self roll, or as GM a gm or blind one"
        ),
    )
    @app_commands.describe(roll="The roll's number, e.g. 42 for #42")
    async def reveal(
        self, interaction: Interaction, roll: app_commands.Range[int, 1, None]
    ) -> None:
        """The one command that reveals a hidden roll (docs/secret-rolls.md): a self roll only
        its roller has seen, so only the roller reveals it; a gm or blind roll, the GM. The
        service decides who may."""
        await defer(interaction, ephemeral=False)  # see SCOPED; a reveal is for the table
        db = bot_of(interaction).db
        found = await secrecy.reveal(db, caller_from(interaction), roll)
        await post_reveal(interaction, found, await reveal_view(db, found.row))

    @app_commands.command(
        name="stats", description="Natural d20 faces per player against fair dice"
    )
    @app_commands.describe(player="Only this player")
    @app_commands.guild_only()
    async def stats(self, interaction: Interaction, player: discord.Member | None = None) -> None:
        await defer(interaction, ephemeral=True)  # see SCOPED
        found = await stats.campaign_stats(
            bot_of(interaction).db,
            caller_from(interaction),
            player.id if player else None,
            progress=progress_edits(interaction, "rolls", "counted"),
        )
        await answer(interaction, embed=stats_embed(found), ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(HistoryCog())
