"""Bot kinds at the table server (docs/bots.md, the difficulty ladder): ``POST /api/tables``
takes ``bot_kind``, ``POST /api/tables/{ref}/bots?kind=`` one more bot of a kind; the kind
is stored with the seat, survives a restart, anchors the skill rating (hands.bot_kinds)
and decides the bot's plays. Everything in-process on a fake clock (tests/inproc.py)."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from fujian_mahjong.bots import make_bot
from fujian_mahjong.engine import Action, Game, replay
from fujian_mahjong.server import scheduler
from fujian_mahjong.server.clock import FakeClock
from fujian_mahjong.server.scheduler import SEARCH_SHOWN_AFTER_S
from fujian_mahjong.server.store import HandRow
from fujian_mahjong.server.store.models import SeatRow
from fujian_mahjong.server.workers import WorkerPool
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


async def _a_table_of_four(h: Any, kind: str) -> Game:
    """A one-hand table of four bots of ``kind``, played to its end while the harness
    settles (a table of bots starts at once; no bot delay): its stored, verified hand."""
    a = await h.guest(f"{kind[:3]}-watcher")
    tid = await h.table(a, bots=4, bot_kind=kind, players=4, hands=1)
    await h.settle()
    async with h.store.sessions() as s:
        row = (await s.execute(select(HandRow).where(HandRow.table_id == tid))).scalar_one()
    assert row.bot_kinds == [kind] * 4 and row.status == "over"
    _row, events = await h.store.hand_log(row.id)
    g = replay(events)
    assert g.is_over()  # the stored log verifies (engine.replay)
    return g


def test_strong_bots_think_off_the_event_loop(tmp_path: Path) -> None:
    """A table of 高手 bots plays through: their decisions are made in worker threads
    (scheduler.decide), and the hand still ends with a verified log."""

    async def main() -> None:
        async with running(tmp_path, bot_delay_ms=0) as h:
            await _a_table_of_four(h, "strong")

    asyncio.run(main())


def test_a_table_of_neural_bots_plays_through(tmp_path: Path) -> None:
    """熟手 (``neural``, the ladder's level between the 普通 and the 高手) at the server: the
    kind is accepted, stored with the hand, decides each neural seat's move (the network's
    choice on that seat's view), and a table of four plays its hand to a verified end."""

    async def main() -> None:
        async with running(tmp_path, bot_delay_ms=0) as h:
            g = await _a_table_of_four(h, "neural")
            # every move of the hand was the network's choice on the seat's view: the same
            # deal played by four neural bots gives the same log (R12: the bot reads views)
            g2 = Game.new(g.profile, seed=g.seed, players=4, dealer=g.dealer, streak=g.streak)
            bots = [make_bot("neural", s) for s in range(4)]
            while not g2.is_over():
                seat = g2.to_act()[0]
                g2.apply(seat, bots[seat].act(g2.seat_view(seat)).action)
            assert g2.events == g.events

    asyncio.run(main())


def test_the_network_loads_off_the_event_loop(tmp_path: Path, monkeypatch: Any) -> None:
    """The first neural bot of a process loads numpy and the network's weights (about 0.2 s):
    that happens in a thread when a table with neural bots is made, when one is added and
    when such a table is restored, never on the event loop, where it would stall every
    table of the process at the bots' first move."""
    made: list[bool] = []  # per neural bot made: was it on the event loop's thread?

    def recording(kind: str, seed: int | str = 0) -> Any:
        if kind == "neural":
            made.append(threading.get_ident() == loop_thread)
        return make_bot(kind, seed)

    monkeypatch.setattr(scheduler, "make_bot", recording)
    loop_thread = threading.get_ident()  # asyncio.run runs the loop in this thread

    async def main() -> None:
        async with running(tmp_path) as h:
            a = await h.guest("ann")
            tid = await h.table(a, bots=2, bot_kind="neural", players=4)
            assert made == [False]
            other = await h.table(a, bots=0, players=4)
            r = await h.http.post(
                f"/api/tables/{other}/bots",
                params={"kind": "neural"},
                headers={"Authorization": f"Bearer {a.token}"},
            )
            assert r.status_code == 200, r.text
            assert made == [False, False]
        made.clear()
        async with running(tmp_path) as h2:
            assert {tid, other} <= set(h2.lobby.tables)
            assert made == [False]  # the restored tables' kinds, once

    asyncio.run(main())


def test_a_network_that_cannot_load_is_refused_before_a_table_gets_it(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """With ``$FJMJ_NEURAL_WEIGHTS`` naming a missing file, a table of neural bots is refused
    in one line with a code (it could never play), and so is a neural bot added to a table;
    nothing is created or seated."""
    monkeypatch.setenv("FJMJ_NEURAL_WEIGHTS", str(tmp_path / "missing.npz"))

    async def main() -> None:
        async with running(tmp_path) as h:
            a = await h.guest("ann")
            auth = {"Authorization": f"Bearer {a.token}"}
            before = set(h.lobby.tables)
            r = await h.http.post(
                "/api/tables", json={"bots": 3, "bot_kind": "neural"}, headers=auth
            )
            assert r.status_code == 400 and r.json()["code"] == "bot_kind_unavailable", r.text
            assert "neural" in r.json()["detail"] and "\n" not in r.json()["detail"]
            assert set(h.lobby.tables) == before
            tid = await h.table(a, bots=1, bot_kind="heuristic", players=4)
            r = await h.http.post(
                f"/api/tables/{tid}/bots", params={"kind": "neural"}, headers=auth
            )
            assert r.status_code == 409 and r.json()["code"] == "bot_kind_unavailable", r.text
            await h.settle()
            assert await _seat_kinds(h, tid) == {3: "heuristic"}

    asyncio.run(main())


async def _with_three_strong_bots(h: Any) -> tuple[Any, Any, Any]:
    """A guest and three 高手 at a one-hand table, the opening pause over: (the guest's
    client, the table's actor, the hand's game)."""
    a = await h.guest("cat")
    tid = await h.table(a, bots=3, bot_kind="strong", players=4, hands=1)
    actor = h.lobby.tables[tid]
    await h.seat(a, tid)
    await h.ready(a)
    await h.advance(PAUSE)  # the opening pause
    hand = actor.hand
    assert hand is not None
    return a, actor, hand.game


def test_a_strong_bot_thinks_while_its_delay_runs(tmp_path: Path) -> None:
    """R12: a 高手's search starts when its move is planned, on a copy of the game, and its
    move is applied when its bot delay ends, which is at least its longest search — so the
    moment the move is shown does not depend on how long it thought (or whether it
    searched), and the table's queue does not wait for the search."""

    async def main() -> None:
        deals = StackedDeals([wall(True, False)], dealer=0)
        async with running(tmp_path, deals=deals, bot_delay_ms=300) as h:
            a, actor, g = await _with_three_strong_bots(h)
            await a.act(FIVE_P)  # our first discard
            await h.advance(PAUSE)  # its claim pause: then the next seat's turn is planned
            bots_to_act = [s for s in g.to_act() if actor.seats[s].bot]
            assert bots_to_act, (g.phase, g.to_act(), [e["type"] for e in g.events[-6:]])
            seat = bots_to_act[0]
            key = len(g.events)
            # planned and thinking, not yet moved
            assert (seat, key) in actor.sched.thinking
            assert len(g.events) == key
            # the table's bot delay (0.3 s) has passed: a search bot's move waits for its
            # longest search, whether or not this one searched
            await h.advance(0.3)
            assert len(g.events) == key
            await h.advance(SEARCH_SHOWN_AFTER_S - 0.3)
            assert len(g.events) > key and (seat, key) not in actor.sched.thinking

    asyncio.run(main())


def test_a_lost_search_worker_is_replaced_and_its_move_made_here(tmp_path: Path) -> None:
    """The search worker process dies (killed, out of memory) during a 高手's search: the
    move is made on time (the search tried again in a new process, or the fast bot's move
    made in the server's process; never the store-failure path), and the game goes on with
    a new worker (server/workers.py). A 高手's answer to a discard is never sent to the
    worker (it does not search claims): a busy worker cannot hold a claim window open."""

    async def main() -> None:
        deals = StackedDeals([wall(True, False)], dealer=0)
        async with running(tmp_path, deals=deals, bot_delay_ms=300) as h:
            a, actor, g = await _with_three_strong_bots(h)
            pool = h.app.state.workers
            assert actor.sched.workers is pool
            await a.act(FIVE_P)
            # the claim window after our discard: the bots answer without the worker
            assert not any(k[1] == len(g.events) for k in actor.sched.thinking)
            await h.advance(PAUSE)
            seat = next(s for s in g.to_act() if actor.seats[s].bot)
            key = len(g.events)
            assert (seat, key) in actor.sched.thinking
            start = time.monotonic()
            while not pool.pids():  # the search's worker is starting (a real process)
                assert time.monotonic() - start < 60, "no worker started"
                await asyncio.sleep(0.005)
            for pid in pool.pids():
                os.kill(pid, signal.SIGKILL)
            await h.advance(SEARCH_SHOWN_AFTER_S)
            assert len(g.events) > key, "the move was not made"
            assert a.errors() == [] and not a.of_type("status")
            # the game goes on, with a new worker for the next search
            await h.advance(60.0)
            assert pool.stats.started >= 2

    asyncio.run(main())


def test_a_stuck_search_worker_is_replaced_and_the_fast_bot_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A search not answered within SEARCH_TIMEOUT_S (here 0 s: none can be): the hint is
    the fast bot's and the pool has killed the worker (server/workers.py); the next search
    starts a new one."""
    monkeypatch.setattr(scheduler, "SEARCH_TIMEOUT_S", 0.0)

    async def main() -> None:
        g = Game.new("fuzhou-tcy", seed="stuck", players=4, dealer=0)
        seat = g.to_act()[0]
        pool = WorkerPool(1)
        try:
            sched = scheduler.Scheduler(FakeClock(), lambda fn: None, workers=pool)
            out = await sched.advise(list(g.events), g.seed, seat)
            fast = make_bot(scheduler.FALLBACK_KIND, 0).act(g.seat_view(seat))
            assert out["action"] == fast.action.to_json()
            assert pool.stats.timeouts == 1 and pool.pids() == []
            monkeypatch.setattr(scheduler, "SEARCH_TIMEOUT_S", 60.0)
            out = await sched.advise(list(g.events), g.seed, seat)
            assert out["action"] in [x.to_json() for x in g.legal_actions(seat)]
            assert pool.stats.jobs == 1 and pool.stats.started == 2
        finally:
            await pool.close()

    asyncio.run(main())


def test_a_bot_added_without_a_kind_is_of_the_tables_kind(tmp_path: Path) -> None:
    """The table page adds bots without a kind: at a table whose bots are all 高手 the new
    one is a 高手 too; at a table of mixed kinds (or none yet) it is the default."""

    async def main() -> None:
        async with running(tmp_path) as h:
            a = await h.guest("ann")
            auth = {"Authorization": f"Bearer {a.token}"}
            tid = await h.table(a, bots=1, bot_kind="strong", players=4)
            r = await h.http.post(f"/api/tables/{tid}/bots", headers=auth)
            assert r.status_code == 200, r.text
            await h.settle()
            assert await _seat_kinds(h, tid) == {2: "strong", 3: "strong"}
            r = await h.http.post(
                f"/api/tables/{tid}/bots", params={"kind": "greedy"}, headers=auth
            )
            assert r.status_code == 200, r.text
            other = await h.table(a, bots=0, players=4)
            r = await h.http.post(f"/api/tables/{other}/bots", headers=auth)
            assert r.status_code == 200, r.text
            await h.settle()
            assert await _seat_kinds(h, tid) == {1: "greedy", 2: "strong", 3: "strong"}
            assert await _seat_kinds(h, other) == {3: None}

    asyncio.run(main())
