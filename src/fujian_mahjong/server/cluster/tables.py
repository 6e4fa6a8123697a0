"""The table list that every process of a cluster shares through Redis, and quick match
across them (docs/deploy.md, "Several processes"): each process publishes its tables'
summaries to a hash of its own and reads the others'; ``GET /api/tables/{ref}`` of another
process's table answers its published summary; quick match takes a room's lock in Redis and
may seat a player at another process's table (a ``Call`` over the bus). ``SharedTables`` is
the part of ``Cluster`` that does it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import TYPE_CHECKING, Any

from fujian_mahjong.server.cluster import bus as B

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from redis.asyncio import Redis

    from fujian_mahjong.server.lobby import Lobby
    from fujian_mahjong.server.rooms import RoomService

log = logging.getLogger("fjmj.cluster")

# how often each process publishes its tables' summaries and reads the others'
SHARE_EVERY_S = 1.0
# how long a quick match's lock is held at most (it expires by itself if its holder died)
# and how long a quick match waits for it, in leases (at least 10 s)
QM_LOCK_LEASES = 4.0
# a private table's published summary also carries the players its id opens to (its owner's
# rule, ``TableActor.admits``): other processes answer a lookup by id with it; never shown
ADMITS = "_admits"


class SharedTables:
    """``Cluster``'s shared table list and quick match (a mixin: the state is the
    cluster's)."""

    if TYPE_CHECKING:
        lobby: Lobby
        node: str
        prefix: str
        lease_s: float
        redis: Redis | None
        bus: B.Bus
        remote_tables: dict[int, dict[str, Any]]
        remote_owner: dict[int, str]
        remote_codes: dict[str, int]
        alive_nodes: set[str]
        _refreshing: asyncio.Future[list[str]] | None
        _published: dict[int, str]
        _publishing: asyncio.Lock

        def alive_key(self, node: str) -> str: ...
        def tables_key(self, node: str) -> str: ...
        @property
        def nodes_key(self) -> str: ...
        async def _ask(
            self,
            node: str,
            op: str,
            ref: Any,
            pid: int,
            addr: str,
            args: list[Any],
            timeout: float,
        ) -> tuple[str, Any]: ...

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


def _line(e: BaseException) -> str:
    s = str(e)
    return f"{type(e).__name__}: {s.splitlines()[0][:200] if s else ''}"
