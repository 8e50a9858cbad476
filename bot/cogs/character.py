"""/character: create, show and edit characters.

/character create | show | list | use | set | proficiency | level | save | delete.
"""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.cogs import _autocomplete as ac
from bot.cogs._caller import bot_of, caller_from
from bot.cogs._options import Ac, Magic, Quality
from bot.cogs._views import ConfirmView
from bot.interaction import Interaction, answer
from bot.quoting import escape
from bot.render.fortune import boon_text
from bot.render.sheets import character_embed, character_list_text
from bot.services.rolling import fortune_table
from bot.services.store.characters import CharacterView
from bot.services.table import posts, sheets
from bot.services.trust import access

Name = app_commands.Range[str, 1, 64]


@app_commands.guild_only()  # every subcommand needs a server: none offered in DMs
class CharacterCog(commands.GroupCog, group_name="character"):
    """Characters: players edit their own, the GM edits any in the campaign."""

    async def _saved(self, interaction: Interaction, character: CharacterView, what: str) -> None:
        campaign = await access.campaign_here(bot_of(interaction).db, caller_from(interaction))
        await answer(
            interaction,
            f"{what} for {escape(character.name)}.",
            embed=character_embed(campaign, character),
            ephemeral=True,
        )

    @app_commands.command(name="create", description="Create a character in this campaign")
    @app_commands.describe(name="Your new character's name, e.g. Angus")
    @app_commands.guild_only()
    async def create(self, interaction: Interaction, name: Name) -> None:
        bot = bot_of(interaction)
        character = await sheets.create_character(bot.db, caller_from(interaction), name)
        active = " It is your active character." if character.is_active else ""
        await answer(
            interaction,
            f"**{escape(character.name)}** joins the campaign.{active} "
            "Set scores with /character set.",
        )

    @app_commands.command(name="show", description="Show a character sheet")
    @app_commands.describe(name="A character's name", player="A player's active character")
    @app_commands.autocomplete(name=ac.any_character)
    @app_commands.guild_only()
    async def show(
        self,
        interaction: Interaction,
        name: Name | None = None,
        player: discord.Member | None = None,
    ) -> None:
        campaign, character = await sheets.show_character(
            bot_of(interaction).db,
            caller_from(interaction),
            name,
            player.id if player else None,
        )
        await answer(interaction, embed=character_embed(campaign, character), ephemeral=True)

    @app_commands.command(name="list", description="List the campaign's characters")
    @app_commands.guild_only()
    async def list(self, interaction: Interaction) -> None:
        campaign, found = await sheets.list_characters(
            bot_of(interaction).db, caller_from(interaction)
        )
        await answer(interaction, character_list_text(campaign, found), ephemeral=True)

    @app_commands.command(name="use", description="Make one of your characters the active one")
    @app_commands.describe(name="Which of your characters you now play")
    @app_commands.autocomplete(name=ac.own_character)
    @app_commands.guild_only()
    async def use(self, interaction: Interaction, name: Name) -> None:
        character = await sheets.use_character(
            bot_of(interaction).db, caller_from(interaction), name
        )
        await answer(interaction, f"You now play **{escape(character.name)}**.", ephemeral=True)

    @app_commands.command(name="set", description="Set an ability score (a modifier in threshold)")
    @app_commands.describe(
        ability="The ability to set, e.g. DEX (the campaign's ability names)",
        value="The ability score, e.g. 14 (in the threshold system: the modifier, e.g. +2)",
        character="GM: whose sheet (default: your active character)",
    )
    @app_commands.autocomplete(ability=ac.ability, character=ac.own_character)
    @app_commands.guild_only()
    async def set_score(
        self,
        interaction: Interaction,
        ability: app_commands.Range[str, 1, 32],
        value: app_commands.Range[int, -100, 100],
        character: Name | None = None,
    ) -> None:
        found = await sheets.set_score(
            bot_of(interaction).db, caller_from(interaction), ability, value, character
        )
        await self._saved(interaction, found, "Score saved")

    @app_commands.command(name="proficiency", description="Add, change or remove a proficiency")
    @app_commands.describe(
        name="The proficiency, e.g. Stealth",
        value="A rank (Pen & Dagger) or Half/Proficient/Expert (d20 check); none removes it",
        character="GM: whose sheet (default: your active character)",
    )
    @app_commands.autocomplete(
        name=ac.proficiency, value=ac.proficiency_value, character=ac.own_character
    )
    @app_commands.guild_only()
    async def proficiency(
        self,
        interaction: Interaction,
        name: Name,
        value: app_commands.Range[str, 1, 32],
        character: Name | None = None,
    ) -> None:
        found = await sheets.set_proficiency(
            bot_of(interaction).db, caller_from(interaction), name, value, character
        )
        await self._saved(interaction, found, "Proficiency saved")

    @app_commands.command(name="level", description="Set the character's level (1-20)")
    @app_commands.describe(
        value="The level, 1 to 20 (d20 check: it sets the proficiency bonus)",
        character="GM: whose sheet (default: your active character)",
    )
    @app_commands.autocomplete(character=ac.own_character)
    @app_commands.guild_only()
    async def level(
        self,
        interaction: Interaction,
        value: app_commands.Range[int, 1, 20],
        character: Name | None = None,
    ) -> None:
        found = await sheets.set_level(
            bot_of(interaction).db, caller_from(interaction), value, character
        )
        await self._saved(interaction, found, "Level saved")

    @app_commands.command(name="save", description="Mark a saving-throw proficiency (d20 check)")
    @app_commands.describe(
        ability="The ability whose saves you are proficient in, e.g. WIS",
        proficient="True (the default) to add the proficiency, False to remove it",
        character="GM: whose sheet (default: your active character)",
    )
    @app_commands.autocomplete(ability=ac.ability, character=ac.own_character)
    @app_commands.guild_only()
    async def save(
        self,
        interaction: Interaction,
        ability: app_commands.Range[str, 1, 32],
        proficient: bool = True,
        character: Name | None = None,
    ) -> None:
        found = await sheets.set_save(
            bot_of(interaction).db, caller_from(interaction), ability, proficient, character
        )
        await self._saved(interaction, found, "Save proficiency saved")

    @app_commands.command(name="null", description="d20 check: mark a Null (Mana saves + bonus)")
    @app_commands.describe(
        bonus="The Null bonus, 0 to 10: Mana saves add it and the proficiency bonus",
        clear="True: the character is not a Null (any bonus is forgotten)",
        character="GM: whose sheet (default: your active character)",
    )
    @app_commands.autocomplete(character=ac.own_character)
    @app_commands.guild_only()
    async def null(
        self,
        interaction: Interaction,
        bonus: app_commands.Range[int, 0, 10] | None = None,
        clear: bool = False,
        character: Name | None = None,
    ) -> None:
        if clear == (bonus is not None):
            await interaction.response.send_message(
                "Give the Null bonus (bonus:2), or clear:true to unmark a Null.", ephemeral=True
            )
            return
        found = await sheets.set_null(
            bot_of(interaction).db, caller_from(interaction), bonus, character
        )
        await self._saved(interaction, found, "Null saved" if bonus is not None else "Null cleared")

    @app_commands.command(name="armour", description="d20 check: your character's AC and armour")
    @app_commands.describe(
        ac="Its Armour Class: another player's attack on this character uses it",
        quality="The armour's quality (its save against a critical hit)",
        magic="A magic armour's bonus",
        character="Which of your characters (default: your active one)",
    )
    @app_commands.autocomplete(character=ac.own_character)
    @app_commands.guild_only()
    async def armour(
        self,
        interaction: Interaction,
        ac: Ac,
        quality: Quality | None = None,
        magic: Magic | None = None,
        character: Name | None = None,
    ) -> None:
        found = await sheets.set_armour(
            bot_of(interaction).db, caller_from(interaction), ac, quality, magic, character
        )
        await self._saved(interaction, found, "Armour saved")

    @app_commands.command(
        name="restore-ac", description="d20 check GM: give back AC lost to critical hits"
    )
    @app_commands.describe(character="The character whose armour is mended")
    @app_commands.autocomplete(character=ac.any_character)
    @app_commands.guild_only()
    async def restore_ac(self, interaction: Interaction, character: Name) -> None:
        found = await sheets.restore_ac(bot_of(interaction).db, caller_from(interaction), character)
        await self._saved(interaction, found, "AC restored")

    @app_commands.command(
        name="boon", description="Pen & Dagger GM: the double fortune dice boon (max 4)"
    )
    @app_commands.describe(
        double_fortune="On: up to 4 fortune dice; off: 2",
        character="The character who gets or loses the boon",
    )
    @app_commands.autocomplete(character=ac.any_character)
    @app_commands.guild_only()
    async def boon(self, interaction: Interaction, double_fortune: bool, character: Name) -> None:
        result = await fortune_table.set_boon(
            bot_of(interaction).db, caller_from(interaction), character, double_fortune
        )
        await answer(
            interaction, boon_text(result), allowed_mentions=discord.AllowedMentions.none()
        )

    @app_commands.command(name="avatar", description="Set the portrait your posts show")
    @app_commands.describe(
        url="An https link to a PNG, JPEG, GIF or WebP image",
        image="Or upload the image (at most 8 MB)",
        clear="True: remove the portrait",
        character="GM: whose portrait (default: your active character)",
    )
    @app_commands.autocomplete(character=ac.own_character)
    @app_commands.guild_only()
    async def avatar(
        self,
        interaction: Interaction,
        url: app_commands.Range[str, 1, posts.MAX_AVATAR_URL] | None = None,
        image: discord.Attachment | None = None,
        clear: bool = False,
        character: Name | None = None,
    ) -> None:
        if (url is not None) + (image is not None) + clear != 1:
            await answer(
                interaction,
                "Give one of url:<https link>, image:<upload> or clear:true.",
                ephemeral=True,
            )
            return
        chosen: str | None = None
        if url is not None:
            chosen = posts.check_avatar_url(url)
        elif image is not None:
            chosen = posts.check_avatar_upload(
                image.url, image.filename, image.content_type, image.size
            )
        found = await posts.set_avatar(
            bot_of(interaction).db, caller_from(interaction), chosen, character
        )
        await self._saved(interaction, found, "Portrait saved" if chosen else "Portrait removed")

    @app_commands.command(name="delete", description="Delete a character (asks first)")
    @app_commands.describe(name="The character to delete; their rolls stay in the ledger")
    @app_commands.autocomplete(name=ac.own_character)
    @app_commands.guild_only()
    async def delete(self, interaction: Interaction, name: Name) -> None:
        bot = bot_of(interaction)
        caller = caller_from(interaction)
        character = await sheets.confirm_delete_character(bot.db, caller, name)

        async def confirmed(click: Interaction) -> str:
            # Permissions as they are at the click, not when the question was asked.
            await sheets.delete_character(bot.db, caller_from(click), character.id)
            return f"{escape(character.name)} is deleted. Their rolls stay in the ledger."

        await answer(
            interaction,
            f"Delete **{escape(character.name)}**? This cannot be undone.",
            view=ConfirmView(caller.user_id, f"Delete {character.name}", confirmed),
            ephemeral=True,
        )


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(CharacterCog())
