"""A seat's hint (WS ``hint``, docs/protocol.md): the strongest bot's advice on the seat's
own decision, from the seat's view alone (R12).

A hint is asked in two steps on the table's actor, with the search between them outside it
(``Hints.ask``): :meth:`Hints.begin` checks the seat is at a decision and copies the
hand's log; the bot thinks on the hand rebuilt from that copy in the worker pool (up to a
CPU second) while the table goes on; :meth:`Hints.end` returns the reply as ``Effects``
(server/effects.py), to that connection only, and only while the seat is still at the same
decision. A table that waited for the search would tell everyone that a seat asked (R12:
e.g. inside a claim window), so nothing else waits for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from fujian_mahjong.server import commands as C
from fujian_mahjong.server.effects import Effects, Reply
from fujian_mahjong.server.tablestate import TableError

if TYPE_CHECKING:
    from fujian_mahjong.server.commands import TableCommand
    from fujian_mahjong.server.conn import Conn
    from fujian_mahjong.server.scheduler import Scheduler
    from fujian_mahjong.server.tablestate import HandState

__all__ = ["Hints", "HintsTable"]


class HintsTable(Protocol):
    """What a hint reads of its table (server/table.py's ``TableActor``)."""

    hand: HandState | None

    @property
    def id(self) -> int: ...
    @property
    def sched(self) -> Scheduler: ...

    async def ask(self, cmd: TableCommand) -> Any: ...


class Hints:
    def __init__(self, table: HintsTable) -> None:
        self.t = table
        self.preparing: set[int] = set()  # seats whose hint the bot is preparing

    async def ask(self, conn: Conn) -> None:
        """WS ``hint``, called outside the actor (server/ws.py): the hand's log up to the
        seat's decision is copied inside the actor (``HintBegin``); the hint bot thinks on
        the hand rebuilt from it (the worker pool, up to a second) while the table goes on,
        so nobody else's message waits for it (R12: a table that stalled would tell
        everyone that a seat asked, e.g. inside a claim window); the reply goes to the seat
        only while it is still at that decision (``HintEnd``)."""
        seat, events, seed, legal = await self.t.ask(C.HintBegin(conn))
        try:
            d = await self.t.sched.advise(events, seed, seat)
        finally:
            self.done(seat)
        await self.t.ask(C.HintEnd(conn, seat, legal, d))

    def _seat(self, conn: Conn) -> int:
        if conn.seat is None or conn.table is not self.t:
            raise TableError("not_seated", "only a seated player may do this")
        return conn.seat

    def begin(self, conn: Conn) -> tuple[int, list[Mapping[str, Any]], str, Any]:
        """The seat, a copy of the hand's log, its seed and the seat's legal actions (what
        the reply must still match); raises TableError when there is nothing to decide or
        a hint of this seat is being prepared."""
        seat = self._seat(conn)
        h = self.t.hand
        if h is None or conn.state_key != len(h.game.events) or not h.game.legal_actions(seat):
            raise TableError("not_your_turn", "there is nothing to decide now")
        if seat in self.preparing:  # one search at a time per seat (each up to a CPU second)
            raise TableError("rate_limited", "a hint is being prepared; wait for it")
        self.preparing.add(seat)
        g = h.game
        # a copy of the log: the actor goes on appending to the game's own list meanwhile
        return seat, list(g.events), g.seed, g.legal_actions(seat)

    def done(self, seat: int) -> None:
        """The search for this seat ended (answered, failed or cancelled)."""
        self.preparing.discard(seat)

    def end(self, conn: Conn, seat: int, legal: Any, advice: dict[str, Any]) -> Effects:
        """The reply, while the seat is still at the decision it asked about."""
        h = self.t.hand
        if (
            h is None
            or conn.table is not self.t
            or conn.seat != seat
            or conn.state_key != len(h.game.events)
            or h.game.legal_actions(seat) != legal
        ):
            # the seat acted or was passed for meanwhile (what another seat answered in the
            # same window changes nothing here: this seat's view stays as it was)
            if conn.table is self.t and conn.seat == seat:
                raise TableError("stale", "the table has moved on; ask again if you need to")
            return Effects()
        return Effects(replies=[Reply(conn, {"type": "hint", **advice}, stream=False)])
