"""Provably fair dice in words a player reads (docs/fair-dice.md): published hashes, revealed
seeds, players' seeds and the answer of a recomputation."""

from __future__ import annotations

from bot.quoting import quote
from bot.services.trust.fairness import (
    MAX_PLAYER_SEED,
    FairCheck,
    PlayerSeedView,
    Rotation,
    Seed,
    SeedCheck,
    SeedShown,
)


def seed_line(seed: Seed) -> str:
    """The current seed's public commitment."""
    return (
        f"Dice seed {seed.generation}: SHA-256 `{seed.seed_hash}` (fixed before any die is "
        "drawn from it; revealed when it rotates, so every roll can be recomputed). "
        f"Its hidden-roll key: SHA-256 `{seed.hidden_hash}`."
    )


def rotation_text(rotation: Rotation) -> str:
    """A rotation as the table sees it: the old seed revealed, the new hash published."""
    old, new = rotation.revealed, rotation.current
    return (
        f"Dice seed {old.generation} is revealed: `{old.seed}` (its SHA-256 is "
        f"`{old.seed_hash}`, as published). Check any roll drawn from it with /verify roll:N.\n"
        + (
            "It was made by this place's first roll, so its hash could not be shown before that "
            "roll: that roll's faces follow from it, but it was not fixed in advance. The next "
            "rolls draw from the seed below, whose hash is shown before them.\n"
            if old.unpublished
            else ""
        )
        + (
            f"Its hidden-roll key: `{old.hidden_key}`.\n"
            if old.hidden_key
            else "Its hidden-roll key stays secret: a hidden roll drawn from it is not revealed.\n"
        )
        + seed_line(new)
    )


def seed_shown_text(shown: SeedShown) -> str:
    """``/seed show``: the place's current seed's hash, and the last seed revealed here."""
    text = f"Dice seeds of this place ({shown.scope}).\n{seed_line(shown.current)}"
    old = shown.last_revealed
    if old is not None:
        text += (
            f"\nLast revealed: dice seed {old.generation}, `{old.seed}`"
            + (f", its hidden-roll key `{old.hidden_key}`" if old.hidden_key else "")
            + f" (revealed {old.revealed_at:%Y-%m-%d %H:%M} UTC)."
        )
    return text


def player_seed_text(view: PlayerSeedView, *, changed: bool) -> str:
    """``/me seed show`` and ``/me seed set``: only the player sees it."""
    if view.text is None:
        head = (
            "You have not set a dice seed: your rolls use a key made from your user id "
            "(anyone can compute it; set a seed to add your own)."
        )
    elif changed:
        head = (
            f"Your dice seed is now {quote(view.text, MAX_PLAYER_SEED)}; it counts from your "
            "next roll."
        )
    else:
        head = f"Your dice seed: {quote(view.text, MAX_PLAYER_SEED)}."
    text = (
        f"{head}\nYour key: `{view.key}` (SHA-256 of the seed; erasing the text keeps your "
        "rolls checkable)."
    )
    if view.scoped_key:
        text += (
            f"\nKey your rolls here record ({view.scope}): `{view.scoped_key}` (your key "
            "salted with the place, so your rolls elsewhere record other keys; "
            "tools/verify_fair.py --mine recomputes your rolls from your seed)."
        )
    return text


def fair_check_line(check: FairCheck) -> str:
    """The recomputation's verdict in one line, and where the roll was drawn (the scope and
    draw number tools/verify_fair.py --mine recomputes it from)."""
    mark = {True: "✅", False: "❌", None: "➖"}
    line = f"{mark[check.matched]} {check.reason}"
    if check.draws:
        where = ", ".join(f"`{scope}` draw {draw}" for scope, draw in check.draws)
        line += f"\nDrawn at: {where}."
    return line


def seed_check_text(check: SeedCheck) -> str:
    """``/verify seed``'s answer."""
    seed = check.found
    if seed is None:
        return (
            f"❌ Its SHA-256 is `{check.seed_hash}`: no dice seed of this place was published "
            "with that hash."
        )
    if seed.revealed_at is None:
        return (
            f"⚠️ That is dice seed {seed.generation}, still in use: it should have been secret. "
            "Ask for it to be rotated (/seed rotate)."
        )
    return (
        f"✅ Its SHA-256 is `{check.seed_hash}`, the hash dice seed {seed.generation} published "
        f"on {seed.created_at:%Y-%m-%d %H:%M} UTC, before any die was drawn from it."
    )
