"""The platform economy (R11, docs/economy.md): accounts, the silver ledger, table stakes, hand
settlements, hand results and per-profile statistics.

Existing data is kept: players (guests) stay guests, existing tables have no stakes row and
are played for points only, finished hands keep no settlement (they were never played for
silver).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    tz = sa.DateTime(timezone=True)
    big = sa.BigInteger()
    op.create_table(
        "accounts",
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("name_key", sa.String(80), nullable=False),
        sa.Column("silver", big, nullable=False),
        sa.Column("rating", big, nullable=False),
        sa.Column("created_at", tz, nullable=False),
        sa.PrimaryKeyConstraint("player_id", name="pk_accounts"),
        sa.UniqueConstraint("name_key", name="uq_accounts_name_key"),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name="fk_accounts_player_id_players", ondelete="CASCADE"
        ),
        sa.CheckConstraint("silver >= 0", name="ck_accounts_silver_nonnegative"),
        sa.CheckConstraint("rating >= 0", name="ck_accounts_rating_nonnegative"),
    )
    op.create_table(
        "ledger",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), nullable=False),
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("hand_id", sa.Integer, nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("amount", big, nullable=False),
        sa.Column("balance_after", big, nullable=False),
        sa.Column("reason", sa.String(200), nullable=True),
        sa.Column("created_at", tz, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_ledger"),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name="fk_ledger_player_id_players", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name="fk_ledger_hand_id_hands", ondelete="SET NULL"
        ),
        sa.CheckConstraint(
            "kind IN ('starting_grant', 'hand', 'fee', 'escape', 'admin')",
            name="ck_ledger_kind_known",
        ),
        sa.CheckConstraint("balance_after >= 0", name="ck_ledger_balance_nonnegative"),
    )
    op.create_index("ix_ledger_player_id_id", "ledger", ["player_id", "id"])
    op.create_index("ix_ledger_hand_id", "ledger", ["hand_id"])
    op.create_table(
        "table_stakes",
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("stake", big, nullable=False),
        sa.Column("base", big, nullable=False),
        sa.Column("fee", big, nullable=False),
        sa.Column("cap", big, nullable=False),
        sa.Column("min_balance", big, nullable=False),
        sa.PrimaryKeyConstraint("table_id", name="pk_table_stakes"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_table_stakes_table_id_tables", ondelete="CASCADE"
        ),
        sa.CheckConstraint(
            "stake >= 0 AND base >= 1 AND fee >= 0 AND cap >= 0 AND min_balance >= 0",
            name="ck_table_stakes_stakes_valid",
        ),
    )
    op.create_table(
        "settlements",
        sa.Column("hand_id", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("detail", sa.JSON, nullable=False),
        sa.Column("created_at", tz, nullable=False),
        sa.PrimaryKeyConstraint("hand_id", name="pk_settlements"),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name="fk_settlements_hand_id_hands", ondelete="CASCADE"
        ),
    )
    op.create_table(
        "hand_results",
        sa.Column("hand_id", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("profile", sa.String(32), nullable=False),
        sa.Column("points", big, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
        sa.Column("silver", big, nullable=True),
        sa.Column("balance_after", big, nullable=True),
        sa.Column("created_at", tz, nullable=False),
        sa.PrimaryKeyConstraint("hand_id", "seat", name="pk_hand_results"),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name="fk_hand_results_hand_id_hands", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name="fk_hand_results_player_id_players",
            ondelete="CASCADE",
        ),
    )
    op.create_index("ix_hand_results_player_id_hand_id", "hand_results", ["player_id", "hand_id"])
    op.create_table(
        "profile_stats",
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("profile", sa.String(32), nullable=False),
        sa.Column("rating", big, nullable=False),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "profile", name="pk_profile_stats"),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name="fk_profile_stats_player_id_players",
            ondelete="CASCADE",
        ),
        sa.CheckConstraint("rating >= 0", name="ck_profile_stats_rating_nonnegative"),
    )
    op.create_index("ix_profile_stats_profile_rating", "profile_stats", ["profile", "rating"])
    # guests registered before this revision keep their players row; names of registered
    # accounts are unique through accounts.name_key (players.name stays a display name)


def downgrade() -> None:
    for t in ("profile_stats", "hand_results", "settlements", "table_stakes", "ledger", "accounts"):
        op.drop_table(t)
