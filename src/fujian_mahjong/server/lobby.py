"""The lobby: the table actors living in this process, found by id or by code, and the
rooms by stake with their quick match (server/rooms.py)."""

from __future__ import annotations

import logging
import secrets
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from fujian_mahjong.errors import MahjongError
from fujian_mahjong.rules import BUILTIN, get_profile
from fujian_mahjong.server import commands as C
from fujian_mahjong.server.clock import Clock, LoopClock
from fujian_mahjong.server.deals import DealSource, SecretDeals
from fujian_mahjong.server.economy import escape_penalty
from fujian_mahjong.server.rooms import RoomService
from fujian_mahjong.server.scheduler import warm_bots
from fujian_mahjong.server.settings import Settings
from fujian_mahjong.server.store import Store
from fujian_mahjong.server.table import Seat, TableActor, TableConfig, TableError
from fujian_mahjong.server.workers import WorkerPool

if TYPE_CHECKING:
    from fujian_mahjong.server.ports import ClusterPort

log = logging.getLogger("fjmj.lobby")

# codes are letters only (ids are digits), without look-alikes (I, O)
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LENGTH = 5


class Lobby:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        clock: Clock | None = None,
        deals: DealSource | None = None,
        workers: WorkerPool | None = None,
    ) -> None:
        self.settings = settings
        # the worker processes of the tables' 高手 searches and hints (server/workers.py)
        self.workers = workers
        self.store = store
        self.clock: Clock = clock if clock is not None else LoopClock()
        self.deals: DealSource = deals if deals is not None else SecretDeals()
        self.tables: dict[int, TableActor] = {}
        self.codes: dict[str, int] = {}
        # R11: each live table's stakes as shown by the REST lobby (None: points only)
        self.stakes: dict[int, dict[str, int] | None] = {}
        # the room of each live quick-match table (server/rooms.py)
        self.table_rooms: dict[int, str] = {}
        self.rooms = RoomService(self)
        self.closed_actions = 0  # decisions applied at tables that have closed since
        # bot-only tables being made (or completed by a bot) for each player, counted by
        # bot_tables_of until they exist: parallel requests cannot pass the limit together
        self.bot_tables_making: Counter[int] = Counter()
        self._wall: tuple[float, float] | None = None  # (wall time, clock time) at first use
        # several processes (``--redis``): leases, the shared table list (server/cluster/)
        self.cluster: ClusterPort | None = None

    def wall_time(self) -> float:
        """Seconds since the epoch, moved by the injected clock: the wall time when first
        asked plus the clock's time since (a fake clock's day passes with ``advance``).
        Days (relief) are counted on this."""
        now = self.clock.now()
        if self._wall is None:
            self._wall = (time.time(), now)
        return self._wall[0] + (now - self._wall[1])

    @property
    def actions(self) -> int:
        """Decisions applied by this process since it started (all tables)."""
        return self.closed_actions + sum(t.actions for t in self.tables.values())

    def degraded_tables(self) -> int:
        """Tables waiting for the store to recover (health reports degraded)."""
        return sum(1 for t in self.tables.values() if t.degraded)

    def find(self, ref: Any, player_id: int | None = -1) -> TableActor:
        """A live table by id (int or digits) or by its code; TableError if none.

        With ``player_id`` (a caller from outside: REST, a WebSocket ``join``), a private
        table is found by id only for its creator and its seated players; anyone else needs
        its code (ids are sequential: they must not open private tables). -1: no check."""
        if isinstance(ref, bool):
            ref = str(ref)
        # ids are ASCII digits only: "²".isdigit() is true but int("²") raises
        is_id = isinstance(ref, str) and ref.strip().isascii() and ref.strip().isdigit()
        if isinstance(ref, int) or is_id:
            if isinstance(ref, int):
                t = self.tables.get(ref)
            else:
                digits = ref.strip()
                t = self.tables.get(int(digits)) if len(digits) <= 20 else None
            if (
                t is not None
                and t.cfg.private
                and player_id != -1
                and (player_id is None or not t.admits(player_id))
            ):
                t = None  # the same answer as for no table at all
        elif isinstance(ref, str):
            tid = self.codes.get(ref.strip().upper())
            t = self.tables.get(tid) if tid is not None else None
        else:
            raise TableError("bad_table", "table must be an id or a code")
        if t is None:
            raise TableError("no_table", f"no open table {str(ref)[:20]!r}")
        return t

    @staticmethod
    def code_like(ref: str) -> bool:
        """``ref`` has the shape of a table code (what a brute-force search would try)."""
        r = ref.strip().upper()
        return len(r) == CODE_LENGTH and all(ch in CODE_ALPHABET for ch in r)

    def describe(self, t: TableActor) -> dict[str, Any]:
        """A live table as REST shows it: its summary (with ``practice``: nothing at stake
        for the one account seated now, docs/economy.md), its stakes and escape penalty (R11:
        what a leaver pays once the table plays for silver) and its room (null: not a
        quick-match table)."""
        stakes = self.stakes.get(t.id)
        return {
            **t.presenter.summary(),
            "stakes": stakes,
            "escape_penalty": escape_penalty(stakes),
            "room": self.table_rooms.get(t.id),
        }

    def bot_tables_of(self, player_id: int) -> int:
        """The live tables of this process that ``player_id`` made with a bot at every seat,
        and those being made so."""
        return self.bot_tables_making[player_id] + sum(
            1
            for t in self.tables.values()
            if t.cfg.creator_id == player_id
            and t.status != "closed"
            and all(s.bot for s in t.seats)
        )

    @contextmanager
    def making_bot_table(self, player_id: int, limit: int) -> Iterator[None]:
        """A bot-only table is being made for ``player_id`` (or completed by its last bot):
        refused past ``limit`` (``too_many_tables``), and counted until it exists — the check
        and the count with no await between them."""
        if limit > 0 and self.bot_tables_of(player_id) >= limit:
            raise TableError(
                "too_many_tables",
                f"you have {limit} bot-only tables playing already; wait for one to end",
            )
        self.bot_tables_making[player_id] += 1
        try:
            yield
        finally:
            self.bot_tables_making[player_id] -= 1
            if self.bot_tables_making[player_id] <= 0:
                del self.bot_tables_making[player_id]

    def open_tables(self) -> list[dict[str, Any]]:
        if self.cluster is not None:
            return self.cluster.open_tables()  # every process's tables
        return [
            self.describe(t)
            for t in self.tables.values()
            if not t.cfg.private and t.status != "closed"
        ]

    async def _new_code(self) -> str:
        for _ in range(100):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if code not in self.codes and not await self.store.code_taken(code):
                return code
        raise TableError("busy", "could not find a free table code")

    async def create(
        self,
        creator_id: int,
        profile: str = "fuzhou-tcy",
        players: int = 4,
        bots: int = 0,
        turn_seconds: float | None = None,
        hands: int = 8,
        private: bool = False,
        stakes: dict[str, int] | None = None,
        room: str | None = None,
        max_balance: int | None = None,
        claim_window: str | None = None,
        bot_kind: str | None = None,
    ) -> TableActor:
        """A new table. Its row, its bot seats and its ``stakes`` are stored in one
        transaction before the actor exists, so no join can come before the stakes.
        ``room``: the quick-match room it belongs to, ``max_balance`` its upper bound on
        an account's balance to sit down (economy.can_sit)."""
        if profile not in BUILTIN:
            raise TableError(
                "bad_profile", f"unknown profile {profile!r}; expected one of {', '.join(BUILTIN)}"
            )
        prof = get_profile(profile)
        if not prof.players_min <= players <= prof.players_max:
            raise TableError(
                "bad_players",
                f"{profile} plays with {prof.players_min}-{prof.players_max} players, not {players}",
            )
        if not 0 <= bots <= players:
            raise TableError("bad_bots", f"bots must be 0-{players}, got {bots}")
        ts = self.settings.turn_seconds if turn_seconds is None else float(turn_seconds)
        if bots:
            await warm_bots([bot_kind])
        code = await self._new_code()
        bot_seats = list(range(players - bots, players))
        # docs/economy.md: a room table's bots play for the house account (operator option)
        house = room is not None and stakes is not None and self.settings.house_bots
        tid = await self.store.create_table(
            code,
            creator_id,
            profile,
            players,
            ts,
            hands,
            private,
            bot_seats,
            stakes,
            room,
            max_balance if stakes is not None else None,
            bot_kind,
            house,
            claim_window,
        )
        if self.cluster is not None:
            await self.cluster.acquire_new(tid)  # a table made here is run here
        self.stakes[tid] = dict(stakes) if stakes is not None else None
        if room is not None:
            self.table_rooms[tid] = room
        cfg = TableConfig(
            tid, code, creator_id, profile, players, ts, hands, private, claim_window=claim_window
        )
        actor = self._spawn(cfg)
        actor.house_bots = house
        actor.auto_ready = room is not None  # quick match deals without 准备
        for seat in bot_seats:
            actor.seats[seat] = Seat(
                bot=True, bot_kind=bot_kind, name=f"Bot {seat + 1}", ready=True
            )
        if bots == players:
            actor.submit(C.MaybeStart())
        return actor

    def _spawn(self, cfg: TableConfig) -> TableActor:
        actor = TableActor(
            cfg, self.settings, self.store, self.clock, self.deals, on_close=self._closed
        )
        actor.sched.workers = self.workers
        self.tables[cfg.id] = actor
        self.codes[cfg.code] = cfg.id
        actor.start()
        return actor

    def _closed(self, actor: TableActor) -> None:
        if self.tables.pop(actor.id, None) is not None:
            self.closed_actions += actor.actions
        self.codes.pop(actor.cfg.code, None)
        self.stakes.pop(actor.id, None)
        self.table_rooms.pop(actor.id, None)
        self.rooms.forget(actor.id)
        if self.cluster is not None:
            self.cluster.table_closed(actor.id)

    async def restore(self, only: set[int] | None = None) -> int:
        """Bring back every table that was live when the server stopped (crash restore);
        ``only``: these tables (several processes: the leases this process has taken)."""
        n = 0
        entries = await (
            self.store.load_live_tables() if only is None else self.store.load_live_tables(only)
        )
        kinds = (k for e in entries for k in e.get("bot_kinds", {}).values())
        await warm_bots(kinds, refuse=False)
        for entry in entries:
            t = entry["table"]
            cfg = TableConfig(
                t.id,
                t.code,
                t.creator_id,
                t.profile,
                t.players,
                t.turn_seconds,
                t.hands,
                t.private,
                # as it was made (a fixed table came back fast: its pauses then told who
                # was asked, R12)
                claim_window=getattr(t, "claim_window", None),
            )
            self.stakes[t.id] = entry.get("stakes")
            room = getattr(t, "room", None)
            if room is not None:
                self.table_rooms[t.id] = room
            actor = self._spawn(cfg)
            actor.house_bots = bool(entry.get("house_bots"))
            actor.auto_ready = room is not None
            try:
                await actor.restore(entry)
            except MahjongError:
                log.exception("table %s: cannot restore; closing it", t.id)
                actor.submit(C.Close("could not be restored"))
                continue
            if actor.status in ("open", "between") and (
                all(s.bot for s in actor.seats) or (room is not None and actor.status == "between")
            ):
                # a table of bots plays on; a room table between two hands starts its wait
                # for the next (table.py ``next_hand_due``)
                actor.submit(C.MaybeStart())
            if room is not None and actor.status == "open":
                # a quick-match table still waiting: its bots come after a fresh wait
                self.rooms.schedule_fill(actor)
            n += 1
        return n

    async def shutdown(self) -> None:
        for tid in list(self.rooms.timers):
            self.rooms.forget(tid)
        for t in list(self.tables.values()):
            await t.stop()
