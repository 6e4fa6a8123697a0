"""SQLAlchemy 2 models: players and tokens (ready for registered accounts), tables and their
seats, matches, hands and every hand's event log (the source of truth, R12)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Stable constraint names so that Alembic migrations work the same on SQLite and PostgreSQL.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON, list[Any]: JSON}


class Player(Base):
    """A person: a guest now, a registered account (docs/economy.md)."""

    __tablename__ = "players"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(40))
    kind: Mapped[str] = mapped_column(String(16), default="guest")  # 'guest' | 'registered'
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Token(Base):
    """A bearer token; only its SHA-256 is stored."""

    __tablename__ = "tokens"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)


class TableRow(Base):
    """A table (桌): its settings and status ('open' → 'playing' → 'closed')."""

    __tablename__ = "tables"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(8), unique=True)
    creator_id: Mapped[int] = mapped_column(ForeignKey("players.id"))
    profile: Mapped[str] = mapped_column(String(32))
    players: Mapped[int] = mapped_column(Integer)
    turn_seconds: Mapped[float] = mapped_column(Float)
    hands: Mapped[int] = mapped_column(Integer)
    private: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(16), default="open", index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # the room (tier and profile, server/rooms.py) a quick-match table belongs to; null for
    # tables made with POST /api/tables
    room: Mapped[str | None] = mapped_column(String(64), nullable=True)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # the claim window it was made with (fast, fixed, auto; null: the server's setting),
    # which a restart or a move to another process keeps (migration 0008)
    claim_window: Mapped[str | None] = mapped_column(String(8), nullable=True)


class SeatRow(Base):
    """Who sits where: a player, or a bot (player_id null)."""

    __tablename__ = "seats"
    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    # indexed (migration 0007): is this player seated somewhere (server/economy.py)
    player_id: Mapped[int | None] = mapped_column(
        ForeignKey("players.id"), nullable=True, index=True
    )
    bot: Mapped[bool] = mapped_column(Boolean, default=False)
    # a bot's kind (fujian_mahjong.bots.BOT_KINDS; null: the server's default bot)
    bot_kind: Mapped[str | None] = mapped_column(String(16), nullable=True)


class MatchRow(Base):
    """A match (一局, R9): the first dealer and the running state after each hand."""

    __tablename__ = "matches"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    first_dealer: Mapped[int] = mapped_column(Integer)
    # R12: the match's secret seed; hand k plays HMAC-SHA256(seed, k) (engine.Match)
    seed: Mapped[str] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(16), default="playing")  # playing|over|void
    hands_played: Mapped[int] = mapped_column(Integer, default=0)
    totals: Mapped[list[Any]] = mapped_column(JSON)
    leaver: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # an agreed 解散房间 not carried out yet (a pause or a window holds it back): the votes
    # by seat, so a restart carries it out (migration 0009)
    dissolve_votes: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class HandRow(Base):
    """One hand (一盘): its secret seed (revealed in the log at the end), the seed's SHA-256
    (published at the start, R12), status ('playing' | 'over' | 'void') and the result."""

    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("match_id", "number", name="uq_hands_match_number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    profile: Mapped[str] = mapped_column(String(32))
    players: Mapped[int] = mapped_column(Integer)
    dealer: Mapped[int] = mapped_column(Integer)
    streak: Mapped[int] = mapped_column(Integer)
    seed: Mapped[str] = mapped_column(String(128))
    seed_sha256: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default="playing", index=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    score: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    seat_players: Mapped[list[Any]] = mapped_column(JSON)  # player id per seat (null = bot)
    # the bot kind per seat (null for a human; the whole list null: every bot was the
    # server's default kind): the skill rating anchors on bots' fixed ratings (rating.py)
    bot_kinds: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class EventRow(Base):
    """One event of a hand's log, in order; (hand_id, seq) is the key, so an event can be
    neither lost in the middle nor stored twice."""

    __tablename__ = "events"
    hand_id: Mapped[int] = mapped_column(
        ForeignKey("hands.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
