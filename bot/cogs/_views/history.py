"""The history pager: shared by /history and /gm log."""

from __future__ import annotations

from typing import Any

import discord

from bot.cogs._caller import bot_of, caller_from
from bot.cogs._views.noted import Noted
from bot.db.engine import Database
from bot.interaction import Interaction, answer, defer, update_message
from bot.render import style
from bot.render.history import history_embed
from bot.services.kit.context import Caller
from bot.services.rolling import history
from bot.services.rolling.history import HistoryFilter
from bot.services.table import delivery
from bot.tree import answer_error

PAGE_TIMEOUT = 600.0


# SCOPED: /history, /verify, /reveal and /gm log answer only about rolls where the caller
# can read, which may take REST calls (a thread the cache lacks, a private thread's members)
# and so a deferral. They always defer, first: a deferral only when a roll sits somewhere
# private would tell an outsider that the number exists (a roll they may not see answers
# exactly as a number never used: docs/secret-rolls.md).
class HistoryPager(Noted, discord.ui.View):
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

    async def allowed(self, interaction: discord.Interaction[Any], /) -> bool:
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
    async def newer_button(self, interaction: Interaction, _: discord.ui.Button[Any]) -> None:
        if len(self.cursors) > 1:
            self.cursors.pop()
        self.caller = caller_from(interaction)  # where they can read now, not when they began
        await defer(interaction, ephemeral=True)  # see SCOPED above
        await update_message(interaction, embed=await self.render(), view=self)

    @discord.ui.button(label="Older", style=discord.ButtonStyle.primary)
    async def older_button(self, interaction: Interaction, _: discord.ui.Button[Any]) -> None:
        if self.older is not None:
            self.cursors.append(self.older)
        self.caller = caller_from(interaction)  # where they can read now, not when they began
        await defer(interaction, ephemeral=True)  # see SCOPED above
        await update_message(interaction, embed=await self.render(), view=self)


async def send_history(
    interaction: Interaction,
    player: discord.Member | discord.User | None,
    character: str | None,
    kind: str | None,
    limit: int,
    *,
    gm_log: bool,
) -> None:
    """Shared by /history and /gm log: the first page, ephemeral, with the pager."""
    await defer(interaction, ephemeral=True)  # see SCOPED above
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
    if gm_log:
        # What the bot could not post by itself, newest first (bot/cogs/_notices.py).
        notices = await delivery.undelivered(bot.db, query.campaign_id, gm=True, limit=5)
        if notices:
            style.add_field(embed, "Not posted", "\n".join(n.line for n in notices))
    await answer(interaction, embed=embed, view=pager, ephemeral=True)
