"""Several ``fjmj serve`` processes on one PostgreSQL database and one Redis (``--redis``;
docs/deploy.md).

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
import json
import logging
import os
import secrets
import socket
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from fujian_mahjong.server import ratelimit
from fujian_mahjong.server.cluster import bus as B
from fujian_mahjong.server.cluster.lease import Leases
from fujian_mahjong.server.conn import Conn

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from redis.asyncio import Redis

    from fujian_mahjong.server.lobby import Lobby
    from fujian_mahjong.server.looplag import LoopLag
    from fujian_mahjong.server.rooms import RoomService
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

# the close code of a socket whose table moved to another process (service restart): the
# client reconnects and joins again (docs/protocol.md, "Reconnecting")
CLOSE_MOVED = 1012
MOVED = "the table moved to another server; reconnect"
RESYNC = "the connection to the table's server was interrupted; reconnect"
# tables one process takes per sweep (several processes share a dead one's tables)
TAKE_PER_SWEEP = 25
# how often each process publishes its tables' summaries and reads the others'
SHARE_EVERY_S = 1.0
# how long a quick match's lock is held at most (it expires by itself if its holder died)
# and how long a quick match waits for it, in leases (at least 10 s)
QM_LOCK_LEASES = 4.0
# a private table's published summary also carries the players its id opens to (its owner's
# rule, ``TableActor.admits``): other processes answer a lookup by id with it; never shown
ADMITS = "_admits"


def node_id() -> str:
    """A process id unique in the cluster: host, pid and a random suffix."""
    return f"{socket.gethostname()[:24]}-{os.getpid()}-{secrets.token_hex(3)}"


class RemoteTransport:
    """The owner's side of a socket held by another process: every message goes back over
    Redis to that process, which writes it to the socket."""

    def __init__(self, cluster: Cluster, node: str, cid: int) -> None:
        self.cluster = cluster
        self.node = node
        self.cid = cid
        self.conn: Conn | None = None  # the proxy connection it serves

    def send(self, text: str) -> bool:
        conn, cid = self.conn, self.cid

        def message() -> B.ToSocket:
            # stamped when the batch leaves: the connection's table and counter by then
            t = conn.table if conn is not None else None
            return B.ToSocket(cid, text, t.id if t is not None else None, conn.seq if conn else 0)

        return self.cluster.bus.post(self.node, message)

    def close(self, code: int, reason: str) -> None:
        self.cluster.bus.post(self.node, B.CloseSocket(self.cid, code, reason))
        self.cluster.proxy_closed(self.node, self.cid)


class RemoteTable:
    """A table run by another process, as REST's bot calls use it (``Dispatcher.find``):
    ``add_bot`` / ``remove_bot`` run there, through the bus."""

    def __init__(self, cluster: Cluster, node: str, ref: Any, addr: str) -> None:
        self.cluster = cluster
        self.node = node
        self.ref = ref
        self.addr = addr

    async def add_bot(self, player_id: int, *args: Any) -> Any:
        return await self.cluster.call_remote(
            self.node, "add_bot", self.ref, player_id, self.addr, list(args)
        )

    async def remove_bot(self, player_id: int, *args: Any) -> Any:
        return await self.cluster.call_remote(
            self.node, "remove_bot", self.ref, player_id, self.addr, list(args)
        )

    async def join(self, _conn: Any, _as: str) -> None:
        from fujian_mahjong.server.table import TableError

        raise TableError("no_table", "that table has moved; join again")

    async def call(self, fn: Any) -> Any:
        return await fn()


@dataclass
class Proxy:
    """A connection whose socket is on another process (its frames, in order)."""

    conn: Conn
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None


@dataclass
class Binding:
    """A socket of this process whose table is owned by ``node``."""

    conn: Conn
    node: str
    table: int | None = None  # seated or watching there (as the owner stamps its messages)
    seq: int = 0  # the socket's table-stream counter (as the owner stamps its messages)
    stale: bool = False  # the bus went down since: closed when it is back (to resync)


class Cluster:
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

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._side.add(task)
        task.add_done_callback(self._side.discard)

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
        lobby.closed_actions += actor.actions
        lobby.codes.pop(actor.cfg.code, None)
        lobby.stakes.pop(table_id, None)
        lobby.table_rooms.pop(table_id, None)
        lobby.rooms.forget(table_id)
        actor.on_close = None
        actor.sched.cancel_all()
        for c in actor.conns():
            c.close(MOVED, CLOSE_MOVED)
        self._spawn(self._stop_actor(actor))

    @staticmethod
    async def _stop_actor(actor: Any) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(actor.stop(), 30)
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
                    if await self._hand_over(tid, max(0.1, end - time.monotonic())):
                        moved += 1
                except Exception as e:
                    log.warning("cluster: handing table %s over failed: %s", tid, _line(e))
            await asyncio.sleep(0)
        self.handed_over += moved
        return moved

    async def _hand_over(self, tid: int, timeout: float) -> bool:
        lobby = self.lobby
        actor = lobby.tables.get(tid)
        if actor is None:
            return False
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
            await asyncio.wait_for(actor.stop(), timeout)
        finally:
            actor.sched.cancel_all()
            if self.store.fences is not None:
                self.store.fences.pop(tid, None)
            await self.leases.release([tid])
        log.warning("cluster: table %s handed over (draining)", tid)
        return True

    async def _restore(self, got: dict[int, int]) -> None:
        """Run the crash restore for tables whose lease this process has just taken."""
        assert self.store.fences is not None
        self.store.fences.update(got)
        try:
            await self.lobby.restore(only=set(got))
        finally:
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
                for t in await self.leases.renew():
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
        their clients join again (a fresh state), once this process is listed again."""
        if not ok:
            for b in self.bound.values():
                if not b.stale and not b.conn.closed and b.table is not None:
                    b.seq += 1
                    b.conn.send({**BUS_DOWN, "table": b.table, "seq": b.seq}, stream=False)
                b.stale = True
            for key in list(self.proxies):
                self.proxy_closed(*key)
            for fut in self._calls.values():
                if not fut.done():
                    fut.set_exception(TimeoutError("the bus went down"))
            return
        self._spawn(self._bus_back())

    async def _bus_back(self) -> None:
        self._published = {}
        try:
            await self._heartbeat()
            await self._publish_tables()
        except Exception as e:
            log.warning("cluster: after the bus came back: %s", _line(e))
        if not self.bus.ok:
            return  # down again: the next recovery closes them
        for cid, b in list(self.bound.items()):
            if b.stale:
                del self.bound[cid]
                self.post(b.node, B.SocketGone(cid))
                b.conn.close(RESYNC, CLOSE_MOVED)

    def _on_message(self, src: str, msg: B.Message) -> None:
        """One message from process ``src`` (server/cluster/bus.py)."""
        match msg:
            case B.ToSocket():  # a message for one of our sockets
                b = self.bound.get(msg.cid)
                if b is None or b.node != src or b.stale:
                    return
                b.table, b.seq = msg.table, msg.seq
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
                p = self.proxies.get(key)
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

    async def _serve_proxy(self, key: tuple[str, int], p: Proxy) -> None:
        d = self.dispatcher
        assert d is not None
        while True:
            text = await p.queue.get()
            if text is None:
                d.disconnected(p.conn)
                return
            try:
                await d.handle(p.conn, text)
            except Exception:
                log.exception("unexpected error handling a forwarded WebSocket message")
                p.conn.error("server_error", "the server could not handle that message")

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

    def remote_table(self, ref: Any, addr: str) -> RemoteTable | None:
        """A table another process runs (from the shared list), for REST calls."""
        tid: int | None = None
        if isinstance(ref, int) and not isinstance(ref, bool):
            tid = ref
        elif isinstance(ref, str) and ref.strip().isascii() and ref.strip().isdigit():
            tid = int(ref.strip()) if len(ref.strip()) <= 18 else None
        elif isinstance(ref, str):
            tid = self.remote_codes.get(ref.strip().upper())
        node = self.remote_owner.get(tid) if tid is not None else None
        if node is None:
            return None
        return RemoteTable(self, node, ref, addr)

    def proxy_closed(self, node: str, cid: int) -> None:
        p = self.proxies.pop((node, cid), None)
        if p is not None:
            p.queue.put_nowait(None)

    # ------------------------------------------------------------------ sockets here

    def is_proxy(self, conn: Conn) -> bool:
        return isinstance(conn.transport, RemoteTransport)

    def unbind(self, conn: Conn) -> None:
        """This socket is gone (or moves to another table): tell its table's owner."""
        b = self.bound.pop(conn.id, None)
        if b is not None:
            self.post(b.node, B.SocketGone(conn.id))

    async def intercept(self, conn: Conn, text: str) -> bool:
        """A frame from a socket of this process: True when it went to the process that owns
        the socket's table (False: this process handles it, as with one process)."""
        if self.is_proxy(conn):
            return False
        b = self.bound.get(conn.id)
        if b is None and '"join"' not in text:
            return False
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        typ = data.get("type") if isinstance(data, dict) else None
        if typ in ("ping", "hello"):
            return False
        if typ == "join" and conn.player_id is not None and isinstance(data, dict):
            target, tid = await self._route(conn, data.get("table"))
            if target is not None and (
                conn.token is None or await self.store.player_for_token(conn.token) is None
            ):
                return False  # refused here, as with one process (the owner never sees tokens)
            if b is not None and target != b.node:
                if b.table is not None:
                    conn.error("already_joined", "this connection is already at another table")
                    return True
                self.unbind(conn)
                b = None
            if target is None:
                return False
            if b is None:
                b = self.bound[conn.id] = Binding(conn, target, tid)
        if b is None:
            return False
        if b.stale or not self.bus.ok:
            conn.error("unavailable", "the table's server cannot be reached now; please wait")
            return True
        self.post(b.node, B.FromSocket(conn.id, conn.player_id, conn.name, conn.addr, text))
        return True

    async def _route(self, conn: Conn, ref: Any) -> tuple[str | None, int | None]:
        """The process a join of ``ref`` must go to and the table's id (None: this one). A
        table whose owner died is taken here (its crash restore) once its lease has expired.
        TableError ``unavailable``: its owner is alive but the bus is down."""
        from fujian_mahjong.server.table import TableError

        here = (None, None)
        if conn.table is not None:
            return here  # the table here answers (the same table, or already_joined)
        key: int | str
        if isinstance(ref, int) and not isinstance(ref, bool):
            key = ref
        elif isinstance(ref, str) and ref.strip().isascii() and ref.strip().isdigit():
            if len(ref.strip()) > 18:
                return here
            key = int(ref.strip())
        elif isinstance(ref, str) and self.lobby.code_like(ref):
            key = ref.strip().upper()
        else:
            return here
        if isinstance(key, int) and key in self.lobby.tables:
            return here
        if isinstance(key, str) and key in self.lobby.codes:
            return here
        deadline = time.monotonic() + 2 * self.lease_s + 2
        while True:
            row = await self.leases.owner_of(key)
            if row is None:
                return here
            tid, owner, live = row
            if tid in self.lobby.tables:
                return here
            if live and owner is not None and owner != self.node:
                try:
                    if self.bus.ok and await self._alive(owner):
                        return owner, tid
                except Exception as e:
                    log.warning("cluster: a peer check failed: %s", _line(e))
                if not self.bus.ok:
                    raise TableError(
                        "unavailable", "the table's server cannot be reached now; try again"
                    )
            if not live and not self.draining:
                epoch = await self.leases.try_take(tid)
                if epoch is not None:
                    await self._restore({tid: epoch})
                    return here
            if time.monotonic() > deadline:
                return here
            await asyncio.sleep(0.1)

    async def _alive(self, node: str) -> bool:
        assert self.redis is not None
        return bool(await asyncio.wait_for(self.redis.exists(self.alive_key(node)), B.TIMEOUT_S))

    # ------------------------------------------------------------------ rate limits

    def _rate_hit(self, name: str, op: str, key: str) -> None:
        self.bus.broadcast(B.RateHit(name, op, key))

    # ------------------------------------------------------------------ quick match

    @contextlib.asynccontextmanager
    async def quickmatch_lock(self, room: str, player_id: int) -> AsyncIterator[None]:
        """Hold the cluster's quick-match locks of this player and of this room (in that
        order, so two holders never wait on each other): redis-py's ``Lock`` (``SET key
        token NX PX``, released only by the holder of the token). A lock whose holder died
        expires by itself after ``QM_LOCK_LEASES`` leases; a caller that cannot get it in
        as long is refused with RoomError 503 ``busy``, as when Redis cannot be reached."""
        from redis.exceptions import LockError, RedisError

        from fujian_mahjong.server.rooms import RoomError

        assert self.redis is not None
        if not self.bus.ok:
            raise RoomError(503, "busy", "quick match is busy; try again")
        hold = max(10.0, QM_LOCK_LEASES * self.lease_s)
        locks = [
            self.redis.lock(
                f"{self.prefix}:qm:{what}",
                timeout=hold,
                sleep=0.02,
                blocking_timeout=hold,
                thread_local=False,
            )
            for what in (f"player:{player_id}", f"room:{room}")
        ]
        held: list[Any] = []
        try:
            for lk in locks:
                # listed before it is asked for: a request cancelled while Redis grants it
                # still gives it back below (else it would block quick match until expiry)
                held.append(lk)
                try:
                    got = await lk.acquire()
                except RedisError as e:
                    log.warning("cluster: quick match lock failed: %s", _line(e))
                    got = False
                if not got:
                    raise RoomError(503, "busy", "quick match is busy; try again")
            yield
        finally:
            for lk in reversed(held):
                try:
                    if await lk.owned():
                        await lk.release()
                    elif lk.local.token is not None:
                        # held past its expiry: someone else's now, left alone
                        log.warning("cluster: a quick match held its lock past %.0f s", hold)
                except (LockError, RedisError) as e:
                    log.warning("cluster: quick match unlock failed: %s", _line(e))

    async def reserve_remote(
        self, node: str, table_id: int, room: str, pid: int, name: str
    ) -> bool:
        """Quick match at a table another process runs: the owner seats the player (the
        same ``RoomService.reserve`` as for its own quick matches) and publishes its tables
        before it answers. False: no free seat there now (or the table has gone); RoomError
        as the owner refused; no answer in time: RoomError 503 ``busy`` (the seat may have
        been given: the player's next quick match finds it)."""
        from fujian_mahjong.server.rooms import RoomError
        from fujian_mahjong.server.store import StoreUnavailable

        try:
            kind, payload = await self._ask(
                node, "reserve", table_id, pid, "", [room, name], self.lease_s + 2
            )
        except TimeoutError:
            raise RoomError(503, "busy", "the table's server did not answer; try again") from None
        if kind == "ok":
            return bool(payload)
        if kind == "room":
            raise RoomError(int(payload[0]), str(payload[1]), str(payload[2]))
        if kind == "store":
            raise StoreUnavailable("the table's server cannot save now")
        return False

    async def _reserve_here(self, ref: Any, pid: int, args: list[Any]) -> bool:
        """Another process's quick match asks for a seat at one of this process's tables."""
        room, name = str(args[0]), str(args[1])
        rooms: RoomService = self.lobby.rooms
        t = self.lobby.tables.get(ref) if isinstance(ref, int) else None
        if t is None or self.lobby.table_rooms.get(t.id) != room:
            return False
        ok = await rooms.reserve(t, pid, name)
        if ok:
            try:
                await self.publish_tables()  # the next quick match must see this seat taken
            except Exception as e:
                log.warning("cluster: table list publication failed: %s", _line(e))
        return ok

    # ------------------------------------------------------------------ the table list

    # ------------------------------------------------------------------ the operator's view

    def node_metrics(self) -> dict[str, Any]:
        """This process's figures for the operator (``GET /api/metrics`` on any process
        lists every live process's, as published): its tables and leases, decisions and
        commits so far, the loop's lag, the cluster's own counters."""
        lobby, store = self.lobby, self.store
        out: dict[str, Any] = {
            **self.metrics(),
            "tables": len(lobby.tables),
            "actions": lobby.actions,
            "commits": store.commits,
            "degraded_tables": lobby.degraded_tables(),
            "store_failing": store.failing,
        }
        lag = self.looplag
        if lag is not None:
            snap = lag.snapshot()
            out.update(
                {k: snap.get(k) for k in ("loop_lag_p99_ms", "loop_lag_max_ms", "gc_pause_max_ms")}
            )
        return out

    def metrics_key(self, node: str) -> str:
        return f"{self.prefix}:metrics:{node}"

    async def _publish_metrics(self) -> None:
        """Every ``metrics_refresh_s``: this process's figures, to Redis (kept for three
        periods: a dead process's go with it). Refreshed no more often than the metrics'
        own snapshot, so they cannot time one claim window either (R12)."""
        every = max(1.0, float(getattr(self.settings, "metrics_refresh_s", 10.0)))
        while True:
            try:
                assert self.redis is not None
                body = json.dumps({**self.node_metrics(), "at": time.time()})
                if self.bus.ok:
                    await asyncio.wait_for(
                        self.redis.set(self.metrics_key(self.node), body, px=int(3000 * every)),
                        B.TIMEOUT_S,
                    )
            except Exception as e:
                log.warning("cluster: metrics publication failed: %s", _line(e))
            await asyncio.sleep(every)

    async def nodes_metrics(self) -> dict[str, Any]:
        """Every live process's last published figures, by node id (none while the bus is
        down)."""
        assert self.redis is not None
        if not self.bus.ok:
            return {}
        nodes = sorted(
            n.decode() if isinstance(n, bytes) else str(n)
            for n in await self.redis.smembers(self.nodes_key)
        )
        if not nodes:
            return {}
        found = await self.redis.mget([self.metrics_key(n) for n in nodes])
        return {n: json.loads(v) for n, v in zip(nodes, found, strict=True) if v is not None}

    async def _share_tables(self) -> None:
        """Every second: publish this process's tables, read the others'."""
        while True:
            try:
                if self.bus.ok:
                    await asyncio.wait_for(self._publish_tables(), 2 * B.TIMEOUT_S)
                    await asyncio.wait_for(self._read_tables(), 2 * B.TIMEOUT_S)
            except Exception as e:
                log.warning("cluster: table list sync failed: %s", _line(e))
            await asyncio.sleep(SHARE_EVERY_S)

    async def publish_tables(self) -> None:
        """Publish this process's tables now (quick match: before it lets the next one in)."""
        await self._publish_tables()

    async def table_made(self) -> None:
        """A table was made here: publish now, so that the other processes find it by its
        code as soon as its creator has it (a failure is logged: the list catches up
        within a second)."""
        try:
            await self._publish_tables()
        except Exception as e:
            log.warning("cluster: table list publication failed: %s", _line(e))

    async def _publish_tables(self) -> None:
        assert self.redis is not None
        if not self.bus.ok:
            return  # published in full when it is back (``_bus_back``)
        async with self._publishing:  # a later state is never overwritten by an earlier one
            await self._publish_now()

    async def _publish_now(self) -> None:
        assert self.redis is not None
        cur = {
            tid: json.dumps(self._summary(t), separators=(",", ":"))
            for tid, t in self.lobby.tables.items()
            if t.status != "closed"
        }
        changed = {str(k): v for k, v in cur.items() if self._published.get(k) != v}
        removed = [str(k) for k in self._published if k not in cur]
        if changed or removed:
            async with self.redis.pipeline(transaction=False) as p:
                if changed:
                    p.hset(self.tables_key(self.node), mapping=changed)  # type: ignore[arg-type]
                if removed:
                    p.hdel(self.tables_key(self.node), *removed)
                await p.execute()
            self._published = cur

    def _summary(self, t: Any) -> dict[str, Any]:
        """A table's summary as published: what its ``GET /api/tables/{ref}`` answers
        (``Lobby.describe``), and for a private table the players its id opens to."""
        d = self.lobby.describe(t)
        if t.cfg.private:
            who = {t.cfg.creator_id, *(s.player_id for s in t.seats)}
            who.update(c.player_id for c in t.spectators)
            d[ADMITS] = sorted(p for p in who if p is not None and t.admits(p))
        return d

    async def lookup(self, ref: int | str, viewer: int | None) -> dict[str, Any] | None:
        """``GET /api/tables/{ref}`` of a table another process runs: its summary as that
        process published it, the same body as its owner answers. ``ref``: an id, or a
        code in upper case; ``viewer``: the caller's player id (None: anonymous). The
        owner's rule (``Lobby.find``): a private table by code for anyone, by id only for
        its creator, its seated players and those watching it. None: no such table of
        another process (after reading the summaries fresh from Redis when the cached copy
        had no answer: it is up to a second old). TableError ``unavailable``: Redis
        cannot be read now."""
        from fujian_mahjong.server.table import TableError

        if ref in (self.lobby.tables if isinstance(ref, int) else self.lobby.codes):
            return None  # this process runs it: its own answer stands
        found = self._cached(ref, viewer)
        if found is None:
            try:
                await asyncio.wait_for(asyncio.shield(self._refresh()), self.lease_s)
            except Exception as e:
                log.warning("cluster: reading the table list failed: %s", _line(e))
                raise TableError(
                    "unavailable", "the other servers' tables cannot be read now; try again"
                ) from None
            found = self._cached(ref, viewer)
        return found

    def _cached(self, ref: int | str, viewer: int | None) -> dict[str, Any] | None:
        tid = ref if isinstance(ref, int) else self.remote_codes.get(ref)
        d = self.remote_tables.get(tid) if tid is not None else None
        if d is None:
            return None
        if isinstance(ref, int) and d.get("private") and viewer not in d.get(ADMITS, ()):
            return None  # the same answer as for no table at all
        return {k: v for k, v in d.items() if k != ADMITS}

    def _refresh(self) -> asyncio.Future[list[str]]:
        """One read of the summaries for every lookup that waits meanwhile (a flood of
        lookups of unknown tables costs Redis one read at a time)."""
        f = self._refreshing
        if f is None or f.done():
            f = self._refreshing = asyncio.ensure_future(self._fetch_tables())
            # retrieved even when every waiter gave up
            f.add_done_callback(lambda x: x.cancelled() or x.exception())
        return f

    async def _read_tables(self) -> None:
        dead = await self._fetch_tables()
        if dead:
            assert self.redis is not None
            # a dead process's list goes with it (its tables reappear under their new owner)
            async with self.redis.pipeline(transaction=False) as p:
                for n in dead:
                    p.srem(self.nodes_key, n)
                    p.delete(self.tables_key(n))
                await p.execute()

    async def fresh_tables(self) -> dict[int, dict[str, Any]]:
        """The other live processes' tables as they last published them, read from Redis
        now (the cached ``remote_tables`` is up to a second old); the cache is updated.
        Quick match: RoomError 503 ``busy`` when Redis cannot be read."""
        from redis.exceptions import RedisError

        from fujian_mahjong.server.rooms import RoomError

        try:
            await self._fetch_tables()
        except RedisError as e:
            log.warning("cluster: reading the table list failed: %s", _line(e))
            raise RoomError(503, "busy", "quick match is busy; try again") from None
        return self.remote_tables

    async def _fetch_tables(self) -> list[str]:
        """Read the other live processes' tables into ``remote_tables`` / ``remote_owner``;
        the processes that are registered but dead."""
        assert self.redis is not None
        nodes = sorted(
            n.decode() if isinstance(n, bytes) else str(n)
            for n in await self.redis.smembers(self.nodes_key)
        )
        alive = await self.redis.mget([self.alive_key(n) for n in nodes]) if nodes else []
        live = [n for n, a in zip(nodes, alive, strict=True) if a is not None]
        dead = [n for n, a in zip(nodes, alive, strict=True) if a is None]
        self.alive_nodes = set(live)
        out: dict[int, dict[str, Any]] = {}
        owner: dict[int, str] = {}
        others = [n for n in live if n != self.node]
        async with self.redis.pipeline(transaction=False) as p:
            for n in others:
                p.hgetall(self.tables_key(n))
            results = await p.execute()
        for n, h in zip(others, results, strict=True):
            for k, v in h.items():
                out[int(k)] = json.loads(v)
                owner[int(k)] = n
        self.remote_tables = out
        self.remote_owner = owner
        self.remote_codes = {str(t.get("code")): tid for tid, t in out.items()}
        return dead

    def open_tables(self) -> list[dict[str, Any]]:
        """The open public tables of every live process, by id."""
        local = {
            t.id: self.lobby.describe(t)
            for t in self.lobby.tables.values()
            if not t.cfg.private and t.status != "closed"
        }
        remote = {k: t for k, t in self.remote_tables.items() if not t.get("private")}
        merged = {**remote, **local}
        return [merged[k] for k in sorted(merged)]

    def metrics(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "leases": len(self.leases.held),
            "takeovers": self.takeovers,
            "remote_sockets": len(self.bound),
            "proxies": len(self.proxies),
            "nodes_alive": len(self.alive_nodes),
            "bus_ok": self.bus.ok,
            "bus_failures": getattr(self.bus, "failures", 0),
            "bus_rejected": getattr(self.bus, "rejected", 0),
        }


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
