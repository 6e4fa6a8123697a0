"""A bot seat's kind (docs/bots.md, the difficulty ladder).

- ``seats.bot_kind``: the kind of the bot in the seat (``random``, ``greedy``,
  ``heuristic``, ``strong``…; null: the server's default bot, as every existing bot seat).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("seats", sa.Column("bot_kind", sa.String(16), nullable=True))


def downgrade() -> None:
    # a plain DROP COLUMN (SQLite >= 3.35 and PostgreSQL), as 0003 does, and only if the
    # column is there: SQLite commits DDL at once, so a downgrade refused further down
    # (0003's, while relief rows exist) has dropped it already when it is tried again
    cols = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("seats")}
    if "bot_kind" in cols:
        op.execute("ALTER TABLE seats DROP COLUMN bot_kind")
