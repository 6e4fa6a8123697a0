"""Attendance decides, the actor carries out (server/attendance.py, server/effects.py): a
connection joining a seat or to watch, leaving, or losing its socket, as effects — a free
seat's row first, then the connection attached or let go, then ``seated``/``left``, then
the table shown to it. R11: a lost socket keeps the seat for the grace period; D-24: a
leaver does not come back to its match."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from fujian_mahjong.engine import Action, Game
from fujian_mahjong.server import commands as C
from fujian_mahjong.server.attendance import Attendance
from fujian_mahjong.server.conn import Conn, RecordingTransport
from fujian_mahjong.server.effects import Reply, SetSeat
from fujian_mahjong.server.seating import Seating
from fujian_mahjong.server.tablestate import Seat, TableError
from tests.inproc import Client, running
from tests.test_audit_server import FIVE_P, wall


@dataclass
class _Cfg:
    id: int = 7
    creator_id: int = 1
    code: str = "ABCDEF"


@dataclass
class _Table:
    seats: list[Seat] = field(default_factory=lambda: [Seat() for _ in range(4)])
    status: str = "open"
    cfg: Any = field(default_factory=_Cfg)
    pending_leave: int | None = None
    auto_ready: bool = False
    hand: Any = None  # the hand in play (a HandState), if any
    degraded: bool = False  # the store failing (server/recovery.py)

    def __post_init__(self) -> None:
        self.seating = Seating(self, 30.0)

    @property
    def id(self) -> int:
        return int(self.cfg.id)

    def seat_of(self, player_id: int) -> int | None:
        return next(
            (i for i, s in enumerate(self.seats) if s.player_id == player_id and not s.bot), None
        )

    async def can_sit(self, player_id: int) -> str | None:
        return None

    async def has_account(self, player_id: int) -> bool:
        return True


def _conn(pid: int, name: str = "p") -> Conn:
    c = Conn(20, RecordingTransport())
    c.player_id, c.name = pid, name
    return c


def test_a_newcomer_takes_the_first_free_seat_stored_first() -> None:
    t = _Table()
    t.seats[0] = Seat(bot=True, name="Bot 1")
    c = _conn(5, "five")
    fx = asyncio.run(Attendance(t, 30.0).join(c, "player"))
    assert fx.writes == [SetSeat(1, 5, one_table=True)]  # the row before anything else
    assert [(i, s.player_id) for i, s in fx.seats] == [(1, 5)]
    assert fx.attach == (c, 1) and fx.cancel == [("grace", 1)]
    assert fx.replies == [Reply(c, {"type": "seated", "table": 7, "code": "ABCDEF", "seat": 1})]
    assert fx.then == [C.Pump(fresh=c)]
    assert t.seats[1] == Seat() and c.table is None  # nothing changed: the actor applies it


def test_a_returning_player_takes_its_own_seat_and_a_room_table_may_deal() -> None:
    t = _Table(auto_ready=True)
    t.seats[2] = Seat(player_id=5, name="five", disconnected_at=3.0)
    c = _conn(5)
    fx = asyncio.run(Attendance(t, 30.0).join(c, "player"))
    assert fx.writes == [] and fx.seats == []  # its seat is its own already
    assert fx.attach == (c, 2) and fx.cancel == [("grace", 2)]  # R11: the grace ends
    assert fx.then == [C.Pump(fresh=c), C.MaybeStart()]
    w = _conn(6)
    fx = asyncio.run(Attendance(t, 30.0).join(w, "spectator"))
    assert fx.attach == (w, None) and fx.writes == [] and fx.cancel == []
    assert fx.then == [C.Pump(fresh=w)]  # a spectator deals nothing


@pytest.mark.parametrize(
    ("status", "pending", "as_", "code"),
    [
        ("closed", None, "player", "table_closed"),
        ("playing", 2, "player", "not_now"),  # D-24: the leaver's match ends without it
        ("playing", None, "player", "table_busy"),  # a stranger to a table in play
    ],
)
def test_joins_refused_change_nothing(
    status: str, pending: int | None, as_: str, code: str
) -> None:
    t = _Table(status=status, pending_leave=pending)
    t.seats[2] = Seat(player_id=5, name="five")
    c = _conn(5 if pending is not None else 9)
    with pytest.raises(TableError) as e:
        asyncio.run(Attendance(t, 30.0).join(c, as_))
    assert e.value.code == code


def test_a_lost_socket_keeps_the_seat_for_the_grace_period() -> None:
    t = _Table()
    c = _conn(5)
    t.seats[1] = Seat(player_id=5, name="five", conn=c)
    c.table, c.seat = t, 1
    fx = Attendance(t, 30.0).disconnected(c, now=40.0)
    assert fx.detach == [c]
    [(seat, s)] = fx.seats
    assert seat == 1 and s.conn is None and s.disconnected_at == 40.0 and s.player_id == 5
    assert fx.timers == [(("grace", 1), 30.0, C.GraceOver(1))]  # R11
    assert fx.replan == []  # no window asks it: its own turn keeps its deadline
    assert t.seats[1].conn is c  # nothing changed: the actor applies it
    # asked in an open claim window: planned again, to pass inside the pause (R12 rev 2)
    g = Game.from_wall("fuzhou-tcy", wall(chow1=True, pong2=False), dealer=0)
    g.apply(0, Action.from_json(FIVE_P))  # seat 1 may chow it
    assert g.phase == "claims" and g.to_act() == [1]
    t.hand = SimpleNamespace(game=g)
    assert Attendance(t, 30.0).disconnected(c, now=40.0).replan == [1]
    t.hand = None
    # the seat taken over by a newer connection: the old socket's close only lets it go
    t.seats[1] = Seat(player_id=5, name="five", conn=_conn(5))
    fx = Attendance(t, 30.0).disconnected(c, now=41.0)
    assert fx.detach == [c] and fx.seats == [] and fx.timers == []
    # a connection of another table: nothing
    c.table = object()
    assert Attendance(t, 30.0).disconnected(c, now=42.0).detach == []


def test_leaving_tells_the_connection_and_a_seated_player_leaves_its_seat() -> None:
    t = _Table()
    c = _conn(5)
    c.table, c.seat = t, 3
    fx = Attendance(t, 30.0).leave(c)
    # the seated player is answered ``left`` by the table once its leave is stored
    assert fx.detach == [c] and fx.replies == []
    assert fx.then == [C.SeatLeaves(3, c)]
    w = _conn(6)
    w.table = t
    fx = Attendance(t, 30.0).leave(w)
    assert fx.then == [] and fx.replies == [Reply(w, {"type": "left", "table": 7})]  # it goes


def test_a_second_device_takes_the_seat_over(tmp_path: Path) -> None:
    """Carried out by the actor: the same player joining from a second device takes its
    seat over; the first connection is told it was replaced and let go. (A join whose seat
    row cannot be stored attaches nobody: tests/test_seating.py.)"""

    async def main() -> None:
        async with running(tmp_path) as h:
            owner = await h.guest("owner")
            tid = await h.table(owner)
            table = h.lobby.tables[tid]
            await h.seat(owner, tid)
            await h.settle()
            assert [m["seat"] for m in owner.of_type("seated")] == [0]
            first = table.seats[0].conn
            assert first is not None and first.table is table
            again = Client(h, owner.name, owner.token, owner.player_id)  # a second device
            await again.send({"type": "hello", "token": owner.token})
            await h.seat(again, tid)
            await h.settle()
            assert table.seats[0].conn is again.conn and first.table is None
            assert "replaced" in owner.errors()
            assert table.seats[0].disconnected_at is None

    asyncio.run(main())


def test_a_player_is_told_it_has_left_only_once_its_leave_is_stored(tmp_path: Path) -> None:
    """Mid-match, ``left`` reaches the leaving player after the leave's writes (the hand
    void, the match ended with it as the leaver): it went out before them, so a crash in
    between left a player told it had gone seated again, as disconnected, after the
    restart. And while the store fails, the leave is still answered (the table holds it and
    stores it when the store is back)."""
    import sqlite3

    from fujian_mahjong.server.deals import FixedDeals

    async def main(failing: bool) -> None:
        data = tmp_path / ("failing" if failing else "ok")
        async with running(data, deals=FixedDeals("b")) as h:
            me, other = await h.guest("me"), await h.guest("other")
            tid = await h.table(me, bots=2, hands=2)
            for c in (me, other):
                await h.seat(c, tid)
            await h.ready(me, other)
            await h.advance(3)
            db = sqlite3.connect(str(data / "fjmj.sqlite3"))
            seen: list[Any] = []
            real = me.rec.send

            def send(text: str) -> bool:
                if '"left"' in text:  # what the database holds as the player is told
                    seen.append(db.execute("SELECT leaver FROM matches").fetchall())
                return real(text)

            me.rec.send = send  # type: ignore[method-assign]
            if failing:
                h.faults.fail(2)
            await me.send({"type": "leave"})
            await h.settle()
            assert me.of_type("left")
            if failing:
                # answered all the same, and nothing after it (a "try again" would only be
                # refused: the table holds the leave); stored once the store is back
                assert seen == [[(None,)]], seen
                assert me.messages[-1]["type"] == "left", me.messages[-3:]
                await h.advance(5)
                assert db.execute("SELECT leaver FROM matches").fetchall() == [(0,)]
            else:
                assert seen == [[(0,)]], seen
            db.close()

    asyncio.run(main(False))
    asyncio.run(main(True))
