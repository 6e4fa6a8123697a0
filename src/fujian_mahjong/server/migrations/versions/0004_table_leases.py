"""Table leases: which ``fjmj serve`` process runs each table's actor (docs/deploy.md).

- ``table_leases``: one row per live table — ``owner`` (a process id, null: nobody),
  ``expires_at`` (the owner must renew before it; null: free) and ``epoch``, the fencing
  token: every acquisition adds one, and every write of the table's events checks that the
  writer's epoch is still the row's (server/cluster/lease.py). Used only with ``--redis``
  (several processes on PostgreSQL); a single process never reads it.

Existing data is kept: no table has a lease until a clustered process takes it.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_leases",
        sa.Column(
            "table_id",
            sa.Integer(),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("owner", sa.String(64), nullable=True),
        sa.Column("epoch", sa.BigInteger(), nullable=False, server_default="0"),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_table_leases_owner", "table_leases", ["owner"])


def downgrade() -> None:
    op.drop_index("ix_table_leases_owner", table_name="table_leases")
    op.drop_table("table_leases")
