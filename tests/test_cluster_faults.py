"""Faults one process of a cluster sees alone (docs/deploy.md, "Several processes"), on the
real PostgreSQL and Redis: two cluster nodes in this process (tests/inproc.py harnesses,
fake table clocks), ``front`` holding the player's socket and ``owner`` running the table.

- The owner's bus alone goes down (a publication of its own timed out): it drops the
  connections the front forwarded to it, and when its bus is back the front's socket is
  closed with 1012, so the client joins again — through the front — and is at its seat
  again, never left silent until its grace period runs out (R11).
- The owner lets its table go (its lease not renewed in time) while the lease row still
  names it: a join routed there is answered ``unavailable`` (the client joins again, never
  ``no_table``), and the join made again once a process has taken the table over seats
  the player there.
- A process that dropped a table and takes it back at its next sweep fences the new epoch
  only once the dropped actor has stopped (its queued writes would pass the new fence).

PostgreSQL (127.0.0.1:5432) and Redis (FJMJ_TEST_REDIS) as the machine provides them:
missing, these tests fail under ``FJMJ_REQUIRE_PG=1`` (CI) and skip otherwise."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fujian_mahjong.server.cluster import bus as B
from tests.conftest import fresh_pg_database, unavailable
from tests.inproc import Client, Harness
from tests.test_cluster import REDIS_URL, redis_unavailable

GUARD_S = 20.0  # the bound of every wait on a condition here


class _Socket(Client):
    """A client whose frames may cross the bus: sent without waiting for the harness to
    settle (the answer comes from the other node)."""

    async def send(self, msg: dict[str, Any]) -> None:
        await self.h.dispatcher.handle(self.conn, json.dumps(msg))


async def _until(pred: Any, what: str) -> None:
    end = time.monotonic() + GUARD_S
    while not pred():
        assert time.monotonic() < end, f"not within {GUARD_S} s: {what}"
        await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def _two_nodes(tmp: Path, db: str) -> AsyncIterator[tuple[Harness, Harness]]:
    prefix = f"fjmjf{secrets.token_hex(3)}"
    hs: list[Harness] = []
    try:
        async with contextlib.AsyncExitStack() as st:
            for name in ("front", "owner"):
                (tmp / name).mkdir()
                h = Harness(
                    tmp / name,
                    db_url=db,
                    redis_url=REDIS_URL,
                    redis_prefix=prefix,
                    lease_s=2.0,
                    node_id=f"{name}-{prefix}",
                    grace_s=60.0,
                )
                await st.enter_async_context(h.app.router.lifespan_context(h.app))
                hs.append(h)
            yield hs[0], hs[1]
            for h in hs:
                await h.http.aclose()
    finally:
        import redis.asyncio as R

        r = R.Redis.from_url(REDIS_URL)
        with contextlib.suppress(Exception):
            keys = [k async for k in r.scan_iter(f"{prefix}:*")]
            if keys:
                await r.delete(*keys)
        await r.aclose()


async def _guest(h: Harness, name: str) -> _Socket:
    r = await h.http.post("/api/guests", json={"name": name})
    assert r.status_code == 200, r.text
    g = r.json()
    return await _socket(h, g["name"], g["token"], g["player_id"])


async def _socket(h: Harness, name: str, token: str, player_id: int) -> _Socket:
    """A new socket of that player at ``h`` (its ``hello`` sent)."""
    c = _Socket(h, name, token, player_id)
    await c.send({"type": "hello", "token": token})
    await _until(lambda: c.of_type("welcome"), "welcome")
    return c


async def _table_at(h: Harness) -> int:
    """A table of three bots and a free seat, made (and run) at ``h``."""
    host = await _guest(h, "host")
    r = await h.http.post(
        "/api/tables",
        json={"profile": "fuzhou-tcy", "hands": 2, "bots": 3},
        headers={"Authorization": f"Bearer {host.token}"},
    )
    assert r.status_code in (200, 201), r.text
    return int(r.json()["id"])


async def _join(c: _Socket, tid: int) -> str:
    """Join ``tid``; the answer: ``seated`` or the error's code."""
    n = len(c.messages)
    await c.send({"type": "join", "table": tid, "as": "player"})
    await _until(
        lambda: any(m.get("type") in ("seated", "error") for m in c.messages[n:]),
        "an answer to the join",
    )
    m = next(m for m in c.messages[n:] if m.get("type") in ("seated", "error"))
    return "seated" if m["type"] == "seated" else str(m["code"])


def _seat_connected(h: Harness, tid: int, player_id: int) -> bool:
    t = h.lobby.tables.get(tid)
    return t is not None and any(
        s.player_id == player_id and s.conn is not None and not s.conn.closed for s in t.seats
    )


def _run(tmp_path: Path, body: Any) -> None:
    unavailable(redis_unavailable())
    with fresh_pg_database("fjmj_f_") as db:

        async def main() -> None:
            async with _two_nodes(tmp_path, db) as (front, owner):
                await body(front, owner)

        asyncio.run(main())


def test_an_outage_of_the_owner_s_bus_alone_resyncs_the_front_s_socket(tmp_path: Path) -> None:
    async def body(front: Harness, owner: Harness) -> None:
        tid = await _table_at(owner)
        me = await _guest(front, "me")
        assert await _join(me, tid) == "seated"
        await _until(lambda: _seat_connected(owner, tid, me.player_id), "seated at the owner")
        co, cf = owner.app.state.cluster, front.app.state.cluster
        # the owner's bus alone fails (as a publication of its own that timed out does)
        co.bus.fail("a test's publication timed out")
        await _until(lambda: not _seat_connected(owner, tid, me.player_id), "the seat let go")
        await _until(lambda: co.bus.ok, "the owner's bus back")
        assert cf.bus.failures == 0  # the front saw nothing wrong
        # the front's socket is closed with 1012: the client joins again (net.js)
        await _until(lambda: me.conn.closed, "the front's socket closed")
        assert me.rec.closed is not None and me.rec.closed[0] == 1012, me.rec.closed
        again = await _socket(front, me.name, me.token, me.player_id)
        assert await _join(again, tid) == "seated"
        await _until(lambda: _seat_connected(owner, tid, me.player_id), "back at the seat")
        await _until(lambda: again.of_type("state") or again.of_type("seats"), "a fresh view")

    _run(tmp_path, body)


def test_a_join_for_a_table_its_owner_let_go_is_unavailable_then_seated(
    tmp_path: Path,
) -> None:
    async def body(front: Harness, owner: Harness) -> None:
        tid = await _table_at(owner)
        co, cf = owner.app.state.cluster, front.app.state.cluster
        # the owner stops its table as when its renewals fail (``Cluster._watch``); the
        # lease row still names it, live, until the owner's next renewal gives it back. That
        # moment is held here for as long as the join takes (the lease stays in ``held``, so
        # the renewals keep the row live): under load the join came after the renewal and a
        # takeover, and was seated
        epoch = co.leases.held[tid]
        co.drop(tid, "its lease was not renewed in time")
        co.leases.held[tid] = epoch
        row = await cf.leases.owner_of(tid)
        assert row is not None and row[1] == co.node and row[2], row
        me = await _guest(front, "me")
        assert await _join(me, tid) == "unavailable"  # made again by the client
        assert tid not in co.lobby.tables and tid not in cf.lobby.tables
        del co.leases.held[tid]
        # the owner's renewal gives the row back (it no longer holds the table), and a
        # process takes the table over (its crash restore); the join made again seats
        # the player there, whichever it is
        await _until(
            lambda: tid in co.lobby.tables or tid in cf.lobby.tables, "the table taken over"
        )
        me2 = await _socket(front, me.name, me.token, me.player_id)
        assert await _join(me2, tid) == "seated"
        await _until(
            lambda: (
                _seat_connected(front, tid, me.player_id)
                or _seat_connected(owner, tid, me.player_id)
            ),
            "at the seat",
        )

    _run(tmp_path, body)


def test_a_table_taken_again_by_its_own_process_waits_for_its_dropped_actor(
    tmp_path: Path,
) -> None:
    """A process drops a table (its lease not renewed in time) and its next lease sweep
    takes the same table back (the renewal gives the row up, the sweep takes it: a new
    epoch). The dropped actor still runs what it had queued, and the fence is the
    process's: once the new epoch was fenced, the old actor's writes passed it, beside
    the new actor's. The restore now waits for the old actor to stop before it fences
    the new epoch (until then every write of the old one is refused)."""

    async def body(front: Harness, owner: Harness) -> None:
        tid = await _table_at(owner)
        co, cf = owner.app.state.cluster, front.app.state.cluster
        # the lease sweeps in the background take nothing while this test takes the table
        # back itself (one falling between the drop and its take would take it first)
        take = co.leases.take_expired

        async def nothing(limit: int) -> dict[int, int]:
            return {}

        co.leases.take_expired = cf.leases.take_expired = nothing
        release = asyncio.Event()
        real_stop = co._stop_actor

        async def slow_stop(actor: Any) -> None:
            await release.wait()  # the old actor's queued commands, still running
            await real_stop(actor)

        co._stop_actor = slow_stop
        co.drop(tid, "its lease was not renewed in time")
        assert tid not in co.store.fences
        await co.leases.renew()  # gives the row up: this process no longer holds it
        got = await take(10)
        assert tid in got, got
        restore = asyncio.create_task(co._restore(got))
        for _ in range(50):
            await asyncio.sleep(0)
        assert tid not in co.store.fences, "the new epoch fenced while the old actor runs"
        assert not restore.done()
        release.set()
        await asyncio.wait_for(restore, GUARD_S)
        assert co.store.fences[tid] == got[tid]
        assert tid in co.lobby.tables

    _run(tmp_path, body)


def test_a_frame_that_crossed_its_sockets_close_makes_no_connection_at_the_owner(
    tmp_path: Path,
) -> None:
    """The owner closes a forwarded connection (its table dropped) while the client's next
    frame is on its way. That frame made the owner a new connection at no table, answered
    ``not_joined`` to a socket whose process had already let it go, and kept for ever
    (nothing would tell the owner it was gone). Now such a frame (not a ``join``) makes no
    connection and tells the socket's process to resynchronise; a join still does."""

    async def body(front: Harness, owner: Harness) -> None:
        tid = await _table_at(owner)
        co, cf = owner.app.state.cluster, front.app.state.cluster
        me = await _guest(front, "me")
        assert await _join(me, tid) == "seated"
        key = (cf.node, me.conn.id)
        await _until(lambda: key in co.proxies, "the owner's connection of the socket")
        co.drop(tid, "its lease was not renewed in time")
        await _until(lambda: key not in co.proxies, "the owner's connection closed")
        late = json.dumps({"type": "ready"})
        co._on_message(cf.node, B.FromSocket(me.conn.id, me.player_id, "me", "", late))
        assert key not in co.proxies
        join = json.dumps({"type": "join", "table": tid, "as": "player"})
        co._on_message(cf.node, B.FromSocket(me.conn.id, me.player_id, "me", "", join))
        assert key in co.proxies  # a join is a new connection, as always

    _run(tmp_path, body)
