"""/help's texts: each topic as one or more embeds (pages), written for the player.

A topic is short hand-written guidance followed by its commands, whose descriptions come from
the command tree itself (:class:`CommandDoc`), so /help cannot drift from the commands; a
rolling command's line, with its options, and what each system's rolls take come from the
rolling commands' table (bot/commands/rolling.py), as the slash commands' options do.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import discord

from bot.commands import ROLLING, RollingCommand, Rolls, Who
from bot.dice.limits import MAX_SIDES
from bot.render import style
from bot.render.renamed import renamed_lines
from bot.rules.systems import SYSTEMS
from bot.rules.systems.base import per_system
from bot.services.rolling.checks import SYSTEM_NAMES
from bot.words import BOON_FORTUNE_MAX, FORTUNE_MAX

#: Where pbp-dice's documentation is published: every link /help shows starts here.
DOCS_URL = "https://github.com/pbp-dice/pbp-dice/blob/main/docs"


def docs_link(page: str) -> str:
    """The full address of a documentation page, e.g. ``clock.md`` or ``rules/threshold.md``."""
    return f"{DOCS_URL}/{page}"


class HelpTopic(enum.StrEnum):
    """The topics of /help; the value is what a player types after `topic:`."""

    PLAYERS = "players"
    GMS = "gms"
    CLOCK = "clock"
    IN_CHARACTER = "in-character"
    SECRET = "secret"
    DICE = "dice"
    SYSTEM = "system"
    FORTUNE = "fortune"
    FAIR = "fair"
    PRIVACY = "privacy"


#: What the topic picker shows; each name starts with the value, so typing it filters.
TOPIC_NAMES: dict[HelpTopic, str] = {
    HelpTopic.PLAYERS: "players: getting started as a player",
    HelpTopic.GMS: "gms: GM quick start: a campaign, characters, first rolls",
    HelpTopic.CLOCK: "clock: roll requests, deadlines, reminders, turns",
    HelpTopic.IN_CHARACTER: "in-character: /post, [[rolls]] in your text, saved rolls",
    HelpTopic.SECRET: "secret: sealed rolls: hidden rolls, rounds, pre-rolls, /verify",
    HelpTopic.DICE: "dice: the /roll dice notation, with examples",
    HelpTopic.SYSTEM: "system: this campaign's rules in short",
    HelpTopic.FORTUNE: "fortune: fortune dice (Pen & Dagger)",
    HelpTopic.FAIR: "fair: provably fair dice, seeds and how to check them",
    HelpTopic.PRIVACY: "privacy: what the bot keeps about you; export, erase",
}


@dataclass(frozen=True)
class CommandDoc:
    """One command as the command tree declares it: what its topic's list shows."""

    #: The qualified name (``gm request roll``), or a context menu's label.
    name: str
    description: str
    #: ``"message"`` or ``"user"`` for a context menu (Apps → name); empty for a slash command.
    menu: str = ""

    def line(self) -> str:
        """One line of a topic's command list."""
        if self.menu:
            where = "a message" if self.menu == "message" else "a member"
            return f"**Apps → {self.name}**: right-click (or long-press) {where}"
        return f"`/{self.name}`: {self.description}"


def rolling_line(command: RollingCommand) -> str:
    """A rolling command's line in its topic: what it does, then its options in order."""
    options = ", ".join(
        f"`{option.name}`" + (" (required)" if option.required else "")
        for option in command.options
    )
    return f"`/{command.name}`: {command.help}; options: {options}"


def system_options_line(command: RollingCommand, system: str) -> str:
    """The options ``command`` takes in ``system``'s campaigns, for /help system."""
    taken = [
        f"`{option.name}`"
        for option in command.options
        if system in {s.key for s in command.systems_for(option)}
    ]
    return f"`/{command.name}`: {', '.join(taken) or 'no options'}"


#: The player's own rolls whose options /help system lists for the campaign's system.
_SYSTEM_ROLLS = (Rolls.CHECK, Rolls.SAVE, Rolls.LUCK, Rolls.ATTACK)


_OVERVIEW = (
    "pbp-dice rolls dice for play-by-post games and keeps every roll in a ledger nobody can "
    "change. Pick a topic:\n"
    + "\n".join(f"• `/help topic:{t.value}`: {TOPIC_NAMES[t].split(': ', 1)[1]}" for t in HelpTopic)
    + "\n\nNew GM? Start with `/help topic:gms`. No campaign needed to roll: "
    "`/roll dice:1d20+5` works in any channel. Each topic ends with its commands.\n\n"
    f"The full guide: {docs_link('playing.md')}"
)

_PLAYERS = (
    "**1. Make a character** in the campaign's channel:\n"
    "`/character create name:Angus`: your first character becomes your active one.\n"
    "`/character set ability:DEX value:14`: a score (in the threshold system, the modifier).\n"
    "`/character proficiency name:Stealth value:Trained`: a rank, or Proficient/Expert.\n"
    "`/character show` shows your sheet; `/character use name:…` switches characters.\n\n"
    "**2. Roll.** `/check ability:DEX` rolls your active character's check in this "
    "campaign's system, with every die and modifier shown. Also `/save`, `/luck` "
    "(Pen & Dagger), `/attack` (d20 check) and `/roll dice:…` for any dice.\n\n"
    "**3. Before you roll**, `/odds check ability:DEX` shows only you the exact chances.\n\n"
    "**Roll requests.** When the GM asks for a roll, click **Roll** under their message "
    "whenever you are next online; you roll with your own character.\n\n"
    "**Party.** New characters join it; `/party add character:Angus` adds one; "
    "`/party show` lists it.\n\n"
    "**Looking back.** `/catchup` tells only you what happened since your last roll or turn; "
    "`/history` lists the rolls you may see; `/stats` compares everyone's d20s with fair "
    "dice.\n\n"
    "Names, abilities and proficiencies autocomplete. More: `/help topic:in-character` "
    "(posting as your character), `/help topic:clock`, `/help topic:system`, "
    f"`/help topic:dice`.\n\nThe full guide: {docs_link('playing.md')}"
)

_GM_QUICK_START = (
    "**1. A campaign.** In the game's channel (you need Manage Server):\n"
    "`/campaign setup system:d20-check gm_role:@GM gm_channel:#gm-secrets`\n"
    "`system` is `pen-and-dagger`, `roll-under`, `threshold` or `d20-check`. Members with the "
    "GM role (and Manage Server) are its GMs; threads under the channel belong to it. "
    "`gm_channel` is a channel only GMs can read: hidden results go there. `/campaign check` "
    "says what the bot can and cannot do in these channels.\n\n"
    "**2. Characters.** Each player: `/character create name:Ann`, then "
    "`/character set ability:DEX value:14`. Add `character:Ann` to a `/character` command to "
    "edit anyone's sheet.\n\n"
    "**3. A first check.** A player types `/check ability:DEX dc:12`: every die and modifier "
    "is shown to the table.\n\n"
    "**4. A hidden roll.** `/gm check character:Ann ability:WIS` or `/gm roll dice:1d20+3 "
    "label:Ambush` is blind by default: the result goes to your GM channel, the table sees a "
    "stub with the roll's number, say #2: `/reveal roll:2` shows it to everyone.\n\n"
    "**5. A request with a deadline.** `/gm request roll ability:DEX characters:Ann, Bo dc:12 "
    "deadline:24h default:roll remind:12h`: each player clicks **Roll** when next online; "
    "one reminder after 12 hours, and at 24 hours the bot rolls for whoever has not. "
    "`/gm request status` shows who is missing.\n\n"
    "Next: `/help topic:clock`, `/help topic:secret`, `/help topic:in-character`."
)

_GM_RUNNING = (
    "**Settings.** `/campaign show` lists them; `/campaign set …` changes GM roles, "
    "difficulty tiers, ability names, critical rules, the fortune boon and who sees each "
    "command's results by default (`/campaign set secrecy`).\n\n"
    "**The party at once.** `/groupsave`, `/groupcheck` and `/contest` roll for the whole "
    "party or a few characters; `/party add-all` puts every character in the party; "
    "`/gm attack` rolls for a monster.\n\n"
    "**Sealed play.** `/gm round open deadline:24h`: each player seals an action with "
    "`/declare`; nobody sees one until `/gm round reveal` shows them all at once. Players "
    "can seal d20s with `/preroll`; `/gm check … preroll:next` applies one.\n\n"
    "**The record.** `/gm log` lists every roll, hidden ones included; `/campaign export` "
    f"downloads the campaign.\n\nThe full guide: {docs_link('playing.md')}"
)

_CLOCK_REQUESTS = (
    "Play-by-post stalls on whoever has not answered. The clock keeps the game moving, and "
    "it survives restarts.\n\n"
    "**Roll requests.** `/gm request roll ability:DEX characters:Ann, Bo dc:12 deadline:1d "
    "default:roll remind:12h`\n"
    "• `deadline`: how long players have: `90m`, `24h`, `2d`, `1d12h` (at most 30 days).\n"
    "• `default`: at the deadline, whoever has not rolled: `roll` (the bot rolls for them "
    "with their sheet), `skip` (the default: left out) or `fail`.\n"
    "• `remind`: after this long, one reminder to each player still missing.\n"
    "Leave out `characters` for the whole party; `hidden_dc` instead of `dc` keeps the DC "
    "and who passed to the GM until `/gm request reveal`.\n\n"
    "`/gm request status` shows who has rolled; `/gm request extend by:12h` moves the "
    "deadline; `/gm request close` ends it now and applies its default. A click after the "
    "deadline is refused."
)

_CLOCK_TURNS = (
    "**Turn order.** `/turns start order:initiative deadline:24h` starts a round over the "
    "party (or `characters:Ann, Bo`) in this channel or thread. `order` is `listed`, "
    "`initiative` (each system's own roll, every die shown) or `random`.\n"
    "• `/turns show`: the order and whose turn it is.\n"
    "• `/turns next`: end your turn (a GM can end anyone's).\n"
    "• `/turns hold`: skip me this round, keep my place.\n"
    "• `/turns end`: the GM ends the order.\n"
    "With `deadline`, a turn passes by itself when its time is up.\n\n"
    "**Reminders.** The player whose turn begins, or who has not rolled a request, is "
    "pinged their way: `/me notify how:channel` (the default), `how:dm` or `how:off`.\n\n"
    "**Rounds.** `/gm round open deadline:24h` reveals its sealed declarations by itself "
    "when the time is up (`/help topic:secret`).\n\n"
    "**What did I miss?** `/catchup` lists, only to you, what happened since your last roll "
    "or turn: requests waiting for you, results, turns that reached you.\n\n"
    f"The full guide: {docs_link('clock.md')}"
)

_IN_CHARACTER_POST = (
    "**Post as your character.** `/post text:Wren ducks behind the cart. [[check DEX]]` "
    "posts at once under your active character's name and portrait; `/post` alone opens a "
    "form (up to 4,000 characters). `/character avatar url:https://…/wren.png` (or "
    "`image:` an upload) sets the portrait.\n\n"
    "**Rolls in the text.** Write what you would type after a slash in double brackets: "
    "`[[1d20+5]]`, `[[check DEX Stealth adv]]`, `[[save WIS dc:12]]`, "
    "`[[attack longsword ac:15 damage:1d8+3]]`, `[[luck]]`. Each is rolled as its command "
    "would, with your character's sheet, shown in place and recorded with the post. One roll "
    "that cannot be made refuses the whole post, and nothing is recorded. Inline rolls are "
    "public.\n\n"
    "**A message you wrote.** Right-click it, **Apps → Roll the dice in this message**: "
    "its `[[…]]` are rolled once.\n\n"
    "**Editing.** `/post-edit message:<link>` changes the text but never rerolls: every "
    "`[[…]]` must stay as it was. `/post-history message:<link>` shows every version (to "
    "the GM and the author).\n\n"
    "**Mentions.** A post pings nobody unless the GM allows it: "
    "`/campaign set post-mentions on:true`."
)

_IN_CHARACTER_MACROS = (
    "**Saved rolls (macros).** Save a roll you make often for your active character:\n"
    "`/macro save name:sneak roll:check DEX Stealth adv`\n"
    "then `/macro run name:sneak`, or write `[[sneak]]` in a post. "
    "`/macro run name:sneak extra:dc:15` adds options at the end. `/macro list` shows your "
    "character's saved rolls; `/macro delete name:sneak` deletes one. A saved roll is "
    "checked when saved: an unknown command or option is refused.\n\n"
    "**Who wrote it.** A post shows the character, not the player. Anyone can right-click a "
    "post, **Apps → Who posted this?**, and is told privately which member posted it, as "
    "which character, with its post and log numbers. Character names that read the same "
    "(look-alike letters, invisible characters) or the bot's own name are refused, so "
    "nobody can post as someone else.\n\n"
    f"The full guides: {docs_link('posting.md')} and {docs_link('in-character.md')}"
)

_SECRET = (
    "Every rolling command (`/roll`, `/check`, `/save`, `/luck`, `/gm roll`, `/gm check`) takes "
    "`secret:`; without it the campaign's default applies (`/campaign set secrecy`).\n"
    "• `public`: everyone sees the result.\n"
    "• `gm`: the channel sees a stub; you and the GM see the result.\n"
    "• `blind`: only the GM sees the result; you see the stub.\n"
    "• `self`: only you see the result; it is still recorded.\n"
    "The GM's `/gm roll` and `/gm check` are `blind` unless the campaign says otherwise; their "
    "results go to the GM channel.\n\n"
    "A **stub** names the roll by its number (`#42`) and shows its **commitment**, a SHA-256 "
    "fingerprint of the result and a secret salt. It never shows a die or a total, and "
    "nothing anyone else can see changes until the roll is revealed.\n\n"
    "**Reveal.** `/reveal roll:42` shows the full result with its salt: a GM reveals `gm` and "
    "`blind` rolls, and a `self` roll only its roller can reveal.\n\n"
    "**Verify.** `/verify roll:42` recomputes the fingerprint of a revealed roll and compares "
    "it with the one in the stub as Discord still shows it. `/verify log:True` checks that no "
    "roll of the campaign was changed, removed or reordered since it was made.\n\n"
    f"The full guide: {docs_link('secret-rolls.md')}"
)

_SEALED_ROUNDS = (
    "Whoever posts last has read everyone else's action first. A **round of sealed "
    "declarations** removes that edge.\n\n"
    "• `/gm round open deadline:24h` (GM) opens a round in this channel or thread; with "
    "`deadline` it reveals itself when the time is up.\n"
    "• `/declare text:I pick the lock` seals your action: the channel sees that you declared "
    "and a commitment, never the text. Declaring again replaces it.\n"
    "• `/gm round status`: who has declared (not what).\n"
    "• `/gm round reveal` (GM) shows every declaration at once.\n"
    "• `/gm round cancel` (GM) closes the round unrevealed: it stays sealed for good.\n\n"
    "Nobody, the GM included, can read a declaration before the reveal; afterwards anyone "
    "can check it with `/verify`.\n\n"
    f"The full guide: {docs_link('rounds.md')}"
)

_SEALED_PREROLLS = (
    "A GM who picks the DC after seeing the die, or a player who forgets a bad roll: a "
    "**pre-roll** settles it.\n\n"
    "• `/preroll count:3` seals three d20s for your active character: the channel sees one "
    "commitment per die, nobody (you and the GM included) sees a die.\n"
    "• `/preroll-list` lists the sealed dice still waiting, per character.\n"
    "• `/gm check character:Wren ability:DEX preroll:next` (GM) rolls the check with Wren's "
    "oldest sealed d20 (two with advantage), publicly, showing when each die was sealed.\n\n"
    "`/verify roll:<number>` then proves the die was fixed before the GM chose the check. At "
    "most 10 dice wait per character; each is used once.\n\n"
    f"The full guide: {docs_link('prerolls.md')}"
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
        "mean. Coming from Avrae, Roll20 or Dice Maiden? `/me dice dialect:avrae` reads your "
        "rolls with that bot's habits (`/campaign set dice-dialect` for everyone). All of it: "
        f"{docs_link('dice.md')}",
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

_FAIR = (
    "Your dice come from seeds fixed before you roll, and can be recomputed once the seed is "
    "revealed.\n\n"
    "**Server seed.** Each campaign (and each channel outside one, and your DM with the bot) "
    "has a secret seed; its SHA-256 is shown before any die comes from it (at "
    "`/campaign setup`, in `/campaign show` and `/seed show`, at each rotation). `/seed rotate` "
    "starts a new seed and publishes the old one: in a campaign its GM (also "
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
    "seed:<seed>` checks a revealed seed against its published hash. Without the bot, a "
    "small script (Python's standard library only) recomputes one of your rolls or a whole "
    "campaign export (`/campaign export`). How, what this proves and what it cannot yet (an "
    "operator who can read the bot's database): "
    f"{docs_link('fair-dice.md')}"
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
    "GMs: `/fortune give`, `/fortune take`, `/character boon`.\n\n"
    f"The full rules: {docs_link('rules/pen-and-dagger.md')}"
)


_PRIVACY = (
    "The bot keeps only what play needs: your characters and their saved rolls, the game "
    "log of rolls and posts (so the table can check it), and your few settings (`/me notify`, "
    "`/me dice`, `/me seed set`).\n\n"
    "• `/privacy show` tells only you what it holds about you, server by server.\n"
    "• `/privacy delete` erases it in this server; in a direct message with the bot, "
    "everywhere. It asks first, and only you can press its button. Your part of the game log "
    "becomes `[erased]`, and the log still verifies.\n\n"
    "GMs: `/campaign export` downloads the campaign (settings, characters, rolls; a `self` "
    "roll not yet revealed without its result); `/campaign delete` deletes the campaign and "
    "its characters, but keeps its rolls for the group.\n\n"
    f"What is stored, why, for how long, who can see it: {docs_link('privacy.md')}"
)


def rules_page(system: str) -> str:
    """The address of the system's player reference (docs/rules/), linked in /help system."""
    return docs_link(f"rules/{system}.md")


@dataclass(frozen=True)
class _Topic:
    """A topic: its pages of guidance, then its commands (by name, described by the tree)."""

    title: str
    pages: tuple[tuple[str, str], ...]
    commands: tuple[str, ...] = ()


#: Each topic's guidance and the commands it lists. Every command of the bot is listed by at
#: least one topic (tests/scenarios/test_help.py): a new command needs a line here.
_TOPICS: Mapping[HelpTopic, _Topic] = {
    HelpTopic.PLAYERS: _Topic(
        "Getting started: players",
        (("Getting started: players", _PLAYERS),),
        (
            "character create",
            "character use",
            "character show",
            "character list",
            "character set",
            "character proficiency",
            "character level",
            "character save",
            "character armour",
            "character null",
            "character delete",
            "check",
            "save",
            "luck",
            "attack",
            "reroll",
            "roll",
            "odds check",
            "odds save",
            "odds attack",
            "odds luck",
            "odds roll",
            "party add",
            "party remove",
            "party show",
            "catchup",
            "history",
            "stats",
            "help",
        ),
    ),
    HelpTopic.GMS: _Topic(
        "GM quick start",
        (("GM quick start", _GM_QUICK_START), ("Running the game", _GM_RUNNING)),
        (
            "campaign setup",
            "campaign show",
            "campaign check",
            "campaign set gm-role",
            "campaign set gm-channel",
            "campaign set secrecy",
            "campaign set abilities",
            "campaign set tier",
            "campaign set carry-over",
            "campaign set crit-rules",
            "campaign set crit-damage",
            "campaign set rerolls",
            "campaign set fortune-boon",
            "campaign set luck-trade",
            "campaign set party-auto-join",
            "campaign set post-mentions",
            "campaign set dice-dialect",
            "campaign export",
            "campaign delete",
            "gm check",
            "gm roll",
            "gm attack",
            "reveal",
            "gm log",
            "gm clear-modifier",
            "gm request roll",
            "groupsave",
            "groupcheck",
            "contest",
            "party add-all",
            "abilities roll",
            "abilities assign",
            "character boon",
            "character restore-ac",
        ),
    ),
    HelpTopic.CLOCK: _Topic(
        "The game clock",
        (
            ("The game clock: roll requests and deadlines", _CLOCK_REQUESTS),
            ("The game clock: turns and reminders", _CLOCK_TURNS),
        ),
        (
            "gm request roll",
            "gm request status",
            "gm request extend",
            "gm request close",
            "gm request reveal",
            "turns start",
            "turns show",
            "turns next",
            "turns hold",
            "turns end",
            "me notify",
            "gm round open",
            "catchup",
        ),
    ),
    HelpTopic.IN_CHARACTER: _Topic(
        "Playing in character",
        (
            ("Playing in character: posts and inline rolls", _IN_CHARACTER_POST),
            ("Playing in character: saved rolls and authorship", _IN_CHARACTER_MACROS),
        ),
        (
            "post",
            "post-edit",
            "post-history",
            "character avatar",
            "macro save",
            "macro run",
            "macro list",
            "macro delete",
            "campaign set post-mentions",
            "Roll the dice in this message",
            "Who posted this?",
        ),
    ),
    HelpTopic.SECRET: _Topic(
        "Sealed rolls",
        (
            ("Sealed rolls: secret and blind rolls", _SECRET),
            ("Sealed rolls: rounds of declarations", _SEALED_ROUNDS),
            ("Sealed rolls: pre-rolls", _SEALED_PREROLLS),
        ),
        (
            "gm roll",
            "gm check",
            "reveal",
            "verify",
            "campaign set secrecy",
            "gm log",
            "gm round open",
            "declare",
            "gm round status",
            "gm round reveal",
            "gm round cancel",
            "preroll",
            "preroll-list",
        ),
    ),
    HelpTopic.DICE: _Topic(
        "Dice notation",
        tuple((f"Dice notation: {title}", text) for title, text in _DICE_PAGES),
        ("roll", "odds roll", "me dice", "campaign set dice-dialect"),
    ),
    HelpTopic.FORTUNE: _Topic(
        "Fortune dice (Pen & Dagger)",
        (("Fortune dice (Pen & Dagger)", _FORTUNE),),
        (
            "fortune show",
            "fortune spend",
            "fortune give",
            "fortune take",
            "character boon",
            "campaign set fortune-boon",
            "campaign set luck-trade",
        ),
    ),
    HelpTopic.FAIR: _Topic(
        "Provably fair dice",
        (("Provably fair dice", _FAIR),),
        (
            "seed show",
            "seed rotate",
            "campaign seed rotate",
            "campaign seed period",
            "me seed set",
            "me seed show",
            "verify",
        ),
    ),
    HelpTopic.PRIVACY: _Topic(
        "Your data",
        (("Your data", _PRIVACY),),
        ("privacy show", "privacy delete", "campaign export", "campaign delete"),
    ),
}

#: Atop a page that only lists commands.
_COMMANDS_NOTE = "Each command as it describes itself; its options show as you type it."

#: An embed past this many characters is split: a page stays readable on a phone (Discord's
#: own limit, 6,000, is far above it).
_PAGE_BUDGET = 4000


def topic_commands(topic: HelpTopic) -> tuple[str, ...]:
    """The names of the commands ``topic`` lists (none for the system topic)."""
    spec = _TOPICS.get(topic)
    return spec.commands if spec is not None else ()


def _embed(title: str, text: str) -> discord.Embed:
    return style.new_embed(title, text, style.INFO)


def _fields(lines: Iterable[str]) -> list[str]:
    """``lines`` packed into field values of at most Discord's 1,024 characters."""
    values: list[str] = []
    for line in lines:
        line = style.clip(line, style.FIELD_VALUE_LIMIT)
        if values and len(values[-1]) + 1 + len(line) <= style.FIELD_VALUE_LIMIT:
            values[-1] += "\n" + line
        else:
            values.append(line)
    return values


def _topic_pages(spec: _Topic, commands: Mapping[str, CommandDoc]) -> list[discord.Embed]:
    """The guidance pages, then the topic's commands as fields, on the last page while they
    fit and on pages of their own after it."""
    pages = [_embed(title, text) for title, text in spec.pages]
    listed = [
        rolling_line(ROLLING[name]) if name in ROLLING else commands[name].line()
        for name in spec.commands
        if name in commands
    ]
    fields = [
        ("Commands" if number == 0 else "Commands (continued)", value)
        for number, value in enumerate(_fields(listed))
    ]
    # An old name is not listed as a command, only beside the name that replaced it.
    fields += [("Renamed", value) for value in _fields(renamed_lines(spec.commands))]
    for name, value in fields:
        page = pages[-1]
        if len(page) + len(name) + len(value) > _PAGE_BUDGET or len(page.fields) >= 5:
            page = _embed(f"{spec.title}: commands", _COMMANDS_NOTE)
            pages.append(page)
        page.add_field(name=name, value=value, inline=False)
    if len(pages) > 1:
        for number, page in enumerate(pages, start=1):
            page.set_footer(text=f"Page {number} of {len(pages)}")
    return pages


def _system_pages(system: str | None) -> list[discord.Embed]:
    if system is not None:
        embed = _embed(
            f"This campaign plays {SYSTEM_NAMES[system]}",
            f"{_SYSTEMS.get(system, '')}\n\nThe full reference, with its tables and the rulings "
            f"the bot follows: {rules_page(system)}",
        )
        others = ", ".join(SYSTEM_NAMES[s] for s in SYSTEMS if s != system)
        embed.set_footer(text=f"The bot also knows {others}.")
        rolls = [
            system_options_line(command, system)
            for command in ROLLING.values()
            if command.who is Who.PLAYER
            and command.rolls in _SYSTEM_ROLLS
            and command.spelling is not None
            and system in {s.key for s in command.systems()}
        ]
        style.add_field(embed, "Options of your rolls here", "\n".join(rolls))
        return [embed]
    embed = _embed(
        "Rule systems",
        "This channel has no campaign, so here is what `/check` does in each system. "
        f"A GM chooses one with `/campaign setup`. Each system's full reference: "
        f"{docs_link('rules/README.md')}",
    )
    for each in SYSTEMS:
        style.add_field(embed, SYSTEM_NAMES[each], _SYSTEMS[each])
    return [embed]


def help_pages(
    topic: HelpTopic | None, system: str | None = None, commands: Sequence[CommandDoc] = ()
) -> list[discord.Embed]:
    """The pages of ``topic`` (the overview when None); ``system`` is the channel's, if any;
    ``commands`` are the bot's, as its command tree declares them."""
    if topic is None:
        return [_embed("pbp-dice help", _OVERVIEW)]
    if topic is HelpTopic.SYSTEM:
        return _system_pages(system)
    return _topic_pages(_TOPICS[topic], {doc.name: doc for doc in commands})
