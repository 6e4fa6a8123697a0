"""Several ``fjmj serve`` processes on one PostgreSQL database and one Redis (``--redis``;
docs/deploy.md).

The code by job: ``lease.py`` (the leases in PostgreSQL), ``bus.py`` (the Redis bus: its
typed messages, signed frames, the probe that says whether it is up), ``sockets.py``
(sockets forwarded between processes), ``tables.py`` (the shared table list, lookups and
quick match), ``ops.py`` (the operator's figures); here ``Cluster``, which holds the state
and runs the loops: leases, heartbeats, the bus going down and coming back, the drain.

Every process accepts every WebSocket and REST call. Each live table's actor runs in exactly
one process, the holder of its lease (``lease.py``: a row per table, taken by a conditional
UPDATE, renewed every ``lease_s / 4`` seconds, every write fenced by its epoch). A socket on
process A whose table is owned by process B is split the way lila-ws splits its socket
servers from the game servers: A keeps the socket, forwards the client's frames over Redis
to B, where a proxy connection (``Conn`` over a ``RemoteTransport``) runs them through B's
own ``Dispatcher``; every message B's table sends that connection goes back over Redis to A,
which writes it to the socket as it is (its ``seq`` was given on B). Each process listens on
one Redis channel of its own (``{prefix}:to:{node}``), and messages to one process travel
in order, batched per event-loop turn.

When a process dies its leases expire; the others take them (``take_expired``, every
``lease_s / 4`` seconds) and restore each table from the database exactly as a restart does
(``Lobby.restore``). The sockets that were bound to the dead process are closed with 1012
(service restart) once its heartbeat key expires, and the clients reconnect — through any
process — with ``hello`` + ``join``; the join waits for the table's new owner.

Shared across processes: the table list (each process publishes its tables' summaries to a
Redis hash of its own, every second; every process lists the union of the live processes'
hashes), spectator counts and the rooms' ``playing`` counts (in those summaries), rate limits
(each hit is broadcast to every process's limiter of the same name: ``ratelimit.set_hub``)
and quick match (server/rooms.py): one quick match per room at a time in the whole cluster
(a Redis lock per room, and one per player), which reads the summaries fresh from Redis,
seats the player at the best waiting table of the room whichever process runs it (the
owner seats them: a ``reserve`` call over the bus) or at a new table made here, and
publishes the changed summaries before it lets the next one in. ``GET /api/tables/{ref}`` of
a table another process runs answers that process's summary (``Cluster.lookup``), by the same
privacy rule as its owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fujian_mahjong.server import ratelimit
from fujian_mahjong.server.cluster import bus as B
from fujian_mahjong.server.cluster.lease import Leases
from fujian_mahjong.server.cluster.ops import OperatorView
from fujian_mahjong.server.cluster.sockets import (
    CLOSE_MOVED,
    MOVED,
    RESYNC,
    Binding,
    Proxy,
    RemoteTable,
    RemoteTransport,
    Sockets,
)
from fujian_mahjong.server.cluster.tables import SharedTables
from fujian_mahjong.server.conn import Conn
from fujian_mahjong.server.protocol import is_join_frame

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from fujian_mahjong.server.lobby import Lobby
    from fujian_mahjong.server.looplag import LoopLag
    from fujian_mahjong.server.settings import Settings
    from fujian_mahjong.server.store import Store
    from fujian_mahjong.server.ws import Dispatcher

__all__ = ["CLOSE_MOVED", "Cluster", "RemoteTransport", "node_id", "shown_url"]

# what a socket bound to another process's table is told while the bus is down (it is
# closed with CLOSE_MOVED when the bus is back, and its client joins again: docs/protocol.md)
BUS_DOWN = {
    "type": "status",
    "store": "failing",
    "bus": "failing",
    "message": "the connection to the table's server is interrupted; waiting",
    "message_zh": "与牌桌服务器的连接中断, 请稍候",
}

log = logging.getLogger("fjmj.cluster")

# tables one process takes per sweep (several processes share a dead one's tables)
TAKE_PER_SWEEP = 25
# how long this process remembers the forwarded connections its own bus outage dropped
# (``Cluster._cut``): a frame from one of them meanwhile is answered by closing its socket
CUT_KEEP_S = 600.0


def node_id() -> str:
    """A process id unique in the cluster: host, pid and a random suffix."""
    return f"{socket.gethostname()[:24]}-{os.getpid()}-{secrets.token_hex(3)}"


class Cluster(Sockets, SharedTables, OperatorView):
    """This process's part of the cluster: leases, the Redis bus, the shared table list."""

    def __init__(self, settings: Settings, store: Store, lobby: Lobby) -> None:
        self.settings = settings
        self.store = store
        self.lobby = lobby
        self.dispatcher: Dispatcher | None = None
        self.node = getattr(settings, "node_id", "") or node_id()
        self.prefix = getattr(settings, "redis_prefix", "fjmj") or "fjmj"
        self.lease_s = float(getattr(settings, "lease_s", 5.0))
        self.leases = Leases(store.engine, self.node, self.lease_s)
        self.redis: Redis | None = None
        self.bus: B.Bus = _NoBus()  # type: ignore[assignment]  # until ``start``
        self._tasks: list[asyncio.Task[None]] = []
        self._side: set[asyncio.Task[Any]] = set()
        # table id -> the stop of its actor dropped here (``drop``), until it has stopped
        self._stopping: dict[int, asyncio.Task[Any]] = {}
        self._restoring: set[asyncio.Future[None]] = set()  # takeovers' restores under way
        # the connections other processes forwarded here that a bus outage of this process
        # dropped (their process may have seen no outage): (node, conn id) -> when
        self._cut: dict[tuple[str, int], float] = {}
        # tables this process let go (dropped, or handed over when draining) while their
        # lease row may still name it: table id -> until when a join is answered
        # ``unavailable`` here (``Sockets.let_go_join``); their codes -> table id
        self.let_go: dict[int, float] = {}
        self.let_go_codes: dict[str, int] = {}
        self.renewed_at = time.monotonic()  # when the last lease renewal that worked was sent
        self.bound: dict[int, Binding] = {}  # conn id -> binding (sockets here)
        self.proxies: dict[tuple[str, int], Proxy] = {}  # (node, conn id) -> proxy here
        self.remote_tables: dict[int, dict[str, Any]] = {}  # the other processes' tables
        self.remote_owner: dict[int, str] = {}  # their process
        self.remote_codes: dict[str, int] = {}
        self._refreshing: asyncio.Future[list[str]] | None = None  # a lookup's fresh read
        self._calls: dict[int, asyncio.Future[Any]] = {}
        self._next_call = 0
        self._published: dict[int, str] = {}
        self._publishing = asyncio.Lock()  # one publication at a time, in order
        self.alive_nodes: set[str] = set()
        self.takeovers = 0  # tables this process took from another (metrics, tests)
        self.handed_over = 0  # tables this process handed to the others when draining
        # draining (SIGTERM): no table is taken here any more; stopping: nothing new starts
        self.draining = False
        self.stopping = False
        self.looplag: LoopLag | None = None  # the app's loop-lag monitor (node_metrics)
        if store.dialect_name == "postgresql":
            _end_idle_transactions(store, self.lease_s)

    # ------------------------------------------------------------------ names

    @property
    def leases_ok(self) -> bool:
        """The lease renewals work (``/readyz``): False once none has succeeded for a whole
        lease — the database cannot be reached, this process's leases have expired and the
        others take its tables; a load balancer should send its players elsewhere."""
        return time.monotonic() - self.renewed_at < self.lease_s

    @property
    def bus_ok(self) -> bool:
        """The Redis bus works now (``/readyz``): False while it is down; this process
        then serves its own tables and the sockets connected to it only."""
        return self.bus.ok

    def channel(self, node: str) -> str:
        return f"{self.prefix}:to:{node}"

    def alive_key(self, node: str) -> str:
        return f"{self.prefix}:alive:{node}"

    def tables_key(self, node: str) -> str:
        return f"{self.prefix}:tables:{node}"

    @property
    def nodes_key(self) -> str:
        return f"{self.prefix}:nodes"

    @property
    def rl_channel(self) -> str:
        return f"{self.prefix}:rl"

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Connect to Redis, claim the tables nobody holds, start the loops."""
        from redis.asyncio import Redis

        if self.store.dialect_name != "postgresql":
            raise RuntimeError("--redis (several processes) needs PostgreSQL (--db)")
        url = str(getattr(self.settings, "redis_url", ""))
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        try:
            # every command bounded in time: a Redis that stops answering (paused, a lost
            # route) fails them after B.TIMEOUT_S instead of holding their callers for good
            self.redis = Redis.from_url(
                url,
                socket_timeout=B.TIMEOUT_S,
                socket_connect_timeout=B.TIMEOUT_S,
                retry=Retry(NoBackoff(), 1),
            )
            await self.redis.ping()
        except Exception as e:
            raise RuntimeError(f"--redis {shown_url(url)}: {_line(e)}") from None
        self.store.fences = {}
        self.store.on_fenced = self._fenced
        secret = await self._secret()
        await self._heartbeat()
        self.bus = B.Bus(
            self.redis,
            self.prefix,
            self.node,
            secret,
            self._on_message,
            self._on_bus_change,
            probe_s=max(0.2, min(1.0, self.lease_s / 4)),
        )
        try:
            await self.bus.start()
        except Exception as e:
            raise RuntimeError(f"--redis {shown_url(url)}: {_line(e)}") from None
        ratelimit.set_hub(self._rate_hit)
        await self.leases.adopt_orphans()
        self.renewed_at = time.monotonic()
        loop = asyncio.get_running_loop()
        for coro in (self._lease_loop(), self._heartbeat_loop(), self._watch()):
            self._tasks.append(loop.create_task(coro))
        self._tasks.append(loop.create_task(self._share_tables()))
        self._tasks.append(loop.create_task(self._publish_metrics()))
        log.warning(
            "cluster: node %s on redis %s (lease %.1f s)", self.node, shown_url(url), self.lease_s
        )

    async def stop(self) -> None:
        """Stop the loops and whatever they started (a takeover's restore in progress: its
        table's lease is given back by ``close``); the lobby then stops the actors."""
        self.stopping = self.draining = True
        tasks = [*self._tasks, *self._side]
        for t in tasks:
            t.cancel()
        if tasks:
            # each ends at its next await (bounded: a task that ignored its cancellation
            # must not hold the process, docs/deploy.md "Stopping")
            await asyncio.wait(tasks, timeout=B.TIMEOUT_S)
        self._tasks.clear()
        await self.bus.stop()
        for p in list(self.proxies.values()):
            if p.task is not None:
                p.task.cancel()
        ratelimit.set_hub(None)

    async def close(self) -> None:
        """After the lobby stopped its actors: give every lease back at once (another
        process takes them without waiting for them to expire), leave Redis."""
        with contextlib.suppress(Exception):
            await self.leases.release_all()
        if self.redis is not None:
            with contextlib.suppress(Exception):
                async with self.redis.pipeline(transaction=False) as p:
                    p.delete(self.alive_key(self.node), self.tables_key(self.node))
                    p.srem(self.nodes_key, self.node)
                    await asyncio.wait_for(p.execute(), B.TIMEOUT_S)
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.redis.aclose(), B.TIMEOUT_S)

    async def _secret(self) -> bytes:
        """The key that signs the bus's frames (server/cluster/bus.py): the configuration's
        ``cluster_secret``, else one made by the first process and kept in the database
        (a process that can reach Redis but not the database cannot sign)."""
        configured = str(getattr(self.settings, "cluster_secret", "") or "")
        if configured:
            return configured.encode()
        from sqlalchemy import text

        name = f"bus:{self.prefix}"
        async with self.store.engine.begin() as c:
            # one creator at a time (several processes start together)
            await c.execute(text("SELECT pg_advisory_xact_lock(4242001)"))
            await c.execute(
                text(
                    "CREATE TABLE IF NOT EXISTS cluster_secrets "
                    "(name text PRIMARY KEY, secret text NOT NULL)"
                )
            )
            await c.execute(
                text(
                    "INSERT INTO cluster_secrets (name, secret) VALUES (:n, :s) "
                    "ON CONFLICT (name) DO NOTHING"
                ),
                {"n": name, "s": secrets.token_hex(32)},
            )
            got = (
                await c.execute(
                    text("SELECT secret FROM cluster_secrets WHERE name = :n"), {"n": name}
                )
            ).scalar_one()
        return str(got).encode()

    def _spawn(self, coro: Any) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro)
        self._side.add(task)
        task.add_done_callback(self._side.discard)
        return task

    # ------------------------------------------------------------------ leases

    async def acquire_new(self, table_id: int) -> None:
        """A table created here is owned here."""
        epoch = await self.leases.acquire_new(table_id)
        assert self.store.fences is not None
        self.store.fences[table_id] = epoch

    def table_closed(self, table_id: int) -> None:
        """The table closed (its match over, everyone left): its lease row goes."""
        if self.store.fences is not None:
            self.store.fences.pop(table_id, None)
        self._spawn(self.leases.release([table_id], delete=True))

    def _fenced(self, table_id: int) -> None:
        # called inside a store transaction: drop the table after it
        asyncio.get_running_loop().call_soon(
            self.drop, table_id, "a write was refused: another process holds its lease"
        )

    def drop(self, table_id: int, why: str) -> None:
        """Stop this process's actor of a table it no longer holds (nothing is written:
        the table lives on in the database and in the process that holds it now)."""
        if self.store.fences is not None:
            self.store.fences.pop(table_id, None)
        self.leases.held.pop(table_id, None)
        lobby = self.lobby
        actor = lobby.tables.pop(table_id, None)
        if actor is None:
            return
        log.warning("cluster: table %s stopped here: %s", table_id, why)
        # its lease row names this process until it expires (at most a lease from now)
        self._let_go(table_id, actor.cfg.code, time.monotonic() + self._let_go_s)
        lobby.closed_actions += actor.actions
        lobby.codes.pop(actor.cfg.code, None)
        lobby.stakes.pop(table_id, None)
        lobby.table_rooms.pop(table_id, None)
        lobby.rooms.forget(table_id)
        actor.on_close = None
        actor.sched.cancel_all()
        for c in actor.conns():
            c.close(MOVED, CLOSE_MOVED)
        # the actor runs what it has queued before it stops (each write refused: its fence
        # is gone); were this process to take the table again meanwhile (its next renewal
        # gives the row back, the same loop takes it), ``_restore`` waits for this stop
        # before it fences the new epoch, which the old actor's writes would pass too
        stopping = self._spawn(self._stop_actor(actor))
        self._stopping[table_id] = stopping

        def stopped(task: asyncio.Task[Any]) -> None:
            if self._stopping.get(table_id) is task:
                del self._stopping[table_id]

        stopping.add_done_callback(stopped)

    @staticmethod
    async def _stop_actor(actor: Any) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(actor.stop(), 30)
        task = actor.task
        if task is not None and not task.done():
            # past the bound: it runs nothing more (a retake waits for this, ``_restore``)
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        actor.sched.cancel_all()

    async def drain(self, timeout: float) -> int:
        """SIGTERM (docs/deploy.md, "Rolling restarts"): take no table any more and hand
        each of this process's tables to the others, one after the other; returns how many
        were handed over. Each table stops at a safe point between two decisions, its
        lease is given back, and another process takes it and continues from the stored
        log (the crash restore) with fresh deadlines: nobody is charged a timeout; its
        clients are closed with CLOSE_MOVED and join again through any process."""
        self.draining = True
        end = time.monotonic() + timeout
        moved = 0
        while self.lobby.tables and time.monotonic() < end:
            for tid in list(self.lobby.tables):
                if time.monotonic() >= end:
                    break
                try:
                    if await self._hand_over(tid, end):
                        moved += 1
                except Exception as e:
                    log.warning("cluster: handing table %s over failed: %s", tid, _line(e))
            await asyncio.sleep(0)
        self.handed_over += moved
        return moved

    async def _hand_over(self, tid: int, end: float) -> bool:
        """Hand one table over, every step within the drain's deadline ``end`` (monotonic):
        a silent database must not hold the stop past ``--drain-s`` (docs/deploy.md,
        "Stopping"). A step that runs out is abandoned: what it did not store is replayed
        from the stored log by the next owner, and a lease not given back expires."""
        lobby = self.lobby
        actor = lobby.tables.get(tid)
        if actor is None:
            return False

        def left() -> float:
            return max(0.1, end - time.monotonic())

        # a join meanwhile (routed here by the lease row) is answered ``unavailable`` and
        # made again, until the row names the next owner
        self._let_go(tid, actor.cfg.code, float("inf"))
        # no timer fires from now on (no deadline runs out here: the new owner gives fresh
        # ones); the clients go first, so no new command comes in
        lobby.tables.pop(tid, None)
        lobby.closed_actions += actor.actions
        lobby.codes.pop(actor.cfg.code, None)
        lobby.stakes.pop(tid, None)
        lobby.table_rooms.pop(tid, None)
        lobby.rooms.forget(tid)
        actor.on_close = None
        actor.sched.cancel_all()
        for c in actor.conns():
            c.close(MOVED, CLOSE_MOVED)
        # the commands already queued run to their end (what they decide is stored), then
        # the actor stops: a safe point between decisions
        try:
            await self._within(actor.stop(), left())
            # answers given inside a claim pause, before the lease
            await self._within(actor.flush_pending(), left())
        finally:
            actor.sched.cancel_all()
            if self.store.fences is not None:
                self.store.fences.pop(tid, None)
            try:
                # not given back in time: the renewals give it back, or it expires
                await self._within(self.leases.release([tid]), left())
            finally:
                self._let_go(tid, actor.cfg.code, time.monotonic() + self._let_go_s)
        log.warning("cluster: table %s handed over (draining)", tid)
        return True

    async def _within(self, aw: Any, seconds: float) -> None:
        """Await ``aw`` for at most ``seconds`` (TimeoutError after). Unlike ``wait_for``
        this does not wait for the cancelled step to end: a database driver cancelling a
        query on a silent connection may itself wait on it (the step ends in the
        background, among the tasks ``stop`` cancels)."""
        task = asyncio.ensure_future(aw)
        done, _ = await asyncio.wait({task}, timeout=seconds)
        if task in done:
            task.result()
            return
        task.cancel()
        self._side.add(task)
        task.add_done_callback(self._side.discard)
        raise TimeoutError(f"not done within {seconds:.1f} s")

    @property
    def _let_go_s(self) -> float:
        # a lease row read before this process let the table go names it for at most a
        # lease more; a join routed by it crosses the bus within its timeout
        return 2 * self.lease_s + B.TIMEOUT_S

    def _let_go(self, tid: int, code: str, until: float) -> None:
        now = time.monotonic()
        for t, u in list(self.let_go.items()):
            if u <= now:
                self.let_go.pop(t, None)
        self.let_go_codes = {c: t for c, t in self.let_go_codes.items() if t in self.let_go}
        self.let_go[tid] = until
        if code:
            self.let_go_codes[code.upper()] = tid

    async def _restore(self, got: dict[int, int]) -> None:
        """Run the crash restore for tables whose lease this process has just taken."""
        assert self.store.fences is not None
        old = [self._stopping[t] for t in got if t in self._stopping]
        if old:
            await asyncio.wait(old)  # an actor of these tables dropped here: stopped first
        self.store.fences.update(got)
        for t in got:
            self.let_go.pop(t, None)
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._restoring.add(done)  # a join meanwhile waits for it (``Sockets.intercept``)
        try:
            await self.lobby.restore(only=set(got))
        finally:
            self._restoring.discard(done)
            done.set_result(None)
            gone = [t for t in got if t not in self.lobby.tables]
            for t in gone:
                self.store.fences.pop(t, None)
            if gone:
                await self.leases.release(gone)
        took = [t for t in got if t in self.lobby.tables]
        if took:
            self.takeovers += len(took)
            log.warning("cluster: took table(s) %s", ", ".join(map(str, took)))
            try:  # listed (and found by quick match) under this process at once
                await self.publish_tables()
            except Exception as e:
                log.warning("cluster: table list publication failed: %s", _line(e))

    async def _restore_logged(self, got: dict[int, int]) -> None:
        try:
            await self._restore(got)
        except Exception as e:
            log.warning("cluster: restoring %s failed: %s", sorted(got), _line(e))

    async def _lease_loop(self) -> None:
        """Renew the leases and take the expired ones: PostgreSQL only (a Redis outage
        costs no lease)."""
        period = self.lease_s / 4
        while True:
            try:
                sent = time.monotonic()
                lost = await self.leases.renew()
                self.renewed_at = sent
                for t in lost:
                    self.drop(t, "its lease was taken")
                got = {} if self.draining else await self.leases.take_expired(TAKE_PER_SWEEP)
                if got:
                    # restored beside this loop: a long restore must not delay renewals
                    self._spawn(self._restore_logged(got))
            except Exception as e:
                log.warning("cluster: lease renewal failed: %s", _line(e))
            await asyncio.sleep(period)

    async def _heartbeat_loop(self) -> None:
        period = self.lease_s / 4
        while True:
            if self.bus.ok:
                try:
                    await self._heartbeat()
                except Exception as e:
                    log.warning("cluster: redis heartbeat failed: %s", _line(e))
            await asyncio.sleep(period)

    async def _heartbeat(self) -> None:
        """This process is alive (a key that expires after a lease) and listed; when it was
        not listed any more (Redis restarted empty, or another process found its key
        expired during an outage) its table list is published again in full."""
        assert self.redis is not None
        async with self.redis.pipeline(transaction=False) as p:
            p.set(self.alive_key(self.node), "1", px=int(self.lease_s * 1000))
            p.sadd(self.nodes_key, self.node)
            added = (await asyncio.wait_for(p.execute(), B.TIMEOUT_S))[1]
        if added:
            self._published = {}

    async def _watch(self) -> None:
        """The local lease check (every tenth of a lease): a process that did not renew
        in time stops its actors before anyone may take them; and the sockets bound to a
        process that died are closed so their clients reconnect."""
        step = max(0.05, min(0.25, self.lease_s / 10))
        last_alive = 0.0
        while True:
            await asyncio.sleep(step)
            if self.leases.held and not self.leases.valid:
                for t in list(self.leases.held):
                    self.drop(t, "its lease was not renewed in time")
                self.leases.held.clear()
            now = time.monotonic()
            self.expire_joins(now)
            if self.bus.ok and now - last_alive >= min(0.5, self.lease_s / 4):
                last_alive = now
                try:
                    await self._check_peers()
                except Exception as e:
                    log.warning("cluster: peer check failed: %s", _line(e))

    async def _check_peers(self) -> None:
        assert self.redis is not None
        peers = {b.node for b in self.bound.values()} | {n for n, _ in self.proxies}
        peers.discard(self.node)
        if not peers:
            return
        order = sorted(peers)
        alive = await asyncio.wait_for(
            self.redis.mget([self.alive_key(n) for n in order]), B.TIMEOUT_S
        )
        if not self.bus.ok:
            return  # an outage began meanwhile: its own handling goes on
        dead = {n for n, a in zip(order, alive, strict=True) if a is None}
        for cid, b in list(self.bound.items()):
            if b.node in dead:
                del self.bound[cid]
                b.conn.close(MOVED, CLOSE_MOVED)
        for key, p in list(self.proxies.items()):
            if key[0] in dead:
                self.proxies.pop(key, None)
                p.queue.put_nowait(None)

    # ------------------------------------------------------------------ the bus

    def post(self, node: str, msg: B.Message) -> bool:
        """Queue one message for another process (sent in order, batched)."""
        return self.bus.post(node, msg)

    def _on_bus_change(self, ok: bool) -> None:
        """The bus went down or came back (server/cluster/bus.py). Down: what crossed it
        is lost from now on, so the sockets here at another process's table are told
        (``status``) and marked to be resynchronised, and the connections that other
        processes forwarded to this one are gone as far as their tables know (each seat
        keeps its grace period, R11). Back: those sockets are closed with CLOSE_MOVED and
        their clients join again (a fresh state), once this process is listed again; and
        the processes whose forwarded connections were dropped here are told to close
        those sockets too (``CloseSocket``): the outage may have been this process's alone
        (its own route to Redis), and theirs would otherwise stay open, silent, at a seat
        that runs out its grace period."""
        if not ok:
            for b in self.bound.values():
                if not b.stale and not b.conn.closed and b.table is not None:
                    b.seq += 1
                    b.conn.send({**BUS_DOWN, "table": b.table, "seq": b.seq}, stream=False)
                b.stale = True
            now = time.monotonic()
            for key in list(self.proxies):
                self._cut[key] = now
                self.proxy_closed(*key)
            for fut in self._calls.values():
                if not fut.done():
                    fut.set_exception(TimeoutError("the bus went down"))
            return
        self._tell_cut()
        self._spawn(self._bus_back())

    def _tell_cut(self) -> None:
        """The bus is back: close, at their process, the sockets whose forwarded connections
        an outage here dropped (their clients join again, docs/protocol.md "Reconnecting").
        Remembered a while longer: a frame from one of them (this message lost with the bus
        down again) is answered the same way (``_on_message``)."""
        now = time.monotonic()
        for key, when in list(self._cut.items()):
            if now - when > CUT_KEEP_S:
                del self._cut[key]
                continue
            self.post(key[0], B.CloseSocket(key[1], CLOSE_MOVED, RESYNC))

    async def _bus_back(self) -> None:
        self._published = {}
        try:
            await self._heartbeat()
            await self._publish_tables()
        except Exception as e:
            log.warning("cluster: after the bus came back: %s", _line(e))
        if not self.bus.ok:
            return  # down again: the next recovery closes them
        for b in list(self.bound.values()):
            if b.stale:
                self.resync(b.conn)

    def _on_message(self, src: str, msg: B.Message) -> None:
        """One message from process ``src`` (server/cluster/bus.py)."""
        match msg:
            case B.ToSocket():  # a message for one of our sockets
                b = self.bound.get(msg.cid)
                if b is None or b.node != src or b.stale:
                    return
                b.table, b.seq, b.join_by = msg.table, msg.seq, None
                if not b.conn.closed and not b.conn.transport.send(msg.text):
                    self.unbind(b.conn)
                    b.conn.close("too many unread messages")
            case B.CloseSocket():  # the owner closed that connection
                b = self.bound.get(msg.cid)
                if b is not None and b.node == src:
                    del self.bound[msg.cid]
                    b.conn.close(msg.reason, msg.code)
            case B.FromSocket():  # a client's frame for one of our tables
                key = (src, msg.cid)
                if self._cut.pop(key, None) is not None:
                    # its connection here was dropped by an outage: its socket joins again
                    # (a fresh connection here would not be at the table)
                    self.post(src, B.CloseSocket(msg.cid, CLOSE_MOVED, RESYNC))
                    return
                p = self.proxies.get(key)
                if p is None and not is_join_frame(msg.text):
                    # a frame sent before that socket's process was told its connection here
                    # had closed (a table dropped, a drain): no connection here to take it,
                    # and a new one would be at no table and never told it is gone
                    self.post(src, B.CloseSocket(msg.cid, CLOSE_MOVED, RESYNC))
                    return
                if p is None:
                    transport = RemoteTransport(self, src, msg.cid)
                    conn = Conn(self.settings.bad_messages_per_minute, transport)
                    transport.conn = conn
                    p = self.proxies[key] = Proxy(conn)
                    p.task = asyncio.get_running_loop().create_task(self._serve_proxy(key, p))
                c = p.conn
                c.player_id, c.name, c.addr = msg.player_id, msg.name, msg.addr
                p.queue.put_nowait(msg.text)
            case B.SocketGone():
                self._cut.pop((src, msg.cid), None)
                self.proxy_closed(src, msg.cid)
            case B.Call():  # a REST call for one of our tables (add or remove a bot)
                self._spawn(self._answer(src, msg))
            case B.Reply():  # the answer to one of ours
                fut = self._calls.pop(msg.rid, None)
                if fut is not None and not fut.done():
                    fut.set_result((msg.outcome, msg.payload))
            case B.RateHit():
                ratelimit.apply_remote(msg.name, msg.op, msg.key)
            case B.Logout():
                self._logout_here(msg)
            case _:
                log.warning("cluster: a %s message ignored", type(msg).__name__)

    def _logout_here(self, msg: B.Logout) -> None:
        """A token revoked on another process: close this process's sockets of it."""
        d = self.dispatcher
        if d is None:
            return
        if msg.token is None:
            d.close_player(msg.player_id, msg.code, msg.reason, None, local=True)
            return
        tokens = {
            c.token
            for c in d.by_player.get(msg.player_id, ())
            if c.token is not None and B.token_digest(c.token) == msg.token
        }
        for tok in tokens:
            d.close_player(msg.player_id, msg.code, msg.reason, tok, local=True)

    def broadcast_logout(self, player_id: int, code: int, reason: str, token: str | None) -> None:
        """A player's token was revoked here: every other process closes its sockets too
        (the bus carries the token's digest, never the token)."""
        self.bus.broadcast(B.Logout(player_id, code, reason, B.token_digest(token)))

    async def _answer(self, src: str, call: B.Call) -> None:
        from fujian_mahjong.server.rooms import RoomError
        from fujian_mahjong.server.store import STORE_FAULTS
        from fujian_mahjong.server.table import TableError

        d = self.dispatcher
        assert d is not None
        rid, op, ref, pid, args = call.rid, call.op, call.ref, call.player_id, call.args
        try:
            if op == "reserve":
                res = await self._reserve_here(ref, pid, args)
                self.post(src, B.Reply(rid, "ok", res))
                return
            if op not in ("add_bot", "remove_bot"):
                raise TableError("bad_call", f"no call {op[:20]!r}")
            t = d.find(ref, pid, call.addr)
            if isinstance(t, RemoteTable):
                raise TableError("no_table", f"no open table {str(ref)[:20]!r}")
            fn = t.add_bot if op == "add_bot" else t.remove_bot
            res = await t.call(lambda: fn(pid, *args))
            self.post(src, B.Reply(rid, "ok", res))
        except TableError as e:
            self.post(src, B.Reply(rid, "error", [e.code, e.message]))
        except RoomError as e:
            self.post(src, B.Reply(rid, "room", [e.status, e.code, e.message]))
        except STORE_FAULTS:
            self.post(src, B.Reply(rid, "store", None))

    async def _ask(
        self, node: str, op: str, ref: Any, pid: int, addr: str, args: list[Any], timeout: float
    ) -> tuple[str, Any]:
        """Send a call to another process and wait for its answer (TimeoutError: none, or
        the bus is down)."""
        if not self.bus.ok:
            raise TimeoutError("the bus is down")
        self._next_call += 1
        rid = self._next_call
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[rid] = fut
        self.post(node, B.Call(rid, op, ref, pid, addr, args))
        try:
            kind, payload = await asyncio.wait_for(fut, timeout)
        finally:
            self._calls.pop(rid, None)
        return str(kind), payload

    async def call_remote(
        self, node: str, op: str, ref: Any, pid: int, addr: str, args: list[Any]
    ) -> Any:
        """Run a REST call on the process that owns the table (TableError as there)."""
        from fujian_mahjong.server.store import StoreUnavailable
        from fujian_mahjong.server.table import TableError

        try:
            kind, payload = await self._ask(node, op, ref, pid, addr, args, 10 + self.lease_s)
        except TimeoutError:
            raise TableError("no_table", "the table's server did not answer; try again") from None
        if kind == "ok":
            return payload
        if kind == "store":
            raise StoreUnavailable("the table's server cannot save now")
        raise TableError(str(payload[0]), str(payload[1]))

    # ------------------------------------------------------------------ rate limits

    def _rate_hit(self, name: str, op: str, key: str) -> None:
        self.bus.broadcast(B.RateHit(name, op, key))


class _NoBus:
    """The bus before ``Cluster.start``: down, and nothing is sent."""

    ok = False

    def post(self, _node: str, _msg: Any) -> bool:
        return True

    def broadcast(self, _msg: Any) -> None:
        pass

    async def stop(self) -> None:
        pass


def _end_idle_transactions(store: Store, lease_s: float) -> None:
    """A process paused in the middle of a transaction (SIGSTOP, a VM frozen) must not keep
    its row locks — a lease row locked by its fencing read or its renewal — past the
    lease: PostgreSQL ends any transaction of ours left idle for half a lease (the paused
    process finds its connection gone when it resumes, and its write fails)."""
    from sqlalchemy import event

    ms = max(250, int(lease_s * 500))

    @event.listens_for(store.engine.sync_engine, "connect")
    def _timeout(dbapi_conn: Any, _record: Any) -> None:
        cur = dbapi_conn.cursor()
        cur.execute(f"SET idle_in_transaction_session_timeout = {ms}")
        cur.close()


def shown_url(url: str) -> str:
    """A Redis URL as logs and error messages show it: its password, in the address
    (``redis://user:secret@host``) or as ``?password=``, written ``***``. A user part
    without a colon is hidden too (it may be a password that lost its colon)."""
    try:
        u = urlsplit(url)
    except ValueError:
        u = None
    if u is None or "://" not in url:
        return "(an unparsable URL)"
    netloc = u.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, colon, _pw = userinfo.partition(":")
        netloc = f"{user}:***@{host}" if colon else f"***@{host}"
    query = "&".join(
        f"{k}=***" if k.lower() == "password" else part
        for part in u.query.split("&")
        for k in (part.partition("=")[0],)
    )
    return (
        f"{u.scheme}://{netloc}{u.path}"
        + (f"?{query}" if u.query else "")
        + (f"#{u.fragment}" if u.fragment else "")
    )


def _line(e: BaseException) -> str:
    s = str(e)
    return f"{type(e).__name__}: {s.splitlines()[0][:200] if s else ''}"
