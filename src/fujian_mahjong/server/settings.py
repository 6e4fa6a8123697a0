"""Server settings (one frozen dataclass; the CLI and the tests fill it in), and the rooms
by stake they list (``Room``, docs/economy.md "Rooms and quick match"; the quick match
itself is server/rooms.py's, the configuration file's reader server/config.py)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


def default_data_dir() -> Path:
    """``$FJMJ_DATA_DIR`` or ``~/.local/share/fujian-mahjong``."""
    env = os.environ.get("FJMJ_DATA_DIR")
    if env:
        return Path(env).expanduser()
    return Path.home() / ".local" / "share" / "fujian-mahjong"


def sqlite_url(data_dir: Path) -> str:
    """The embedded default database inside the data dir."""
    return f"sqlite+aiosqlite:///{data_dir / 'fjmj.sqlite3'}"


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

# the hand's opening (the dice, the deal, each 补花, the 开金) as a client shows it, at a
# table with humans: for this long after a hand is first shown no bot or 托管 seat acts on
# its turn and no deadline runs (docs/protocol.md, "The opening"; docs/web.md)
OPENING_S = 3.0


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the server needs; all durations are configurable so tests run fast."""

    data_dir: Path = field(default_factory=default_data_dir)
    db_url: str = ""  # empty: the SQLite file in data_dir
    host: str = "127.0.0.1"
    port: int = 8000
    # R12 rev 2 item 6: the minimum pause after every discard at a table with humans
    claim_pause_ms: int = 600
    # how long a claim pause lasts at a table that does not choose (docs/architecture.md):
    # "auto" (fixed with two or more humans, else fast), "fast" or "fixed"
    claim_window: str = "auto"
    # heuristic bots act this long after the claim pause ends (0 in tests and benchmarks):
    # with the 600 ms pause a bot's turn takes about 0.9 s, a human-like pace
    bot_delay_ms: int = 300
    # R11: a disconnected player may come back within this many seconds
    grace_s: float = 120.0
    # a hand's opening at a table with humans (docs/protocol.md, "The opening"): the web
    # client's OPENING_MS is the same (web/js/reducer.js); the browser journeys whose point
    # is not the opening shorten it
    opening_s: float = OPENING_S
    # default turn timer of a new table (a table may choose its own)
    turn_seconds: float = 15.0
    # a connection is closed after this many bad messages within a minute
    bad_messages_per_minute: int = 20
    token_ttl_days: int = 30
    # PostgreSQL: a statement the database has not answered in this many seconds fails as
    # a store fault (a paused server or a lost route sends no error: without a bound the
    # table, and the group commit of every table, waited for good, health saying ok)
    db_command_timeout_s: float = 10.0
    # R11 (server/accounts.py, server/economy.py): a new account's silver, login limits
    starting_grant: int = 10_000
    login_fails_per_name: int = 5
    login_fails_per_address: int = 30
    login_window_s: float = 300.0
    registrations_per_address: int = 30
    # POST /api/guests per address within guests_window_s (then 429 rate_limited)
    guests_per_address: int = 60
    guests_window_s: float = 600.0
    # guests that can no longer log in (every token expired or revoked), made more than
    # this many days ago and never seated at a table are deleted (Store.delete_idle_guests)
    # every guest_cleanup_interval_s seconds (0: never)
    guest_idle_days: float = 30.0
    guest_cleanup_interval_s: float = 6 * 3600.0
    # R11 (docs/economy.md): a table's fee may be at most this many times its stake
    max_fee_ratio: float = 1.0
    # bot-only tables (every seat a bot: they start at once and play at the server's cost)
    # a player may have live at a time through POST /api/tables (0: no limit)
    bot_tables_per_player: int = 10
    # GET /api/metrics needs ``Authorization: Bearer <operator_token>`` (empty: the route
    # answers 404); its counters are snapshots at most metrics_refresh_s old
    operator_token: str = field(default="", repr=False)
    metrics_refresh_s: float = 10.0
    # lookups of tables that do not exist (REST and WebSocket join) per address per minute:
    # private tables are found by their code, which must not be guessed by brute force
    table_misses_per_minute: int = 60
    # tables with nobody connected commit their events in batches of at most this many
    max_unflushed_events: int = 256
    # rooms by stake (Room above; ``fjmj serve --config FILE``, [[rooms]]): the tiers of
    # every profile, and how long a quick-match table waits for humans before bots fill it
    rooms: tuple[Room, ...] = field(default_factory=default_rooms)
    quickmatch_wait_s: float = 10.0
    # a room table between two hands: after this long the next hand is dealt to every
    # connected human, ready or not (a stranger who stays idle does not hold the table)
    next_hand_s: float = 20.0
    # docs/economy.md: bots at room tables play for the house account (its silver is in the
    # ledger and the audit); false (``[economy] house_bots = false``): a room table where
    # one human plays bots is practice (练习: nothing at stake, no escape penalty)
    house_bots: bool = True
    # 救济金 (docs/economy.md): an account below relief_threshold silver may claim
    # relief_amount, relief_per_day times a day; the day starts at midnight UTC+offset
    # (8: Beijing). amount or per_day 0: no relief
    relief_threshold: int = 1_000
    relief_amount: int = 1_000
    relief_per_day: int = 3
    relief_utc_offset_h: float = 8.0
    # the stake a table made with POST /api/tables may have (the operator's bounds)
    table_stake_min: int = 0
    table_stake_max: int = 10**9

    # several processes on one PostgreSQL and one Redis (server/cluster/, docs/deploy.md):
    # the Redis URL (empty: one process, nothing shared), the prefix of every Redis key and
    # channel, how long a table's lease lasts without renewal (it is renewed every quarter
    # of that; a dead process's tables move after at most about this long), this process's
    # id in the cluster (empty: host-pid-random)
    redis_url: str = ""
    redis_prefix: str = "fjmj"
    lease_s: float = 5.0
    node_id: str = ""

    @property
    def database_url(self) -> str:
        return self.db_url or sqlite_url(self.data_dir)
