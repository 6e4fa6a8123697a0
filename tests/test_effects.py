"""The finisher decides, the actor carries out (server/effects.py, docs/architecture.md,
"Effects"): the end of a hand and of a match are written before anything about them is
sent, and a write that fails sends nothing and changes nothing — the step is decided again
once the store answers, and every message goes out once, in order. In-process, fake clock,
a fixed seed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from fujian_mahjong.server import commands as C
from fujian_mahjong.server.effects import (
    Effects,
    EndMatch,
    FinishMatchHand,
    Settled,
    TableStatus,
)
from fujian_mahjong.server.roster import Roster
from fujian_mahjong.server.store.models import HandRow, MatchRow
from tests.inproc import Client, Harness, running

ENDS = ("hand_end", "match_end", "table_closed")


def _ends(c: Client) -> list[str]:
    return [m["type"] for m in c.messages if m["type"] in ENDS]


class Broken:
    """The store's ``name`` write fails (as on a full disk) until ``mend``: each call is
    counted, failed or not. ``name`` ``hand_end``: the hand's last events, with its end,
    settlement and the match's record of it (``append_events`` with ``finish``)."""

    def __init__(self, store: Any, name: str) -> None:
        self.calls = 0
        self.broken = True
        end = name == "hand_end"
        name = "append_events" if end else name
        real: Callable[..., Any] = getattr(store, name)

        async def write(*args: Any, **kw: Any) -> Any:
            if end and kw.get("finish") is None:
                return await real(*args, **kw)
            self.calls += 1
            if self.broken:
                raise OSError(28, "No space left on device")
            return await real(*args, **kw)

        setattr(store, name, write)

    def mend(self) -> None:
        self.broken = False


async def _to_the_end(h: Harness, me: Client, until: Callable[[], bool]) -> None:
    for _ in range(2000):  # a bound only against a hang: a fixed seed plays the same hand
        if until():
            return
        await h.advance(0.5)
    raise AssertionError("the hand did not reach its end")


@pytest.mark.parametrize("write", ["hand_end", "end_match", "set_table_status"])
def test_a_failing_end_write_sends_nothing_then_everything_once(tmp_path: Path, write: str) -> None:
    """A one-hand match played in 托管: the write of the hand's record, of the match's end
    or of the table's close fails, and its retries too. Until the store answers again nobody
    is told the hand or the match ended and the table still holds the hand; then hand_end,
    match_end and table_closed go out once each, in that order."""

    async def main() -> None:
        async with running(tmp_path) as h:
            me = await h.guest("me")
            tid = await h.table(me, bots=3, hands=1)
            await h.seat(me, tid)
            await h.ready(me)
            table = h.lobby.tables[tid]
            fault = Broken(h.store, write)
            await me.send({"type": "auto", "on": True})
            await _to_the_end(h, me, lambda: fault.calls > 0 or bool(_ends(me)))
            assert fault.calls, "the write was never reached"
            await h.advance(20)  # retried with back-off, failing each time
            assert fault.calls >= 3
            assert _ends(me) == [], _ends(me)  # nothing about the end went out
            assert table.hand is not None and table.hand.game.is_over()
            assert not table.hand.end_sent and table.status == "playing"
            assert me.of_type("status")[-1]["store"] == "failing"
            fault.mend()
            await _to_the_end(h, me, lambda: "table_closed" in _ends(me))
            await h.settle()
            assert _ends(me) == list(ENDS)
            types = [m["type"] for m in me.messages]
            assert "status" not in types[types.index("hand_end") :]  # no fault after it
            end = me.of_type("hand_end")[0]
            assert end["match_over"] and end["hands_played"] == 1
            assert me.of_type("match_end")[0]["hands_played"] == 1
            r = await h.http.get(f"/api/hands/{end['hand']}/log?format=json")
            assert r.status_code == 200
            assert table.status == "closed" and table.hand is None

    asyncio.run(main())


@pytest.mark.parametrize("write", ["create_match", "set_table_status", "create_hand"])
def test_a_failing_start_write_shows_nothing_then_starts_the_hand_once(
    tmp_path: Path, write: str
) -> None:
    """A match's first hand (server/dealing.py): the match's row, the table's status or the
    hand's row fails to be written, and its retries too. Nothing of the hand is shown and the
    table does not play it; once the store answers, the hand starts once — the same deal
    (R12: the same seed's hash), one match row, one hand row."""

    async def main() -> None:
        async with running(tmp_path) as h:
            me = await h.guest("me")
            tid = await h.table(me, bots=3, hands=1)
            await h.seat(me, tid)
            table = h.lobby.tables[tid]
            fault = Broken(h.store, write)
            await h.ready(me)
            await h.settle()
            await h.advance(20)  # retried with back-off, failing each time
            assert fault.calls >= 3
            assert me.of_type("hand_start") == [] and me.state is None
            assert table.hand is None and table.status == "open"
            assert me.of_type("status")[-1]["store"] == "failing"
            dealt = table.dealing.pending
            assert dealt is not None
            fault.mend()
            await h.advance(5)
            await h.settle()
            starts = me.of_type("hand_start")
            assert len(starts) == 1 and table.hand is not None
            assert table.hand.game is dealt.game and table.match is dealt.match
            assert starts[0]["seed_sha256"] == dealt.game.events[0]["seed_sha256"]
            assert me.of_type("status")[-1]["store"] == "ok"
            async with h.store.sessions() as db:
                matches = (
                    await db.execute(select(func.count()).where(MatchRow.table_id == tid))
                ).scalar_one()
                hands = (
                    await db.execute(select(func.count()).where(HandRow.table_id == tid))
                ).scalar_one()
            assert (matches, hands) == (1, 1)
            assert table.dealing.pending is None

    asyncio.run(main())


class _Table:
    """Just enough of an actor for ``TableActor.effect`` to run on (what it touches)."""

    def __init__(self, log: list[str], fail: str | None = None) -> None:
        from unittest.mock import MagicMock

        self.log = log
        self.fail = fail
        self.id = 5
        self.hand = MagicMock()
        self.status = "playing"
        self.pending_leave = 2
        self.seats: list[Any] = []
        self.roster = Roster(self)
        self.on_close = None
        self.seats_dirty = False
        self.sched = MagicMock()
        self.store = self
        self.finisher = self

    async def _w(self, name: str) -> None:
        if name == self.fail:
            raise OSError("fault")
        self.log.append(f"write {name}")

    async def finish_match_hand(self, *a: Any, **k: Any) -> None:
        await self._w("finish_match_hand")

    async def end_match(self, *a: Any) -> None:
        await self._w("end_match")

    async def flush(self, h: Any) -> None:
        await self._w("flush")

    async def set_table_status(self, *a: Any) -> None:
        await self._w("set_table_status")

    async def end_fields(self, hand_id: int, kind: str) -> dict[str, Any]:
        self.log.append(f"read {kind} {hand_id}")
        return {"silver": [kind]}

    def broadcast(self, msg: dict[str, Any]) -> None:
        self.log.append(f"send {msg['type']}")

    def _send_ended(self, msg: dict[str, Any]) -> None:  # each seat its own balance
        self.log.append(f"send {msg['type']}")

    def broadcast_seats(self) -> None:
        self.log.append("send seats")

    def conns(self) -> list[Any]:
        return []

    def _close(self, why: str) -> None:
        from fujian_mahjong.server.table import TableActor

        TableActor._close(self, why)  # type: ignore[arg-type]

    async def _write(self, w: Any) -> None:
        from fujian_mahjong.server.table import TableActor

        await TableActor._write(self, w)  # type: ignore[arg-type]

    def _take_state(self, fx: Effects) -> None:
        from fujian_mahjong.server.table import TableActor

        TableActor._take_state(self, fx)  # type: ignore[arg-type]

    async def _dispatch(self, cmd: Any) -> None:
        self.log.append(f"then {type(cmd).__name__}")


def _fx() -> Effects:
    return Effects(
        writes=[FinishMatchHand(1, 1, (0, 0, 0, 0), True), EndMatch(1, (0, 0, 0, 0), None)],
        hand_done=True,
        leave_done=True,
        messages=[Settled({"type": "hand_end"}, 9, "hand"), {"type": "match_end"}],
    )


def test_effects_are_applied_writes_first_then_state_then_messages() -> None:
    from fujian_mahjong.server.table import TableActor

    log: list[str] = []
    t = _Table(log)
    fx = _fx()
    fx += Effects(writes=[TableStatus("closed")], close="match over", then=[C.MaybeStart()])
    asyncio.run(TableActor.effect(t, fx))  # type: ignore[arg-type]
    assert log == [
        "write finish_match_hand",
        "write end_match",
        "write set_table_status",
        "read hand 9",
        "send hand_end",
        "send match_end",
        "send table_closed",
        "then MaybeStart",
    ]
    assert t.hand is None and t.pending_leave is None and t.status == "closed"


def test_a_failed_write_applies_nothing_after_it() -> None:
    from fujian_mahjong.server.table import TableActor

    log: list[str] = []
    t = _Table(log, fail="end_match")
    hand = t.hand
    with pytest.raises(OSError):
        asyncio.run(TableActor.effect(t, _fx()))  # type: ignore[arg-type]
    assert log == ["write finish_match_hand"]  # nothing read, set or sent after the fault
    assert t.hand is hand and t.pending_leave == 2 and t.status == "playing"
    assert not t.sched.clear_acts.called


def test_the_hand_end_its_settlement_and_the_match_record_are_one_transaction(
    tmp_path: Path,
) -> None:
    """R9/R11: the hand's last events, its end, its settlement and the match's record of it
    (hands played, totals) commit together: a settlement that fails leaves the match row as
    it was (and nothing is told), and once it succeeds the match row holds what hand_end
    says. No separate write of the match's record is made."""
    from sqlalchemy import select

    from fujian_mahjong.server.store import MatchRow

    async def main() -> None:
        async with running(tmp_path) as h:
            me = await h.guest("me")
            tid = await h.table(me, bots=3, hands=2)
            await h.seat(me, tid)
            await h.ready(me)
            separate = Broken(h.store, "finish_match_hand")
            separate.mend()
            settlement = h.store.settlement
            real = settlement.settle_hand
            failing = {"on": True, "calls": 0}

            async def settle_hand(*a: Any, **k: Any) -> Any:
                failing["calls"] += 1
                if failing["on"]:
                    raise OSError(28, "No space left on device")
                return await real(*a, **k)

            settlement.settle_hand = settle_hand

            async def match_row() -> tuple[int, list[int], str]:
                async with h.store.sessions() as db:
                    m = (
                        await db.execute(select(MatchRow).where(MatchRow.table_id == tid))
                    ).scalar_one()
                    return m.hands_played, list(m.totals), m.status

            await me.send({"type": "auto", "on": True})
            await _to_the_end(h, me, lambda: failing["calls"] > 0)
            await h.advance(5)  # retried, failing each time
            assert failing["calls"] >= 2 and not _ends(me)
            # rolled back with the settlement: the match has recorded nothing
            assert await match_row() == (0, [0, 0, 0, 0], "playing")
            failing["on"] = False
            await _to_the_end(h, me, lambda: bool(me.of_type("hand_end")))
            first = me.of_type("hand_end")[0]
            assert await match_row() == (1, first["totals"], "playing")
            await h.ready(me)  # the next hand
            await _to_the_end(h, me, lambda: "match_end" in _ends(me))
            await h.settle()
            last = me.of_type("hand_end")[-1]
            assert last["match_over"] and last["hands_played"] == 2
            assert await match_row() == (2, last["totals"], "over")
            assert separate.calls == 0  # the record went with each hand's end

    asyncio.run(main())
