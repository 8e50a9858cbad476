"""A durable roll in fewer statements: per-key draws, salt and head moved by the INSERT.

Also a campaign revision to check a remembered campaign against.

Revision ID: 0024_fastpath
Revises: 0023_walks
Create Date: 2026-12-01

``fair_draws`` counts, per server seed and player key, the draws that key took from the seed:
a player's n-th roll from a seed is draw n whatever others roll (docs/fair-dice.md).
``ledger_chains.pending_salt`` carries a roll's row salt from its chain's bump to its INSERT;
on SQLite a trigger on that INSERT files the salt in ``ledger_salts`` and moves the chain's
head (PostgreSQL does both in the INSERT's own statement). ``campaigns.revision`` goes up with
every change of a campaign's row (a trigger), so a process may reuse a campaign it read, after
checking the revision inside a statement it runs anyway.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024_fastpath"
down_revision: str | None = "0023_walks"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: The chain a new ledger row belongs to (bot/services/store/ledger.py ``_chain_key``).
_CHAIN_KEY = (
    "CASE WHEN NEW.campaign_id IS NOT NULL THEN 'campaign:' || NEW.campaign_id "
    "ELSE 'channel:' || NEW.scope_id END"
)
#: SQLite: the row salt its bump left (a single row's append), then the head, but only for
#: the chain's last number (a batch's last row; an imported or older row moves nothing).
_SQLITE_ROW_TRIGGER = f"""
CREATE TRIGGER ledger_chain_head AFTER INSERT ON ledger
BEGIN
    INSERT INTO ledger_salts (ledger_id, field, salt, digest)
        SELECT NEW.id, '*', pending_salt, NULL FROM ledger_chains
        WHERE key = {_CHAIN_KEY} AND last_number = NEW.number AND pending_salt IS NOT NULL;
    UPDATE ledger_chains SET head = NEW.chain, pending_salt = NULL
        WHERE key = {_CHAIN_KEY} AND last_number = NEW.number;
END
"""
_SQLITE_REVISION_TRIGGER = """
CREATE TRIGGER campaigns_revision AFTER UPDATE ON campaigns
WHEN NEW.revision = OLD.revision
BEGIN
    UPDATE campaigns SET revision = OLD.revision + 1 WHERE id = NEW.id;
END
"""
_PG_REVISION = [
    """
CREATE FUNCTION campaigns_revision() RETURNS trigger AS $$
BEGIN
    NEW.revision := OLD.revision + 1;
    RETURN NEW;
END
$$ LANGUAGE plpgsql
""",
    "CREATE TRIGGER campaigns_revision BEFORE UPDATE ON campaigns "
    "FOR EACH ROW EXECUTE FUNCTION campaigns_revision()",
]


def upgrade() -> None:
    op.create_table(
        "fair_draws",
        sa.Column("seed_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("player", sa.String(length=64), nullable=False),
        sa.Column("uses", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["seed_id"],
            ["fair_seeds.id"],
            name=op.f("fk_fair_draws_seed_id_fair_seeds"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("seed_id", "player", name=op.f("pk_fair_draws")),
    )
    op.add_column("ledger_chains", sa.Column("pending_salt", sa.String(length=64), nullable=True))
    op.add_column(
        "campaigns",
        sa.Column("revision", sa.Integer(), server_default=sa.text("0"), nullable=False),
    )
    if op.get_bind().dialect.name == "sqlite":
        op.execute(_SQLITE_ROW_TRIGGER)
        op.execute(_SQLITE_REVISION_TRIGGER)
    else:
        for statement in _PG_REVISION:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS campaigns_revision")
        op.execute("DROP TRIGGER IF EXISTS ledger_chain_head")
    else:
        op.execute("DROP TRIGGER IF EXISTS campaigns_revision ON campaigns")
        op.execute("DROP FUNCTION IF EXISTS campaigns_revision()")
    with op.batch_alter_table("campaigns") as batch:
        batch.drop_column("revision")
    with op.batch_alter_table("ledger_chains") as batch:
        batch.drop_column("pending_salt")
    op.drop_table("fair_draws")
