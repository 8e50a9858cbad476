"""The game's word lists, each in one place: the words stored in the database, offered as
slash-command choices and compared in the code.

Every list is a ``StrEnum`` whose values are exactly the strings stored, so a member equals
its string (``LedgerKind.ROLL == "roll"``) and no stored row changes. This module imports
nothing of the bot: the database models, the rules, the services, the renderers and the cogs
all import from it, and it sits below all of them. The order of the members is the order a
slash command offers them in.
"""

from __future__ import annotations

import enum

__all__ = [
    "BOON_FORTUNE_MAX",
    "FORTUNE_MAX",
    "DefaultAction",
    "FortuneAction",
    "FortunePurpose",
    "JobKind",
    "JobState",
    "LedgerKind",
    "NotifyMode",
    "RollChoice",
    "RuleSystem",
    "SecrecyCommand",
    "TurnOrderKind",
    "Visibility",
    "fortune_maximum",
]


class RuleSystem(enum.StrEnum):
    """The four rule systems of `shared/rules/`; the value is what is stored."""

    PEN_AND_DAGGER = "pen-and-dagger"
    ROLL_UNDER = "roll-under"
    THRESHOLD = "threshold"
    D20_CHECK = "d20-check"


class Visibility(enum.StrEnum):
    """Who may see a roll: everyone, the GM (and the roller), only the GM, or only the roller."""

    PUBLIC = "public"
    GM = "gm"
    BLIND = "blind"
    SELF = "self"


class SecrecyCommand(enum.StrEnum):
    """Rolling commands whose default visibility a campaign sets (bot/services/trust/secrecy.py)."""

    ROLL = "roll"
    CHECK = "check"
    SAVE = "save"
    LUCK = "luck"
    GM_ROLL = "gm-roll"
    GM_CHECK = "gm-check"


class LedgerKind(enum.StrEnum):
    """What a ledger row records; ``/history kind:`` offers them in this order."""

    ROLL = "roll"
    CHECK = "check"
    SAVE = "save"
    #: Pen & Dagger attempt.
    ATTEMPT = "attempt"
    LUCK = "luck"
    #: Threshold test.
    TEST = "test"
    #: Pen & Dagger fortune-die reroll.
    REROLL = "reroll"
    #: A natural 20 kept as a critical or traded for a fortune die (Pen & Dagger ruling 5).
    KEEP = "keep"
    TRADE = "trade"
    #: Fortune dice gained, spent, given, taken; the boon set or removed.
    FORTUNE = "fortune"
    CONTEST = "contest"
    GROUP = "group"
    #: Group ability scores (Pen & Dagger ruling 8).
    GENERATE = "generate"
    ATTACK = "attack"
    #: d20 check: one d20 of an advantage roll rerolled.
    D20_REROLL = "d20-reroll"
    #: A sealed d20 nobody sees until the GM applies it to a check (docs/prerolls.md).
    PREROLL = "preroll"
    #: A post as a character and an edit of its text (docs/posting.md): the text's digest and the
    #: numbers of the rolls bound to it.
    POST = "post"
    POST_EDIT = "post-edit"
    #: A sealed declaration (docs/rounds.md, bot/services/table/rounds.py): no dice, its text
    #: sealed.
    DECLARATION = "declaration"
    #: A change to a turn order (/turns); not a roll, so not offered by /history.
    TURN = "turn"


class FortunePurpose(enum.StrEnum):
    """The four things a fortune die buys (Pen & Dagger "Fortune Dice" 1-4; ruling 6)."""

    HINT = "hint"
    ESCAPE = "escape"  # out of a social situation
    ITEM = "item"  # a better item
    REROLL = "reroll"


class FortuneAction(enum.StrEnum):
    """What a ``fortune`` ledger row did to a character's fortune dice."""

    GAIN = "gain"
    SPEND = "spend"
    GIVE = "give"
    TAKE = "take"
    BOON_ON = "boon-on"
    BOON_OFF = "boon-off"


class RollChoice(enum.StrEnum):
    """What a roller did with a Pen & Dagger roll, once (rulings 5 and 6)."""

    KEEP = "keep"
    TRADE = "trade"
    REROLL = "reroll"


#: "You can possess a maximum of two fortune dice." (Pen & Dagger ruling 6)
FORTUNE_MAX = 2
#: "Boon Option: Double your maximum number of fortune dice." (ruling 6)
BOON_FORTUNE_MAX = 4


def fortune_maximum(double_fortune: bool) -> int:
    """Pen & Dagger ruling 6: 2 fortune dice, or 4 with the "double fortune dice" boon."""
    return BOON_FORTUNE_MAX if double_fortune else FORTUNE_MAX


class JobKind(enum.StrEnum):
    """What a game-clock job does (bot/services/table/scheduler.py); each has one handler."""

    REQUEST_DEADLINE = "request.deadline"
    REQUEST_REMIND = "request.remind"
    TURN_DEADLINE = "turn.deadline"
    #: A sealed-declaration round reveals itself (bot/services/table/rounds.py).
    ROUND_REVEAL = "round.reveal"


class JobState(enum.StrEnum):
    """A scheduled job: waiting, run (its effects committed with this stamp), given up."""

    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"


class RoundState(enum.StrEnum):
    """A round of sealed declarations (docs/rounds.md): open for them, revealed, or cancelled."""

    OPEN = "open"
    REVEALED = "revealed"
    CANCELLED = "cancelled"


class NotifyMode(enum.StrEnum):
    """How a player wants the game clock's pings: in the channel, by DM, or not at all."""

    CHANNEL = "channel"
    DM = "dm"
    OFF = "off"


class DefaultAction(enum.StrEnum):
    """What a roll request's deadline does for whoever has not rolled (docs/clock.md)."""

    ROLL = "roll"
    SKIP = "skip"
    FAIL = "fail"


class TurnOrderKind(enum.StrEnum):
    """How /turns orders the characters."""

    LISTED = "listed"
    INITIATIVE = "initiative"
    RANDOM = "random"
