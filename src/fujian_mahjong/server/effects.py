"""What a table's part decided, for the actor to carry out (docs/architecture.md, "Effects").

The finisher (server/finisher.py), seating (server/seating.py), attendance
(server/attendance.py), the hand's start (server/dealing.py) and the social side
(server/social.py: chat, the dissolve vote, the dissolution) do not write the end of a hand
or a match or a seat, send its messages, set their timers, change the table's state or
close it: they read the table and the store and return ``Effects``, and
``TableActor.effect`` (server/table.py) applies them in one place, in one order:

1. the store writes (``writes``: one frozen dataclass each, run in order) — committed before
   anything about them is sent, and when one fails nothing below happens: the table's
   recovery runs the step again, and the part decides again from the unchanged state;
2. the hand's and the table's state (``started``, ``end_sent``, ``voided``, ``hand_done``,
   ``leave_done``, ``between``, the seats that changed: ``seats``), the connections that
   leave (``detach``) or join (``attach``: server/attendance.py), and the scheduler's
   timers (``cancel``; ``replan``: these seats' automatic acts planned again at the next
   pump; then ``timers``: key, delay, command);
3. the messages to everyone at the table, in order — a ``Settled`` one completed with the
   silver its hand's settlement committed (economy.hand_end_fields) — then the replies to
   one connection each;
4. the seat list, when it changed;
5. the close (``close``: its reason), which also tells everyone;
6. the commands that follow (``then``), run at once on the actor.

A lila ``RoundAsyncActor`` works the same way: its parts return events, the actor persists
and publishes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fujian_mahjong.server import commands as C

if TYPE_CHECKING:
    from fujian_mahjong.server.conn import Conn
    from fujian_mahjong.server.tablestate import HandStart, HandState, Seat

__all__ = [
    "Effects",
    "EndMatch",
    "FinishMatchHand",
    "Flush",
    "RecordDissolution",
    "Reply",
    "SetSeat",
    "Settled",
    "StartHand",
    "StartMatch",
    "TableStatus",
    "VoidHand",
    "Write",
]


@dataclass(frozen=True, slots=True)
class Flush:
    """The hand's events not yet stored (server/store: ``append_events``)."""

    hand: HandState


@dataclass(frozen=True, slots=True)
class FinishMatchHand:
    """A hand of the match recorded: the match's totals and hands played."""

    match_id: int
    hands_played: int
    totals: tuple[int, ...]
    over: bool


@dataclass(frozen=True, slots=True)
class VoidHand:
    """R11: the hand voided by a leaver, the escape penalty charged (once) and, in the same
    transaction, the match ended by the leave (``EndMatch``'s row, R9), so that no restart
    finds a leaver's void hand in a match still being played."""

    hand_id: int
    leaver: int | None
    match_id: int | None = None
    totals: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class EndMatch:
    """The match over: its totals and its leaver."""

    match_id: int | None
    totals: tuple[int, ...]
    leaver: int | None


@dataclass(frozen=True, slots=True)
class MarkLeaver:
    """A seat has left a match that goes on to the end of its hand (D-24's declared win, or
    a guest's seat played on where silver moves, docs/economy.md): stored on the match row
    while it is still played, so a restart keeps the seat out and ends the match after the
    hand (it let the leaver back in, and the match played on without a leaver)."""

    match_id: int | None
    seat: int


@dataclass(frozen=True, slots=True)
class AgreeDissolution:
    """An agreed 解散房间, stored before anyone is told (a pause or a window may hold the
    dissolution back): a restart in between carries it out (it played the match on)."""

    match_id: int | None
    votes: tuple[tuple[str, bool | None], ...]


@dataclass(frozen=True, slots=True)
class TableStatus:
    """The table's status stored (``closed``: it is not restored after a restart)."""

    status: str


@dataclass(frozen=True, slots=True)
class RecordDissolution:
    """A private table's match dissolved by vote (R11, economy.record_dissolution): the hand
    in progress void (charging nobody), its note, the match's end, the table closed — one
    transaction, a no-op when run again."""

    match_id: int | None
    hand_id: int | None
    votes: tuple[tuple[str, bool | None], ...]
    totals: tuple[int, ...]
    hands_played: int


@dataclass(frozen=True, slots=True)
class SetSeat:
    """A seat's row (server/store: ``set_seat``; with ``one_table``, ``economy.one_table``
    checked first in its transaction): a human's (``player_id``), a bot's, or freed."""

    seat: int
    player_id: int | None
    bot: bool = False
    bot_kind: str | None = None
    free: bool = False
    # R11: a human sitting down, who plays for silver at one table at a time: the seat is
    # taken only if it holds none at another (checked in the seat's own transaction)
    one_table: bool = False


@dataclass(frozen=True, slots=True)
class StartMatch:
    """The match's row, made once (its id is kept in ``start``), and the table ``playing``."""

    start: HandStart
    players: int


@dataclass(frozen=True, slots=True)
class StartHand:
    """The hand's row, made once (its id is kept in ``start``)."""

    start: HandStart


Write = (
    Flush
    | FinishMatchHand
    | VoidHand
    | EndMatch
    | MarkLeaver
    | AgreeDissolution
    | TableStatus
    | RecordDissolution
    | SetSeat
    | StartMatch
    | StartHand
)


@dataclass(frozen=True, slots=True)
class Settled:
    """A message completed, once the writes have committed, with what the settlement of
    ``hand_id`` (``kind``: "hand" or "void") moved: each seat's silver and balance, the
    level-ups (R11, docs/economy.md); or (``kind`` "match") what the settlements of the
    match whose id is ``hand_id`` moved, summed (``match_end``'s ``silver``)."""

    msg: dict[str, Any]
    hand_id: int
    kind: str


@dataclass(frozen=True, slots=True)
class Reply:
    """A message to one connection only (after the messages to everyone); ``stream``: it
    takes the connection's next table-stream ``seq`` (docs/protocol.md)."""

    conn: Conn
    msg: dict[str, Any]
    stream: bool = True


@dataclass(slots=True)
class Effects:
    """A part's decision (see the module's docstring for the order they are applied in)."""

    writes: list[Write] = field(default_factory=list)
    end_sent: HandState | None = None  # its hand_end is among the messages
    voided: HandState | None = None  # its void is among the writes
    started: HandStart | None = None  # its rows are among the writes: the table's hand now
    hand_done: bool = False  # no hand at the table now: no automatic act, no deadline
    leave_done: bool = False  # the pending leave has been dealt with (the match ended)
    between: bool = False  # between two hands: every seat's 准备 cleared, the seats sent
    seats: list[tuple[int, Seat]] = field(default_factory=list)  # seat i is now this
    seats_changed: bool = False  # the seat list is to be sent again (when quiet)
    attach: tuple[Conn, int | None] | None = None  # this connection joins: a seat, or watches
    detach: list[Conn] = field(default_factory=list)  # these connections leave the table
    cancel: list[Any] = field(default_factory=list)  # the scheduler's timers to cancel
    replan: list[int] = field(default_factory=list)  # these seats' next acts planned again
    timers: list[tuple[Any, float, C.TableCommand]] = field(default_factory=list)  # to set
    messages: list[dict[str, Any] | Settled] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    close: str | None = None
    then: list[C.TableCommand] = field(default_factory=list)

    def __iadd__(self, other: Effects) -> Effects:
        """``other`` after these: its writes, messages and commands follow."""
        self.writes += other.writes
        self.end_sent = other.end_sent or self.end_sent
        self.voided = other.voided or self.voided
        self.started = other.started or self.started
        self.hand_done = self.hand_done or other.hand_done
        self.leave_done = self.leave_done or other.leave_done
        self.between = self.between or other.between
        self.seats += other.seats
        self.seats_changed = self.seats_changed or other.seats_changed
        self.attach = other.attach or self.attach
        self.detach += other.detach
        self.cancel += other.cancel
        self.replan += other.replan
        self.timers += other.timers
        self.messages += other.messages
        self.replies += other.replies
        self.close = other.close or self.close
        self.then += other.then
        return self
