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

With several processes (``--redis``, server/cluster/) quick match and the rooms' ``playing``
counts cover every process's tables: one quick match per room (and per player) at a time in
the whole cluster, under a Redis lock; it reads the other processes' table summaries fresh
from Redis, seats the player at the best waiting table whichever process runs it (that
process seats them) or at a new table run here, and publishes the change before the next
quick match may look. The bots of a table are timed by the process that runs it (after a
failover, by the one that took it: ``Lobby.restore`` schedules them again).

This module also reads the configuration file (:func:`load_config`, :func:`parse_config`):
``[server]`` (scalar ``Settings`` fields), ``[economy]`` (``house_bots``: whether bots at
room tables play for the house account, docs/economy.md), ``[relief]``, ``[tables]`` (the
bounds of a private table's stake) and ``[[rooms]]``. Every error is one line (:class:`ConfigError`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fujian_mahjong.server.clock import Timer
    from fujian_mahjong.server.lobby import Lobby
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

MAX_SILVER = 10**15

log = logging.getLogger("fjmj.rooms")


@dataclass(frozen=True, slots=True)
class Room:
    """One tier of one profile: its stakes (R11) and the balances that may enter."""

    id: str
    tier: str
    name_zh: str
    name_en: str
    profile: str
    stake: int
    base: int
    fee: int
    cap: int
    min_balance: int
    max_balance: int | None = None
    hands: int = 8
    players: int = 4

    def stakes(self) -> dict[str, int]:
        """The table stakes of this room (``economy.Stakes`` as a dict)."""
        return {
            "stake": self.stake,
            "base": self.base,
            "fee": self.fee,
            "cap": self.cap,
            "min_balance": self.min_balance,
        }

    @property
    def escape_penalty(self) -> int:
        """R11 逃跑: 8 × base × stake plus the fee."""
        return 8 * self.base * self.stake + self.fee

    def admits(self, balance: int) -> bool:
        return balance >= self.min_balance and (
            self.max_balance is None or balance <= self.max_balance
        )

    def json(self, playing: int) -> dict[str, Any]:
        return {
            "id": self.id,
            "tier": self.tier,
            "name_zh": self.name_zh,
            "name_en": self.name_en,
            "profile": self.profile,
            "stake": self.stake,
            "base": self.base,
            "fee": self.fee,
            "cap": self.cap,
            "min_balance": self.min_balance,
            "max_balance": self.max_balance,
            "escape_penalty": self.escape_penalty,
            "hands": self.hands,
            "players": self.players,
            "playing": playing,
        }


# The default tiers (the same for every profile). Each minimum balance covers what one hand
# can cost there (economy.min_balance_floor: stake × max(cap, 8 × base) + fee).
DEFAULT_TIERS: tuple[dict[str, Any], ...] = (
    {
        "tier": "novice",
        "name_zh": "新手场",
        "name_en": "Novice",
        "stake": 1,
        "base": 1,
        "fee": 0,
        "cap": 100,
        "min_balance": 100,
        "max_balance": 20_000,
    },
    {
        "tier": "junior",
        "name_zh": "初级场",
        "name_en": "Junior",
        "stake": 5,
        "base": 1,
        "fee": 2,
        "cap": 200,
        "min_balance": 2_000,
        "max_balance": 200_000,
    },
    {
        "tier": "middle",
        "name_zh": "中级场",
        "name_en": "Intermediate",
        "stake": 20,
        "base": 2,
        "fee": 10,
        "cap": 300,
        "min_balance": 10_000,
        "max_balance": 1_000_000,
    },
    {
        "tier": "senior",
        "name_zh": "高级场",
        "name_en": "Senior",
        "stake": 100,
        "base": 5,
        "fee": 50,
        "cap": 500,
        "min_balance": 60_000,
        "max_balance": None,
    },
)


def _profiles() -> tuple[str, ...]:
    from fujian_mahjong.rules import BUILTIN

    return tuple(BUILTIN)


def _players(profile: str) -> int:
    from fujian_mahjong.rules import get_profile

    return int(get_profile(profile).players_max)


def default_rooms() -> tuple[Room, ...]:
    """The default tiers, each in every built-in profile."""
    return tuple(
        Room(id=f"{p}:{t['tier']}", profile=p, players=_players(p), **t)
        for t in DEFAULT_TIERS
        for p in _profiles()
    )


# ---------------------------------------------------------------------------- config


class ConfigError(ValueError):
    """A bad configuration file: one line saying where and what."""


# Settings fields the [server] table may not set (they have their own tables or options)
_NOT_IN_SERVER = {
    "rooms",
    "house_bots",
    "operator_token",
    "relief_threshold",
    "relief_amount",
    "relief_per_day",
    "relief_utc_offset_h",
    "table_stake_min",
    "table_stake_max",
}
# [server] strings with a fixed set of values
_CHOICES = {"claim_window": ("auto", "fast", "fixed")}
_ROOM_INTS = ("stake", "base", "fee", "cap", "min_balance", "max_balance", "hands")
_ROOM_KEYS = {"tier", "name_zh", "name_en", "profiles", *_ROOM_INTS}
_PROFILE_KEYS = {"name_zh", "name_en", *_ROOM_INTS}


def _int(where: str, v: Any, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ConfigError(f"{where}: must be an integer, got {v!r}"[:200])
    if not lo <= v <= hi:
        raise ConfigError(f"{where}: must be {lo}-{hi}, got {v}")
    return v


def _num(where: str, v: Any, lo: float, hi: float) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ConfigError(f"{where}: must be a number, got {v!r}"[:200])
    if not lo <= v <= hi:
        raise ConfigError(f"{where}: must be {lo:g}-{hi:g}, got {v:g}")
    return float(v)


def _str(where: str, v: Any, hi: int = 40) -> str:
    if not isinstance(v, str) or not v.strip() or len(v) > hi:
        raise ConfigError(f"{where}: must be a non-empty string of at most {hi} characters")
    return v.strip()


def _table(where: str, v: Any) -> Mapping[str, Any]:
    if not isinstance(v, Mapping):
        raise ConfigError(f"{where}: must be a table")
    return v


def _unknown(where: str, given: Mapping[str, Any], known: set[str]) -> None:
    extra = sorted(set(given) - known)
    if extra:
        raise ConfigError(
            f"{where}: unknown key {extra[0]!r}; expected one of {', '.join(sorted(known))}"
        )


def _server_fields() -> dict[str, Any]:
    from fujian_mahjong.server.settings import Settings

    defaults = Settings()
    return {
        f.name: getattr(defaults, f.name)
        for f in dataclasses.fields(Settings)
        if f.name not in _NOT_IN_SERVER
    }


def _server(data: Mapping[str, Any]) -> dict[str, Any]:
    fields = _server_fields()
    _unknown("[server]", data, set(fields))
    out: dict[str, Any] = {}
    for k, v in data.items():
        where = f"[server] {k}"
        d = fields[k]
        if isinstance(d, bool):
            if not isinstance(v, bool):
                raise ConfigError(f"{where}: must be true or false")
            out[k] = v
        elif isinstance(d, int):
            out[k] = _int(where, v, 0, 2**31 - 1)
        elif isinstance(d, float):
            out[k] = _num(where, v, 0.0, 10.0**9)
        elif isinstance(d, Path):
            out[k] = Path(_str(where, v, 4096)).expanduser()
        else:
            out[k] = _str(where, v, 4096)
            if k in _CHOICES and out[k] not in _CHOICES[k]:
                raise ConfigError(f"{where}: one of {', '.join(_CHOICES[k])}, got {out[k]!r}")
    return out


def _relief(data: Mapping[str, Any]) -> dict[str, Any]:
    _unknown("[relief]", data, {"threshold", "amount", "per_day", "utc_offset_hours"})
    out: dict[str, Any] = {}
    if "threshold" in data:
        out["relief_threshold"] = _int("[relief] threshold", data["threshold"], 0, MAX_SILVER)
    if "amount" in data:
        out["relief_amount"] = _int("[relief] amount", data["amount"], 0, MAX_SILVER)
    if "per_day" in data:
        out["relief_per_day"] = _int("[relief] per_day", data["per_day"], 0, 1000)
    if "utc_offset_hours" in data:
        out["relief_utc_offset_h"] = _num(
            "[relief] utc_offset_hours", data["utc_offset_hours"], -12.0, 14.0
        )
    return out


def _economy(data: Mapping[str, Any]) -> dict[str, Any]:
    _unknown("[economy]", data, {"house_bots"})
    out: dict[str, Any] = {}
    if "house_bots" in data:
        if not isinstance(data["house_bots"], bool):
            raise ConfigError("[economy] house_bots: must be true or false")
        out["house_bots"] = data["house_bots"]
    return out


def _tables(data: Mapping[str, Any]) -> dict[str, Any]:
    _unknown("[tables]", data, {"stake_min", "stake_max"})
    out: dict[str, Any] = {}
    if "stake_min" in data:
        out["table_stake_min"] = _int("[tables] stake_min", data["stake_min"], 0, 10**9)
    if "stake_max" in data:
        out["table_stake_max"] = _int("[tables] stake_max", data["stake_max"], 0, 10**9)
    lo = out.get("table_stake_min", 0)
    hi = out.get("table_stake_max", 10**9)
    if lo > hi:
        raise ConfigError(f"[tables]: stake_min {lo} is above stake_max {hi}")
    return out


def _room(
    where: str, tier: str, base: Mapping[str, Any], profile: str, max_fee_ratio: float
) -> Room:
    from fujian_mahjong.server import economy

    v: dict[str, Any] = {}
    for k in _ROOM_INTS:
        if k in base:
            hi = 64 if k == "hands" else MAX_SILVER
            lo = 1 if k in ("base", "hands") else 0
            v[k] = _int(f"{where} {k}", base[k], lo, hi)
    try:
        st = economy.make_stakes(
            v.get("stake", 1),
            v.get("base", 1),
            v.get("fee", 0),
            v.get("cap", 0),
            v.get("min_balance"),
            profile=profile,
            max_fee_ratio=max_fee_ratio,
        )
    except economy.EconomyError as e:
        raise ConfigError(f"{where}: {e.message}") from None
    mx = v.get("max_balance")
    if mx is not None and mx < st.min_balance:
        raise ConfigError(f"{where}: max_balance {mx} is below min_balance {st.min_balance}")
    return Room(
        id=f"{profile}:{tier}",
        tier=tier,
        name_zh=_str(f"{where} name_zh", base.get("name_zh", tier)),
        name_en=_str(f"{where} name_en", base.get("name_en", tier)),
        profile=profile,
        stake=st.stake,
        base=st.base,
        fee=st.fee,
        cap=st.cap,
        min_balance=st.min_balance,
        max_balance=mx,
        hands=v.get("hands", 8),
        players=_players(profile),
    )


def _rooms(data: Any, max_fee_ratio: float) -> tuple[Room, ...]:
    if not isinstance(data, list):
        raise ConfigError("rooms: must be an array of tables ([[rooms]])")
    known = _profiles()
    out: list[Room] = []
    tiers: set[str] = set()
    for i, raw in enumerate(data):
        t = _table(f"rooms[{i}]", raw)
        _unknown(f"rooms[{i}]", t, _ROOM_KEYS)
        if "tier" not in t:
            raise ConfigError(f"rooms[{i}]: needs a 'tier' (an id such as \"novice\")")
        tier = _str(f"rooms[{i}] tier", t["tier"], 24)
        if not all(ch.isascii() and (ch.isalnum() or ch in "-_") for ch in tier):
            raise ConfigError(f"rooms[{i}] tier: letters, digits, - and _ only, got {tier!r}")
        if tier in tiers:
            raise ConfigError(f"rooms[{i}] tier: {tier!r} appears twice")
        tiers.add(tier)
        base = {k: v for k, v in t.items() if k != "profiles"}
        profiles = t.get("profiles")
        per: dict[str, Mapping[str, Any]]
        if profiles is None:
            per = {p: {} for p in known}
        elif isinstance(profiles, list):
            per = {}
            for p in profiles:
                if not isinstance(p, str) or p not in known:
                    raise ConfigError(
                        f"rooms[{i}] profiles: unknown profile {p!r}; expected {', '.join(known)}"[
                            :300
                        ]
                    )
                per[p] = {}
        else:
            per = {}
            for p, over in _table(f"rooms[{i}] profiles", profiles).items():
                if p not in known:
                    raise ConfigError(
                        f"rooms[{i}] profiles: unknown profile {p!r}; expected {', '.join(known)}"[
                            :300
                        ]
                    )
                o = _table(f"rooms[{i}] profiles.{p}", over)
                _unknown(f"rooms[{i}] profiles.{p}", o, _PROFILE_KEYS)
                per[p] = o
        for p, over in per.items():
            where = f"rooms[{i}] ({tier}, {p})"
            out.append(_room(where, tier, {**base, **over}, p, max_fee_ratio))
    return tuple(out)


def parse_config(text: str, max_fee_ratio: float | None = None) -> dict[str, Any]:
    """The ``Settings`` fields a TOML configuration sets (ConfigError: one line).

    ``max_fee_ratio`` (the command line's ``--max-fee-ratio``, which wins over the file's
    ``[server] max_fee_ratio``) bounds the rooms' fees; rooms are checked with the same
    bounds as a table made by ``POST /api/tables`` (``economy.make_stakes``)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"not valid TOML: {e}") from None
    _unknown("the file", data, {"server", "economy", "relief", "tables", "rooms"})
    out: dict[str, Any] = {}
    if "server" in data:
        out.update(_server(_table("[server]", data["server"])))
    if "economy" in data:
        out.update(_economy(_table("[economy]", data["economy"])))
    if "relief" in data:
        out.update(_relief(_table("[relief]", data["relief"])))
    if "tables" in data:
        out.update(_tables(_table("[tables]", data["tables"])))
    if "rooms" in data:
        ratio = max_fee_ratio if max_fee_ratio is not None else out.get("max_fee_ratio", 1.0)
        out["rooms"] = _rooms(data["rooms"], float(ratio))
    return out


def load_config(path: str | Path, max_fee_ratio: float | None = None) -> dict[str, Any]:
    """:func:`parse_config` of a file (an unreadable file is a ConfigError too)."""
    try:
        text = Path(path).expanduser().read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read it: {type(e).__name__}: {e}") from None
    return parse_config(text, max_fee_ratio)


# ---------------------------------------------------------------------------- quick match


class RoomError(Exception):
    """A refused quick match: HTTP ``status``, ``code`` and one line."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class RoomService:
    """The rooms of this server and their quick match (one per lobby)."""

    def __init__(self, lobby: Lobby) -> None:
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
                t.post(lambda: t.finisher.close("nobody sat down"))
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
            why = await t.call(lambda: t.reserve(player_id, name))
        except TableError:
            return False
        if why == "busy":
            return False
        if why is not None:
            code = "balance_too_high" if "at most" in str(why) else "balance_too_low"
            raise RoomError(409, code, str(why))
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
