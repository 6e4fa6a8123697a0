"""Support for the economy and accounts tests (docs/economy.md); no tests here.

- a fresh database (SQLite file, schema from the models, or migrated by Alembic) and rows for
  players, accounts, tables with stakes, matches and hands;
- a pool of real hands played by heuristic bots (their logs verify with ``engine.replay``);
- ``fjmj serve`` in a subprocess on a free loopback port, and a small WebSocket client that
  plays its seat (first ``win`` if any, else the first legal action)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import websockets
from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from fujian_mahjong.bots import HeuristicBot
from fujian_mahjong.engine import Match
from fujian_mahjong.server import economy
from fujian_mahjong.server.store import make_engine
from fujian_mahjong.server.store.economy_models import Account  # noqa: F401  (registers)
from fujian_mahjong.server.store.models import (
    Base,
    EventRow,
    HandRow,
    MatchRow,
    Player,
    TableRow,
    utcnow,
)
from tests.conftest import free_port
from tests.serving import OPENING_MS, wait_serving

FJMJ = str(Path(sys.executable).with_name("fjmj"))

# --------------------------------------------------------------------------- databases


async def schema_db(path: Path) -> tuple[AsyncEngine, async_sessionmaker[AsyncSession]]:
    """A fresh SQLite file with the whole schema (models; fast, for property tests)."""
    engine = make_engine(f"sqlite+aiosqlite:///{path}")
    async with engine.begin() as conn:
        await conn.run_sync(Base.metadata.create_all)
    return engine, async_sessionmaker(engine, expire_on_commit=False)


async def add_player(s: AsyncSession, name: str, grant: int | None = None) -> int:
    """A player; with ``grant`` a registered account with that starting grant."""
    kind = "guest" if grant is None else "registered"
    res = await s.execute(
        insert(Player).values(name=name, kind=kind, created_at=utcnow()).returning(Player.id)
    )
    pid = int(res.scalar_one())
    if grant is not None:
        await economy.create_account(s, pid, name.casefold(), grant)
    return pid


async def add_table(
    s: AsyncSession, creator: int, stakes: economy.Stakes | None, players: int = 4
) -> tuple[int, int]:
    """A table (with stakes unless None) and a match on it: (table id, match id)."""
    res = await s.execute(
        insert(TableRow)
        .values(
            code=f"T{time.monotonic_ns() % 10**7}",
            creator_id=creator,
            profile="fuzhou-tcy",
            players=players,
            turn_seconds=15.0,
            hands=8,
            private=False,
            status="playing",
            created_at=utcnow(),
        )
        .returning(TableRow.id)
    )
    tid = int(res.scalar_one())
    if stakes is not None:
        await economy.set_stakes(s, tid, stakes)
    res = await s.execute(
        insert(MatchRow)
        .values(
            table_id=tid,
            first_dealer=0,
            seed="s",
            status="playing",
            hands_played=0,
            totals=[0] * players,
            created_at=utcnow(),
        )
        .returning(MatchRow.id)
    )
    return tid, int(res.scalar_one())


_numbers: dict[int, int] = {}


async def add_hand(
    s: AsyncSession,
    table_id: int,
    match_id: int,
    seat_players: list[int | None],
    events: list[dict[str, Any]] | None = None,
    status: str = "over",
    result: dict[str, Any] | None = None,
    score: dict[str, Any] | None = None,
) -> int:
    number = _numbers.get(match_id, 0)
    _numbers[match_id] = number + 1
    res = await s.execute(
        insert(HandRow)
        .values(
            match_id=match_id,
            table_id=table_id,
            number=number,
            profile="fuzhou-tcy",
            players=len(seat_players),
            dealer=0,
            streak=0,
            seed="x",
            seed_sha256="0" * 64,
            status=status,
            result=result,
            score=score,
            seat_players=seat_players,
            created_at=utcnow(),
        )
        .returning(HandRow.id)
    )
    hid = int(res.scalar_one())
    if events:
        await s.execute(
            insert(EventRow), [{"hand_id": hid, "seq": i, "data": e} for i, e in enumerate(events)]
        )
    return hid


@cache
def real_hands(
    n: int = 10,
) -> tuple[tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]], ...]:
    """Real hands played by heuristic bots: (events, result, score) each."""
    out = []
    bot = HeuristicBot()
    m = Match("fuzhou-tcy", "economy-tests", 4, dealer=0)
    for _ in range(n):
        g = m.next_hand()
        while not g.is_over():
            seat = g.to_act()[0]
            g.apply(seat, bot.act(g.seat_view(seat)).action)
        v = g.view(0)
        out.append((list(g.events), v["result"], v["score"]))
        m.record(g)
    return tuple(out)


# --------------------------------------------------------------------------- a real server


class EconServer:
    """``fjmj serve`` in a subprocess on a free loopback port."""

    def __init__(self, data_dir: Path, db: str = "", env: dict[str, str] | None = None) -> None:
        self.data_dir = data_dir
        self.db = db
        self.env = env or {}
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(
        self,
        env: dict[str, str] | None = None,
        crash_at: str | None = None,
        quickmatch_wait_s: float | None = None,
    ) -> None:
        """Start ``fjmj serve``; with ``crash_at`` the test-only launcher that SIGKILLs
        itself at that point of the settlement (tests/crash_server.py), its room tables
        filled with bots after ``quickmatch_wait_s``."""
        self.port = free_port()
        if crash_at is None:
            cmd = [FJMJ, "serve", "--port", str(self.port), "--data-dir", str(self.data_dir)]
            cmd += ["--claim-pause-ms", "0", "--claim-window", "fast", "--bot-delay-ms", "0"]
            cmd += ["--opening-ms", str(OPENING_MS)]
        else:
            cmd = [sys.executable, "-m", "tests.crash_server", "--crash-at", crash_at]
            cmd += ["--port", str(self.port), "--data-dir", str(self.data_dir)]
            if quickmatch_wait_s is not None:
                cmd += ["--quickmatch-wait-s", str(quickmatch_wait_s)]
        if self.db:
            cmd += ["--db", self.db]
        full_env = {**os.environ, **self.env}
        full_env.update(env or {})
        log = self.data_dir / "server.log"
        with open(log, "ab") as out:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=out, env=full_env)
        try:
            wait_serving(self.proc, self.base, log)
        except BaseException:
            self.kill()
            raise

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()

    def wait_dead(self, timeout: float = 60) -> bool:
        assert self.proc is not None
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return self.proc.returncode == -signal.SIGKILL


def register(base: str, name: str, password: str = "correct horse") -> dict[str, Any]:
    r = httpx.post(base + "/api/accounts", json={"name": name, "password": password}, timeout=10)
    assert r.status_code == 201, r.text
    return dict(r.json())


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Client:
    """One WebSocket seat: hello, join, ready, and play until told to stop."""

    def __init__(self, ws_url: str, token: str) -> None:
        self.url = ws_url
        self.token = token
        self.ws: Any = None
        self.got: list[dict[str, Any]] = []

    async def __aenter__(self) -> Client:
        self.ws = await websockets.connect(self.url, max_size=2**22)
        await self.send({"type": "hello", "token": self.token})
        await self.until("welcome")
        return self

    async def __aexit__(self, *exc: object) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(msg))

    async def recv(self, timeout: float = 20) -> dict[str, Any]:
        m = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.got.append(m)
        return dict(m)

    async def until(self, *types: str, timeout: float = 30) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            m = await self.recv(max(0.1, end - time.monotonic()))
            if m["type"] in types:
                return m

    async def play(
        self, stop: tuple[str, ...] = ("hand_end",), timeout: float = 60
    ) -> dict[str, Any]:
        """Act on every state (a win when possible, else the first legal action) until a
        message of a ``stop`` type arrives; return it."""
        end = time.monotonic() + timeout
        while True:
            m = await self.recv(max(0.1, end - time.monotonic()))
            if m["type"] in stop:
                return m
            if (
                m["type"] == "state"
                and m["view"].get("legal_actions")
                and m["deadline_ms"] is not None
            ):
                legal = m["view"]["legal_actions"]
                pick = next((a for a in legal if a.get("type") == "win"), legal[0])
                await self.send({"type": "act", "seq": m["seq"], "action": pick})
