"""An index on ``seats.player_id``: whether a player holds a seat at a table not closed
is asked at every sit-down at a table for silver and at a guest's registration
(docs/economy.md, "Tables and settlement"), and seat rows stay with their closed tables.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_seats_player_id", "seats", ["player_id"])


def downgrade() -> None:
    # only if it is there (SQLite commits DDL at once: a downgrade refused further down
    # has dropped it already when it is tried again)
    names = {i["name"] for i in sa.inspect(op.get_bind()).get_indexes("seats")}
    if "ix_seats_player_id" in names:
        op.drop_index("ix_seats_player_id", table_name="seats")
