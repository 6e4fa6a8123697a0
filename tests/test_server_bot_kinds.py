"""Bot kinds at the table server (docs/bots.md, the difficulty ladder): ``POST /api/tables``
takes ``bot_kind``, ``POST /api/tables/{ref}/bots?kind=`` one more bot of a kind; the kind
is stored with the seat, survives a restart, anchors the skill rating (hands.bot_kinds)
and decides the bot's plays. Everything in-process on a fake clock (tests/inproc.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fujian_mahjong.bots import make_bot
from fujian_mahjong.engine import Action, replay
from fujian_mahjong.server.store import HandRow
from fujian_mahjong.server.store.models import SeatRow
from tests.inproc import StackedDeals, running
from tests.test_audit_server import FIVE_P, PAUSE, wall


async def _seat_kinds(h: Any, table: int) -> dict[int, str | None]:
    async with h.store.sessions() as s:
        rows = (await s.execute(select(SeatRow).where(SeatRow.table_id == table))).scalars()
        return {r.seat: r.bot_kind for r in rows if r.bot}


def test_bot_kind_is_stored_used_and_restored(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            a = await h.guest("ann")
            tid = await h.table(a, bots=2, bot_kind="greedy", players=4)
            assert await _seat_kinds(h, tid) == {2: "greedy", 3: "greedy"}
            actor = h.lobby.tables[tid]
            assert [s.bot_kind for s in actor.seats] == [None, None, "greedy", "greedy"]
            # one more bot, of another kind
            r = await h.http.post(
                f"/api/tables/{tid}/bots",
                params={"kind": "random"},
                headers={"Authorization": f"Bearer {a.token}"},
            )
            assert r.status_code == 200, r.text
            await h.settle()
            assert await _seat_kinds(h, tid) == {1: "random", 2: "greedy", 3: "greedy"}
            # an unknown kind is refused with a 422 and changes nothing
            for path, kw in (
                ("/api/tables", {"json": {"bots": 3, "bot_kind": "wizard"}}),
                (f"/api/tables/{tid}/bots", {"params": {"kind": "wizard"}}),
            ):
                r = await h.http.post(path, headers={"Authorization": f"Bearer {a.token}"}, **kw)
                assert r.status_code == 422, r.text
            assert await _seat_kinds(h, tid) == {1: "random", 2: "greedy", 3: "greedy"}
            await h.seat(a, tid)
            await h.ready(a)
            await h.settle()
            hand = actor.hand
            assert hand is not None
            async with h.store.sessions() as s:
                kinds = (
                    await s.execute(select(HandRow.bot_kinds).where(HandRow.id == hand.id))
                ).scalar_one()
            assert kinds == [None, "random", "greedy", "greedy"]
            # each bot seat plays its own kind: what the scheduler would play for it is
            # that kind's choice on the seat's view
            g = hand.game
            for seat in g.to_act():
                s_ = actor.seats[seat]
                if s_.bot:
                    want = make_bot(s_.bot_kind or "heuristic", 0).act(g.seat_view(seat)).action
                    got = await actor.sched.decide(g, seat, True, s_.bot_kind)
                    assert isinstance(got, Action) and got == want
        # a restart brings the kinds back with the seats
        async with running(tmp_path) as h2:
            actor2 = h2.lobby.tables[tid]
            assert [s.bot_kind for s in actor2.seats] == [None, "random", "greedy", "greedy"]

    asyncio.run(main())


def test_strong_bots_think_off_the_event_loop(tmp_path: Path) -> None:
    """A table of 高手 bots plays through: their decisions are made in worker threads
    (scheduler.decide), and the hand still ends with a verified log."""

    async def main() -> None:
        async with running(tmp_path, bot_delay_ms=0) as h:
            a = await h.guest("bob")
            # a table of bots only starts at once and, with no bot delay, plays its one
            # hand to the end while the harness settles
            tid = await h.table(a, bots=4, bot_kind="strong", players=4, hands=1)
            await h.settle()
            async with h.store.sessions() as s:
                row = (await s.execute(select(HandRow).where(HandRow.table_id == tid))).scalar_one()
            assert row.bot_kinds == ["strong"] * 4 and row.status == "over"
            _row, events = await h.store.hand_log(row.id)
            assert replay(events).is_over()  # the stored log verifies (engine.replay)

    asyncio.run(main())


def test_a_strong_bot_thinks_while_its_delay_runs(tmp_path: Path) -> None:
    """R12: a 高手's search starts when its move is planned, on a copy of the game, and its
    move is applied when its bot delay ends — so the moment the move is shown does not
    depend on how long it thought, and the table's queue does not wait for the search."""

    async def main() -> None:
        deals = StackedDeals([wall(True, False)], dealer=0)
        async with running(tmp_path, deals=deals, bot_delay_ms=300) as h:
            a = await h.guest("cat")
            tid = await h.table(a, bots=3, bot_kind="strong", players=4, hands=1)
            actor = h.lobby.tables[tid]
            await h.seat(a, tid)
            await h.ready(a)
            await h.advance(PAUSE)  # the opening pause
            hand = actor.hand
            assert hand is not None
            g = hand.game
            await a.act(FIVE_P)  # our first discard
            await h.advance(PAUSE)  # its claim pause: then the next seat's turn is planned
            bots_to_act = [s for s in g.to_act() if actor.seats[s].bot]
            assert bots_to_act, (g.phase, g.to_act(), [e["type"] for e in g.events[-6:]])
            seat = bots_to_act[0]
            key = len(g.events)
            # planned and thinking, not yet moved
            assert (seat, key) in actor.sched.thinking
            assert len(g.events) == key
            await h.advance(0.3)
            assert len(g.events) > key and (seat, key) not in actor.sched.thinking

    asyncio.run(main())
