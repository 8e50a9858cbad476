"""/post [text], /post-edit, /post-history: thin glue around bot/services/table/posts.py.

Discord lets a command either run or hold subcommands, not both, so `/post` itself posts and
its companions are `/post-edit` and `/post-history`.

With Manage Webhooks (read from the interaction's ``app_permissions``, before any request) the
post goes out through the channel's webhook under the character's name and portrait, and the
poster is answered privately; without it the post is the command's public answer, an embed
whose author is the character, and the channel is told once how to grant the permission.
"""

from __future__ import annotations

import dataclasses
import io
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from
from bot.cogs._delivery import announce_rotations
from bot.cogs._views.noted import Noted
from bot.cogs.post._webhooks import Webhooks, hook_place
from bot.errors import UserError
from bot.interaction import Interaction, answer, defer
from bot.quoting import clip_text
from bot.render import posts as view
from bot.services.kit.errors import InvalidValue, NotAllowed, NotFound
from bot.services.rolling.inline import InlineRolls, find_rolls
from bot.services.table import posts
from bot.tree import answer_error

log = logging.getLogger(__name__)
_QUIET = discord.AllowedMentions.none()

OnText = Callable[[Interaction, str], Awaitable[None]]
#: Discord's limit on a modal's title.
MODAL_TITLE_LIMIT = 45


class PostModal(Noted, discord.ui.Modal):
    """One paragraph field (up to 4,000 characters, Discord's maximum)."""

    def __init__(self, title: str, on_text: OnText, default: str | None = None) -> None:
        super().__init__(title=clip_text(title, MODAL_TITLE_LIMIT), timeout=1800)
        self.text: discord.ui.TextInput[PostModal] = discord.ui.TextInput(
            label="Text",
            style=discord.TextStyle.paragraph,
            max_length=posts.MAX_POST_TEXT,
            default=default,
            placeholder="Write in character; [[1d20+5]] or [[check DEX]] rolls in place.",
        )
        self.add_item(self.text)
        self._on_text = on_text

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await self._on_text(interaction, self.text.value)

    async def on_error(  # type: ignore[override]  # discord.py's Modal passes no item
        self, interaction: Interaction, error: Exception, /
    ) -> None:
        await answer_error(interaction, error)


class ReopenView(Noted, discord.ui.View):
    """Under a refused post: the form again, with the player's text in it."""

    def __init__(self, text: str, on_text: OnText) -> None:
        super().__init__(timeout=1800)
        self._text = text
        self._on_text = on_text

    @discord.ui.button(label="Edit it and post again", style=discord.ButtonStyle.primary)
    async def reopen(self, interaction: Interaction, _: discord.ui.Button[Any]) -> None:
        modal = PostModal("Post again", self._on_text, default=self._text)
        await interaction.response.send_modal(modal)


async def give_back(interaction: Interaction, why: str, text: str, on_text: OnText) -> None:
    """A refused post: why, the player's text as a file to keep, and the form to try again."""
    file = discord.File(io.BytesIO(text.encode("utf-8")), filename="your-post.txt")
    await answer(
        interaction,
        f"{why}\nNothing was posted; your text is attached (your-post.txt), and the button "
        "opens the form again with it.",
        file=file,
        view=ReopenView(text, on_text),
        ephemeral=True,
        allowed_mentions=_QUIET,
    )


def _link(guild_id: int | None, channel_id: int, message_id: int) -> str:
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


class PostCog(commands.Cog):
    """Posting as a character."""

    def __init__(self) -> None:
        self.webhooks = Webhooks()

    # ------------------------------------------------------------------ /post

    @app_commands.command(name="post", description="Post as your active character")
    @app_commands.describe(
        text="What your character says or does; [[1d20+5]] or [[check DEX]] rolls in place "
        "(omit it to write a longer post in a form)"
    )
    @app_commands.guild_only()
    async def post(
        self,
        interaction: Interaction,
        text: app_commands.Range[str, 1, posts.MAX_POST_TEXT] | None = None,
    ) -> None:
        if text is not None:
            await self._publish(interaction, text)
            return
        # Refused now (no campaign, no character) rather than after the player wrote a page.
        author = await posts.post_author(bot_of(interaction).db, caller_from(interaction))
        modal = PostModal(f"Post as {author.name}", self._publish)
        await interaction.response.send_modal(modal)

    async def _publish(self, interaction: Interaction, text: str) -> None:
        try:
            await self._post(interaction, text)
        except UserError as error:
            # Refused before anything was recorded: the player's words come back to them.
            await give_back(interaction, error.message, text, self._publish)

    async def _post(self, interaction: Interaction, text: str) -> None:
        bot = bot_of(interaction)
        caller = caller_from(interaction)
        place, _ = hook_place(interaction.channel)
        use_hook = place is not None and interaction.app_permissions.manage_webhooks
        if use_hook:
            await defer(interaction, ephemeral=True)
        new = await posts.create_post(bot.db, caller, text, bot.rng)
        await self._show(interaction, new, use_hook)
        # A seed its rolls used up: revealed to the channel, the next hash published.
        await announce_rotations(interaction, new.rolls.rotations)

    async def _show(self, interaction: Interaction, new: posts.NewPost, use_hook: bool) -> None:
        """The recorded post in the channel: by webhook, else as the bot's embeds."""
        bot = bot_of(interaction)
        caller = caller_from(interaction)
        place, thread = hook_place(interaction.channel)
        author = new.author
        refused = not use_hook  # the hint on Manage Webhooks: only when it is the reason
        if use_hook and place is not None and bot.user is not None:
            try:
                sent = await self._send_by_hook(place, thread, bot.user, new)
            except discord.HTTPException as exc:
                refused = isinstance(exc, discord.Forbidden)
                # Recorded already: shown as the bot's own embed rather than not at all.
                log.info(
                    "channel %s: webhook refused (%s %s); posting an embed",
                    caller.channel_id,
                    exc.status,
                    exc.code,
                )
            else:
                first, rest = sent[0], [m.id for m in sent[1:]]
                await posts.attach_message(bot.db, new.id, first.id, first.webhook_id, rest)
                link = _link(caller.guild_id, caller.channel_id, first.id)
                await answer(
                    interaction,
                    view.posted_text(author.name, link, new.number, new.rolls),
                    ephemeral=True,
                )
                return
        embeds = view.fallback_embeds(author.name, author.avatar_url, new.text, new.rolls)
        # An embed pings nobody: the players it may ping are named in the content as well.
        content = view.pings_content([e.description or "" for e in embeds], author.mentions)
        mentions = view.mentions(content or "", author.mentions)
        hint = await self._hint(interaction, caller.channel_id) if refused else None
        if use_hook:
            # Deferred privately for a webhook that refused: the poster is answered first (the
            # deferred answer), then the post goes out as the interaction's public followups,
            # which need no permission of the bot in the channel.
            done = view.posted_text(author.name, None, new.number, new.rolls)
            await answer(interaction, f"{done}\n{hint}" if hint else done, ephemeral=True)
            ids: list[int] = []
            for index, embed in enumerate(embeds):
                message = await interaction.followup.send(
                    content if index == 0 and content else discord.utils.MISSING,
                    embed=embed,
                    allowed_mentions=mentions if index == 0 else _QUIET,
                    wait=True,
                )
                ids.append(message.id)
            await posts.attach_message(bot.db, new.id, ids[0], None, ids[1:])
            return
        message_id = await answer(interaction, content, embed=embeds[0], allowed_mentions=mentions)
        if message_id is None:
            message_id = (await interaction.original_response()).id
        more = []
        for embed in embeds[1:]:
            message = await interaction.followup.send(
                embed=embed, allowed_mentions=_QUIET, wait=True
            )
            more.append(message.id)
        await posts.attach_message(bot.db, new.id, message_id, None, more)
        if hint:  # to the poster alone (they may not be who can grant it: it says who can)
            await interaction.followup.send(hint, ephemeral=True, allowed_mentions=_QUIET)

    async def _send_by_hook(
        self,
        place: Any,
        thread: discord.Thread | None,
        me: discord.abc.User,
        new: posts.NewPost,
    ) -> list[discord.WebhookMessage]:
        author = new.author
        parts = view.webhook_parts(new.text, new.rolls)
        for attempt in (1, 2):
            hook = await self.webhooks.for_channel(place, me)
            sent: list[discord.WebhookMessage] = []
            try:
                for part in parts:
                    sent.append(
                        await hook.send(
                            part,
                            username=view.webhook_username(author.name),
                            avatar_url=author.avatar_url or discord.utils.MISSING,
                            allowed_mentions=view.mentions(part, author.mentions),
                            thread=thread or discord.utils.MISSING,
                            wait=True,
                        )
                    )
                return sent
            except discord.NotFound:  # the webhook was deleted since: find or make another
                self.webhooks.forget(place.id)
                if attempt == 2 or sent:
                    raise
        raise AssertionError("unreachable")

    async def _hint(self, interaction: Interaction, channel_id: int) -> str | None:
        """How to grant Manage Webhooks, the first time in this channel only."""
        bot = bot_of(interaction)
        if not await posts.claim_webhook_hint(bot.db, channel_id, interaction.guild_id):
            return None
        name = bot.user.name if bot.user is not None else "the bot"
        return view.webhook_hint(name)

    # ------------------------------------------------------------------ /post-edit

    @app_commands.command(name="post-edit", description="Edit one of your posts (rolls stay)")
    @app_commands.describe(message="The post's message link (Copy Message Link) or id")
    @app_commands.guild_only()
    async def post_edit(
        self, interaction: Interaction, message: app_commands.Range[str, 1, 200]
    ) -> None:
        found = await posts.post_to_edit(bot_of(interaction).db, caller_from(interaction), message)

        async def submitted(submit: Interaction, text: str) -> None:
            await self._edit(submit, found, text)

        modal = PostModal(f"Edit {found.character_name}'s post", submitted, default=found.text)
        await interaction.response.send_modal(modal)

    async def _edit(self, interaction: Interaction, found: posts.StoredPost, text: str) -> None:
        await defer(interaction, ephemeral=True)
        bot = bot_of(interaction)
        channel = bot.get_channel(found.channel_id) or interaction.channel
        hook: discord.Webhook | None = None
        thread: discord.Thread | None = None
        if found.webhook_id is not None and found.message_id is not None:
            # The webhook first: an edit Discord could not show is refused before it is kept.
            place, thread = hook_place(channel)
            if place is None or bot.user is None:
                raise NotFound("That post's channel is gone.")
            hook = await self.webhooks.for_channel(place, bot.user)
            if hook.id != found.webhook_id:
                raise NotAllowed(
                    "That post's webhook was deleted, so Discord no longer lets it be edited."
                )
        # The rolls as they will sit in the new text (an edit that moves them is refused below).
        spans = find_rolls(text)
        rolls = InlineRolls(
            tuple(
                dataclasses.replace(roll, span=spans[i]) if i < len(spans) else roll
                for i, roll in enumerate(found.rolls)
            )
            if len(spans) == len(found.rolls)
            else ()
        )
        if hook is not None:
            parts = view.webhook_parts(text, rolls)
        else:
            parts = [
                e.description or ""
                for e in view.fallback_embeds(found.character_name, found.avatar_url, text, rolls)
            ]
        shown = [found.message_id, *found.continued_ids] if found.message_id else []
        if shown and len(parts) > len(shown):
            # Refused before the edit is recorded: an edit takes the post's own messages.
            room = len(shown) * (view.CONTENT_LIMIT if hook is not None else view.DESCRIPTION_LIMIT)
            over = max(1, sum(len(p) for p in parts) - room)
            raise InvalidValue(
                f"This edit needs {len(parts)} messages and the post has {len(shown)}: shorten "
                f"it by about {over:,} characters, or post the rest separately. "
                "Nothing was changed."
            )
        edited = await posts.edit_post(bot.db, caller_from(interaction), found.id, text)
        rolls = InlineRolls(edited.rolls)
        if edited.message_id is None:
            await answer(interaction, "Saved; that post's message was never sent.", ephemeral=True)
            return
        if hook is not None:
            for message_id, part in zip(shown, parts, strict=False):
                await hook.edit_message(
                    message_id,
                    content=part,
                    embed=None,
                    allowed_mentions=view.mentions(part, edited.mentions),
                    thread=thread or discord.utils.MISSING,
                )
            for message_id in shown[len(parts) :]:  # shorter now: the rest goes
                await hook.delete_message(message_id, thread=thread or discord.utils.MISSING)
        else:
            embeds = view.fallback_embeds(edited.character_name, edited.avatar_url, text, rolls)
            target = bot.get_partial_messageable(edited.channel_id, guild_id=interaction.guild_id)
            for message_id, embed in zip(shown, embeds, strict=False):
                await target.get_partial_message(message_id).edit(
                    embed=embed, allowed_mentions=_QUIET
                )
            for message_id in shown[len(embeds) :]:
                await target.get_partial_message(message_id).delete()
        if len(parts) < len(shown):
            await posts.attach_message(
                bot.db, edited.id, shown[0], edited.webhook_id, shown[1 : len(parts)]
            )
        link = _link(interaction.guild_id, edited.channel_id, edited.message_id)
        await answer(
            interaction,
            f"Edited (version {edited.version}): {link}. Its rolls are unchanged; "
            "/post-history shows every version.",
            ephemeral=True,
        )

    # ------------------------------------------------------------------ /post-history

    @app_commands.command(name="post-history", description="Every version of a post (GM, author)")
    @app_commands.describe(message="The post's message link (Copy Message Link) or id")
    @app_commands.guild_only()
    async def post_history(
        self, interaction: Interaction, message: app_commands.Range[str, 1, 200]
    ) -> None:
        found = await posts.post_history(bot_of(interaction).db, caller_from(interaction), message)
        await answer(interaction, embed=view.history_embed(found), ephemeral=True)
