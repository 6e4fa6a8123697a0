"""SQLAlchemy models of the platform economy (R11, docs/economy.md), on the server's metadata:
registered accounts with their silver and rating, the append-only silver ledger, each
table's stakes, each hand's settlement (its idempotency key is the hand id), per-seat hand
results (history), per-profile statistics (leaderboards), the skill rating per player and
profile (openskill, server/rating.py) and the 救济金 relief claimed per player and day.

Money-grade invariants kept by the database itself: a balance and every ``balance_after`` is
never negative (CHECK), a ledger kind is one of :data:`LEDGER_KINDS` (CHECK), a hand is
settled at most once (primary key ``settlements.hand_id``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from fujian_mahjong.server.store.models import Base, utcnow

LEDGER_KINDS = ("starting_grant", "hand", "fee", "escape", "admin", "relief")
# the ledger's CHECK on its kind (the same text in the model and in migration 0003)
LEDGER_KIND_CHECK = "kind IN (" + ", ".join(f"'{k}'" for k in LEDGER_KINDS) + ")"


class Account(Base):
    """A registered player's money and standing (guests and bots have no account)."""

    __tablename__ = "accounts"
    __table_args__ = (
        CheckConstraint("silver >= 0", name="silver_nonnegative"),
        CheckConstraint("rating >= 0", name="rating_nonnegative"),
    )
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    # the name folded for uniqueness (NFKC + casefold): "Alice" and "ＡＬＩＣＥ" are one name
    name_key: Mapped[str] = mapped_column(String(80), unique=True)
    silver: Mapped[int] = mapped_column(BigInteger)
    rating: Mapped[int] = mapped_column(BigInteger, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LedgerRow(Base):
    """One change of one balance (append-only). ``balance_after`` chains per player."""

    __tablename__ = "ledger"
    __table_args__ = (
        CheckConstraint(LEDGER_KIND_CHECK, name="kind_known"),
        CheckConstraint("balance_after >= 0", name="balance_nonnegative"),
        Index("ix_ledger_player_id_id", "player_id", "id"),
    )
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    hand_id: Mapped[int | None] = mapped_column(
        ForeignKey("hands.id", ondelete="SET NULL"), nullable=True, index=True
    )
    kind: Mapped[str] = mapped_column(String(16))
    amount: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int] = mapped_column(BigInteger)
    reason: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class TableStakes(Base):
    """R11: a table's stake (silver per point), base, fee, cap and minimum balance to sit.
    A table without a row (made before the economy existed) is played for points only."""

    __tablename__ = "table_stakes"
    __table_args__ = (
        CheckConstraint(
            "stake >= 0 AND base >= 1 AND fee >= 0 AND cap >= 0 AND min_balance >= 0",
            name="stakes_valid",
        ),
    )
    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    stake: Mapped[int] = mapped_column(BigInteger)
    base: Mapped[int] = mapped_column(BigInteger)
    fee: Mapped[int] = mapped_column(BigInteger)
    cap: Mapped[int] = mapped_column(BigInteger)
    min_balance: Mapped[int] = mapped_column(BigInteger)
    # a room's upper bound on the balance to sit down (server/rooms.py); null: none
    max_balance: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # docs/economy.md, "Bots at room tables play for the house": this table's bot seats
    # pay and receive silver from the house account (a room table while the operator's
    # ``[economy] house_bots`` is on, fixed when the table is made)
    house_bots: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class HouseLedgerRow(Base):
    """The house account (docs/economy.md): one row per bot seat whose silver moved in a
    settled hand, ``amount`` > 0 when the house won it from the accounts, < 0 when it paid.
    Its balance is the sum of the rows (it may be negative: the house has paid out more than
    it won); no running balance is stored, so concurrent settlements never wait on one
    shared row. Written in the hand's settlement transaction; ``fjmj admin audit`` adds the
    balance to its conservation law."""

    __tablename__ = "house_ledger"
    __table_args__ = (CheckConstraint("amount <> 0", name="house_amount_nonzero"),)
    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    hand_id: Mapped[int] = mapped_column(ForeignKey("hands.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    amount: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SettlementRow(Base):
    """A hand's settlement, once (the hand id is the idempotency key): what was paid and why,
    so that ``fjmj admin audit`` can recompute it from the stored log."""

    __tablename__ = "settlements"
    hand_id: Mapped[int] = mapped_column(
        ForeignKey("hands.id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(8))  # 'hand' | 'void'
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HandResultRow(Base):
    """One seated person's result of one finished hand (history, statistics)."""

    __tablename__ = "hand_results"
    __table_args__ = (Index("ix_hand_results_player_id_hand_id", "player_id", "hand_id"),)
    hand_id: Mapped[int] = mapped_column(
        ForeignKey("hands.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    profile: Mapped[str] = mapped_column(String(32))
    points: Mapped[int] = mapped_column(BigInteger)
    won: Mapped[bool] = mapped_column(default=False)
    silver: Mapped[int | None] = mapped_column(BigInteger, nullable=True)  # None: points only
    balance_after: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ProfileStatRow(Base):
    """Per account and profile: a rating (the leaderboard of that profile), hands and wins."""

    __tablename__ = "profile_stats"
    __table_args__ = (
        CheckConstraint("rating >= 0", name="rating_nonnegative"),
        Index("ix_profile_stats_profile_rating", "profile", "rating"),
    )
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    profile: Mapped[str] = mapped_column(String(32), primary_key=True)
    rating: Mapped[int] = mapped_column(BigInteger, default=0)
    hands: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)


class SkillRow(Base):
    """A player's skill rating in one profile (openskill Plackett-Luce, server/rating.py):
    ``mu`` and ``sigma`` (the uncertainty), and the displayed ``rating`` (an integer made
    from them, stored to order leaderboards). Humans only: bots have fixed ratings."""

    __tablename__ = "skill_ratings"
    __table_args__ = (
        CheckConstraint("sigma > 0 AND hands >= 0", name="skill_valid"),
        Index("ix_skill_ratings_profile_rating", "profile", "rating"),
    )
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    profile: Mapped[str] = mapped_column(String(32), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    rating: Mapped[int] = mapped_column(BigInteger, default=0)
    hands: Mapped[int] = mapped_column(Integer, default=0)


class ReliefClaim(Base):
    """救济金 (docs/economy.md): how many times a player claimed relief on one day (the
    day number on the server's clock, days since 1970-01-01 in the operator's time zone).
    Written with the ``relief`` ledger row, under the account's lock."""

    __tablename__ = "relief_claims"
    __table_args__ = (CheckConstraint("times >= 1", name="times_positive"),)
    player_id: Mapped[int] = mapped_column(
        ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    day: Mapped[int] = mapped_column(Integer, primary_key=True)
    times: Mapped[int] = mapped_column(Integer)
