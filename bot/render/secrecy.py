"""Hidden rolls as Discord sees them: the public stub, the marked full copy, reveal and verify."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import discord

from bot.quoting import escape
from bot.render import style
from bot.render.outcomes import outcome_words
from bot.services.kit import commitments as cm
from bot.services.store.ledger import RollView
from bot.services.trust import secrecy
from bot.services.trust.secrecy import GM_CHANNEL_HINT, GmTargets, Verification
from bot.words import LedgerKind, Visibility

#: Who sees a hidden roll's result, in the stub's words.
WHO_SEES: dict[Visibility, str] = {
    Visibility.PUBLIC: "everyone sees the result",
    Visibility.GM: "only the GM and the roller see the result",
    Visibility.BLIND: "only the GM sees the result",
    Visibility.SELF: "only the roller sees the result",
}


def stub_embed(
    roller: str, what: str, roll_id: int, visibility: Visibility, commitment: str | None
) -> discord.Embed:
    """The public face of a hidden roll: who rolled what, the roll id and the commitment.

    Never the dice, the total or the outcome.
    """
    embed = style.new_embed(
        f"{escape(roller)} rolls {escape(what)} in secret",
        f"Hidden roll **#{roll_id}** ({visibility.value}): {WHO_SEES[visibility]}.",
        style.INFO,
    )
    if commitment:
        style.add_field(embed, "Commitment (SHA-256)", f"`{commitment}`")
    style.set_footer(embed, f"roll #{roll_id} · after /reveal, check it with /verify")
    return embed


class RecordedRoll(Protocol):
    """What a rolling service returns (a dice roll, a check, an attack) as delivery reads it."""

    @property
    def roll_id(self) -> int: ...
    @property
    def number(self) -> int: ...
    @property
    def visibility(self) -> Visibility: ...
    @property
    def commitment(self) -> str | None: ...
    @property
    def gm_targets(self) -> GmTargets: ...


@dataclass(frozen=True, slots=True)
class Delivery:
    """A recorded roll as Discord is to get it (bot/cogs/_delivery.py): the full result, the
    public stub of a hidden one, the GM's copy when it must differ (``gm_full``: a natural 20's
    choice is not the GM's), and what the record says of it. ``roll_id`` is the ledger row
    (internal), ``number`` what the messages print."""

    full: discord.Embed
    stub: discord.Embed | None
    visibility: Visibility
    gm_targets: GmTargets
    roll_id: int
    number: int
    commitment: str | None = None
    gm_full: discord.Embed | None = None

    @classmethod
    def of(
        cls,
        roll: RecordedRoll,
        full: discord.Embed,
        *,
        roller: str,
        what: str,
        gm_full: discord.Embed | None = None,
    ) -> Delivery:
        """``full`` for ``roll``, with its stub (``roller`` rolls ``what`` in secret) when it
        is hidden: a public roll has no stub, and most rolls are public."""
        hidden = roll.visibility is not Visibility.PUBLIC
        return cls(
            full=full,
            stub=stub_embed(roller, what, roll.number, roll.visibility, roll.commitment)
            if hidden
            else None,
            visibility=roll.visibility,
            gm_targets=roll.gm_targets,
            roll_id=roll.roll_id,
            number=roll.number,
            commitment=roll.commitment,
            gm_full=gm_full,
        )


def marked_copy(
    full: discord.Embed, roll_id: int, visibility: Visibility, commitment: str | None
) -> discord.Embed:
    """The full result for an entitled viewer, marked as hidden and with its commitment."""
    copy = discord.Embed.from_dict(full.to_dict())
    note = f"Hidden roll #{roll_id} ({visibility.value}): {WHO_SEES[visibility]}."
    if commitment:
        note += f"\nCommitment: `{commitment}`"
    style.add_field(copy, "Secret", note)
    return copy


def gm_copy_text(roller_id: int, channel_id: int) -> str:
    """The line above the GM's copy: whose roll, from where."""
    return f"Hidden roll by <@{roller_id}> in <#{channel_id}>:"


def undelivered_text() -> str:
    """Told to the roller when no GM could be reached (nothing of the result in it)."""
    return (
        "The GM copy could not be delivered: this campaign has no GM channel and the GMs "
        "could not be reached by direct message. The roll is recorded; the GM can see it "
        f"with /gm log. {GM_CHANNEL_HINT}"
    )


def sent_to_gm_text(roll_id: int) -> str:
    """The roller's note for a blind roll."""
    return f"Roll #{roll_id} was sent to the GM; you will learn the result from them."


def who(row: RollView) -> str:
    """`Ayla (rolled by <@123>)` or `<@123>`: the roll is the character's, made by whoever
    ran the command (a GM's check of a player's character names the GM as its roller, in
    words, not as if the GM were the character's player); an erased roller as such."""
    roller = "an erased player" if row.user_id == cm.TOMBSTONE_ID else f"<@{row.user_id}>"
    if row.character_name:
        return f"{escape(row.character_name)} (rolled by {roller})"
    return roller


#: Said of a hidden row stored without a commitment (none should be; older rows may be).
NO_COMMITMENT = (
    "It was recorded without a commitment, so there is nothing to check it against: "
    "it stands as the GM reveals it."
)


def reveal_embed(row: RollView, encoding: bytes) -> discord.Embed:
    """The revealed roll with its salt and the exact bytes to hash, for /verify or sha256sum.

    A row without a commitment says so, instead of offering a check that cannot be made.
    """
    embed = style.new_embed(
        f"Roll #{row.number} revealed",
        f"{who(row)} rolled `{style.clip(row.request, 200)}` ({row.visibility.value}).\n"
        f"{outcome_words(row)}",
        style.NEUTRAL,
    )
    if not row.commitment or not row.salt:
        style.add_field(embed, "Commitment", NO_COMMITMENT)
        style.set_footer(embed, f"roll #{row.number}")
        return embed
    style.add_field(embed, "Salt", f"`{row.salt}`")
    style.add_field(embed, "Commitment (SHA-256)", f"`{row.commitment}`")
    row_salt = row.salts.row_salt if row.salts is not None else None
    if row.format == cm.WHO_FORMAT and row_salt:
        # The preimage of ``who``: roller, character, command and their own salt (README).
        # (Format 3 binds each field by its own salted digest, in the encoding below.)
        who_text = cm.who_encoding(row.user_id, row.character_name, row.request, row_salt).decode(
            "ascii"
        )
        if len(who_text) <= style.FIELD_VALUE_LIMIT - 8:
            style.add_field(embed, "Who (hashed into `who`)", f"```{who_text}```")
    text = encoding.decode("ascii")
    if len(text) <= style.FIELD_VALUE_LIMIT - 8:
        style.add_field(embed, "Encoding hashed", f"```{text}```")
    else:
        style.add_field(embed, "Encoding hashed", "too long to show here: use /verify")
    style.set_footer(embed, f"roll #{row.number} · anyone can check it: /verify roll:{row.number}")
    return embed


#: What /verify compared with, in the player's words (docs/secret-rolls.md, "Reveal and verify").
COMPARED_WITH: dict[str, str] = {
    secrecy.PUBLISHED: "the commitment in the stub message, as Discord shows it now",
    secrecy.STUB_GONE: (
        "the commitment stored with the roll: the stub message is gone, so the one "
        "Discord showed could not be read"
    ),
    secrecy.STORED: "the commitment stored with the roll (the bot kept no stub message for it)",
    secrecy.STUB_UNREADABLE: (
        "the commitment stored with the roll: Discord would not show the stub message just "
        "now (try again later)"
    ),
}


def _revealer(row: RollView) -> str:
    if row.kind == LedgerKind.DECLARATION:
        return "the GM"
    return "its roller" if row.visibility is Visibility.SELF else "the GM"


def _reveal_command(row: RollView) -> str:
    """How a roll is revealed: /reveal (by its roller for a self roll, the GM for gm and
    blind), with the public number, which is what it looks up.
    """
    if row.kind == LedgerKind.PREROLL:
        return "/gm check ... preroll:next"
    if row.kind == LedgerKind.DECLARATION:
        # A sealed declaration is revealed with its round, all at once (one replaced
        # or of a cancelled round stays sealed for good).
        return "/gm round reveal; one replaced, or of a cancelled round, stays sealed for good"
    return f"/reveal roll:{row.number}"


def _still_hidden(row: RollView) -> str:
    """Said to a viewer who may see an unrevealed roll: how the table gets to see it.

    Only its roller may see an unrevealed self roll, so this is said to them.
    """
    if row.visibility is Visibility.SELF:
        return (
            "Only you have seen this roll. Show it to the table with "
            f"{_reveal_command(row)}; then anyone can check it."
        )
    return f"The table has not seen it yet: the GM shows it with {_reveal_command(row)}."


def verify_embed(result: Verification) -> discord.Embed:
    """What /verify found, in plain words."""
    row = result.access.row
    if row.visibility is Visibility.PUBLIC:
        return style.new_embed(
            f"Roll #{row.number}",
            "That roll was public: it has no commitment, and it stands as it was shown.",
            style.INFO,
        )
    if result.stored is None:
        state = "was revealed" if row.revealed_at is not None else "is still hidden"
        return style.new_embed(f"Roll #{row.number} {state}", NO_COMMITMENT, style.INFO)
    if not result.checked:
        embed = style.new_embed(
            f"Roll #{row.number} is still hidden",
            # A sealed pre-roll opens with the GM's check that uses it.
            (
                "It is a sealed pre-roll: nobody has seen it, its roller included. It can be "
                f"checked once the GM applies it to a check ({_reveal_command(row)})."
                if row.kind == LedgerKind.PREROLL
                else f"It cannot be checked until {_revealer(row)} reveals it "
                f"({_reveal_command(row)})."
            )
            + " Its commitment, as recorded when it was rolled:",
            style.INFO,
        )
        style.add_field(embed, "Commitment (SHA-256)", f"`{result.stored}`")
        return embed
    if result.erased:
        # An erasure tombstoned text this older row had bound in clear.
        embed = style.new_embed(
            f"Roll #{row.number}: erased, no longer checkable",
            "Its roller asked for their data to be erased. This roll was recorded before the "
            "log salted each personal field, so its commitment bound that text directly: it "
            "can no longer be recomputed. The game log still links it in place.",
            style.INFO,
        )
        style.add_field(embed, "Commitment (shown when rolled)", f"`{result.stored}`")
        return embed
    if result.matches:
        embed = style.new_embed(
            f"Roll #{row.number}: the commitment matches",
            "The stored result hashes to the commitment shown when it was rolled: "
            "it has not been changed since.\n" + outcome_words(row),
            style.SUCCESS,
        )
    else:
        embed = style.new_embed(
            f"Roll #{row.number}: the commitment does NOT match",
            "The stored result does not hash to the commitment shown when it was rolled: "
            "the record was changed after the roll.",
            style.FAILURE,
        )
    if row.revealed_at is None:
        style.add_field(embed, "Still hidden", _still_hidden(row))
    reference = result.reference if result.reference is not None else result.stored
    style.add_field(embed, "Commitment (shown when rolled)", f"`{reference}`")
    style.add_field(embed, "Recomputed", f"`{result.recomputed}`")
    style.add_field(embed, "Compared with", COMPARED_WITH[result.source])
    if result.who_ok is False:
        style.add_field(
            embed, "Roller", "The roller, character or command stored no longer match the roll."
        )
    if result.encoding is not None and len(result.encoding) <= style.FIELD_VALUE_LIMIT - 8:
        style.add_field(embed, "Encoding hashed", f"```{result.encoding.decode('ascii')}```")
    style.set_footer(embed, "By hand: printf '%s' '<encoding>' | sha256sum (see the README)")
    return embed
