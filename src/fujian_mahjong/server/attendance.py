"""Who is at the table: a connection joining a seat (its own, a free one) or to watch,
leaving, or losing its socket — decided here and returned as ``Effects``
(server/effects.py) for the table actor to carry out: a free seat taken is stored first
(``SetSeat``, server/seating.py), then the connection is attached (``attach``) or let go
(``detach``), then it is told (``seated``, ``left``), then the table shows it everything
it may see now (``Pump`` with ``fresh``).

- A player who comes back (a reload, a second device) takes its own seat again and ends
  its grace period; the connection it had there before is told it was replaced and closed.
- A player who left this match mid-hand may not come back (D-24: the hand ends as declared,
  then the match).
- A lost socket keeps the seat for the grace period (R11), and a claim window it was asked
  in is answered for it inside the pause (a pass: server/scheduler.py); a seat whose player left, or
  whose grace period ran out, is the table's ``SeatLeaves`` (seating frees it at an open
  table; mid-match the finisher ends the match: R9, R11).

Nothing here writes, sends or changes the table."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from fujian_mahjong.server import commands as C
from fujian_mahjong.server import visibility as vis
from fujian_mahjong.server.effects import Effects, Reply
from fujian_mahjong.server.tablestate import Seat, TableError

if TYPE_CHECKING:
    from fujian_mahjong.server.conn import Conn
    from fujian_mahjong.server.seating import Seating
    from fujian_mahjong.server.tablestate import HandState, TableConfig

__all__ = ["Attendance", "AttendanceTable"]


class AttendanceTable(Protocol):
    """What attendance reads of its table (server/table.py's ``TableActor``)."""

    @property
    def status(self) -> str: ...
    @property
    def id(self) -> int: ...
    @property
    def cfg(self) -> TableConfig: ...
    @property
    def seats(self) -> list[Seat]: ...
    @property
    def pending_leave(self) -> int | None: ...
    @property
    def auto_ready(self) -> bool: ...
    @property
    def seating(self) -> Seating: ...
    @property
    def hand(self) -> HandState | None: ...
    @property
    def degraded(self) -> bool: ...

    def seat_of(self, player_id: int) -> int | None: ...


class Attendance:
    def __init__(self, table: AttendanceTable, grace_s: float) -> None:
        self.t = table
        self.grace_s = grace_s  # R11: how long a seat waits for its player's connection

    async def join(self, conn: Conn, as_: str) -> Effects:
        """WS ``join``: seat (or resume the seat of) this player, or watch."""
        t = self.t
        if t.status == "closed":
            raise TableError("table_closed", f"table {t.id} is closed")
        assert conn.player_id is not None
        if conn.table is not None and conn.table is not t:
            raise TableError("already_joined", "this connection is already at another table")
        if as_ == "spectator" and conn.table is t and conn.seat is not None:
            # its seat would be left with no connection and no grace period: never a leaver
            # (R11's escape penalty), never ready again. Leave the seat, or play it
            raise TableError("not_now", f"you hold seat {conn.seat} here; leave it to watch")
        fx = Effects()
        seat: int | None = None
        if as_ != "spectator":
            seat = t.seat_of(conn.player_id)
            if seat is not None and seat == t.pending_leave:
                # D-24: it left; the hand ends as declared, then the match (no way back)
                raise TableError("not_now", "you left this match; it ends with this hand")
            if seat is None:
                seat, fx = await t.seating.sit(conn.player_id, conn.name)
            fx.cancel.append(("grace", seat))
        fx.attach = (conn, seat)
        fx.replies.append(
            Reply(conn, {"type": "seated", "table": t.id, "code": t.cfg.code, "seat": seat})
        )
        fx.seats_changed = True
        fx.then.append(C.Pump(fresh=conn))
        if t.auto_ready and seat is not None and t.status in ("open", "between"):
            # a room table deals once everyone is here (between two hands: once its wait
            # is over too, which a seat back after it must not leave waiting for ever)
            fx.then.append(C.MaybeStart())
        return fx

    def leave(self, conn: Conn) -> Effects:
        """WS ``leave``: a spectator goes; a player mid-match is a leaver (R9, R11)."""
        if conn.seat is not None:
            # answered ``left`` once its leave is stored (the table's ``SeatLeaves``)
            return Effects(detach=[conn], then=[C.SeatLeaves(conn.seat, conn)])
        return Effects(detach=[conn], replies=[Reply(conn, {"type": "left", "table": self.t.id})])

    def disconnected(self, conn: Conn, now: float) -> Effects:
        """The socket closed: keep the seat for the grace period (R11)."""
        if conn.table is not self.t:
            return Effects()
        fx = Effects(detach=[conn])
        seat = conn.seat
        if seat is None or self.t.seats[seat].conn is not conn:
            return fx  # a spectator, or a seat another connection has taken over
        s = self.t.seats[seat]
        fx.seats.append((seat, replace(s, conn=None, disconnected_at=now, dropped=True)))
        if not self.t.degraded:
            # while the table cannot save, no grace period runs (nobody is made a leaver by
            # the server's fault); the recovery starts it for every seat still away
            fx.timers.append((("grace", seat), self.grace_s, C.GraceOver(seat)))
        h = self.t.hand
        if h is not None and vis.in_window(h.game.phase) and seat in h.game.to_act():
            fx.replan.append(seat)  # asked in the open window: it passes inside the pause
        fx.then.append(C.Pump())
        return fx
