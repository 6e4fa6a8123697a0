"""A table's data (server/table.py's actor holds them): its configuration, its seats, the
hand being played with what has been persisted and shown of it, and the error a request
the table refuses gets. Below the table's parts (finisher, social, scheduler) in the
server's layers (docs/architecture.md, "Layers"), so that they name these types without
importing the actor."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fujian_mahjong.engine import Game, Match
from fujian_mahjong.server.conn import Conn

__all__ = ["HandStart", "HandState", "Seat", "TableConfig", "TableError"]


class TableError(Exception):
    """A request the table refuses: ``code`` and a one-line message for the client;
    ``bad=False`` where the refusal answers a race the protocol expects rather than a bad
    message (it does not count towards closing the connection, docs/protocol.md)."""

    def __init__(self, code: str, message: str, bad: bool = True) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.bad = bad


@dataclass
class Seat:
    """A seat: a human (``player_id``) or a bot; a human's connection and flags."""

    player_id: int | None = None
    name: str = ""
    bot: bool = False
    bot_kind: str | None = None  # fujian_mahjong.bots.BOT_KINDS; None: the server's default
    account: bool = False  # the player has an account: it plays for silver (R11)
    ready: bool = False
    # 托管: the server plays this seat (set by the player, or by a missed own turn; a missed
    # claim prompt is only a pass, docs/protocol.md "Acting"), public to everyone
    auto: bool = False
    conn: Conn | None = None
    disconnected_at: float | None = None
    # its socket closed while this process held the table (not a seat restored after a
    # restart or a move, whose player was cut off by the server: docs/deploy.md)
    dropped: bool = False
    last_view: dict[str, Any] | None = None  # the last view this seat was sent
    last_key: int = 0  # the decision point (len of the hand's log) that view showed

    @property
    def taken(self) -> bool:
        return self.bot or self.player_id is not None

    @property
    def human(self) -> bool:
        return self.player_id is not None and not self.bot

    @property
    def away(self) -> bool:
        """A human whose socket closed while playing here (its grace period running; not a
        seat restored after a restart or a move, whose pending decision keeps a fresh
        deadline: docs/deploy.md). Public: the seat list says so (``connected``)."""
        return self.human and self.conn is None and self.dropped


@dataclass
class TableConfig:
    id: int
    code: str
    creator_id: int
    profile: str
    players: int
    turn_seconds: float
    hands: int
    private: bool
    # "fast" | "fixed" | "auto" (fixed with two or more humans); None: the server's default
    # (Settings.claim_window). docs/architecture.md, "How long the claim pause lasts"
    claim_window: str | None = None


@dataclass
class HandState:
    """The hand being played and what has been persisted and shown of it."""

    id: int
    number: int
    game: Game
    persisted: int = 0
    hold_until: float = 0.0
    hold_from_send: bool = False  # start the pause when the notice is sent
    # the events up to a claim pause's notice (its discard, its added kong): all that is
    # stored as the notice goes out; what follows (the next draw, the answers) at its end
    notice_upto: int = 0
    pause_start: float = 0.0  # when the current pause began (its notice went out)
    # a fixed claim window someone was asked in: its drawn (D, jitter), until the window
    # closes and the pause's length is known (ClaimPace.end); None otherwise
    pause_drawn: tuple[float, float] | None = None
    window_key: int = -1  # len(events) when the current window opened
    window_asked: frozenset[int] = frozenset()
    notices: list[dict[str, Any]] = field(default_factory=list)  # of the current pause
    notices_sent: int = 0
    end_sent: bool = False
    voided: bool = False
    # the match's record of this hand was committed with the hand's end (Store.append_events)
    match_stored: bool = False
    # the opening (docs/protocol.md, "The opening"): when it ends on the table's clock (0:
    # none), and whether the hand has been shown to every seat yet (the deal's pause over)
    opening_until: float = 0.0
    shown: bool = False


@dataclass(slots=True)
class HandStart:
    """A hand to start (server/dealing.py): its match, what was dealt, and its rows' ids
    once they are stored — the writes record them here, so a start decided again after a
    store fault deals nothing again and makes neither row twice."""

    match: Match
    game: Game
    match_id: int | None = None  # None: the match's row is still to be made
    hand_id: int | None = None
    hand_row: dict[str, Any] = field(default_factory=dict)  # Store.create_hand's keywords
