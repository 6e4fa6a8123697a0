"""The WebSocket protocol's dispatcher (docs/protocol.md): one client text frame in, the
table actor's command out. It knows nothing of sockets: the endpoint in ``server/routes/socket.py``
feeds it frames from a real WebSocket, the tests feed it frames from an in-memory client
(``Conn`` with a ``RecordingTransport``)."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any, Protocol, cast

from fujian_mahjong.server import commands as C
from fujian_mahjong.server import protocol as P
from fujian_mahjong.server.conn import Conn
from fujian_mahjong.server.store import STORE_FAULTS
from fujian_mahjong.server.table import TableActor, TableError

log = logging.getLogger("fjmj.server")

if TYPE_CHECKING:
    from fujian_mahjong.server.lobby import Lobby
    from fujian_mahjong.server.ratelimit import RateLimiter
    from fujian_mahjong.server.store import Store

# no client needs more than this in one message; more closes the connection
MAX_TEXT = 8192
# the close code of a connection whose token was revoked (logout); docs/protocol.md
CLOSE_LOGGED_OUT = 4001
# hints being prepared per player at a time, over all its tables
HINTS_PER_PLAYER = 1


# the answer to a hello or a join the database could not answer now (docs/protocol.md, ``error``)
RECONNECT_STORE_FAULT = "the server cannot reach its database now; connect again shortly"


class SocketCluster(Protocol):
    """What the dispatcher asks of the cluster (server/cluster/'s ``Cluster``, which sits
    above it: docs/architecture.md, "Layers")."""

    def broadcast_logout(
        self, player_id: int, code: int, reason: str, token: str | None
    ) -> None: ...
    def remote_table(self, ref: Any, addr: str) -> object | None: ...
    def unbind(self, conn: Conn) -> None: ...
    async def intercept(self, conn: Conn, text: str) -> bool: ...
    def is_proxy(self, conn: Conn) -> bool: ...


def actor_of(conn: Conn) -> TableActor | None:
    """The table actor ``conn`` has joined. ``Conn.table`` names it only as the layers below
    the table may (``ports.TableRef``); a ``TableActor`` is all that ever binds itself there
    (``TableActor.join``), so the cast is exact."""
    return cast("TableActor | None", conn.table)


class Dispatcher:
    """Routes client messages to the lobby and the table actors."""

    def __init__(self, store: Store, lobby: Lobby, misses: RateLimiter) -> None:
        self.store = store
        self.lobby = lobby
        # misses of table lookups per address: a private table's 5-letter code (24^5) must
        # not be found by trying codes (REST GET /api/tables/{ref} and WebSocket join)
        self.misses = misses
        # the open connections of each player that said hello (closed at logout)
        self.by_player: dict[int, set[Conn]] = {}
        # several processes (``--redis``): frames of a table owned by another process go
        # there (server/cluster/); None: one process
        self.cluster: SocketCluster | None = None
        # hints being prepared (each a task of its own: see ``_hint``), and how many per
        # player: one at a time, whatever the tables (they share the search worker with
        # every bot of the process; docs/deploy.md, "Fair under load")
        self.hints: set[asyncio.Task[None]] = set()
        self.hinting: dict[int, int] = {}

    def close_player(
        self,
        player_id: int,
        code: int = CLOSE_LOGGED_OUT,
        reason: str = "logged out",
        token: str | None = None,
        local: bool = False,
    ) -> int:
        """Close this player's open connections (only those that said hello with ``token``
        when it is given): the token was revoked. Each is closed with ``code`` after what
        is already queued, and its table keeps the seat for the grace period as for any
        lost connection. Returns how many were closed here (with several processes the
        others close theirs too; ``local``: only here)."""
        conns = [
            c
            for c in self.by_player.get(player_id, ())
            if not c.closed and (token is None or c.token == token)
        ]
        for c in conns:
            c.close(reason, code)
            self.disconnected(c)
        if self.cluster is not None and not local:
            # several processes: that player's sockets on the others close too
            self.cluster.broadcast_logout(player_id, code, reason, token)
        return len(conns)

    def _forget(self, conn: Conn) -> None:
        if conn.player_id is not None:
            conns = self.by_player.get(conn.player_id)
            if conns is not None:
                conns.discard(conn)
                if not conns:
                    del self.by_player[conn.player_id]

    def check_misses(self, addr: str) -> None:
        wait = self.misses.retry_after(addr)
        if wait > 0:
            raise TableError(
                "rate_limited", f"too many unknown tables asked for; try again in {wait:.0f} s"
            )

    def code_like(self, ref: Any) -> bool:
        """A lookup by something shaped like a table code (ids are not secret)."""
        return isinstance(ref, str) and self.lobby.code_like(ref)

    def find(self, ref: Any, viewer: int | None, addr: str) -> TableActor:
        if self.cluster is not None:
            # several processes: a table run by another one answers REST's calls from there
            if self.code_like(ref):
                self.check_misses(addr)
            try:
                return self.lobby.find(ref, viewer)
            except TableError as e:
                remote = self.cluster.remote_table(ref, addr) if e.code == "no_table" else None
                if remote is not None:
                    return remote  # type: ignore[return-value]
        return self._find(ref, viewer, addr)

    def _find(self, ref: Any, viewer: int | None, addr: str) -> TableActor:
        if not self.code_like(ref):
            return self.lobby.find(ref, viewer)
        self.check_misses(addr)
        try:
            return self.lobby.find(ref, viewer)
        except TableError as e:
            if e.code == "no_table":
                self.misses.hit(addr)
            raise

    def disconnected(self, conn: Conn) -> None:
        """The client is gone: its table keeps the seat for the grace period (R11)."""
        if self.cluster is not None:
            self.cluster.unbind(conn)  # its table's owner is told, if another process
        t = actor_of(conn)
        if t is not None:
            t.submit(C.Disconnected(conn))
        conn.close("disconnected")
        self._forget(conn)

    async def handle(self, conn: Conn, text: str) -> None:
        """One client message; a bad one is answered with ``error`` (never an exception)."""
        try:
            if self.cluster is not None and await self.cluster.intercept(conn, text):
                return  # forwarded to the process that owns the table
            await self._handle(conn, text)
        except (P.ProtocolError, TableError) as e:
            conn.error(e.code, e.message, getattr(e, "bad", True))
        except STORE_FAULTS:
            kind = P.frame_type(text) if actor_of(conn) is None else None
            if kind in ("hello", "join"):
                # a reconnect (its hello, then its join taking its seat back) the database
                # could not answer: ``unavailable``, which the client makes again after its
                # back-off. Answered ``store_unavailable`` it was never made again: the
                # socket stayed open at no table until the seat's grace period made its
                # player the leaver (R11)
                conn.error("unavailable", RECONNECT_STORE_FAULT, False)
                return
            if kind == "leave":
                # told ``left`` already: the table holds the leave and stores it when the
                # store is back (server/recovery.py); "try again" would only be refused
                return
            # the database cannot take the write now: nothing changed, the client may retry
            conn.send(
                {
                    "type": "error",
                    "code": "store_unavailable",
                    "message": "the server cannot save right now; try again shortly",
                },
                stream=False,
            )

    def _hint(self, conn: Conn, t: TableActor) -> None:
        """A hint is prepared in a task of its own: the bot thinks outside the table's actor
        (R12: no other seat waits for it) and outside this connection's reading, so the
        player's next messages — an act before the deadline — are handled meanwhile. A
        player has ``HINTS_PER_PLAYER`` hint being prepared at a time (then
        ``rate_limited``), at one table or several."""
        player = conn.player_id if conn.player_id is not None else -1
        if self.hinting.get(player, 0) >= HINTS_PER_PLAYER:
            raise TableError("rate_limited", "a hint is being prepared; wait for it")
        self.hinting[player] = self.hinting.get(player, 0) + 1

        async def run() -> None:
            try:
                await t.hints.ask(conn)
            except (P.ProtocolError, TableError) as e:
                conn.error(e.code, e.message)
            except Exception:
                log.exception("unexpected error preparing a hint")
                conn.error("server_error", "the hint could not be prepared")

        def done(task: asyncio.Task[None]) -> None:
            self.hints.discard(task)
            self.hinting[player] -= 1
            if not self.hinting[player]:
                del self.hinting[player]

        task = asyncio.get_running_loop().create_task(run())
        self.hints.add(task)
        task.add_done_callback(done)

    async def _handle(self, conn: Conn, text: str) -> None:
        store = self.store
        if len(text) > MAX_TEXT:
            conn.error("too_long", "message too long (8 KiB at most); closing")
            conn.close("message too long")
            return
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):  # also an integer of over 4300 digits
            raise P.ProtocolError("bad_message", "not valid JSON") from None
        msg = P.parse_client(data)
        if isinstance(msg, P.Ping):
            conn.send({"type": "pong"}, stream=False)
            return
        if isinstance(msg, P.Hello):
            player = await store.player_for_token(msg.token)
            if player is None:
                raise P.ProtocolError("bad_token", "unknown, expired or revoked token")
            if conn.player_id is not None and conn.player_id != player.id:
                raise P.ProtocolError("already_hello", "this connection is another player's")
            conn.player_id = player.id
            conn.name = player.name
            conn.token = msg.token
            if not conn.closed:
                self.by_player.setdefault(player.id, set()).add(conn)
            conn.send(
                {
                    "type": "welcome",
                    "v": P.PROTOCOL_VERSION,
                    "player_id": player.id,
                    "name": player.name,
                },
                stream=False,
            )
            return
        if conn.player_id is None:
            raise P.ProtocolError("not_authenticated", "send hello with your token first")
        if isinstance(msg, P.Join):
            # a token revoked (logout) or expired since the hello opens no table (a socket of
            # another process: checked there, server/cluster/; the bus carries no token)
            proxy = self.cluster is not None and self.cluster.is_proxy(conn)
            if not proxy and (
                conn.token is None or await store.player_for_token(conn.token) is None
            ):
                self._forget(conn)
                conn.player_id = conn.token = None
                raise P.ProtocolError("bad_token", "unknown, expired or revoked token")
            # a private table is found by its code only (or by its creator / its seated
            # players): its sequential id must not let anyone spectate it
            t = self.find(msg.table, conn.player_id, conn.addr)
            as_ = msg.as_

            await t.ask(C.Join(conn, as_))
            return
        joined = actor_of(conn)
        if joined is None:
            raise P.ProtocolError("not_joined", "join a table first")
        t = joined
        if isinstance(msg, P.Ready | P.Next):
            await t.ask(C.Ready(conn))
        elif isinstance(msg, P.Act):
            await t.ask(C.Act(conn, msg.seq, msg.action))
        elif isinstance(msg, P.Hint):
            self._hint(conn, t)
        elif isinstance(msg, P.Auto):
            await t.ask(C.SetAuto(conn, msg.on))
        elif isinstance(msg, P.Leave):
            await t.ask(C.Leave(conn))
        elif isinstance(msg, P.Chat):
            await t.ask(C.Chat(conn, msg.phrase))
        elif isinstance(msg, P.Dissolve):
            await t.ask(C.Dissolve(conn, msg.accept))
