"""/help's texts: each topic as one or more embeds (pages), written for the player (issue 19)."""

from __future__ import annotations

import enum
from collections.abc import Mapping

import discord

from bot.dice.limits import MAX_SIDES
from bot.render import style
from bot.rules.systems import SYSTEMS
from bot.rules.systems.base import per_system
from bot.services.checks import SYSTEM_NAMES
from bot.words import BOON_FORTUNE_MAX, FORTUNE_MAX


class HelpTopic(enum.StrEnum):
    """The topics of /help; the value is what a player types after `topic:`."""

    PLAYERS = "players"
    GMS = "gms"
    SYSTEM = "system"
    DICE = "dice"
    SECRET = "secret"
    FORTUNE = "fortune"
    FAIR = "fair"


#: What the topic picker shows; each name starts with the value, so typing it filters.
TOPIC_NAMES: dict[HelpTopic, str] = {
    HelpTopic.PLAYERS: "players: getting started as a player",
    HelpTopic.GMS: "gms: getting started as a GM",
    HelpTopic.SYSTEM: "system: this campaign's rules in short",
    HelpTopic.DICE: "dice: the /roll dice notation, with examples",
    HelpTopic.SECRET: "secret: secret rolls, reveals and /verify",
    HelpTopic.FORTUNE: "fortune: fortune dice (Pen & Dagger)",
    HelpTopic.FAIR: "fair: provably fair dice, seeds and how to check them",
}

_OVERVIEW = (
    "pbp-dice rolls dice for play-by-post games and keeps every roll in a ledger nobody can "
    "change. Pick a topic:\n"
    + "\n".join(f"• `/help topic:{t.value}`: {TOPIC_NAMES[t].split(': ', 1)[1]}" for t in HelpTopic)
    + "\n\nNo campaign needed to roll: `/roll dice:1d20+5` works in any channel."
)

_PLAYERS = (
    "**1. Make a character** in the campaign's channel:\n"
    "`/character create name:Angus`: your first character becomes your active one.\n"
    "`/character set ability:DEX value:14`: a score (in the threshold system, the modifier).\n"
    "`/character proficiency name:Stealth value:Trained`: a rank, or Proficient/Expert.\n"
    "`/character show` shows your sheet; `/character use name:…` switches characters.\n\n"
    "**2. Roll.** `/check ability:DEX` rolls your active character's check in this "
    "campaign's system, with every die and modifier shown. Also `/save`, `/luck` "
    "(Pen & Dagger) and `/roll dice:…` for any dice.\n\n"
    "**3. Before you roll**, `/odds check ability:DEX` shows only you the exact chances.\n\n"
    "**Roll requests.** When the GM asks for a roll, click **Roll** under their message "
    "whenever you are next online; you roll with your own character.\n\n"
    "**Party.** New characters join it; `/party add character:Angus` adds one, "
    "`/party add-all` (GM) everyone; `/party show` lists it.\n\n"
    "**Looking back.** `/history` lists the rolls you may see; `/stats` compares everyone's "
    "d20s with fair dice.\n\n"
    "Names, abilities and proficiencies autocomplete. More: `/help topic:system`, "
    "`/help topic:dice`, `/help topic:secret`."
)

_GMS = (
    "**1. Start a campaign** in the channel where the game happens (needs Manage Server):\n"
    "`/campaign setup system:pen-and-dagger gm_role:@GM gm_channel:#gm-secrets`\n"
    "`system` is `pen-and-dagger`, `roll-under`, `threshold` or `d20-check`. Members with the "
    "GM role (and anyone with Manage Server) are the campaign's GMs. Threads under the "
    "channel belong to the campaign.\n\n"
    "**2. A GM channel** only GMs can read gets the results of hidden rolls: "
    "`/campaign set gm-channel channel:#gm-secrets`.\n\n"
    "**3. Settings.** `/campaign show` lists them; `/campaign set …` changes GM roles, "
    "difficulty tiers, ability names, critical rules, the fortune boon and who sees each "
    "command's results by default (`/campaign set secrecy`).\n\n"
    "**Running the game.**\n"
    "`/gm request roll ability:DEX hidden_dc:15`: players click Roll when they can; "
    "`/gm request status`, then `/gm request reveal`.\n"
    "`/gm roll dice:…` and `/gm check ability:… character:…`: hidden (blind) by default.\n"
    "`/groupsave`, `/groupcheck`, `/contest`: the whole party or a few characters at once; "
    "`/gm attack` for a monster.\n"
    "`/gm reveal roll:42` shows a hidden roll to everyone; `/gm log` lists every roll.\n"
    "`/gm round open deadline:24h`: each player seals an action with `/declare`; nobody sees "
    "one until `/gm round reveal` shows them all at once.\n"
    "Add `character:<name>` to a `/character` command to edit anyone's sheet."
)

#: What /check does in each system, in a few lines (README "Rule systems"): each system's own.
_SYSTEMS: Mapping[str, str] = per_system(lambda system: system.summary)

_DICE_PAGES: tuple[tuple[str, str], ...] = (
    (
        "Dice and arithmetic",
        "Type it after `/roll dice:`. Case and spaces don't matter.\n"
        "`1d20`, `d20`: one twenty-sided die\n"
        "`8d6`: eight six-sided dice, added up\n"
        "`d%`: a hundred-sided die\n"
        "`1d20+5`, `1d8-1`: add or subtract\n"
        "`2*(1d6+2)`: multiply; parentheses group\n"
        "`1d20/2`: divide, always rounding down (`7/2` is 3)\n\n"
        "`*` and `/` come before `+` and `-`. Dividing by something that can be zero is "
        "refused before anything is rolled.",
    ),
    (
        "Keep, drop, advantage",
        "`4d6kh3`: keep the highest 3 (`4d6k3` is the same)\n"
        "`2d20kl1`: keep the lowest 1\n"
        "`5d10dh2`: drop the highest 2\n"
        "`4d6dl1`, `4d6d1`: drop the lowest 1\n"
        "`adv`, `adv+5`: advantage, the same as `2d20kh1`, `2d20kh1+5`\n"
        "`dis`: disadvantage, `2d20kl1`\n"
        "`1d20 adv+5` also works, right after a single d20. `1d20+5 adv` is refused: write "
        "`adv+5`.",
    ),
    (
        "Exploding, rerolling, minimum",
        "`3d6e`: a 6 explodes: roll another die and add it\n"
        "`10d10e>=9`: 9s and 10s explode\n"
        "`1d6r1`: reroll a 1 once (the new face stands)\n"
        "`2d6r<3`: reroll faces below 3 once each\n"
        "`1d20rr<5`: reroll again and again while below 5 (at most 10 times)\n"
        "`4d6mi2`: every face below 2 counts as 2; `4d6ma5`: above 5 counts as 5\n\n"
        "A die explodes at most 10 times. Rerolls and explosions that would never stop "
        "(`1d6rr<7`) are refused.",
    ),
    (
        "Successes, labels, comments",
        "`10d10>=8`: the result is how many dice show 8 or more\n"
        "`6d6>4`, `5d10<=2`, `4d6=6`: other comparisons\n"
        "`10d10e10>=8`: each 10 is a success and adds a die\n\n"
        "`1d8+3 [slashing] + 1d6 [fire]`: a label in brackets after any part\n"
        "`1d20+5 # attack the goblin`: everything after `#` is a comment\n"
        "`label:` on `/roll` gives the roll a title.",
    ),
    (
        "Sets, pools, several rolls",
        "`(1d4, 2+2, 3d6kl1)kh1`, `{4d10*2, 5d6+10}k1`: the best of several results\n"
        "`4d6k<3`, `4d6p>4`: keep (drop) the dice below 3 (above 4); `4d6km2`: the middle 2\n"
        "`3d6!`, `3d6!!`, `3d6!p`: explode, compound, penetrate; `2d6ro1`, `2d6ra1`\n"
        "`4dF`: Fate dice; `10d10>=8f1`, `5d10 t8 f1`: successes minus failures\n"
        "`1d20+5 >= 15`: pass or fail\n"
        "`6#4d6kh3` (or `6 4d6 k3`), `1d20+5 [attack]; 2d6 [damage]`: several rolls, each with "
        "its own total\n\n"
        "From Dice Maiden: `+d20` is advantage, and a modifier after a space is read its way "
        "(`3d6 e6` explodes once). Where bots disagree (`2d6 >= 7`) you are asked which you "
        "mean. Coming from Avrae, Roll20 or Dice Maiden? `/me dice dialect:` reads your rolls "
        "with that bot's habits. All of it: docs/dice.md.",
    ),
    (
        "Reading the result",
        "`4d6kh3 (**6**, 4, ~~1~~, 3) = 13`\n"
        "Every die is listed in roll order. Dice that don't count (dropped, or replaced by a "
        "reroll) are struck through; highest faces and 1s are bold; `!` marks a die that "
        "exploded, `→` a face changed by `mi`/`ma`, `✓` a success.\n\n"
        "**Limits**, checked before rolling: 1,000 characters, 1,000 dice (counting every "
        f"possible explosion, reroll and repeat), dice of 1 to {MAX_SIDES:,} sides, 20 rolls.\n\n"
        "`/odds roll dice:2d6+1 at_least:8` gives the exact chances of any expression.",
    ),
)

_SECRET = (
    "Every rolling command (`/roll`, `/check`, `/save`, `/luck`, `/gm roll`, `/gm check`) takes "
    "`secret:`; without it the campaign's default applies (`/campaign set secrecy`).\n"
    "• `public`: everyone sees the result.\n"
    "• `gm`: the channel sees a stub; you and the GM see the result.\n"
    "• `blind`: only the GM sees the result; you see the stub.\n"
    "• `self`: only you see the result; it is still recorded.\n\n"
    "A **stub** names the roll by its number (`#42`) and shows its **commitment**, a SHA-256 "
    "fingerprint of the result and a secret salt. It never shows a die or a total, and "
    "nothing anyone else can see changes until the roll is revealed.\n\n"
    "**Reveal.** `/gm reveal roll:42` (GMs) shows the full result with its salt; a `self` roll "
    "only its roller can reveal: `/reveal roll:42`.\n\n"
    "**Verify.** `/verify roll:42` recomputes the fingerprint of a revealed roll and compares "
    "it with the one in the stub as Discord still shows it. `/verify log:True` checks that no "
    "roll of the campaign was changed, removed or reordered since it was made."
)

_FAIR = (
    "Your dice come from seeds fixed before you roll, and can be recomputed once the seed is "
    "revealed.\n\n"
    "**Server seed.** Each campaign (and each channel outside one, and your DM with the bot) "
    "has a secret seed; its SHA-256 is shown before any die comes from it (at "
    "`/campaign setup`, in `/campaign show` and `/seed show`, at each rotation). `/seed rotate` "
    "reveals the seed and starts a new one: in a campaign its GM (also "
    "`/campaign seed rotate`), in a channel without one a member with Manage Channels, in a DM "
    "you. `/campaign seed period hours:24` rotates a campaign's on its own. The first roll of "
    "a place whose seed nobody asked for reveals that seed right after it.\n\n"
    "**Your seed.** `/me seed set text:anything` (or leave `text` out for a random one) mixes "
    "your own words into every die you roll, from your next roll on; `/me seed show` shows "
    "it. Nobody else can set it. A roll records your key salted for its campaign or place, "
    "so your rolls in two servers cannot be linked. Change it after a new hash is shown and "
    "someone who knows only the server seed cannot have aimed a result at you.\n\n"
    "**Check.** Once a seed is revealed, `/verify roll:42` recomputes every face of roll #42 "
    "from the seeds and says where it was drawn (scope and draw number); `/verify "
    "seed:<seed>` checks a revealed seed against its published hash. Without the bot, "
    '`tools/verify_fair.py --mine SEED SCOPE DRAW "your seed" SIDES COUNT` recomputes one '
    "of your rolls, and `tools/verify_fair.py export.json` a whole campaign export. What this "
    "proves and what it cannot yet (an operator who can read the bot's database): "
    "docs/fair-dice.md."
)

_FORTUNE = (
    f"In Pen & Dagger you hold up to {FORTUNE_MAX} fortune dice ({BOON_FORTUNE_MAX} with the "
    "double-fortune boon). "
    "`/fortune show` tells how many someone holds.\n\n"
    "**Gaining one.** On a natural 20 (an attempt or a luck roll), two buttons appear for you: "
    "*Keep the critical*, or *Take a Normal success + a fortune die*. You choose once. "
    "At your maximum there is nothing to trade, so no buttons appear.\n\n"
    "**Rerolling.** While you hold one, a result a reroll could improve shows "
    "*Spend a fortune die: reroll*: the bot rerolls with the same rank and modifiers until "
    "the result is better, shows every roll and spends one die. A natural 1, or the best "
    "result you could get, cannot be rerolled; nothing is spent. `/fortune spend "
    "purpose:reroll` does the same for your latest public roll.\n\n"
    "**Other uses.** `/fortune spend purpose:hint`, `escape` or `item`, with a `note:`.\n\n"
    "**Hidden rolls.** A `blind` roll offers no choice (you have not seen it). On `gm` or "
    "`self` rolls the buttons come with your private copy, but a traded die is visible to "
    "all.\n\n"
    "GMs: `/fortune give`, `/fortune take`, `/character boon`."
)


def rules_page(system: str) -> str:
    """The path of the system's player reference (docs/rules/), named in /help system."""
    return f"docs/rules/{system}.md"


def _embed(title: str, text: str) -> discord.Embed:
    return style.new_embed(title, text, style.INFO)


def _system_pages(system: str | None) -> list[discord.Embed]:
    if system is not None:
        embed = _embed(
            f"This campaign plays {SYSTEM_NAMES[system]}",
            f"{_SYSTEMS.get(system, '')}\n\nThe full reference, with its tables and the rulings "
            "the bot "
            f"follows: `{rules_page(system)}` in pbp-dice's documentation.",
        )
        others = ", ".join(SYSTEM_NAMES[s] for s in SYSTEMS if s != system)
        embed.set_footer(text=f"The bot also knows {others}.")
        return [embed]
    embed = _embed(
        "Rule systems",
        "This channel has no campaign, so here is what `/check` does in each system. "
        "A GM chooses one with `/campaign setup`.",
    )
    for each in SYSTEMS:
        style.add_field(embed, SYSTEM_NAMES[each], _SYSTEMS[each])
    return [embed]


def help_pages(topic: HelpTopic | None, system: str | None = None) -> list[discord.Embed]:
    """The pages of ``topic`` (the overview when None); ``system`` is the channel's, if any."""
    if topic is None:
        return [_embed("pbp-dice help", _OVERVIEW)]
    if topic is HelpTopic.SYSTEM:
        return _system_pages(system)
    if topic is HelpTopic.DICE:
        pages = [_embed(f"Dice notation: {title}", text) for title, text in _DICE_PAGES]
        for number, page in enumerate(pages, start=1):
            page.set_footer(text=f"Page {number} of {len(pages)}")
        return pages
    single = {
        HelpTopic.PLAYERS: ("Getting started: players", _PLAYERS),
        HelpTopic.GMS: ("Getting started: GMs", _GMS),
        HelpTopic.SECRET: ("Secret rolls", _SECRET),
        HelpTopic.FORTUNE: ("Fortune dice (Pen & Dagger)", _FORTUNE),
        HelpTopic.FAIR: ("Provably fair dice", _FAIR),
    }
    title, text = single[topic]
    return [_embed(title, text)]
