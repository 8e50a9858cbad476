"""A stored roll's result in its system's own words, for every later view of it.

/gm reveal, /reveal, /verify, /history and /gm log all describe a roll from its ledger row,
in the system's own words: this module is their one wording. The row's ``outcome`` is the rules
outcome as :func:`bot.services.kit.serialize.to_jsonable` stored it; it is rebuilt into the
rules object by its system, which writes its line (``System.one_line``) ending with the
words of the live result message ("Major Success", "Pass", "Critical Failure", "Success").

Callers decide who may see a row; nothing here checks it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.quoting import escape, quote
from bot.render import style
from bot.render.checks import result_text
from bot.rules.systems import contest_line, one_line, outcome_from_record
from bot.rules.systems.d20 import attack_from_record, attack_line
from bot.services.rolling.checks import Outcome
from bot.services.store.ledger import RollView
from bot.words import LedgerKind

#: At most this many faces of a generic roll in one line (a 100d6 stays one line).
MAX_FACES = 20

#: What a malformed or older stored outcome raises while it is rebuilt: then the dice as
#: stored are shown instead.
_SHAPE_ERRORS = (KeyError, TypeError, ValueError, IndexError, AttributeError)


def outcome_words(row: RollView) -> str:
    """One line: the row's dice and result in its system's words.

    Pen & Dagger: the success level, lucky or not; roll-under: pass or fail against the
    score; threshold: the total against the threshold; d20 check: the total against the DC;
    a dice roll: its total; group rolls, contests, rerolls and natural-20 choices: what they
    decided. A shape this does not know (an older row) gives the stored dice, never an error.
    """
    outcome = row.outcome if isinstance(row.outcome, dict) else {}
    words: str | None
    try:
        words = _BY_KIND.get(row.kind, _single)(outcome)
    except _SHAPE_ERRORS:
        words = None
    return words or _fallback(row, outcome)


# --- one roll of any system -------------------------------------------------------------------


def check_outcome(data: Any) -> Outcome | None:
    """The rules outcome a check, save, test, attempt or luck row stores, or None.

    Rebuilt by the system the row names (``System.outcome_from_record``); a row stored
    before outcomes named their system, by the first system that knows its shape.
    """
    if not isinstance(data, dict):
        return None
    return outcome_from_record(data)


def check_words(outcome: Outcome) -> str:
    """A rebuilt outcome in one line, ending with its result in the live message's words
    (its system's ``one_line``)."""
    return one_line(outcome)


def _single(data: dict[str, Any]) -> str | None:
    outcome = check_outcome(data)
    if outcome is not None:
        return check_words(outcome)
    if "contest_of" in data:
        # One contestant's own row of a contest: the contest row holds the result.
        faces = ", ".join(str(int(d)) for d in data["dice"])
        return f"{data['contest_of']} contest: d20 {faces}"
    return None


# --- rows that record more than one roll, or a choice on one ---------------------------------
# The roll chosen on is not named here: the row stores its ledger id, not the public number
# printed on it; the row's request names it.


def _reroll(data: dict[str, Any]) -> str | None:
    final = check_outcome(data.get("final"))
    if final is None:
        return None
    count = len(data.get("rerolls") or [])
    times = "once" if count == 1 else f"{count} times"
    return f"rerolled {times} with a fortune die: {check_words(final)}"


def _trade(data: dict[str, Any]) -> str | None:
    traded = check_outcome(data.get("outcome"))
    if traded is None:
        return None
    return f"natural 20 traded for a fortune die → **{result_text(traded)}**"


def _keep(data: dict[str, Any]) -> str:
    return "natural 20 kept as a critical"


def _group(data: dict[str, Any]) -> str | None:
    verdict = data.get("verdict")
    if not isinstance(verdict, str):
        return None
    shared = data.get("shared_roll")
    head = f"one d20 for everyone: **{int(shared)}** · " if shared is not None else ""
    return f"{head}Group result: **{verdict}**"


def _contest(data: dict[str, Any]) -> str | None:
    contest = data.get("contest")
    return contest_line(contest) if isinstance(contest, dict) else None


def _attack(data: dict[str, Any]) -> str | None:
    words = attack_line(attack_from_record(data["attack"]))
    damage = data.get("damage")
    if isinstance(damage, dict) and isinstance(damage.get("total"), int):
        words += f" · {int(damage['total'])} damage"
    lost = data.get("ac_lost")
    if isinstance(lost, int) and lost > 0:
        words += f" · AC −{lost}"
    return words


def _d20_reroll(data: dict[str, Any]) -> str | None:
    head = f"{data['die']} die {int(data['replaced'])} rerolled: "
    if isinstance(data.get("attack"), dict):  # an attack's reroll holds the attack's record
        words = _attack(data)
        return None if words is None else head + words
    outcome = check_outcome(data["outcome"])
    if outcome is None:
        raise TypeError("not a roll of any system")
    return head + check_words(outcome)


def _fortune(data: dict[str, Any]) -> str | None:
    action, change, held = data.get("action"), data.get("change"), data.get("fortune")
    if not isinstance(action, str) or not isinstance(change, int) or not isinstance(held, int):
        return None
    line = f"fortune dice {style.signed(change)} ({action}"
    if isinstance(data.get("purpose"), str):
        line += f": {escape(data['purpose'])}"
    return f"{line}) → **{held} held**"


def _generate(data: dict[str, Any]) -> str | None:
    scores = data.get("scores")
    if not isinstance(scores, list) or not scores:
        return None
    totals = [
        sum(int(die["value"]) for die in score["dice"] if not die.get("dropped"))
        for score in scores
    ]
    return "Scores: **" + ", ".join(str(t) for t in totals) + "**"


def _post(data: dict[str, Any]) -> str | None:
    """A post as a character (docs/posting.md): its version, its rolls, the digest of its text."""
    digest, rolls = data.get("sha256"), data.get("rolls")
    if not isinstance(digest, str) or not isinstance(rolls, list):
        return None
    version = int(data.get("version") or 1)
    head = "in character" if version == 1 else f"version {version} of the text"
    bound = ", ".join(f"#{int(n)}" for n in rolls)
    return f"{head} · rolls {bound or 'none'} · text sha256 {digest[:12]}"


def _declaration(outcome: dict[str, Any]) -> str | None:
    """A revealed sealed declaration (docs/rounds.md): its text, quoted (escaped, clipped)."""
    text = outcome.get("declaration")
    return None if not isinstance(text, str) else f"declared {quote(text, DECLARATION_QUOTE)}"


#: How much of a declaration one line of /history or /verify quotes (the reveal shows it all).
DECLARATION_QUOTE = 300


_BY_KIND: dict[str, Callable[[dict[str, Any]], str | None]] = {
    LedgerKind.DECLARATION: _declaration,
    LedgerKind.REROLL: _reroll,
    LedgerKind.TRADE: _trade,
    LedgerKind.KEEP: _keep,
    LedgerKind.GROUP: _group,
    LedgerKind.CONTEST: _contest,
    LedgerKind.ATTACK: _attack,
    LedgerKind.D20_REROLL: _d20_reroll,
    LedgerKind.FORTUNE: _fortune,
    LedgerKind.GENERATE: _generate,
    LedgerKind.POST: _post,
    LedgerKind.POST_EDIT: _post,
}


# --- the dice as stored: generic rolls, and any shape not known above ------------------------


def _faces(row: RollView) -> list[int]:
    if row.kind == LedgerKind.ROLL and isinstance(row.dice, list):
        return [
            int(die["face"])
            for term in row.dice
            if isinstance(term, dict)
            for die in term.get("dice", [])
            if isinstance(die, dict) and isinstance(die.get("face"), int)
        ]
    if isinstance(row.dice, list):
        return [int(d) for d in row.dice if isinstance(d, int)]
    return []


def _total(outcome: dict[str, Any]) -> int | None:
    if isinstance(outcome.get("total"), int):
        return int(outcome["total"])
    if isinstance(outcome.get("kept"), int) and isinstance(outcome.get("modifiers"), list):
        return int(outcome["kept"]) + sum(int(m[1]) for m in outcome["modifiers"])
    if isinstance(outcome.get("roll"), int) and isinstance(outcome.get("modifier"), int):
        return (
            int(outcome["roll"])
            + int(outcome["modifier"])
            + int(outcome.get("carry_over_used") or 0)
        )
    return None


def _fallback(row: RollView, outcome: dict[str, Any]) -> str:
    """The dice, the total and a stored result word, as far as the row has them.

    A dice roll's line (its total is the live message's "Total: 19"), and the line of any
    outcome shape not known above.
    """
    parts = []
    faces = _faces(row)
    if faces:
        shown = ", ".join(str(f) for f in faces[:MAX_FACES])
        if len(faces) > MAX_FACES:
            shown += f", … ({len(faces)} dice)"
        parts.append(f"dice {shown}")
    try:
        total = _total(outcome)
    except _SHAPE_ERRORS:
        total = None
    if total is not None:
        parts.append(f"**Total: {style.number(total)}**")
    totals = outcome.get("totals")  # several rolls in one /roll (docs/dice.md)
    if isinstance(totals, list) and all(isinstance(t, int) for t in totals):
        shown = ", ".join(style.number(t) for t in totals[:MAX_FACES])
        parts.append(f"**Totals: {shown}**")
    result = outcome.get("result")
    if isinstance(result, str):
        parts.append(result.replace("_", " "))
    if isinstance(outcome.get("lucky"), bool):
        parts.append("Lucky" if outcome["lucky"] else "Not lucky")
    return " · ".join(parts) or "recorded"
