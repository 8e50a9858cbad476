"""What /privacy shows: the data stored about the caller, and what an erasure did.

docs/privacy.md says the same to players.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import discord

from bot.quoting import escape
from bot.render import style
from bot.services.trust.privacy import DOC_URL, Erased, ServerData, StoredData
from bot.words import NotifyMode

#: What /privacy delete asks before anything changes.
DELETE_QUESTION = (
    "Erase your data {where}? Your characters (with their scores, proficiencies and fortune "
    "dice) and your posts are deleted. Your rolls stay in the game log for the table, but "
    "your Discord id, names, character names and the words you typed (labels, notes, "
    "commands) are replaced by `[erased]`; so is your character's name where another "
    "player's roll names it (a GM's roll for it, a helper, a target). Words other players "
    "wrote stay theirs. The dice, results and the log's proofs still check. This cannot be "
    "undone. What is kept and why: `{doc}` in the bot's source."
)


def _when(at: datetime | None) -> str:
    return "—" if at is None else discord.utils.format_dt(at, "d")


def _server_text(server: ServerData) -> str:
    lines = []
    for character in server.characters:
        scores = ", ".join(f"{escape(a)} {v}" for a, v in character.scores) or "no scores"
        boon = " (boon)" if character.double_fortune else ""
        lines.append(
            f"• **{escape(character.name)}** in <#{character.campaign_channel_id}>: level "
            f"{character.level}, {character.fortune} fortune dice{boon}; {scores}"
        )
    if not server.characters:
        lines.append("• No characters.")
    if server.known_gm_in:
        channels = ", ".join(f"<#{c}>" for c in server.known_gm_in)
        lines.append(f"• Remembered as a GM (for hidden-roll copies) in {channels}.")
    lines.append(
        f"• {server.rolls} rolls in the game log (first {_when(server.first_roll)}, last "
        f"{_when(server.last_roll)}), with your id, character names and commands as typed."
    )
    if server.named_in:
        lines.append(
            f"• {server.named_in} rolls of others that name you or your characters "
            "(a GM's roll for them, a helper, a target, a group roll)."
        )
    if server.fortune_choices:
        lines.append(f"• {server.fortune_choices} fortune choices on rolls.")
    if server.requests_made or server.requests_received:
        lines.append(
            f"• Roll requests: {server.requests_made} made as GM, "
            f"{server.requests_received} addressed to your characters."
        )
    if server.turn_orders:
        lines.append(f"• {server.turn_orders} turn orders (`/turns`) that list your characters.")
    if server.posts:
        lines.append(f"• {server.posts} posts as your characters (`/post`), with their edits.")
    if server.macros:
        lines.append(f"• {server.macros} saved rolls (`/macro`) of your characters.")
    return "\n".join(lines)


_NOTIFY: dict[str, str] = {
    NotifyMode.CHANNEL: "a ping in the channel",
    NotifyMode.DM: "a direct message",
    NotifyMode.OFF: "none",
}


def stored_embed(data: StoredData, server_names: Mapping[int, str]) -> discord.Embed:
    """``/privacy show``: per server, what is stored about the caller."""
    if data.empty:
        return style.new_embed(
            "Nothing stored about you",
            f"The bot keeps no character, roll or setting of yours. Details: `{DOC_URL}`.",
            style.INFO,
        )
    embed = style.new_embed(
        "What pbp-dice stores about you",
        "Per server. The bot has no macros. "
        f"`/privacy delete` erases it (in a direct message: everywhere). Details: `{DOC_URL}` "
        "in the bot's source.",
        style.INFO,
    )
    everywhere = []
    if data.notify is not None:
        everywhere.append(
            f"Reminders and turn pings: {_NOTIFY.get(data.notify, data.notify)} (`/me notify`)"
        )
    if data.dialect is not None:
        everywhere.append(f"Dice dialect: {data.dialect} (`/me dice`)")
    if data.seed is not None or data.seed_changes:
        everywhere.append(
            f"Dice seed: {'set' if data.seed is not None else 'none'}, "
            f"{data.seed_changes} change(s) logged (`/me seed show`)"
        )
    if everywhere:
        everywhere.append("Erased by `/privacy delete` in a direct message.")
        style.add_field(embed, "For every server", "\n".join(everywhere))
    for server in data.servers[: style.FIELDS_LIMIT]:
        if server.guild_id is None:
            name = "Direct messages"
        else:
            name = escape(server_names.get(server.guild_id, f"Server {server.guild_id}"))
        style.add_field(embed, name, style.clip(_server_text(server), style.FIELD_VALUE_LIMIT))
    return embed


def erased_text(done: Erased, everywhere: bool) -> str:
    """What an erasure did, in the player's words."""
    where = "everywhere" if everywhere else "in this server"
    older = (
        f" {done.older_rows} of those rolls were recorded before the log salted each personal "
        "field: they show as erased and their proofs can no longer be rechecked."
        if done.older_rows
        else ""
    )
    return (
        f"Done: your data {where} is erased. {done.characters_deleted} characters deleted, "
        f"{done.rolls_erased} rolls in the game log now show `[erased]` where your id, names "
        f"and words were; the dice, results and proofs still check.{older}"
    )
