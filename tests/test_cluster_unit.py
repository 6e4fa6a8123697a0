"""The cluster's fault handling in one process (docs/deploy.md, "Several processes"), each
with stand-ins for Redis, the database, the lobby and the other process, and no time let
pass but what a bound needs:

- a bus outage seen by the table's owner only: the sockets on the other process whose
  forwarded connections it dropped are closed with 1012 when its bus is back (their
  clients join again, docs/protocol.md "Reconnecting"), and a frame from one of them
  meanwhile closes it too, never a fresh connection answering ``not_joined``;
- a join for a table this process has let go (dropped, or handed over when draining)
  while its lease row still names it is answered ``unavailable`` (the client joins
  again), never ``no_table``;
- ``/readyz`` is 503 ``leases_failing`` while the lease renewals fail;
- the drain's hand-over is bounded by its deadline, and ``fjmj serve`` arms its watchdog
  when SIGTERM arrives."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from fujian_mahjong.server.cluster import Cluster
from fujian_mahjong.server.cluster import bus as B
from fujian_mahjong.server.cluster.sockets import CLOSE_MOVED, RESYNC, Binding, RemoteTransport
from fujian_mahjong.server.table import TableError
from tests.inproc import running
from tests.test_cluster_joins import _Conn

GUARD_S = 10.0  # the bound of every wait on a condition here


class _Bus:
    """The bus as the cluster uses it: ``ok`` and what was posted (in order)."""

    def __init__(self) -> None:
        self.ok = True
        self.posted: list[tuple[str, B.Message]] = []

    def post(self, node: str, msg: Any) -> bool:
        if self.ok:
            self.posted.append((node, msg() if callable(msg) else msg))
        return True

    def broadcast(self, _msg: Any) -> None:
        pass

    async def stop(self) -> None:
        pass


@dataclass
class _Sock(_Conn):
    """A socket of this process (the front's), as ``Binding`` holds it; its refusals kept."""

    errors: list[str] = field(default_factory=list)

    def error(self, code: str, _message: str, _bad: bool = True) -> bool:  # type: ignore[override]
        self.errors.append(code)
        return False

    def send(self, _msg: Any, stream: bool = True) -> None:
        pass


async def _dispatched(node: Cluster, conn: _Sock, text: str) -> bool:
    """``intercept`` as the dispatcher calls it (server/ws.py): a refusal is the socket's
    ``error``."""
    try:
        return await node.intercept(conn, text)  # type: ignore[arg-type]
    except TableError as e:
        conn.error(e.code, e.message, e.bad)
        return True


class _Dispatcher:
    """The owner's dispatcher: what its proxy connections handed it."""

    def __init__(self) -> None:
        self.handled: list[tuple[int, str]] = []
        self.gone: list[int] = []
        self.event = asyncio.Event()

    async def handle(self, conn: Any, text: str) -> None:
        self.handled.append((conn.id, text))
        self.event.set()

    def disconnected(self, conn: Any) -> None:
        self.gone.append(conn.id)
        self.event.set()


class _Actor:
    """A table actor as a drop or a hand-over handles it; ``hang``: the steps that never end
    (a silent database)."""

    def __init__(self, code: str = "ABCD", hang: tuple[str, ...] = ()) -> None:
        self.cfg = SimpleNamespace(code=code)
        self.actions = 0
        self.on_close: Any = None
        self.sched = SimpleNamespace(cancel_all=lambda: None)
        self.hang = hang
        self.started: list[str] = []

    def conns(self) -> list[Any]:
        return []

    async def _step(self, name: str) -> None:
        self.started.append(name)
        if name in self.hang:
            await asyncio.sleep(GUARD_S)  # silent for longer than any bound here

    async def stop(self) -> None:
        await self._step("stop")

    async def flush_pending(self) -> None:
        await self._step("flush")


class _Leases:
    def __init__(self, hang: bool = False, owner: str = "B") -> None:
        self.held: dict[int, int] = {}
        self.hang = hang
        self.owner = owner
        self.released: list[int] = []

    async def release(self, ids: list[int], delete: bool = False) -> None:
        self.released += ids
        if self.hang:
            await asyncio.sleep(GUARD_S)  # silent for longer than any bound here

    async def owner_of(self, _ref: Any) -> tuple[int, str, bool]:
        return 7, self.owner, True


def _lobby(**tables: Any) -> Any:
    return SimpleNamespace(
        tables={int(k[1:]): v for k, v in tables.items()},
        codes={},
        stakes={},
        table_rooms={},
        closed_actions=0,
        rooms=SimpleNamespace(forget=lambda _t: None),
        code_like=lambda _r: False,
    )


def _node(node: str, lobby: Any = None, leases: _Leases | None = None) -> Cluster:
    """A ``Cluster`` named ``node`` over stand-ins (no Redis, no database)."""
    settings = SimpleNamespace(
        node_id=node, redis_prefix="t", lease_s=5.0, bad_messages_per_minute=30
    )
    store = SimpleNamespace(engine=None, dialect_name="stand-in", fences={})
    c = Cluster(settings, store, lobby if lobby is not None else _lobby())  # type: ignore[arg-type]
    c.bus = _Bus()  # type: ignore[assignment]
    c.leases = leases if leases is not None else _Leases(owner=node)  # type: ignore[assignment]
    c.dispatcher = _Dispatcher()  # type: ignore[assignment]
    return c


async def _until(pred: Any, what: str) -> None:
    end = time.monotonic() + GUARD_S
    while not pred():
        assert time.monotonic() < end, f"not within {GUARD_S} s: {what}"
        await asyncio.sleep(0.01)


def _deliver(src: Cluster, dst: Cluster) -> None:
    """What ``src`` posted to ``dst``, handed to it in order (the bus between them)."""
    bus = src.bus
    assert isinstance(bus, _Bus)
    mine = [m for n, m in bus.posted if n == dst.node]
    bus.posted = [(n, m) for n, m in bus.posted if n != dst.node]
    for m in mine:
        dst._on_message(src.node, m)


JOIN = json.dumps({"type": "join", "table": 7, "as": "player"})
ACT = json.dumps({"type": "act", "seq": 9, "action": {"type": "pass"}})


# ---------------------------------------------------------------- an outage at the owner only


async def _dropped_at_the_owner() -> tuple[Cluster, Cluster, _Sock]:
    """A socket at the front (A) joined to a table at its owner (B), whose bus alone then
    went down: the owner has dropped the forwarded connection."""
    front, owner = _node("A"), _node("B")
    sock = _Sock()
    front.bound[sock.id] = Binding(sock, "B", table=7, seq=3)  # type: ignore[arg-type]
    owner._on_message("A", B.FromSocket(sock.id, 5, "five", "?", JOIN))
    d = owner.dispatcher
    assert isinstance(d, _Dispatcher)
    await _until(lambda: d.handled, "the owner runs the join")
    owner._on_bus_change(False)
    await _until(lambda: d.gone, "the owner's proxy connection is gone")
    return front, owner, sock


def test_an_outage_at_the_owner_alone_closes_the_forwarded_sockets_when_it_is_back() -> None:
    async def main() -> None:
        # the owner's bus alone goes down: it drops the forwarded connection (the seat's
        # grace period runs, R11); the front saw no outage and keeps its socket
        front, owner, sock = await _dropped_at_the_owner()
        assert not owner.proxies and front.bound[sock.id].stale is False
        # its bus is back: the front is told to close that socket with 1012
        owner.bus.ok = True
        owner._on_bus_change(True)
        _deliver(owner, front)
        assert sock.closed_with == (RESYNC, CLOSE_MOVED)
        assert sock.id not in front.bound  # the client's new socket joins afresh
        for t in list(owner._side):
            t.cancel()

    asyncio.run(main())


def test_a_frame_from_a_dropped_connection_closes_its_socket() -> None:
    async def main() -> None:
        front, owner, sock = await _dropped_at_the_owner()
        owner.bus.ok = True
        owner.bus.posted.clear()  # the close sent when the bus came back was lost
        # the player acts on what it was shown: no fresh connection answers not_joined,
        # the socket is closed and its client joins again
        owner._on_message("A", B.FromSocket(sock.id, 5, "five", "?", ACT))
        d = owner.dispatcher
        assert isinstance(d, _Dispatcher)
        assert not owner.proxies and d.handled == [(d.handled[0][0], JOIN)]
        _deliver(owner, front)
        assert sock.closed_with == (RESYNC, CLOSE_MOVED)
        # once only: a later frame of that id is a new connection's (it never is: ids rise)
        assert (("A", sock.id)) not in owner._cut

    asyncio.run(main())


def test_a_socket_gone_forgets_the_dropped_connection() -> None:
    async def main() -> None:
        owner = _node("B")
        owner._cut[("A", 11)] = time.monotonic()
        owner._on_message("A", B.SocketGone(11))
        owner._on_bus_change(True)
        assert not owner.bus.posted  # type: ignore[attr-defined]
        for t in list(owner._side):
            t.cancel()

    asyncio.run(main())


# ---------------------------------------------------------------- joins between two owners


def test_a_join_for_a_dropped_table_is_answered_unavailable() -> None:
    async def main() -> None:
        owner = _node("B", _lobby(t7=_Actor("QWER")))
        owner.drop(7, "its lease was not renewed in time")
        # a join forwarded by another process (the lease row still names this one), by id
        # and by code, and a join from a socket here: the client joins again
        for ref, forwarded in ((7, True), ("7", True), ("qwer", True), (7, False)):
            text = json.dumps({"type": "join", "table": ref, "as": "player"})
            conn = _Sock(id=20)
            if forwarded:
                conn.transport = RemoteTransport(owner, "A", 20)  # type: ignore[assignment]
            # forwarded: told at once; from a socket here: its own read of the lease row
            # (which still names this process) says the same
            assert await _dispatched(owner, conn, text)
            assert conn.errors == ["unavailable"]
        # another table, or a frame that is not a join: not this rule's
        other = _Sock(id=21, player_id=None)
        assert not await owner.intercept(other, json.dumps({"type": "join", "table": 8}))  # type: ignore[arg-type]
        assert not await owner.intercept(other, json.dumps({"type": "ready", "table": 7}))  # type: ignore[arg-type]
        # past the window (the row names the next owner by then): routed as usual
        owner.let_go[7] = time.monotonic() - 1
        assert not owner.let_go_join(JOIN)
        for t in list(owner._side):
            t.cancel()

    asyncio.run(main())


def test_a_join_routed_here_by_this_process_s_own_lease_row_is_unavailable() -> None:
    """The lease row names this process, live, and its lobby has not the table (a restore
    not ended, a let-go forgotten): ``unavailable`` at once, not ``no_table`` after a wait."""

    async def main() -> None:
        owner = _node("B", leases=_Leases(owner="B"))
        conn = _Sock(id=30)
        with pytest.raises(TableError) as e:
            await asyncio.wait_for(owner._route(conn, 7), GUARD_S)  # type: ignore[arg-type]
        assert e.value.code == "unavailable" and not e.value.bad

    asyncio.run(main())


def test_the_drain_hand_over_is_bounded_and_a_join_meanwhile_is_unavailable() -> None:
    """A silent database: the stored log's last flush and the lease's release never end.
    The drain returns by its deadline, and a join arriving during the hand-over is told to
    come again."""

    async def main() -> None:
        actor = _Actor("ZXCV", hang=("flush",))
        leases = _Leases(hang=True, owner="A")
        leases.held[7] = 1
        node = _node("A", _lobby(t7=actor), leases)
        t0 = time.monotonic()
        drain = asyncio.ensure_future(node.drain(0.3))
        await _until(lambda: "flush" in actor.started, "the hand-over reaches the flush")
        conn = _Sock(id=40)
        assert await _dispatched(node, conn, JOIN)
        assert conn.errors == ["unavailable"]
        moved = await asyncio.wait_for(drain, GUARD_S)
        took = time.monotonic() - t0
        # by its deadline (0.3 s), not by the silent steps' (GUARD_S): a loaded machine's
        # turns of the loop may add to the deadline, never the steps' hang
        assert moved == 0 and took < GUARD_S / 4, took
        assert leases.released == [7]  # tried, within the deadline
        assert node.let_go_join(JOIN)  # still told to come again, for a while
        for t in list(node._side):
            t.cancel()

    asyncio.run(main())


# ---------------------------------------------------------------- readiness


def test_leases_ok_follows_the_renewals() -> None:
    async def main() -> None:
        node = _node("A")
        assert node.leases_ok  # just started
        node.renewed_at = time.monotonic() - node.lease_s - 0.1
        assert not node.leases_ok
        renewed = asyncio.Event()

        async def renew() -> set[int]:
            renewed.set()
            return set()

        node.leases.renew = renew  # type: ignore[attr-defined]
        node.leases.take_expired = None  # type: ignore[attr-defined]
        node.draining = True  # nothing taken here
        loop_task = asyncio.ensure_future(node._lease_loop())
        await asyncio.wait_for(renewed.wait(), GUARD_S)
        await _until(lambda: node.leases_ok, "a renewal that worked is counted")
        loop_task.cancel()

    asyncio.run(main())


def test_readyz_is_503_while_the_leases_cannot_be_renewed(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(tmp_path) as h:
            h.app.state.cluster = SimpleNamespace(bus_ok=True, leases_ok=False)
            r = await h.http.get("/readyz")
            assert r.status_code == 503 and r.json()["code"] == "leases_failing", r.text
            assert "lease" in r.json()["detail"]
            h.app.state.cluster = SimpleNamespace(bus_ok=True, leases_ok=True)
            assert (await h.http.get("/readyz")).status_code == 200
            h.app.state.cluster = None

    asyncio.run(main())


# ---------------------------------------------------------------- fjmj serve's watchdog


def test_sigterm_arms_the_watchdog_when_it_arrives(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from fujian_mahjong.cli import serve

    armed: list[float] = []
    monkeypatch.setattr(serve, "_exit_after", armed.append)
    loop = asyncio.new_event_loop()
    try:
        app = SimpleNamespace(state=SimpleNamespace(loop=loop, drain=None))
        server = serve._stoppable(uvicorn.Config(app=lambda: None), app, 25.0)
        server.started = True
        server.handle_exit(signal.SIGTERM, None)
        assert server.draining and not server.should_exit
        assert armed == [25.0 + serve.STOP_HARD_S]  # before the drain even begins
    finally:
        loop.close()


def test_a_drain_that_never_returns_still_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    import uvicorn

    from fujian_mahjong.cli import serve

    armed: list[float] = []
    monkeypatch.setattr(serve, "_exit_after", armed.append)

    async def stuck(_s: float) -> None:
        await asyncio.sleep(GUARD_S)  # a drain held by a silent database

    async def main() -> None:
        app = SimpleNamespace(state=SimpleNamespace(loop=asyncio.get_running_loop(), drain=stuck))
        server = serve._stoppable(uvicorn.Config(app=lambda: None), app, 0.2)
        await asyncio.wait_for(server._drain(), GUARD_S)
        assert server.should_exit and armed == [serve.STOP_HARD_S]

    asyncio.run(main())
