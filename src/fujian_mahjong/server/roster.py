"""The table's connections: each seat's socket and those watching (server/table.py's
``TableActor.roster``).

It moves connections only, as ``TableActor.effect`` tells it from what attendance decided
(server/attendance.py: ``attach``, ``detach``) and when the table closes (``let_go``). A
connection attached here starts its table stream afresh: no view shown yet, its first state
carrying the hand's history (docs/protocol.md, "Reconnecting"). Nothing here decides, writes
or sends — but for the one ``replaced`` a seat's older connection is told before it is
closed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from fujian_mahjong.server.ports import TableRef

if TYPE_CHECKING:
    from fujian_mahjong.server.conn import Conn
    from fujian_mahjong.server.tablestate import Seat

__all__ = ["Roster", "RosterTable"]


class RosterTable(TableRef, Protocol):
    """What the roster reads of its table: the seats (replaced in place, never rebound); it
    is what an attached connection's ``table`` is."""

    @property
    def seats(self) -> list[Seat]: ...


class Roster:
    def __init__(self, table: RosterTable) -> None:
        self.t = table
        self.spectators: set[Conn] = set()

    def conns(self) -> list[Conn]:
        """Every connection at the table: the seats' first, then those watching."""
        out = [s.conn for s in self.t.seats if s.conn is not None]
        out.extend(self.spectators)
        return out

    def any(self) -> bool:
        """Somebody is connected (a table nobody watches may batch its writes)."""
        return bool(self.spectators) or any(s.conn is not None for s in self.t.seats)

    def detach(self, conn: Conn) -> None:
        """``conn`` is at this table no more."""
        self.spectators.discard(conn)
        for s in self.t.seats:
            if s.conn is conn:
                s.conn = None
        if conn.table is self.t:
            conn.table = None
            conn.seat = None

    def attach(self, conn: Conn, seat: int | None) -> None:
        """``conn`` joins this table at ``seat`` (None: to watch), leaving whatever it had
        here before; a connection the seat had is told it was replaced, and closed."""
        self.detach(conn)
        conn.table = self.t
        conn.last_view = None
        conn.state_key = -1
        conn.state_seq = conn.seq + 1
        conn.history_due = True  # its first state of a hand carries the hand's history
        conn.seat = seat
        conn.spectator = seat is None
        if seat is None:
            self.spectators.add(conn)
            return
        s = self.t.seats[seat]
        if s.conn is not None and s.conn is not conn:
            old = s.conn
            old.error("replaced", "this seat was opened on another connection")
            old.table = None
            old.close("replaced by a newer connection")
        s.conn = conn
        s.disconnected_at = None
        s.dropped = False

    def let_go(self) -> None:
        """The table closed (everyone told): no connection is at it any more."""
        for c in self.conns():
            c.table = None
            c.seat = None
        for s in self.t.seats:
            s.conn = None
        self.spectators.clear()
