"""/gm request roll | status | reveal, and the persistent "Roll" button of each request.

GM roll requests: `/gm request roll` posts one message with a "Roll" button.

The button is a :class:`discord.ui.DynamicItem` whose custom id holds only the request's id
(``pbp:req:<id>``); a click resolves everything from the database, so it works after a
restart and on any shard process.
"""

from __future__ import annotations

import logging
import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import _places as places
from bot.cogs._caller import bot_of, caller_from, request_text
from bot.cogs._clock_hooks import DELIVERERS, wake
from bot.cogs._delivery import announce_rotations
from bot.cogs._gm import ensure_gm_group, gm_group
from bot.cogs._notices import edit_notice, post_notice, send_to_gm
from bot.cogs._options import (
    AbilityName,
    Dc,
    DefaultChoice,
    DifficultyChoice,
    Duration,
    Name,
    Requested,
    declared,
)
from bot.cogs._views.noted import Noted
from bot.commands import ROLLING
from bot.errors import UserError
from bot.interaction import Interaction, answer, update_message
from bot.quoting import escape
from bot.render import places as place_words
from bot.render import style
from bot.render.fair import rotation_text
from bot.render.groups import FIELD_MEMBERS
from bot.render.requests import (
    closed_text,
    gm_undelivered_text,
    reminder_text,
    request_embed,
    request_file,
    request_pings,
    reveal_text,
    status_text,
    target_line,
)
from bot.services.kit.clock import format_duration, parse_duration
from bot.services.store.campaigns import CampaignView
from bot.services.table import requests
from bot.services.table.requests import Closed, Reminders, RequestView
from bot.services.trust.secrecy import GmTargets
from bot.tree import answer_error
from bot.words import NotifyMode

if TYPE_CHECKING:
    from bot.app import PbpBot

log = logging.getLogger(__name__)

REQUEST_ROLL = ROLLING["gm request roll"]


#: A request's number: its id, an INTEGER column (and within Discord's integer range).
RequestNumber = app_commands.Range[int, 1, 2**31 - 1]

request_group = app_commands.Group(
    name="request",
    description="Ask players to roll, each with their own character",
    parent=gm_group,
)


class RequestRollButton(
    Noted, discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"pbp:req:(?P<id>\d+)"
):
    """The "Roll" button of a request: only requested players, once per character."""

    def __init__(self, request_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Roll",
                emoji="🎲",
                style=discord.ButtonStyle.primary,
                custom_id=f"pbp:req:{request_id}",
            )
        )
        self.request_id = request_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> RequestRollButton:
        return cls(int(match["id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        try:
            answered = await requests.answer(
                bot.db,
                bot.rng,
                caller_from(interaction),
                self.request_id,
                f"Roll button of roll request #{self.request_id}",
                message_id=interaction.message.id if interaction.message else None,
                now=bot.clock.now(),
            )
            await update_message(
                interaction, embed=request_embed(answered.request), view=view_for(answered.request)
            )
        except Exception as error:  # one error path, as for commands
            await answer_error(interaction, error)
            return
        await announce_rotations(interaction, answered.rotations)
        if len(answered.request.targets) > FIELD_MEMBERS:
            # A large request's message lists names only: the player's own roll, to them.
            request = answered.request
            mine = next(
                (t for t in request.targets if t.character_name == answered.character_name), None
            )
            if mine is not None:
                line = target_line(mine, show=not request.hidden)
                await _private_note(
                    interaction, f"{escape(answered.character_name)}: {line}", request.id
                )
        if answered.completed_now and answered.request.hidden:
            await _tell_gm(interaction, answered.campaign, answered.request)


async def _private_note(interaction: Interaction, text: str, request_id: int) -> None:
    try:
        await interaction.followup.send(
            style.clip(text, style.MESSAGE_LIMIT),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )
    except discord.HTTPException as exc:
        log.info("request #%s: private note lost: %s %s", request_id, exc.status, exc.code)


class RequestListButton(
    Noted, discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"pbp:reqlist:(?P<id>\d+)"
):
    """A large request's "Full list": every character's roll as a file, to the clicker
    alone, shown as the public message shows it (a hidden DC's pass/fail stays the GM's:
    /gm request status has it)."""

    def __init__(self, request_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Full list",
                emoji="📋",
                style=discord.ButtonStyle.secondary,
                custom_id=f"pbp:reqlist:{request_id}",
            )
        )
        self.request_id = request_id

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> RequestListButton:
        return cls(int(match["id"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            found = await requests.load(bot_of(interaction).db, self.request_id)
            done = len(found.targets) - len(found.waiting)
            await answer(
                interaction,
                f"Roll request #{found.id}: {done} of {len(found.targets)} rolled.",
                file=request_file(found),
                ephemeral=True,
            )
        except Exception as error:  # one error path, as for commands
            await answer_error(interaction, error)


def view_for(request: RequestView) -> discord.ui.View | None:
    """The Roll button while someone still has to roll, and a large request's Full list;
    none once everyone has rolled on a small one."""
    large = len(request.targets) > FIELD_MEMBERS
    if request.complete and not large:
        return None
    view = discord.ui.View(timeout=None)
    if not request.complete:
        view.add_item(RequestRollButton(request.id))
    if large:
        view.add_item(RequestListButton(request.id))
    return view


async def _tell_gm(interaction: Interaction, campaign: CampaignView, request: RequestView) -> None:
    """Deliver the GM's view (pass/fail under a hidden DC) as every GM copy goes: the GM
    channel, else DMs to the GMs of setup; if nobody got it, tell the last player to roll."""
    delivered = await send_to_gm(
        interaction.client,
        GmTargets.of(campaign),
        f"Everyone has rolled for request #{request.id}; reveal with /gm request reveal "
        f"request:{request.id}.",
        request_embed(request, gm_view=True),
        what=f"the GM copy of roll request #{request.id}'s results",
    )
    if delivered:
        return
    try:
        await interaction.followup.send(
            gm_undelivered_text(request),
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )
    except discord.HTTPException as exc:
        log.warning("request #%s: GM copy and note lost: %s %s", request.id, exc.status, exc.code)


@request_group.command(name=REQUEST_ROLL.leaf, description=REQUEST_ROLL.help)
@declared(REQUEST_ROLL)
async def request_roll(
    interaction: Interaction,
    ability: AbilityName,
    characters: Requested | None = None,
    dc: Dc | None = None,
    hidden_dc: Dc | None = None,
    difficulty: DifficultyChoice | None = None,
    save: bool = False,
    proficiency: Name | None = None,
    deadline: Duration | None = None,
    default: DefaultChoice | None = None,
    remind: Duration | None = None,
) -> None:
    bot = bot_of(interaction)
    request = await requests.create(
        bot.db,
        caller_from(interaction),
        ability,
        request_text(interaction),
        characters_text=characters,
        dc=dc,
        hidden_dc=hidden_dc,
        difficulty=difficulty.replace("-", " ") if difficulty else None,
        save=save,
        proficiency=proficiency,
        now=bot.clock.now(),
        deadline=_duration(deadline, "deadline"),
        default=default,
        remind=_duration(remind, "reminder"),
    )
    wake(bot, request.remind_at or request.deadline_at)
    pings = request_pings(request)
    try:
        message_id = await answer(
            interaction,
            pings[0],
            embed=request_embed(request),
            view=view_for(request),
            allowed_mentions=discord.AllowedMentions(users=True),
        )
    except discord.HTTPException as exc:
        # Nothing was posted, so nobody could ever click Roll: leave no orphan request.
        log.warning("request #%s not posted: %s %s", request.id, exc.status, exc.code)
        await requests.discard_unposted(bot.db, request.id)
        raise UserError(
            "Discord did not post the roll request, so nothing was kept: run the command again."
        ) from exc
    for more in pings[1:]:  # the players whose mentions did not fit the request's message
        try:
            await interaction.followup.send(
                more, allowed_mentions=discord.AllowedMentions(users=True)
            )
        except discord.HTTPException as exc:
            log.warning("request #%s: pings lost: %s %s", request.id, exc.status, exc.code)
    if message_id is None:
        try:
            message_id = (await interaction.original_response()).id
        except discord.HTTPException as exc:  # the first click remembers the message instead
            log.warning("request #%s: message id unknown: %s %s", request.id, exc.status, exc.code)
            return
    await requests.set_message(bot.db, request.id, message_id)


@request_group.command(name="status", description="GM: who has not rolled yet (and the results)")
@app_commands.describe(request="The request's number (default: the latest)")
async def request_status(interaction: Interaction, request: RequestNumber | None = None) -> None:
    bot = bot_of(interaction)
    _, found = await requests.status(bot.db, caller_from(interaction), request)
    large = len(found.targets) > FIELD_MEMBERS
    await answer(
        interaction,
        status_text(found),
        embed=request_embed(found, gm_view=True),
        file=request_file(found, gm_view=True) if large else None,
        ephemeral=True,
    )


@request_group.command(
    name="reveal", description="GM: reveal a hidden DC (or threshold) and who passed"
)
@app_commands.describe(request="The request's number (default: the latest unrevealed)")
async def request_reveal(interaction: Interaction, request: RequestNumber | None = None) -> None:
    bot = bot_of(interaction)
    _, found = await requests.reveal(bot.db, caller_from(interaction), request, bot.clock.now())
    await answer(interaction, reveal_text(found), embed=request_embed(found))
    # Then (a REST call: only once answered) the request itself shows pass/fail too.
    await _refresh(interaction, found)


def _duration(text: str | None, what: str) -> timedelta | None:
    return None if text is None else parse_duration(text, what=what)


@request_group.command(name="extend", description="GM: give players more time on a request")
@app_commands.describe(
    request="The request's number (default: the latest open one)",
    by="How much longer, like 12h or 1d",
)
async def request_extend(
    interaction: Interaction,
    by: app_commands.Range[str, 1, 20],
    request: RequestNumber | None = None,
) -> None:
    bot = bot_of(interaction)
    span = parse_duration(by, what="extension")
    found = await requests.extend(bot.db, caller_from(interaction), request, span, bot.clock.now())
    wake(bot, found.deadline_at)
    assert found.deadline_at is not None
    epoch = int(found.deadline_at.timestamp())
    await answer(
        interaction,
        f"Roll request #{found.id}: deadline extended by {format_duration(span)}, "
        f"to <t:{epoch}:f> (<t:{epoch}:R>).",
    )
    # Then (a REST call: only once answered) the request's own message shows it.
    await _refresh(interaction, found)


@request_group.command(name="close", description="GM: close a request now, applying its default")
@app_commands.describe(request="The request's number (default: the latest open one)")
async def request_close(interaction: Interaction, request: RequestNumber | None = None) -> None:
    bot = bot_of(interaction)
    closed = await requests.close(
        bot.db, bot.rng, caller_from(interaction), request, bot.clock.now()
    )
    found = closed.request
    await answer(interaction, closed_text(found, closed.how), embed=request_embed(found))
    await announce_rotations(interaction, closed.rotations)
    await _refresh(interaction, found)
    if found.hidden:
        await _tell_gm(interaction, closed.campaign, found)


async def _refresh(interaction: Interaction, found: RequestView) -> None:
    """Update the request's own message in place (its deadline line, its button, its
    verdict); if Discord refuses, the GM who ran the command is told why and how to fix it."""
    if found.message_id is None:
        return
    client = interaction.client
    gap = await places.edit(
        client, found.channel_id, found.message_id, embed=request_embed(found), view=view_for(found)
    )
    if gap is None:
        return
    name = client.user.name if client.user is not None else "pbp-dice"
    why = place_words.reason_and_fix(gap.problem, gap.place_id, gap.parent_id, name)
    try:
        await interaction.followup.send(
            f"Roll request #{found.id}'s own message was not updated: {why}.",
            ephemeral=True,
            allowed_mentions=discord.AllowedMentions.none(),
        )
    except discord.HTTPException as exc:
        log.warning("request #%s: note on its message lost: %s %s", found.id, exc.status, exc.code)


# The game clock's notices for requests (registered in this package's setup).
async def deliver_closed(bot: PbpBot, closed: requests.Closed, job_id: int | None = None) -> bool:
    """The verdict posts, then the request's message loses its button and shows the result
    (in that order: Discord refuses edits in an archived thread, and the post reopens it)."""
    request = closed.request
    posted = await post_notice(
        bot,
        request.campaign_id,
        request.channel_id,
        f"the verdict of roll request #{request.id} (closed {closed.how})",
        closed_text(request, closed.how),
        embeds=[request_embed(request)],
        job_id=job_id,
    )
    revealed = True
    for rotation in closed.rotations:
        # A seed its default rolls used up, revealed as a command's answer would reveal it.
        shown = await post_notice(
            bot,
            request.campaign_id,
            request.channel_id,
            f"the dice seed roll request #{request.id}'s default rolls used up",
            rotation_text(rotation),
            job_id=job_id,
        )
        revealed = shown is not None and revealed
    edited = True
    if request.message_id is not None:
        edited = await edit_notice(
            bot,
            request.campaign_id,
            request.channel_id,
            request.message_id,
            f"the update of roll request #{request.id}'s message",
            embed=request_embed(request),
            view=view_for(request),
            job_id=job_id,
        )
    copied = True
    if request.hidden:
        copied = await send_to_gm(
            bot,
            GmTargets.of(closed.campaign),
            f"Roll request #{request.id} closed {closed.how}; reveal with "
            f"/gm request reveal request:{request.id}.",
            request_embed(request, gm_view=True),
            what=f"the GM copy of roll request #{request.id}'s results",
        )
    return posted is not None and revealed and edited and copied


async def deliver_reminders(
    bot: PbpBot, notice: requests.Reminders, job_id: int | None = None
) -> bool:
    """Each reminder as its player chose: a DM, or a ping in the request's place."""
    request = notice.request
    guild_id = request.guild_id
    link = (
        f"https://discord.com/channels/{guild_id}/{request.channel_id}/{request.message_id}"
        if request.message_id is not None and guild_id is not None
        else None
    )
    in_channel: list[str] = []
    mentioned: list[discord.Object] = []
    for reminder in notice.reminders:
        text = reminder_text(request, reminder, link)
        if reminder.mode == NotifyMode.DM:
            try:
                user = bot.get_user(reminder.user_id) or await bot.fetch_user(reminder.user_id)
                await user.send(text, allowed_mentions=discord.AllowedMentions.none())
                continue
            except discord.HTTPException:  # DMs closed: the channel, as by default
                log.info("request #%s: DM reminder refused; pinging in the channel", request.id)
        in_channel.append(text)
        mentioned.append(discord.Object(reminder.user_id))
    for text, pinged in zip(in_channel, mentioned, strict=True):
        posted = await post_notice(
            bot,
            request.campaign_id,
            request.channel_id,
            f"the reminders of roll request #{request.id}",
            text,
            mentions=discord.AllowedMentions(users=[pinged], everyone=False, roles=False),
            job_id=job_id,
        )
        if posted is None:
            return False  # kept once, the GM told: the others would be refused alike
    return True


async def setup(bot: commands.Bot) -> None:
    assert request_group.parent is not None
    ensure_gm_group(bot)
    bot.add_dynamic_items(RequestRollButton, RequestListButton)
    DELIVERERS[Closed] = deliver_closed
    DELIVERERS[Reminders] = deliver_reminders
