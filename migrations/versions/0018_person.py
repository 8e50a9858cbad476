"""A person's data found by their id: who each ledger row names, and per-person indexes.

Revision ID: 0018_person
Revises: 0014_prerolls
Create Date: 2026-12-02

``ledger_names`` keeps, for each ledger row, whom it names besides its roller (by Discord id)
and the name it names them by, so erasing a person finds those rows by id and never searches
anyone's text for their names (docs/privacy.md). The rows recorded before are filled in here,
from what names a person by id in them: the character a row was rolled for (its player, when
someone else rolled), an attack's target, a group roll's or contest's members (by their rows'
numbers), a turn order's players, a score generation's players, and a check's helper (the
character of that name in the campaign now: the one the row was rolled with, unless it was
deleted or renamed since, which this cannot know).

The indexes make ``/privacy show`` and erasure read that person's rows, not the server's:
``ledger(user_id, id)``, ``characters(user_id)``, ``campaigns(guild_id)``, and the user id
columns of posts, roll requests and their targets, fortune choices, rounds and declarations.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0018_person"
down_revision: str | None = "0014_prerolls"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TOMBSTONE = "[erased]"
_INDEXES = (
    ("ix_ledger_user_id_id", "ledger", ["user_id", "id"]),
    ("ix_characters_user_id", "characters", ["user_id"]),
    ("ix_campaigns_guild_id", "campaigns", ["guild_id"]),
    ("ix_posts_user_id", "posts", ["user_id"]),
    ("ix_posts_character_id", "posts", ["character_id"]),
    ("ix_post_rolls_ledger_id", "post_rolls", ["ledger_id"]),
    ("ix_roll_request_targets_character_id", "roll_request_targets", ["character_id"]),
    ("ix_roll_requests_gm_user_id", "roll_requests", ["gm_user_id"]),
    ("ix_roll_request_targets_user_id", "roll_request_targets", ["user_id"]),
    ("ix_fortune_choices_user_id", "fortune_choices", ["user_id"]),
    ("ix_rounds_opened_by", "rounds", ["opened_by"]),
    ("ix_round_declarations_user_id", "round_declarations", ["user_id"]),
)
_PAGE = 500
#: A check's helper as typed (``helper:Old Tom`` or ``helper:"Old Tom"``).
_HELPER = re.compile(r'helper:(?:"([^"]*)"|(\S+))')


def _big_id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "ledger_names",
        sa.Column("ledger_id", _big_id(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.ForeignKeyConstraint(
            ["ledger_id"],
            ["ledger.id"],
            name=op.f("fk_ledger_names_ledger_id_ledger"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("ledger_id", "user_id", "name", name=op.f("pk_ledger_names")),
    )
    op.create_index("ix_ledger_names_user_id_ledger_id", "ledger_names", ["user_id", "ledger_id"])
    for name, table, columns in _INDEXES:
        op.create_index(name, table, columns)
    _backfill(op.get_bind())


def downgrade() -> None:
    for name, table, _ in reversed(_INDEXES):
        op.drop_index(name, table_name=table)
    op.drop_index("ix_ledger_names_user_id_ledger_id", table_name="ledger_names")
    op.drop_table("ledger_names")


# --- the rows recorded before ------------------------------------------------------------------


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _pages(bind: sa.Connection, kinds_or_helper: str) -> Iterator[list[Any]]:
    after = 0
    while True:
        rows = list(
            bind.execute(
                sa.text(
                    "SELECT id, campaign_id, user_id, kind, request, outcome FROM ledger "
                    f"WHERE id > :after AND ({kinds_or_helper}) ORDER BY id LIMIT {_PAGE}"
                ),
                {"after": after},
            )
        )
        if not rows:
            return
        yield rows
        after = int(rows[-1].id)


def _backfill(bind: sa.Connection) -> None:
    # The character a row was rolled for, when someone else rolled it (a GM's roll for a
    # player's character, a group roll's member rows).
    bind.execute(
        sa.text(
            "INSERT INTO ledger_names (ledger_id, user_id, name) "
            "SELECT l.id, c.user_id, l.character_name FROM ledger l "
            "JOIN characters c ON c.id = l.character_id "
            "WHERE c.user_id <> l.user_id AND l.character_name IS NOT NULL "
            "AND l.character_name <> :tomb"
        ),
        {"tomb": TOMBSTONE},
    )
    owners = {
        int(r.id): (int(r.user_id), str(r.name), int(r.campaign_id), str(r.name_key))
        for r in bind.execute(
            sa.text("SELECT id, user_id, name, campaign_id, name_key FROM characters")
        )
    }
    by_name = {(c, key): (u, n) for u, n, c, key in owners.values()}
    found: set[tuple[int, int, str]] = set()
    where = "kind IN ('attack', 'group', 'contest', 'turn', 'generate') OR request LIKE '%helper:%'"
    for page in _pages(bind, where):
        for row in page:
            for user_id, name in _named(bind, row, owners, by_name):
                if user_id != row.user_id and name and name != TOMBSTONE:
                    found.add((int(row.id), user_id, name[:100]))
        if len(found) >= _PAGE:
            _insert(bind, found)
            found = set()
    _insert(bind, found)


def _insert(bind: sa.Connection, found: set[tuple[int, int, str]]) -> None:
    if not found:
        return
    existing = {
        (int(r.ledger_id), int(r.user_id), str(r.name))
        for r in bind.execute(
            sa.text(
                "SELECT ledger_id, user_id, name FROM ledger_names WHERE ledger_id IN :ids"
            ).bindparams(sa.bindparam("ids", expanding=True)),
            {"ids": sorted({f[0] for f in found})},
        )
    }
    rows = [
        {"ledger_id": lid, "user_id": uid, "name": name}
        for lid, uid, name in sorted(found - existing)
    ]
    if rows:
        bind.execute(
            sa.text(
                "INSERT INTO ledger_names (ledger_id, user_id, name) "
                "VALUES (:ledger_id, :user_id, :name)"
            ),
            rows,
        )


def _named(
    bind: sa.Connection,
    row: Any,
    owners: dict[int, tuple[int, str, int, str]],
    by_name: dict[tuple[int, str], tuple[int, str]],
) -> list[tuple[int, str]]:
    """Whom an older row names, by id: see the module's docstring."""
    outcome = _json(row.outcome)
    out: list[tuple[int, str]] = []
    if not isinstance(outcome, dict):
        return out
    if row.kind == "attack" and isinstance(outcome.get("target_id"), int):
        owner = owners.get(outcome["target_id"])
        target = outcome.get("target")
        if owner is not None and isinstance(target, str):
            out.append((owner[0], target))
    elif row.kind in ("group", "contest") and row.campaign_id is not None:
        numbers = [n for n in outcome.get("member_rolls") or () if isinstance(n, int)]
        if numbers:
            members = bind.execute(
                sa.text(
                    "SELECT character_id, character_name FROM ledger "
                    "WHERE campaign_id = :campaign AND number IN :numbers"
                ).bindparams(sa.bindparam("numbers", expanding=True)),
                {"campaign": row.campaign_id, "numbers": numbers},
            )
            for character_id, name in members:
                owner = owners.get(int(character_id)) if character_id is not None else None
                if owner is not None and name:
                    out.append((owner[0], str(name)))
    elif row.kind == "turn" and row.campaign_id is not None:
        order = {n for n in outcome.get("order") or () if isinstance(n, str)}
        for (entries,) in bind.execute(
            sa.text("SELECT entries FROM turn_orders WHERE campaign_id = :campaign"),
            {"campaign": row.campaign_id},
        ):
            for entry in _json(entries) or ():
                if (
                    isinstance(entry, dict)
                    and entry.get("name") in order
                    and isinstance(entry.get("user_id"), int)
                ):
                    out.append((entry["user_id"], str(entry["name"])))
    elif row.kind == "generate":
        players = [p for p in outcome.get("players") or () if isinstance(p, str)]
        for (ids,) in bind.execute(
            sa.text("SELECT player_ids FROM ability_generations WHERE roll_id = :id"),
            {"id": row.id},
        ):
            out.extend(zip((int(i) for i in _json(ids) or ()), players, strict=False))
    match = _HELPER.search(row.request or "")
    if match and row.campaign_id is not None:
        typed = " ".join((match.group(1) or match.group(2) or "").split()).casefold()
        helper = by_name.get((int(row.campaign_id), typed))
        if helper is not None:
            out.append(helper)
    return out
