"""Initial schema: players, tokens, tables, seats, matches, hands, events.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    tz = sa.DateTime(timezone=True)
    op.create_table(
        "players",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("password_hash", sa.String(255), nullable=True),
        sa.Column("created_at", tz, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_players"),
    )
    op.create_table(
        "tokens",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("created_at", tz, nullable=False),
        sa.Column("expires_at", tz, nullable=False),
        sa.Column("revoked", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name="pk_tokens"),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name="fk_tokens_player_id_players", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_tokens_player_id", "tokens", ["player_id"])
    op.create_table(
        "tables",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("code", sa.String(8), nullable=False),
        sa.Column("creator_id", sa.Integer, nullable=False),
        sa.Column("profile", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("turn_seconds", sa.Float, nullable=False),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("private", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", tz, nullable=False),
        sa.Column("closed_at", tz, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_tables"),
        sa.UniqueConstraint("code", name="uq_tables_code"),
        sa.ForeignKeyConstraint(
            ["creator_id"], ["players.id"], name="fk_tables_creator_id_players"
        ),
    )
    op.create_index("ix_tables_status", "tables", ["status"])
    op.create_table(
        "seats",
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("player_id", sa.Integer, nullable=True),
        sa.Column("bot", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_seats"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_seats_table_id_tables", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name="fk_seats_player_id_players"),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("first_dealer", sa.Integer, nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("hands_played", sa.Integer, nullable=False),
        sa.Column("totals", sa.JSON, nullable=False),
        sa.Column("leaver", sa.Integer, nullable=True),
        sa.Column("created_at", tz, nullable=False),
        sa.Column("ended_at", tz, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_matches"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_matches_table_id_tables", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_matches_table_id", "matches", ["table_id"])
    op.create_table(
        "hands",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column("match_id", sa.Integer, nullable=False),
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("profile", sa.String(32), nullable=False),
        sa.Column("players", sa.Integer, nullable=False),
        sa.Column("dealer", sa.Integer, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("seed_sha256", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("result", sa.JSON, nullable=True),
        sa.Column("score", sa.JSON, nullable=True),
        sa.Column("seat_players", sa.JSON, nullable=False),
        sa.Column("created_at", tz, nullable=False),
        sa.Column("ended_at", tz, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_hands"),
        sa.UniqueConstraint("match_id", "number", name="uq_hands_match_number"),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], name="fk_hands_match_id_matches", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_hands_table_id_tables", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_hands_table_id", "hands", ["table_id"])
    op.create_index("ix_hands_status", "hands", ["status"])
    op.create_table(
        "events",
        sa.Column("hand_id", sa.Integer, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("data", sa.JSON, nullable=False),
        sa.PrimaryKeyConstraint("hand_id", "seq", name="pk_events"),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name="fk_events_hand_id_hands", ondelete="CASCADE"
        ),
    )


def downgrade() -> None:
    for t in ("events", "hands", "matches", "seats", "tables", "tokens", "players"):
        op.drop_table(t)
