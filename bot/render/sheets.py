"""Campaign settings and character sheets as embeds."""

from __future__ import annotations

import discord

from bot.quoting import escape
from bot.render import style
from bot.rules import d20_check
from bot.rules.systems import Feature, system_for
from bot.services.rolling.checks import SYSTEM_NAMES
from bot.services.store.campaigns import CampaignView
from bot.services.store.characters import CharacterView
from bot.services.table.sheets import CharacterSheet
from bot.services.trust.secrecy import SECRECY_COMMANDS, default_visibility
from bot.words import fortune_maximum


def campaign_embed(campaign: CampaignView) -> discord.Embed:
    """Every setting of the campaign, as a GM checks it after /campaign setup or set."""
    embed = style.new_embed(
        f"Campaign: {SYSTEM_NAMES[campaign.system]}",
        f"Bound to <#{campaign.channel_id}> (its threads and forum posts too).",
        style.INFO,
    )
    roles = ", ".join(f"<@&{r}>" for r in campaign.gm_role_ids) or "none (Manage Server only)"
    style.add_field(embed, "GM roles", roles)
    gm_channel = f"<#{campaign.gm_channel_id}>" if campaign.gm_channel_id else "not set"
    style.add_field(embed, "GM channel", gm_channel, inline=True)
    style.add_field(embed, "Abilities", ", ".join(campaign.ability_names), inline=True)
    if Feature.FORTUNE in campaign.rules.features:
        boon = "on" if campaign.fortune_boon_default else "off"
        style.add_field(embed, "Double fortune dice for new characters", boon, inline=True)
        trade = "on" if campaign.luck_trade else "off"
        style.add_field(
            embed, "Trade a luck roll's natural 20 for a fortune die", trade, inline=True
        )
    if Feature.CARRY_OVER in campaign.rules.features:
        carry = "on" if campaign.carry_over else "off"
        style.add_field(embed, "+2 / −2 after a critical", carry, inline=True)
    if Feature.TIERS in campaign.rules.features:
        t = campaign.tiers
        style.add_field(
            embed,
            "Difficulty tiers",
            f"Very Easy {t.very_easy} · Easy {t.easy} · Moderate {t.moderate} · "
            f"Hard {t.hard} · Very Hard {t.very_hard}",
        )
    if Feature.ATTACKS in campaign.rules.features:
        style.add_field(embed, "Critical hits and fumbles", "on" if campaign.crit_rules else "off")
        if campaign.crit_rules:
            dice = "every die twice" if campaign.crit_double_dice else "as normal (the text)"
            style.add_field(embed, "Critical hit damage dice", dice, inline=True)
    if Feature.REROLLS in campaign.rules.features:
        rerolls = "on" if campaign.rerolls else "off"
        style.add_field(embed, "Reroll one d20 of an advantage roll", rerolls, inline=True)
    auto = "on" if campaign.party_auto_join else "off"
    style.add_field(embed, "New characters join the party", auto, inline=True)
    style.add_field(embed, "Who sees rolls by default", _secrecy_line(campaign))
    style.set_footer(embed, f"campaign #{campaign.id}")
    return embed


def _secrecy_line(campaign: CampaignView) -> str:
    """`/roll public · /check public · … · /gm check blind` (set with /campaign set secrecy)."""
    return " · ".join(
        f"/{name.replace('-', ' ')} {default_visibility(campaign, name).value}"
        for name in SECRECY_COMMANDS
    )


def score_line(system: str, ability: str, value: int) -> str:
    """One ability score with what it means in the system (the sheet and /party show)."""
    return f"**{ability}** {system_for(system).score_text(value)}"


def character_embed(campaign: CampaignView, character: CharacterView) -> discord.Embed:
    """A character sheet: scores, proficiencies, level, fortune dice, pending modifiers.

    Carry-overs (threshold ruling 4) are shown only from a :class:`CharacterSheet`, which
    holds what its viewer may see; a plain view may hold one from a hidden roll, so none is
    shown from it (a hidden result appears nowhere a non-entitled user can see).
    """
    system = campaign.system
    features = campaign.rules.features
    tags = [f"player <@{character.user_id}>"]
    if character.is_active:
        tags.append("active")
    if character.in_party:
        tags.append("in the party")
    embed = style.new_embed(escape(character.name), " · ".join(tags), style.NEUTRAL)
    if character.avatar_url:
        embed.set_thumbnail(url=character.avatar_url)
    scores = [
        score_line(system, a, character.scores[a])
        for a in campaign.ability_names
        if a in character.scores
    ]
    missing = [a for a in campaign.ability_names if a not in character.scores]
    if missing:
        scores.append(f"not set: {', '.join(missing)}")
    title = "Attribute modifiers" if campaign.rules.score_word == "modifier" else "Ability scores"
    style.add_field(embed, title, "\n".join(scores))
    if Feature.SAVE_PROFICIENCIES in features:
        bonus = d20_check.proficiency_bonus(character.level)
        style.add_field(
            embed, "Level", f"{character.level} (proficiency {style.signed(bonus)})", inline=True
        )
        saves = ", ".join(sorted(character.save_proficiencies)) or "none"
        style.add_field(embed, "Save proficiencies", saves, inline=True)
        if character.null_bonus is not None:
            style.add_field(
                embed,
                "Null",
                f"Null bonus {style.signed(character.null_bonus)}: Mana saves add it and the "
                "proficiency bonus",
                inline=True,
            )
        if character.ac is not None or character.ac_loss:
            parts = []
            if character.ac is not None:
                armour = " ".join(
                    p
                    for p in (
                        character.armour_quality,
                        f"+{character.armour_magic}" if character.armour_magic else None,
                    )
                    if p
                )
                parts.append(f"{character.ac}" + (f" ({armour} armour)" if armour else ""))
            if character.ac_loss:
                parts.append(f"lowered by {character.ac_loss} by critical hits")
            style.add_field(embed, "Armour Class", ", ".join(parts))
    if Feature.FIRST_LEVEL_CAP in features:
        # Pen & Dagger ruling 8: at 1st level no score may exceed 19.
        cap = " (no score above 19 at 1st level)" if character.level == 1 else ""
        style.add_field(embed, "Level", f"{character.level}{cap}", inline=True)
    if character.proficiencies:
        profs = []
        for prof in sorted(character.proficiencies.values(), key=lambda p: p.name.casefold()):
            if prof.rank:
                profs.append(f"{escape(prof.name)}: {prof.rank}")
            else:
                degree = {2: "Expert", -1: "Half"}.get(prof.degree or 1, "Proficient")
                profs.append(f"{escape(prof.name)}: {degree}")
        style.add_field(embed, "Proficiencies", "\n".join(profs))
    if Feature.FORTUNE in features:
        maximum = fortune_maximum(character.double_fortune)
        boon = " (double fortune dice boon)" if character.double_fortune else ""
        style.add_field(
            embed, "Fortune dice", f"{character.fortune} of {maximum}{boon}", inline=True
        )
    if isinstance(character, CharacterSheet):
        carry = [
            f"{style.signed(v)} on the next {a} test" for a, v in sorted(character.pending.items())
        ]
        carry += [
            f"{style.signed(c.value)} on the next {c.ability} test, waiting for roll "
            f"#{c.source_number} to be revealed"
            for c in character.waiting
        ]
        if carry:
            style.add_field(embed, "Carry-over", ", ".join(carry))
    style.set_footer(embed, f"{SYSTEM_NAMES[system]} · character #{character.id}")
    return embed


def character_list_text(campaign: CampaignView, found: list[CharacterView]) -> str:
    """Every character in the campaign, one line each (plain text, clipped to 2,000)."""
    if not found:
        return "No characters yet: create one with /character create."
    lines = [
        f"**{escape(c.name)}** (<@{c.user_id}>)"
        + (" · active" if c.is_active else "")
        + (" · party" if c.in_party else "")
        for c in found
    ]
    text = "\n".join(lines)
    return style.clip(text, style.MESSAGE_LIMIT)
