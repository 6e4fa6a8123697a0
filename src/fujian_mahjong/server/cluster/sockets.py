"""Socket forwarding between the processes of a cluster (docs/deploy.md, "Several
processes"): a socket of this process at a table another process owns (``Binding``: its
frames go there as ``FromSocket``, the owner's messages come back as ``ToSocket``), and a
socket of another process at a table owned here (``Proxy``: a ``Conn`` over a
``RemoteTransport``, run through this process's own dispatcher). ``Sockets`` is the part of
``Cluster`` that does it; the messages are server/cluster/bus.py's."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from fujian_mahjong.server import commands as C
from fujian_mahjong.server.cluster import bus as B
from fujian_mahjong.server.commands import TableCommand
from fujian_mahjong.server.conn import Conn

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from fujian_mahjong.server.cluster.lease import Leases
    from fujian_mahjong.server.lobby import Lobby
    from fujian_mahjong.server.settings import Settings
    from fujian_mahjong.server.store import Store
    from fujian_mahjong.server.ws import Dispatcher

log = logging.getLogger("fjmj.cluster")

# the close code of a socket whose table moved to another process (service restart): the
# client reconnects and joins again (docs/protocol.md, "Reconnecting")
CLOSE_MOVED = 1012
MOVED = "the table moved to another server; reconnect"
RESYNC = "the connection to the table's server was interrupted; reconnect"
UNAVAILABLE = "the table is moving to another server; join again shortly"
# how long a join forwarded to the table's owner may go unanswered. Redis does not keep a
# message for a process that is not subscribed: a join sent while the owner was still
# subscribing again after an outage (its back-off, then its probe) is lost, and the socket
# would wait for ever. Past this the socket is closed with CLOSE_MOVED, as a resync is, and
# the client joins again. (A join the owner holds for a restore of its own, up to
# 2 × lease_s + 10 s, is closed too and simply made again.)
JOIN_ANSWER_S = 2 * B.TIMEOUT_S + B.BACKOFF_MAX_S + 2.0


class RemoteTransport:
    """The owner's side of a socket held by another process: every message goes back over
    Redis to that process, which writes it to the socket."""

    def __init__(self, cluster: Sockets, node: str, cid: int) -> None:
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

    def __init__(self, cluster: Sockets, node: str, ref: Any, addr: str) -> None:
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

    async def ask(self, cmd: TableCommand) -> Any:
        """A table command (server/commands.py) for a table another process runs: a bot
        call goes there through the bus; a join is refused (the client joins again, and the
        socket layer finds where the table now is)."""
        match cmd:
            case C.AddBot(player_id, kind):
                return await self.add_bot(player_id, kind)
            case C.RemoveBot(player_id):
                return await self.remove_bot(player_id)
            case C.Join(conn, as_):
                return await self.join(conn, as_)
        from fujian_mahjong.server.table import TableError

        raise TableError("no_table", "that table runs on another process")


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
    join_by: float | None = None  # a join forwarded and not answered yet: its deadline


def _table_id(ref: Any, codes: dict[str, int]) -> int | None:
    """A table reference as a client gives it (an id, its digits, or a code looked up in
    ``codes``) as a table id; None when it names none."""
    if isinstance(ref, int) and not isinstance(ref, bool):
        return ref
    if isinstance(ref, str) and ref.strip().isascii() and ref.strip().isdigit():
        return int(ref.strip()) if len(ref.strip()) <= 18 else None
    if isinstance(ref, str):
        return codes.get(ref.strip().upper())
    return None


class Sockets:
    """``Cluster``'s socket forwarding (a mixin: the state is the cluster's)."""

    if TYPE_CHECKING:
        # the tables this process let go whose lease row may still name it (``let_go_join``)
        let_go: dict[int, float]
        let_go_codes: dict[str, int]
        settings: Settings
        store: Store
        lobby: Lobby
        dispatcher: Dispatcher | None
        node: str
        lease_s: float
        leases: Leases
        redis: Redis | None
        bus: B.Bus
        draining: bool
        bound: dict[int, Binding]
        proxies: dict[tuple[str, int], Proxy]
        remote_owner: dict[int, str]
        remote_codes: dict[str, int]
        _restoring: set[asyncio.Future[None]]

        def post(self, node: str, msg: B.Message) -> bool: ...
        def alive_key(self, node: str) -> str: ...
        async def call_remote(
            self, node: str, op: str, ref: Any, pid: int, addr: str, args: list[Any]
        ) -> Any: ...
        async def _restore(self, got: dict[int, int]) -> None: ...

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

    def remote_table(self, ref: Any, addr: str) -> RemoteTable | None:
        """A table another process runs (from the shared list), for REST calls."""
        tid = _table_id(ref, self.remote_codes)
        node = self.remote_owner.get(tid) if tid is not None else None
        if node is None:
            return None
        return RemoteTable(self, node, ref, addr)

    def proxy_closed(self, node: str, cid: int) -> None:
        p = self.proxies.pop((node, cid), None)
        if p is not None:
            p.queue.put_nowait(None)

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
        if self._restoring and '"join"' in text:
            # a table this process is taking over is not in its lobby before its restore
            # ends: a join for it (from a socket here or forwarded) waits for the restore
            await asyncio.wait(set(self._restoring), timeout=2 * self.lease_s + 10)
        if self.is_proxy(conn):
            # a join another process routed here by a lease row read before this one let
            # the table go: it joins again shortly (a socket here reads the row itself,
            # ``_route``, and goes to the next owner as soon as the row names it)
            if self.let_go and '"join"' in text and self.let_go_join(text):
                conn.error("unavailable", UNAVAILABLE, False)
                return True
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
                # the owner's first answer (seated, or why not) clears it: ``_on_message``
                b.join_by = time.monotonic() + JOIN_ANSWER_S
        if b is None:
            return False
        if b.stale or not self.bus.ok:
            conn.error("unavailable", "the table's server cannot be reached now; please wait")
            return True
        self.post(b.node, B.FromSocket(conn.id, conn.player_id, conn.name, conn.addr, text))
        return True

    def let_go_join(self, text: str) -> bool:
        """A join for a table this process has just let go (dropped, or handed over while
        draining) whose lease row may still name it: the others route the join here, and
        this lobby no longer has the table. Answered ``unavailable``, which the client makes
        again after its back-off (never ``no_table``, which it does not): by then the row
        names the next owner (docs/deploy.md, "Rolling restarts")."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            return False
        if not isinstance(data, dict) or data.get("type") != "join":
            return False
        tid = _table_id(data.get("table"), self.let_go_codes)
        if tid is None or tid in self.lobby.tables:
            return False
        until = self.let_go.get(tid)
        if until is None:
            return False
        if time.monotonic() < until:
            return True
        del self.let_go[tid]
        return False

    def expire_joins(self, now: float) -> None:
        """Close the sockets whose forwarded join went unanswered past its deadline
        (``JOIN_ANSWER_S``): the client joins again."""
        for b in list(self.bound.values()):
            if b.join_by is not None and now > b.join_by:
                self.resync(b.conn)

    def resync(self, conn: Conn) -> None:
        """Unbind this socket and close it with CLOSE_MOVED: its client joins again and gets
        the table as it is now."""
        self.unbind(conn)
        conn.close(RESYNC, CLOSE_MOVED)

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
            if live and owner == self.node:
                # this process holds its lease but its lobby let it go (a drop, a drain's
                # hand-over, a restore not ended): the client joins again shortly
                raise TableError("unavailable", UNAVAILABLE, False)
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
                # a live table that no process runs yet (its lease neither held nor taken
                # in time): the client joins again, never ``no_table``
                raise TableError("unavailable", UNAVAILABLE, False)
            await asyncio.sleep(0.1)

    async def _alive(self, node: str) -> bool:
        assert self.redis is not None
        return bool(await asyncio.wait_for(self.redis.exists(self.alive_key(node)), B.TIMEOUT_S))


def _line(e: BaseException) -> str:
    s = str(e)
    return f"{type(e).__name__}: {s.splitlines()[0][:200] if s else ''}"
