"""/history [player] [character] [kind] [limit], /verify roll:<number> | log:True, /stats [player].

Every answer is ephemeral: it is shaped by what the caller may see (hidden rolls as stubs,
nothing from channels or threads they cannot read), so it must not be shown to anyone else.
"""

from __future__ import annotations

from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import _autocomplete as ac
from bot.cogs._common import bot_of, caller_from
from bot.cogs._delivery import StubUnreadable, post_reveal, published_commitment
from bot.cogs._respond import answer, defer, update_message
from bot.cogs.fortune._buttons import reveal_view
from bot.db.engine import Database
from bot.render.gamelog import log_check_embed
from bot.render.history import history_embed, stats_embed
from bot.render.secrecy import verify_embed
from bot.services import gamelog, history, secrecy, stats
from bot.services.context import Caller
from bot.services.errors import InvalidValue
from bot.services.history import HistoryFilter
from bot.tree import answer_error

#: Every kind the ledger records (bot.services.ledger.Kind, "test" for threshold, the
#: natural-20 choices "keep" and "trade").
HistoryKind = Literal[
    "roll",
    "check",
    "save",
    "attempt",
    "luck",
    "test",
    "reroll",
    "keep",
    "trade",
    "fortune",
    "contest",
    "group",
    "generate",
    "attack",
    "d20-reroll",
    "preroll",
]
PAGE_TIMEOUT = 600.0


# SCOPED: these commands answer only about rolls where the caller can read, which may take
# REST calls (a thread the cache lacks, a private thread's members) and so a deferral. They
# always defer, first: a deferral only when a roll sits somewhere private would tell an
# outsider that the number exists (issue 15's "exactly as for a number never used").
class HistoryPager(discord.ui.View):
    """Newer / Older buttons over a filtered history; only the caller uses them."""

    def __init__(
        self, db: Database, caller: Caller, query: HistoryFilter, *, title: str, gm_log: bool
    ) -> None:
        super().__init__(timeout=PAGE_TIMEOUT)
        self.db = db
        self.caller = caller
        self.query = query
        self.title = title
        self.gm_log = gm_log
        #: before_id of each page shown so far (None: the newest page).
        self.cursors: list[int | None] = [None]
        self.older: int | None = None

    async def render(self) -> discord.Embed:
        """Fetch the current page, set the buttons, return the embed."""
        found = await history.page(self.db, self.caller, self.query, before_id=self.cursors[-1])
        self.older = found.older
        self.newer_button.disabled = len(self.cursors) <= 1
        self.older_button.disabled = found.older is None
        return history_embed(found, title=self.title, number=len(self.cursors), gm_log=self.gm_log)

    async def interaction_check(self, interaction: discord.Interaction[Any]) -> bool:
        if interaction.user.id != self.caller.user_id:
            await answer(interaction, "Run /history yourself to page through it.", ephemeral=True)
            return False
        return True

    async def on_error(
        self,
        interaction: discord.Interaction[Any],
        error: Exception,
        item: discord.ui.Item[Any],
    ) -> None:
        await answer_error(interaction, error)

    @discord.ui.button(label="Newer", style=discord.ButtonStyle.secondary)
    async def newer_button(
        self, interaction: discord.Interaction[Any], _: discord.ui.Button[Any]
    ) -> None:
        if len(self.cursors) > 1:
            self.cursors.pop()
        self.caller = caller_from(interaction)  # where they can read now, not when they began
        await defer(interaction, ephemeral=True)  # see SCOPED below
        await update_message(interaction, embed=await self.render(), view=self)

    @discord.ui.button(label="Older", style=discord.ButtonStyle.primary)
    async def older_button(
        self, interaction: discord.Interaction[Any], _: discord.ui.Button[Any]
    ) -> None:
        if self.older is not None:
            self.cursors.append(self.older)
        self.caller = caller_from(interaction)  # where they can read now, not when they began
        await defer(interaction, ephemeral=True)  # see SCOPED below
        await update_message(interaction, embed=await self.render(), view=self)


async def send_history(
    interaction: discord.Interaction[Any],
    player: discord.Member | discord.User | None,
    character: str | None,
    kind: str | None,
    limit: int,
    *,
    gm_log: bool,
) -> None:
    """Shared by /history and /gm log: the first page, ephemeral, with the pager."""
    await defer(interaction, ephemeral=True)  # see SCOPED
    bot = bot_of(interaction)
    caller = caller_from(interaction)
    query = await history.make_filter(
        bot.db,
        caller,
        player_id=player.id if player else None,
        character_name=character,
        kind=kind,
        limit=limit,
        gm_log=gm_log,
    )
    title = "Roll log (GM)" if gm_log else "Roll history"
    pager = HistoryPager(bot.db, caller, query, title=title, gm_log=gm_log)
    embed = await pager.render()
    await answer(interaction, embed=embed, view=pager, ephemeral=True)


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
        interaction: discord.Interaction[Any],
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
    )
    @app_commands.guild_only()
    async def verify(
        self,
        interaction: discord.Interaction[Any],
        roll: app_commands.Range[int, 1, None] | None = None,
        log: bool = False,
    ) -> None:
        """``/verify roll:42`` against the stub as Discord shows it; ``/verify log:True``."""
        await defer(interaction, ephemeral=True)  # see SCOPED
        db, caller = bot_of(interaction).db, caller_from(interaction)
        if log:
            checked = await gamelog.verify_log(db, caller)
            await answer(interaction, embed=log_check_embed(checked), ephemeral=True)
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
            await answer(interaction, embed=verify_embed(found), ephemeral=True)
            return
        found = secrecy.against_published(found, None)
        await answer(interaction, embed=verify_embed(found), ephemeral=True)

    @app_commands.command(name="reveal", description="Show your own secret:self roll to the table")
    @app_commands.describe(roll="The roll's number, e.g. 42 for #42")
    async def reveal(
        self, interaction: discord.Interaction[Any], roll: app_commands.Range[int, 1, None]
    ) -> None:
        """Issue 7, "self": only the roller has seen it, so only the roller reveals it; gm and
        blind rolls are the GM's to reveal (/gm reveal)."""
        await defer(interaction, ephemeral=False)  # see SCOPED; a reveal is for the table
        db = bot_of(interaction).db
        found = await secrecy.reveal(db, caller_from(interaction), roll)
        await post_reveal(interaction, found, await reveal_view(db, found.row))

    @app_commands.command(
        name="stats", description="Natural d20 faces per player against fair dice"
    )
    @app_commands.describe(player="Only this player")
    @app_commands.guild_only()
    async def stats(
        self, interaction: discord.Interaction[Any], player: discord.Member | None = None
    ) -> None:
        await defer(interaction, ephemeral=True)  # see SCOPED
        found = await stats.campaign_stats(
            bot_of(interaction).db, caller_from(interaction), player.id if player else None
        )
        await answer(interaction, embed=stats_embed(found), ephemeral=True)
