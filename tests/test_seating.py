"""Seating decides, the actor carries out (server/seating.py, server/effects.py): who sits
where before the match, as effects — the seat's row first, then the seat list, the timers
and what follows — so a seat write that fails (a full disk) leaves the table's seat list
as it was, and the same request succeeds once the store answers. R11: the grace period of
a reserved seat, the minimum balance to sit."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from fujian_mahjong.server import commands as C
from fujian_mahjong.server.effects import Effects, SetSeat
from fujian_mahjong.server.seating import Seating
from fujian_mahjong.server.store import StoreUnavailable
from fujian_mahjong.server.tablestate import Seat, TableError
from tests.inproc import running


class Broken:
    """The store's ``set_seat`` fails (the database cannot take a write) until ``mend``;
    each call is counted."""

    def __init__(self, store: Any) -> None:
        self.calls = 0
        self.broken = True
        real = store.set_seat

        async def write(*args: Any, **kw: Any) -> Any:
            self.calls += 1
            if self.broken:
                raise StoreUnavailable("injected: no write possible")
            return await real(*args, **kw)

        store.set_seat = write

    def mend(self) -> None:
        self.broken = False


@dataclass
class _Cfg:
    id: int = 7
    creator_id: int = 1


@dataclass
class _Table:
    seats: list[Seat] = field(default_factory=lambda: [Seat() for _ in range(4)])
    status: str = "open"
    cfg: Any = field(default_factory=_Cfg)
    why_not: str | None = None

    def seat_of(self, player_id: int) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.player_id == player_id), None)

    async def can_sit(self, player_id: int) -> str | None:
        return self.why_not

    async def has_account(self, player_id: int) -> bool:
        return True


def test_bots_go_to_the_last_free_seats_of_the_kind_the_table_has() -> None:
    t = _Table()
    t.seats[0] = Seat(player_id=1, name="me")
    t.seats[3] = Seat(bot=True, bot_kind="strong", name="Bot 4", ready=True)
    fx = Seating(t, 30.0).add_bot(1, None)
    assert fx.writes == [SetSeat(2, None, bot=True, bot_kind="strong")]
    [(seat, s)] = fx.seats
    assert seat == 2 and s.bot and s.bot_kind == "strong" and s.ready
    assert fx.then == [C.MaybeStart(), C.Pump()]
    assert t.seats[2] == Seat()  # nothing changed: the actor applies it
    fx = Seating(t, 30.0).remove_bot(1)
    assert fx.writes == [SetSeat(3, None, free=True)] and fx.seats == [(3, Seat())]


@pytest.mark.parametrize(
    ("who", "status", "code"),
    [(2, "open", "forbidden"), (1, "playing", "not_now")],
)
def test_only_the_creator_changes_bots_and_only_before_the_match(
    who: int, status: str, code: str
) -> None:
    t = _Table(status=status)
    with pytest.raises(TableError) as e:
        Seating(t, 30.0).add_bot(who, None)
    assert e.value.code == code


def test_a_reserved_seat_waits_the_grace_period_and_a_full_table_is_busy() -> None:
    t = _Table()
    why, fx = asyncio.run(Seating(t, 30.0).reserve(5, "five", now=100.0))
    assert why is None and fx.writes == [SetSeat(0, 5, one_table=True)]
    assert fx.seats[0][1].disconnected_at == 100.0  # as if its connection was lost
    assert fx.timers == [(("grace", 0), 30.0, C.GraceOver(0))]  # R11
    t.why_not = "below the minimum balance"
    why, fx = asyncio.run(Seating(t, 30.0).reserve(6, "six", now=100.0))
    assert why == "below the minimum balance" and fx.writes == [] and fx.seats == []
    t.seats = [Seat(bot=True) for _ in range(4)]
    assert asyncio.run(Seating(t, 30.0).reserve(6, "six", now=0.0))[0] == "busy"


def test_the_last_human_leaving_an_open_table_closes_it() -> None:
    t = _Table()
    t.seats[0] = Seat(player_id=1, name="me")
    t.seats[1] = Seat(bot=True)
    fx = Seating(t, 30.0).free(0)
    assert fx.writes == [SetSeat(0, None, free=True)] and fx.cancel == [("grace", 0)]
    assert fx.then == [C.Close("everyone left")]
    t.seats[2] = Seat(player_id=2, name="other")
    assert Seating(t, 30.0).free(0).then == [C.Pump()]


def test_a_failing_seat_write_seats_nobody_until_the_store_answers(tmp_path: Path) -> None:
    """A join and a bot added through REST while the seat write fails: the player gets
    ``unavailable`` (the client joins again after its back-off) and the REST call a 503,
    the table's seat list is unchanged (no seat held in memory that the database does not
    have); once the store answers the same join and the same call seat them."""

    async def main() -> None:
        async with running(tmp_path) as h:
            owner = await h.guest("owner")
            tid = await h.table(owner)
            table = h.lobby.tables[tid]
            fault = Broken(h.store)
            await h.seat(owner, tid)
            await h.settle()
            assert "unavailable" in owner.errors()
            assert all(not s.taken for s in table.seats)
            # nor is the connection attached (server/attendance.py): no seat, no `seated`
            assert owner.of_type("seated") == [] and table.conns() == []
            auth = {"Authorization": f"Bearer {owner.token}"}
            r = await h.http.post(f"/api/tables/{tid}/bots", json={}, headers=auth)
            assert r.status_code == 503, r.text
            assert all(not s.taken for s in table.seats)
            fault.mend()
            await h.seat(owner, tid)
            await h.settle()
            assert table.seats[0].player_id == owner.player_id
            r = await h.http.post(f"/api/tables/{tid}/bots", json={}, headers=auth)
            assert r.status_code == 200, r.text
            assert table.seats[3].bot and r.json()["bots"] == 1
            assert fault.calls == 4

    asyncio.run(main())


def test_ready_and_tuoguan_are_effects_on_a_copy_of_the_seat() -> None:
    """准备 and 托管 change nothing themselves: the seat comes back as a new ``Seat`` (the
    table's list is replaced when the effects are carried out), 准备 then deals if it may and
    shows it, 托管 plans the seat's pending decision again (``replan``: at once, or at a fresh
    deadline)."""
    t = _Table(seats=[Seat(player_id=i + 1, name=f"p{i}") for i in range(4)])
    fx = Seating(t, 30.0).ready(2)
    assert fx.writes == [] and fx.then == [C.MaybeStart(), C.Pump()]
    assert [(i, s.ready) for i, s in fx.seats] == [(2, True)]
    assert fx.seats[0][1].player_id == 3 and not t.seats[2].ready  # a copy, not a change
    fx = Seating(t, 30.0).set_auto(1, True)
    assert [(i, s.auto) for i, s in fx.seats] == [(1, True)] and fx.replan == [1]
    assert not t.seats[1].auto
    t.seats[1].auto = True
    fx = Seating(t, 30.0).set_auto(1, True)  # already on: nothing to plan again
    assert fx.seats == [] and fx.replan == [] and fx.then == [C.Pump()]
    # the player acts: 托管 ends, on a copy again; a seat not in 托管 has nothing to change
    fx = Seating(t, 30.0).acted(1)
    assert [(i, s.auto) for i, s in fx.seats] == [(1, False)] and t.seats[1].auto
    assert Seating(t, 30.0).acted(0) == Effects()
    # a missed own turn starts 托管; a missed claim prompt is only a pass (R12 rev 2), and a
    # seat already in 托管 stays as it is
    fx = Seating(t, 30.0).missed(0, window=False)
    assert [(i, s.auto) for i, s in fx.seats] == [(0, True)] and not t.seats[0].auto
    assert Seating(t, 30.0).missed(0, window=True) == Effects()
    assert Seating(t, 30.0).missed(1, window=False) == Effects()
    t.status = "playing"
    with pytest.raises(TableError) as e:
        Seating(t, 30.0).ready(0)
    assert e.value.code == "not_now"
    t.status = "between"  # between two hands, 准备 is how the next one starts
    assert Seating(t, 30.0).ready(0).seats[0][1].ready
