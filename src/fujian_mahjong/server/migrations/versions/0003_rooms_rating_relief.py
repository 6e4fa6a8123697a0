"""Rooms, the skill rating and 救济金 relief (docs/economy.md).

- ``ledger``: the kind ``relief`` joins the CHECK on ``kind`` (SQLite: the table is copied,
  as Alembic's batch mode does, with its indexes and other constraints unchanged);
- ``relief_claims``: relief claimed per player and day;
- ``skill_ratings``: the openskill rating (mu, sigma, the displayed rating) per player and
  profile;
- ``tables.room``: the room a quick-match table belongs to (null for the others), and
  ``table_stakes.max_balance``: its upper bound on the balance to sit down (null: none);
- ``hands.bot_kinds``: the bot kind of each seat (null: the server's default bot).

Existing data is kept: every existing row is valid under the wider CHECK, no player has a
skill rating until their next hand, existing tables belong to no room.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

OLD_KINDS = ("starting_grant", "hand", "fee", "escape", "admin")
NEW_KINDS = (*OLD_KINDS, "relief")


def _check(kinds: tuple[str, ...]) -> str:
    return "kind IN (" + ", ".join(f"'{k}'" for k in kinds) + ")"


def _ledger_copy(kinds: tuple[str, ...]) -> sa.Table:
    """The ledger as revision 0002 made it (the names as they are in the database), with
    the CHECK on ``kind`` listing ``kinds``: what SQLite's copy of the table is made from."""
    md = sa.MetaData()
    for referred in ("players", "hands"):  # for the foreign keys only; never created here
        sa.Table(referred, md, sa.Column("id", sa.Integer, primary_key=True))
    return sa.Table(
        "ledger",
        md,
        sa.Column("id", sa.Integer, nullable=False),
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("hand_id", sa.Integer, nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("balance_after", sa.BigInteger, nullable=False),
        sa.Column("reason", sa.String(200), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_ledger"),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name="fk_ledger_player_id_players", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["hand_id"], ["hands.id"], name="fk_ledger_hand_id_hands", ondelete="SET NULL"
        ),
        sa.CheckConstraint(_check(kinds), name="ck_ledger_kind_known"),
        sa.CheckConstraint("balance_after >= 0", name="ck_ledger_balance_nonnegative"),
        sa.Index("ix_ledger_player_id_id", "player_id", "id"),
        sa.Index("ix_ledger_hand_id", "hand_id"),
    )


def _set_kinds(kinds: tuple[str, ...]) -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        # SQLite cannot change a CHECK in place: copy the table (rows, ids, indexes kept)
        new = _ledger_copy(kinds)
        cols = ", ".join(c.name for c in new.columns)
        op.execute("ALTER TABLE ledger RENAME TO _fjmj_ledger_old")
        op.execute("DROP INDEX IF EXISTS ix_ledger_player_id_id")
        op.execute("DROP INDEX IF EXISTS ix_ledger_hand_id")
        new.create(bind)
        op.execute(f"INSERT INTO ledger ({cols}) SELECT {cols} FROM _fjmj_ledger_old")
        op.execute("DROP TABLE _fjmj_ledger_old")
        return
    # PostgreSQL: revision 0002 named it ck_ledger_ck_ledger_kind_known (the metadata's
    # naming convention applied to the given name); a schema made from the models names
    # it ck_ledger_kind_known. Either goes; the new one has the models' name.
    op.execute("ALTER TABLE ledger DROP CONSTRAINT IF EXISTS ck_ledger_ck_ledger_kind_known")
    op.execute("ALTER TABLE ledger DROP CONSTRAINT IF EXISTS ck_ledger_kind_known")
    op.create_check_constraint(op.f("ck_ledger_kind_known"), "ledger", _check(kinds))


def upgrade() -> None:
    _set_kinds(NEW_KINDS)
    op.create_table(
        "relief_claims",
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("day", sa.Integer, nullable=False),
        sa.Column("times", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "day", name=op.f("pk_relief_claims")),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_relief_claims_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.CheckConstraint("times >= 1", name=op.f("ck_relief_claims_times_positive")),
    )
    op.create_table(
        "skill_ratings",
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("profile", sa.String(32), nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("rating", sa.BigInteger, nullable=False),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("player_id", "profile", name=op.f("pk_skill_ratings")),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_skill_ratings_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.CheckConstraint("sigma > 0 AND hands >= 0", name=op.f("ck_skill_ratings_skill_valid")),
    )
    op.create_index(op.f("ix_skill_ratings_profile_rating"), "skill_ratings", ["profile", "rating"])
    op.add_column("tables", sa.Column("room", sa.String(64), nullable=True))
    op.add_column("table_stakes", sa.Column("max_balance", sa.BigInteger, nullable=True))
    op.add_column("hands", sa.Column("bot_kinds", sa.JSON, nullable=True))


def downgrade() -> None:
    bind = op.get_bind()
    n = bind.execute(sa.text("SELECT COUNT(*) FROM ledger WHERE kind = 'relief'")).scalar()
    if n:
        raise RuntimeError(
            f"cannot downgrade below 0003: the ledger has {n} relief row(s), which 0002 "
            "does not allow (balances would no longer match the ledger)"
        )
    # a plain DROP COLUMN (SQLite >= 3.35): copying ``tables`` or ``hands`` as batch mode
    # does would cascade deletes into every table that refers to them
    op.execute("ALTER TABLE hands DROP COLUMN bot_kinds")
    op.execute("ALTER TABLE tables DROP COLUMN room")
    op.execute("ALTER TABLE table_stakes DROP COLUMN max_balance")
    op.drop_index(op.f("ix_skill_ratings_profile_rating"), "skill_ratings")
    op.drop_table("skill_ratings")
    op.drop_table("relief_claims")
    _set_kinds(OLD_KINDS)
