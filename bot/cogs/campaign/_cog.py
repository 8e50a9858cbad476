"""/campaign setup | show | set … | export | delete."""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._caller import bot_of, caller_from
from bot.cogs._options import DifficultyChoice, Secret, WordChoices
from bot.cogs._views import ConfirmView
from bot.cogs.campaign._check import check_places
from bot.dice import dialects as dice_dialects
from bot.interaction import Interaction, answer, defer, progress_edits
from bot.render.fair import rotation_text, seed_line
from bot.render.places import check_embed
from bot.render.sheets import campaign_embed
from bot.rules.systems import SYSTEMS
from bot.services.rolling import dialects
from bot.services.store.campaigns import CampaignView
from bot.services.table import posts, sheets
from bot.services.trust import access, fairness, secrecy
from bot.services.trust import export as exports
from bot.services.trust.access import require_gm
from bot.words import SecrecyCommand

log = logging.getLogger(__name__)


def system_choices() -> list[app_commands.Choice[str]]:
    """/campaign setup's systems: every registered one, by its key."""
    return [app_commands.Choice(name=key, value=key) for key in SYSTEMS]


SecrecyCommandChoice = app_commands.Transform[str, WordChoices(SecrecyCommand)]


def _can_view(target: Any, overwrite: discord.PermissionOverwrite) -> bool:
    """A member overwrite (not a role's) that allows View Channel."""
    is_role = isinstance(target, discord.Role) or getattr(target, "type", None) is discord.Role
    return not is_role and overwrite.view_channel is True


async def _fetch_standing(guild: discord.Guild, user_id: int) -> sheets.ChannelMember | None:
    """A member with a View Channel overwrite, as they are now; None if they left the server.
    If they cannot be fetched their standing is unknown: counted as no GM."""
    try:
        member = await guild.fetch_member(user_id)
    except discord.NotFound:
        return None
    except discord.HTTPException as exc:
        log.warning("member %s could not be checked: %s %s", user_id, exc.status, exc.code)
        return sheets.ChannelMember(user_id)
    return sheets.ChannelMember(
        user_id,
        frozenset(role.id for role in member.roles),
        member.guild_permissions.manage_guild,
    )


async def channel_audience(
    interaction: Interaction, channel: discord.TextChannel, *, ephemeral: bool
) -> sheets.ChannelAudience:
    """Who can read ``channel``, from its overwrites (see :class:`sheets.ChannelAudience`).

    Roles come from the cache. Members with an overwrite of their own are fetched by REST
    (concurrently) for their roles now; the interaction is deferred first, as it must be
    answered within three seconds.
    """
    guild = channel.guild
    roles = frozenset(
        role.id
        for role in guild.roles
        if channel.permissions_for(role).view_channel
        and not (role.permissions.manage_guild or role.permissions.administrator)
    )
    me = interaction.client.user.id if interaction.client.user else None
    user_ids = [
        target.id
        for target, overwrite in channel.overwrites.items()
        if _can_view(target, overwrite) and target.id != me
    ]
    if not user_ids:
        return sheets.ChannelAudience(roles)
    await defer(interaction, ephemeral=ephemeral)
    found = await asyncio.gather(*(_fetch_standing(guild, uid) for uid in user_ids))
    return sheets.ChannelAudience(roles, tuple(m for m in found if m is not None))


async def _reply(
    interaction: Interaction, content: str, embed: discord.Embed, *, ephemeral: bool
) -> None:
    """The answer, whether or not :func:`channel_audience` deferred; a warning may name
    @everyone and roles, which must never ping."""
    await answer(
        interaction,
        content,
        embed=embed,
        ephemeral=ephemeral,
        allowed_mentions=discord.AllowedMentions.none(),
    )


def upload_limit(interaction: Interaction) -> int:
    """The largest file Discord accepts in answer to ``interaction`` (it depends on the
    server's boosts), in bytes; the server's own limit if the interaction does not say."""
    limit: int | None = getattr(interaction, "filesize_limit", None)
    if limit is None and interaction.guild is not None:
        limit = interaction.guild.filesize_limit
    return limit if limit is not None else exports.DEFAULT_SIZE_LIMIT


async def _send_check(interaction: Interaction, campaign: CampaignView, *, followup: bool) -> None:
    """The check, privately: as the answer, or after the answer (set-up's)."""
    guild = interaction.guild
    if guild is None:
        return
    await defer(interaction, ephemeral=True)  # it may ask Discord (an archived thread)
    checks = await check_places(interaction.client, guild, campaign)
    name = interaction.client.user.name if interaction.client.user else "pbp-dice"
    embed = check_embed(checks, name)
    if not followup:
        await answer(interaction, embed=embed, ephemeral=True)
        return
    try:
        await interaction.followup.send(
            embed=embed, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
        )
    except discord.HTTPException as exc:
        log.warning("campaign %s: check not shown: %s %s", campaign.id, exc.status, exc.code)


def _setup_command(cog: CampaignCog) -> app_commands.Command[Any, Any, None]:
    """/campaign setup, offering every rule system registered by now."""

    @app_commands.describe(
        system="The rule system the campaign plays",
        gm_role="Members with this role are GMs (Manage Server holders always are)",
        gm_channel="Where hidden rolls are shown to the GM",
    )
    @app_commands.choices(system=system_choices())
    @app_commands.guild_only()
    async def setup(
        interaction: Interaction,
        system: str,
        gm_role: discord.Role | None = None,
        gm_channel: discord.TextChannel | None = None,
    ) -> None:
        await cog.setup(interaction, system, gm_role, gm_channel)

    return app_commands.Command(
        name="setup",
        description="Start a campaign in this channel",
        callback=setup,
        parent=cog.app_command,
    )


@app_commands.guild_only()  # every subcommand needs a server: none offered in DMs
class CampaignCog(commands.GroupCog, group_name="campaign"):
    """Campaign set-up and settings; GM-only except /campaign show."""

    settings = app_commands.Group(name="set", description="Change a campaign setting (GM)")
    seed = app_commands.Group(name="seed", description="The dice's server seed (docs/fair-dice.md)")

    def __init__(self) -> None:
        super().__init__()
        # /campaign setup is built here, when the bot is built, not when this module was
        # first imported: its choices come from the registry, so a system registered since
        # (a test's toy) is offered too. It stays first among the subcommands.
        group = self.app_command
        assert group is not None  # a GroupCog always has its group
        others = [command for command in group.commands if command.name != "setup"]
        for command in others:
            group.remove_command(command.name)
        group.add_command(_setup_command(self))
        for command in others:
            group.add_command(command)

    async def setup(
        self,
        interaction: Interaction,
        system: str,
        gm_role: discord.Role | None = None,
        gm_channel: discord.TextChannel | None = None,
    ) -> None:
        """/campaign setup: start a campaign in this channel."""
        bot = bot_of(interaction)
        campaign = await sheets.setup(
            bot.db,
            caller_from(interaction),
            system,
            gm_role_id=gm_role.id if gm_role else None,
            gm_channel_id=gm_channel.id if gm_channel else None,
            in_forum=isinstance(interaction.channel, discord.Thread)
            and isinstance(interaction.channel.parent, discord.ForumChannel),
        )
        audience = None
        if gm_channel is not None:
            audience = await channel_audience(interaction, gm_channel, ephemeral=False)
        warning = sheets.setup_warning(campaign, audience)
        text = "Campaign created. Players: /character create, then /check."
        # Published before any die is drawn from it (docs/fair-dice.md).
        text += "\n" + seed_line(await fairness.show(bot.db, caller_from(interaction), campaign))
        await _reply(
            interaction,
            f"{text}\n{warning}" if warning else text,
            campaign_embed(campaign),
            ephemeral=False,
        )
        # Then, to the GM alone, what the bot can and cannot do in the campaign's places.
        await _send_check(interaction, campaign, followup=True)

    @app_commands.command(
        name="check", description="GM: what the bot can and cannot do in this campaign's places"
    )
    @app_commands.guild_only()
    async def check(self, interaction: Interaction) -> None:
        bot = bot_of(interaction)
        caller = caller_from(interaction)
        campaign = await access.campaign_here(bot.db, caller)
        require_gm(campaign, caller, "check the bot's permissions")
        await _send_check(interaction, campaign, followup=False)

    @app_commands.command(name="show", description="Show this channel's campaign and its settings")
    @app_commands.guild_only()
    async def show(self, interaction: Interaction) -> None:
        db, caller = bot_of(interaction).db, caller_from(interaction)
        campaign = await access.campaign_here(db, caller)
        line = seed_line(await fairness.show(db, caller, campaign))
        await answer(interaction, line, embed=campaign_embed(campaign), ephemeral=True)

    @seed.command(
        name="rotate",
        description=(
            "GM: start a new dice seed; the old one is published so its rolls can be rechecked"
        ),
    )
    @app_commands.guild_only()
    async def seed_rotate(self, interaction: Interaction) -> None:
        """Public: the revealed seed lets anyone recompute the rolls drawn from it."""
        db, caller = bot_of(interaction).db, caller_from(interaction)
        rotation = await fairness.rotate(db, caller, await fairness.campaign_here(db, caller))
        await answer(interaction, rotation_text(rotation))

    @seed.command(name="period", description="GM: how often the dice seed rotates on its own")
    @app_commands.describe(hours="Rotate after this many hours (leave out: only by hand)")
    @app_commands.guild_only()
    async def seed_period(
        self, interaction: Interaction, hours: app_commands.Range[int, 1, 8760] | None = None
    ) -> None:
        db, caller = bot_of(interaction).db, caller_from(interaction)
        campaign = await access.campaign_here(db, caller)
        seed = await fairness.set_period(db, caller, campaign, hours)
        said = f"every {hours} hours" if hours else "only by hand (and before it runs out)"
        await answer(interaction, f"The dice seed rotates {said}.\n{seed_line(seed)}")

    async def _changed(self, interaction: Interaction, **changes: Any) -> None:
        campaign = await sheets.change_settings(
            bot_of(interaction).db, caller_from(interaction), **changes
        )
        await answer(interaction, "Setting saved.", embed=campaign_embed(campaign), ephemeral=True)

    @settings.command(name="gm-role", description="Add or remove a GM role")
    @app_commands.describe(
        role="The role whose members are GMs of this campaign",
        remove="Remove it instead of adding it",
    )
    async def set_gm_role(
        self, interaction: Interaction, role: discord.Role, remove: bool = False
    ) -> None:
        campaign = await sheets.set_gm_role(
            bot_of(interaction).db, caller_from(interaction), role.id, add=not remove
        )
        await answer(interaction, "GM roles saved.", embed=campaign_embed(campaign), ephemeral=True)

    @settings.command(name="gm-channel", description="Where hidden rolls go (omit to unset)")
    @app_commands.describe(
        channel="A channel only GMs can read (omit to unset)",
        force="Set it even though non-GMs can read it (they will see hidden rolls)",
    )
    async def set_gm_channel(
        self,
        interaction: Interaction,
        channel: discord.TextChannel | None = None,
        force: bool = False,
    ) -> None:
        audience = None
        if channel is not None:
            audience = await channel_audience(interaction, channel, ephemeral=True)
        done = await sheets.set_gm_channel(
            bot_of(interaction).db,
            caller_from(interaction),
            channel.id if channel else None,
            audience,
            force=force,
        )
        warning = done.warning()
        await _reply(
            interaction,
            f"Setting saved.\n{warning}" if warning else "Setting saved.",
            campaign_embed(done.campaign),
            ephemeral=True,
        )

    @settings.command(
        name="fortune-boon", description="Pen & Dagger: new characters get double fortune dice"
    )
    @app_commands.describe(on="True: new characters may hold 4 fortune dice; False: 2")
    async def set_fortune_boon(self, interaction: Interaction, on: bool) -> None:
        await self._changed(interaction, fortune_boon_default=on)

    @settings.command(
        name="crit-rules", description="d20 check: critical hits and fumbles on attacks"
    )
    @app_commands.describe(
        on="d20 check: True turns on the optional rules for natural 20s and 1s on attacks"
    )
    async def set_crit_rules(self, interaction: Interaction, on: bool) -> None:
        await self._changed(interaction, crit_rules=on)

    @settings.command(name="crit-damage", description="d20 check: a critical hit's damage dice")
    @app_commands.describe(
        double="False (default, the text): damage rolled as normal. True: every die twice"
    )
    async def set_crit_damage(self, interaction: Interaction, double: bool) -> None:
        await self._changed(interaction, crit_double_dice=double)

    @settings.command(name="carry-over", description="Threshold: +2 / -2 after a critical")
    @app_commands.describe(
        on="True (default): a critical gives +2 / -2 on the next test of that attribute"
    )
    async def set_carry_over(self, interaction: Interaction, on: bool) -> None:
        await self._changed(interaction, carry_over=on)

    @settings.command(name="luck-trade", description="Pen & Dagger: trade a luck roll's 20")
    @app_commands.describe(
        on="True (default): a lucky 20 brings nothing more, so it may be traded for a fortune die"
    )
    async def set_luck_trade(self, interaction: Interaction, on: bool) -> None:
        await self._changed(interaction, luck_trade=on)

    @settings.command(name="rerolls", description="d20 check: let players /reroll one d20")
    @app_commands.describe(
        on="True: something in the game lets players reroll one die of an advantage roll"
    )
    async def set_rerolls(self, interaction: Interaction, on: bool) -> None:
        await self._changed(interaction, rerolls=on)

    @settings.command(name="party-auto-join", description="New characters join the party")
    @app_commands.describe(
        on="True (default for new campaigns): each new character joins the party at once"
    )
    async def set_party_auto_join(self, interaction: Interaction, on: bool) -> None:
        await self._changed(interaction, party_auto_join=on)

    @settings.command(name="post-mentions", description="Let /post ping the players it names")
    @app_commands.describe(
        on="True: a post's @player mentions ping them (never @everyone, @here or roles)"
    )
    async def set_post_mentions(self, interaction: Interaction, on: bool) -> None:
        await posts.set_mentions(bot_of(interaction).db, caller_from(interaction), on)
        said = "ping the players they mention" if on else "ping nobody"
        await answer(interaction, f"Setting saved: posts now {said}.", ephemeral=True)

    @settings.command(name="dice-dialect", description="How players' dice notation is read")
    @app_commands.describe(dialect="For players who chose none with /me dice (default: pbp)")
    @app_commands.choices(
        dialect=[app_commands.Choice(name=d, value=d) for d in dice_dialects.DIALECTS]
    )
    async def set_dice_dialect(self, interaction: Interaction, dialect: str) -> None:
        await dialects.set_campaign(bot_of(interaction).db, caller_from(interaction), dialect)
        await answer(interaction, f"Setting saved: dice dialect {dialect}.", ephemeral=True)

    @settings.command(name="tier", description="A difficulty tier's threshold (threshold system)")
    @app_commands.describe(
        difficulty="The difficulty to change, e.g. hard",
        threshold="The total a test must meet or beat at that difficulty (1-40)",
    )
    async def set_tier(
        self,
        interaction: Interaction,
        difficulty: DifficultyChoice,
        threshold: app_commands.Range[int, 1, 40],
    ) -> None:
        await self._changed(interaction, **{f"tier_{difficulty.replace('-', '_')}": threshold})

    @settings.command(name="abilities", description="Ability names, comma-separated")
    @app_commands.describe(names="For example: STR, DEX, CON, INT, WIS, CHA, Mana")
    async def set_abilities(
        self, interaction: Interaction, names: app_commands.Range[str, 1, 400]
    ) -> None:
        parsed = [n.strip() for n in names.split(",") if n.strip()]
        await self._changed(interaction, ability_names=parsed)

    @settings.command(name="secrecy", description="Who sees a rolling command's results by default")
    @app_commands.describe(
        command="The rolling command",
        mode="public, gm (GM and roller), blind (GM only), self (roller only)",
    )
    async def set_secrecy(
        self,
        interaction: Interaction,
        command: SecrecyCommandChoice,
        mode: Secret,
    ) -> None:
        campaign = await secrecy.set_default(
            bot_of(interaction).db, caller_from(interaction), command, mode
        )
        await answer(interaction, "Setting saved.", embed=campaign_embed(campaign), ephemeral=True)

    @app_commands.command(
        name="export", description="Download this campaign as a file: settings, characters, rolls"
    )
    @app_commands.guild_only()
    async def export(self, interaction: Interaction) -> None:
        # Ephemeral: the file holds GM-only rolls; `python -m bot import FILE` reads it.
        await defer(interaction, ephemeral=True)
        exported = await exports.export_for_gm(
            bot_of(interaction).db,
            caller_from(interaction),
            upload_limit(interaction),
            progress=progress_edits(interaction, "rolls", "exported"),
        )
        await answer(
            interaction,
            "This campaign as a file (gzip-compressed JSON); an operator can load it with "
            "`python -m bot import`.",
            file=discord.File(io.BytesIO(exported.content), filename=exported.filename),
            ephemeral=True,
        )

    @app_commands.command(name="delete", description="Delete this channel's campaign (asks first)")
    @app_commands.guild_only()
    async def delete(self, interaction: Interaction) -> None:
        bot = bot_of(interaction)
        caller = caller_from(interaction)
        campaign = await sheets.confirm_delete_campaign(bot.db, caller)

        async def confirmed(click: Interaction) -> str:
            # Permissions as they are at the click, not when the question was asked.
            await sheets.delete_campaign(bot.db, caller_from(click), campaign.id)
            return "Campaign deleted. Its rolls stay in the ledger."

        await answer(
            interaction,
            "Delete this campaign and all its characters? Rolls stay in the ledger.",
            view=ConfirmView(caller.user_id, "Delete the campaign", confirmed),
            ephemeral=True,
        )
