"""The house account: bots at room tables play for it (docs/economy.md).

- ``table_stakes.house_bots``: the table's bot seats pay and receive silver from the house
  (false for every existing table: they keep the rules they were made with);
- ``house_ledger``: one row per bot seat whose silver moved in a settled hand (hand, seat,
  amount); the house's balance is the sum of the rows.

Existing rows are all valid as they are. Downgrading is refused while the house ledger holds
rows (their silver would vanish from the audit's conservation law).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column(
        "table_stakes",
        sa.Column("house_bots", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "house_ledger",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column(
            "hand_id",
            sa.Integer(),
            sa.ForeignKey("hands.id", name="fk_house_ledger_hand_id_hands", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("amount <> 0", name="ck_house_ledger_house_amount_nonzero"),
        sa.PrimaryKeyConstraint("id", name="pk_house_ledger"),
    )
    op.create_index("ix_house_ledger_hand_id", "house_ledger", ["hand_id"])


def downgrade() -> None:
    bind = op.get_bind()
    tables = set(sa.inspect(bind).get_table_names())
    if "house_ledger" in tables:
        n = bind.execute(sa.text("SELECT COUNT(*) FROM house_ledger")).scalar_one()
        if n:
            raise RuntimeError(f"cannot downgrade below 0006: the house ledger holds {n} row(s)")
        op.drop_index("ix_house_ledger_hand_id", table_name="house_ledger")
        op.drop_table("house_ledger")
    cols = {c["name"] for c in sa.inspect(bind).get_columns("table_stakes")}
    if "house_bots" in cols:
        op.execute("ALTER TABLE table_stakes DROP COLUMN house_bots")
