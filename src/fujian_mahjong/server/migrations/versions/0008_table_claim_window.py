"""A table's claim window (docs/architecture.md, "How long the claim pause lasts"):

- ``tables.claim_window``: ``fast``, ``fixed`` or ``auto`` as the table was made with
  (``POST /api/tables``); null: the server's setting. It was kept in memory only, so a
  restarted or moved table took the server's instead (a ``fixed`` table came back ``fast``,
  its pauses then telling who was asked, R12).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("claim_window", sa.String(8), nullable=True))


def downgrade() -> None:
    # only if the column is there (SQLite commits DDL at once: see 0005)
    cols = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("tables")}
    if "claim_window" in cols:
        op.execute("ALTER TABLE tables DROP COLUMN claim_window")
