"""/campaign setup | show | set … | export | delete."""

from __future__ import annotations

import io
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs._common import bot_of, caller_from
from bot.cogs._options import DifficultyChoice, Secret
from bot.cogs._views import ConfirmView
from bot.render.sheets import campaign_embed
from bot.services import export as exports
from bot.services import secrecy, sheets

SystemChoice = Literal["pen-and-dagger", "roll-under", "threshold", "d20-check"]
SecrecyCommandChoice = Literal["roll", "check", "save", "luck", "gm-roll", "gm-check"]


class CampaignCog(commands.GroupCog, group_name="campaign"):
    """Campaign set-up and settings; GM-only except /campaign show."""

    settings = app_commands.Group(name="set", description="Change a campaign setting (GM)")

    @app_commands.command(name="setup", description="Start a campaign in this channel")
    @app_commands.describe(
        system="The rule system the campaign plays",
        gm_role="Members with this role are GMs (Manage Server holders always are)",
        gm_channel="Where hidden rolls are shown to the GM",
    )
    @app_commands.guild_only()
    async def setup(
        self,
        interaction: discord.Interaction[Any],
        system: SystemChoice,
        gm_role: discord.Role | None = None,
        gm_channel: discord.TextChannel | None = None,
    ) -> None:
        bot = bot_of(interaction)
        campaign = await sheets.setup(
            bot.db,
            caller_from(interaction),
            system,
            gm_role_id=gm_role.id if gm_role else None,
            gm_channel_id=gm_channel.id if gm_channel else None,
        )
        await interaction.response.send_message(
            "Campaign created. Players: /character create, then /check.",
            embed=campaign_embed(campaign),
        )

    @app_commands.command(name="show", description="Show this channel's campaign and its settings")
    @app_commands.guild_only()
    async def show(self, interaction: discord.Interaction[Any]) -> None:
        campaign = await sheets.campaign_here(bot_of(interaction).db, caller_from(interaction))
        await interaction.response.send_message(embed=campaign_embed(campaign), ephemeral=True)

    async def _changed(self, interaction: discord.Interaction[Any], **changes: Any) -> None:
        campaign = await sheets.change_settings(
            bot_of(interaction).db, caller_from(interaction), **changes
        )
        await interaction.response.send_message(
            "Setting saved.", embed=campaign_embed(campaign), ephemeral=True
        )

    @settings.command(name="gm-role", description="Add or remove a GM role")
    @app_commands.describe(role="The role", remove="Remove it instead of adding it")
    async def set_gm_role(
        self, interaction: discord.Interaction[Any], role: discord.Role, remove: bool = False
    ) -> None:
        campaign = await sheets.set_gm_role(
            bot_of(interaction).db, caller_from(interaction), role.id, add=not remove
        )
        await interaction.response.send_message(
            "GM roles saved.", embed=campaign_embed(campaign), ephemeral=True
        )

    @settings.command(name="gm-channel", description="Where hidden rolls go (omit to unset)")
    async def set_gm_channel(
        self, interaction: discord.Interaction[Any], channel: discord.TextChannel | None = None
    ) -> None:
        await self._changed(interaction, gm_channel_id=channel.id if channel else None)

    @settings.command(name="fortune-boon", description="New characters get double fortune dice")
    async def set_fortune_boon(self, interaction: discord.Interaction[Any], on: bool) -> None:
        await self._changed(interaction, fortune_boon_default=on)

    @settings.command(name="crit-rules", description="Critical hits and fumbles on attacks")
    async def set_crit_rules(self, interaction: discord.Interaction[Any], on: bool) -> None:
        await self._changed(interaction, crit_rules=on)

    @settings.command(name="tier", description="A difficulty tier's threshold (threshold system)")
    async def set_tier(
        self,
        interaction: discord.Interaction[Any],
        difficulty: DifficultyChoice,
        threshold: app_commands.Range[int, 1, 40],
    ) -> None:
        await self._changed(interaction, **{f"tier_{difficulty.replace('-', '_')}": threshold})

    @settings.command(name="abilities", description="Ability names, comma-separated")
    @app_commands.describe(names="For example: STR, DEX, CON, INT, WIS, CHA, Mana")
    async def set_abilities(
        self, interaction: discord.Interaction[Any], names: app_commands.Range[str, 1, 400]
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
        interaction: discord.Interaction[Any],
        command: SecrecyCommandChoice,
        mode: Secret,
    ) -> None:
        campaign = await secrecy.set_default(
            bot_of(interaction).db, caller_from(interaction), command, mode
        )
        await interaction.response.send_message(
            "Setting saved.", embed=campaign_embed(campaign), ephemeral=True
        )

    @app_commands.command(
        name="export", description="Download this campaign as a file: settings, characters, rolls"
    )
    @app_commands.guild_only()
    async def export(self, interaction: discord.Interaction[Any]) -> None:
        # Ephemeral: the file holds GM-only rolls; `python -m bot import FILE` reads it.
        await interaction.response.defer(ephemeral=True, thinking=True)
        filename, data = await exports.export_for_gm(
            bot_of(interaction).db, caller_from(interaction)
        )
        from bot.ops.cli import dumps

        body = io.BytesIO(dumps(data).encode())
        await interaction.followup.send(
            "This campaign as a file; an operator can load it with `python -m bot import`.",
            file=discord.File(body, filename=filename),
            ephemeral=True,
        )

    @app_commands.command(name="delete", description="Delete this channel's campaign (asks first)")
    @app_commands.guild_only()
    async def delete(self, interaction: discord.Interaction[Any]) -> None:
        bot = bot_of(interaction)
        caller = caller_from(interaction)
        campaign = await sheets.confirm_delete_campaign(bot.db, caller)

        async def confirmed(_: discord.Interaction[Any]) -> str:
            await sheets.delete_campaign(bot.db, caller, campaign.id)
            return "Campaign deleted. Its rolls stay in the ledger."

        await interaction.response.send_message(
            "Delete this campaign and all its characters? Rolls stay in the ledger.",
            view=ConfirmView(caller.user_id, "Delete the campaign", confirmed),
            ephemeral=True,
        )
