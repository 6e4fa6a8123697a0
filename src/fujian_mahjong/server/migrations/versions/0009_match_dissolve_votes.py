"""An agreed 解散房间 (docs/protocol.md, "Dissolving a private match by vote"):

- ``matches.dissolve_votes``: the votes of an agreement made while a claim pause or an
  open window holds the dissolution back; null: none. The agreement was told to every
  player at once and kept in memory only, so a restart in between played the match on.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("matches", sa.Column("dissolve_votes", sa.JSON, nullable=True))


def downgrade() -> None:
    # only if the column is there (SQLite commits DDL at once: see 0005)
    cols = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("matches")}
    if "dissolve_votes" in cols:
        op.execute("ALTER TABLE matches DROP COLUMN dissolve_votes")
