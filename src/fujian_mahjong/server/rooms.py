"""Rooms by stake (场) and quick match (docs/economy.md, "Rooms and quick match").

The operator configures room **tiers** (新手场, 初级场, 中级场, 高级场 by default) in the TOML
file of ``fjmj serve --config FILE``; each tier exists once per rules profile, as one
**room** with its own stakes (stake, base, fee, cap) and the balance bounds a player must be
within to enter (``min_balance`` ≤ balance ≤ ``max_balance``; no upper bound when
``max_balance`` is absent). A room's id is ``"{profile}:{tier}"`` (``"fuzhou-tcy:novice"``).

``POST /api/quickmatch {"room"}`` seats the player at a waiting table of the room (the one
with the most humans waiting) or at a new one, and answers its id; the player then joins
it over ``/ws`` as usual (the seat is theirs, kept for the grace period like a lost
connection's). ``quickmatch_wait_s`` after a room table was made, its free seats are filled
with bots (on the lobby's injected clock) and the match starts once every human is ready.
A room itself (``Room``, the default tiers) is server/settings.py's, and the configuration
file that sets the tiers is read by server/config.py (both re-exported here).

With several processes (``--redis``, server/cluster/) quick match and the rooms' ``playing``
counts cover every process's tables: one quick match per room (and per player) at a time in
the whole cluster, under a Redis lock; it reads the other processes' table summaries fresh
from Redis, seats the player at the best waiting table whichever process runs it (that
process seats them) or at a new table run here, and publishes the change before the next
quick match may look. The bots of a table are timed by the process that runs it (after a
failover, by the one that took it: ``Lobby.restore`` schedules them again)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Protocol

from fujian_mahjong.server import commands as C
from fujian_mahjong.server.config import ConfigError, load_config, parse_config
from fujian_mahjong.server.settings import DEFAULT_TIERS, Room, Settings, default_rooms

if TYPE_CHECKING:
    from fujian_mahjong.server.clock import Clock, Timer
    from fujian_mahjong.server.ports import ClusterPort
    from fujian_mahjong.server.table import TableActor

__all__ = [
    "DEFAULT_TIERS",
    "ConfigError",
    "Room",
    "RoomError",
    "RoomService",
    "default_rooms",
    "load_config",
    "parse_config",
]

log = logging.getLogger("fjmj.rooms")


class RoomError(Exception):
    """A refused quick match: HTTP ``status``, ``code`` and one line."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class LobbyLike(Protocol):
    """What quick match needs of the lobby that owns it (server/lobby.py's ``Lobby``, which
    sits above the rooms: docs/architecture.md, "Layers")."""

    @property
    def settings(self) -> Settings: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def tables(self) -> dict[int, TableActor]: ...
    @property
    def table_rooms(self) -> dict[int, str]: ...
    @property
    def cluster(self) -> ClusterPort | None: ...

    async def create(
        self,
        creator_id: int,
        profile: str = ...,
        players: int = ...,
        bots: int = ...,
        turn_seconds: float | None = ...,
        hands: int = ...,
        private: bool = ...,
        stakes: dict[str, int] | None = ...,
        room: str | None = ...,
        max_balance: int | None = ...,
        claim_window: str | None = ...,
        bot_kind: str | None = ...,
    ) -> TableActor: ...


class RoomService:
    """The rooms of this server and their quick match (one per lobby)."""

    def __init__(self, lobby: LobbyLike) -> None:
        self.lobby = lobby
        self._lock: asyncio.Lock | None = None
        self.timers: dict[int, Timer] = {}

    @property
    def rooms(self) -> tuple[Room, ...]:
        return tuple(getattr(self.lobby.settings, "rooms", ()) or ())

    def get(self, room_id: str) -> Room | None:
        return next((r for r in self.rooms if r.id == room_id), None)

    def tables_of(self, room_id: str) -> list[TableActor]:
        return [
            t
            for tid, t in self.lobby.tables.items()
            if self.lobby.table_rooms.get(tid) == room_id and t.status != "closed"
        ]

    def playing(self, room_id: str) -> int:
        """Humans seated at the live tables of this room (with ``--redis``: of every live
        process, from the shared table summaries, at most a second old)."""
        humans = {t.id: sum(1 for s in t.seats if s.human) for t in self.tables_of(room_id)}
        cluster = self.lobby.cluster
        if cluster is not None:
            for tid, d in cluster.remote_tables.items():
                if tid not in humans and d.get("room") == room_id and d.get("status") != "closed":
                    humans[tid] = int(d.get("humans") or 0)
        return sum(humans.values())

    def listing(self, profile: str | None = None) -> list[dict[str, Any]]:
        """``GET /api/rooms``: each room with its players now and ``house_bots`` (its bots
        play for the house account; false: a table alone with bots is practice,
        docs/economy.md)."""
        house = bool(getattr(self.lobby.settings, "house_bots", True))
        return [
            {**r.json(self.playing(r.id)), "house_bots": house}
            for r in self.rooms
            if profile is None or r.profile == profile
        ]

    async def quickmatch(self, player_id: int, name: str, balance: int | None, room_id: str) -> int:
        """Seat this player in the room (a waiting table, or a new one) and return the
        table's id. ``balance``: the account's silver (None: a guest, who plays for points
        and is never refused by the bounds, as at any table)."""
        room = self.get(room_id)
        if room is None:
            raise RoomError(404, "no_room", f"no room {room_id[:60]!r}")
        if balance is not None and balance < room.min_balance:
            raise RoomError(
                409,
                "balance_too_low",
                f"{room.name_en} needs at least {room.min_balance} silver; you have {balance}",
            )
        if balance is not None and room.max_balance is not None and balance > room.max_balance:
            raise RoomError(
                409,
                "balance_too_high",
                f"{room.name_en} takes at most {room.max_balance} silver; you have {balance}",
            )
        cluster = self.lobby.cluster
        if cluster is not None:
            async with cluster.quickmatch_lock(room.id, player_id):
                return await self._match(room, player_id, name, await cluster.fresh_tables())
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            return await self._match(room, player_id, name, None)

    async def _match(
        self, room: Room, player_id: int, name: str, remote: dict[int, dict[str, Any]] | None
    ) -> int:
        """Quick match under the lock. ``remote``: the other processes' table summaries,
        fresh (None: one process)."""
        others = {
            tid: d
            for tid, d in (remote or {}).items()
            if tid not in self.lobby.tables and d.get("status") != "closed"
        }
        for t in list(self.lobby.tables.values()):
            if t.status == "closed" or t.seat_of(player_id) is None:
                continue
            if self.lobby.table_rooms.get(t.id) == room.id:
                return t.id  # already there (a second call, or coming back)
            raise RoomError(
                409, "already_seated", f"you are seated at table {t.id}; leave it first"
            )
        for tid, d in sorted(others.items()):
            if any(
                s.get("player_id") == player_id and not s.get("bot") for s in d.get("seats") or ()
            ):
                if d.get("room") == room.id:
                    return tid
                raise RoomError(
                    409, "already_seated", f"you are seated at table {tid}; leave it first"
                )
        # the waiting tables, the one with the most humans first (then the oldest)
        waiting: list[tuple[int, int, TableActor | None]] = [
            (-sum(1 for s in t.seats if s.human), t.id, t)
            for t in self.tables_of(room.id)
            if t.status == "open" and any(not s.taken for s in t.seats)
        ]
        waiting += [
            (-int(d.get("humans") or 0), tid, None)
            for tid, d in others.items()
            if d.get("room") == room.id
            and d.get("status") == "open"
            and int(d.get("seats_taken") or 0) < int(d.get("players") or 0)
        ]
        cluster = self.lobby.cluster
        for _, tid, local in sorted(waiting, key=lambda w: (w[0], w[1])):
            if local is not None:
                if await self.reserve(local, player_id, name):
                    await self._published()
                    return tid
            elif cluster is not None and tid in (remote or {}):
                node = cluster.remote_owner.get(tid)
                if node is not None and await cluster.reserve_remote(
                    node, tid, room.id, player_id, name
                ):
                    return tid
        from fujian_mahjong.server.table import TableError

        try:
            t = await self.lobby.create(
                player_id,
                room.profile,
                room.players,
                0,
                None,
                room.hands,
                False,
                stakes=room.stakes(),
                room=room.id,
                max_balance=room.max_balance,
            )
        except TableError as e:
            raise RoomError(409, e.code, e.message) from None
        seated = False
        try:
            seated = await self.reserve(t, player_id, name)
        finally:
            if not seated:  # a new table nobody sits at must not linger
                t.submit(C.Close("nobody sat down"))
        if not seated:
            raise RoomError(409, "table_busy", "the new table could not seat you; try again")
        self.schedule_fill(t)
        await self._published()
        return t.id

    async def _published(self) -> None:
        """With ``--redis``: publish this process's tables now, so that the next quick match
        (on any process) sees the seat just given."""
        cluster = self.lobby.cluster
        if cluster is None:
            return
        try:
            await cluster.publish_tables()
        except Exception as e:  # the seat is given; the list catches up within a second
            log.warning("quick match: table list publication failed: %s", e)

    async def reserve(self, t: TableActor, player_id: int, name: str) -> bool:
        """Seat the player at ``t`` (inside its actor); False when it has no free seat or
        has started meanwhile."""
        from fujian_mahjong.server.table import TableError

        try:
            why = await t.ask(C.Reserve(player_id, name))
        except TableError as e:
            if e.code == "already_seated":  # a seat for silver taken meanwhile (a join)
                raise RoomError(409, e.code, e.message) from None
            if e.code == "insufficient_silver":  # the balance moved since it was read
                raise RoomError(409, _balance_code(e.message), e.message) from None
            return False
        if why == "busy":
            return False
        if why is not None:
            raise RoomError(409, _balance_code(str(why)), str(why))
        return True

    def schedule_fill(self, t: TableActor, delay: float | None = None) -> None:
        """``quickmatch_wait_s`` from now, fill the table's free seats with bots."""
        wait = float(getattr(self.lobby.settings, "quickmatch_wait_s", 10.0))
        tid = t.id
        old = self.timers.pop(tid, None)
        if old is not None:
            old.cancel()
        self.timers[tid] = self.lobby.clock.call_later(
            wait if delay is None else delay, lambda: self._due(tid)
        )

    def _due(self, tid: int) -> None:
        self.timers.pop(tid, None)
        t = self.lobby.tables.get(tid)
        if t is None or t.status != "open":
            return

        async def fill() -> None:
            from fujian_mahjong.server.table import TableError

            # bots only join humans: a table everyone left has closed already
            while t.status == "open" and t.has_humans and any(not s.taken for s in t.seats):
                try:
                    await t.add_bot(t.cfg.creator_id)
                except TableError:
                    return
            if t.status == "open" and t.has_humans:
                # the match starts when the humans not yet connected join (table.auto_ready);
                # one who never comes is freed after the grace period: look again then
                self.schedule_fill(t)

        t.post(fill)

    def forget(self, tid: int) -> None:
        timer = self.timers.pop(tid, None)
        if timer is not None:
            timer.cancel()


def _balance_code(why: str) -> str:
    """The quick match's code for ``economy.can_sit``'s reason (docs/economy.md)."""
    return "balance_too_high" if "at most" in why else "balance_too_low"
