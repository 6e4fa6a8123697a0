"""The table server in-process, deterministic (no tests here).

``Harness`` builds the real app (``create_app``) with a fake clock, a chosen deal source
(a fixed seed or stacked walls) and, if asked, a store that fails on purpose; REST goes
through httpx's ASGI transport, WebSocket clients are ``Conn`` objects with a recording
transport fed by the real dispatcher. Time moves only when a test says so
(``advance``), and ``settle`` waits until every table actor and the store are idle — it
waits for work to finish, never for time to pass."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy.exc import OperationalError

from fujian_mahjong.engine import Game
from fujian_mahjong.engine.wall import build_wall
from fujian_mahjong.server.app import create_app
from fujian_mahjong.server.clock import FakeClock
from fujian_mahjong.server.conn import Conn, RecordingTransport
from fujian_mahjong.server.deals import DealSource, FixedDeals, StackedDeals
from fujian_mahjong.server.settings import Settings
from fujian_mahjong.tiles import parse


class FailNext:
    """Store faults: the next ``n`` write transactions fail (as a full disk would); or, once
    ``lose_ack`` is armed, the next write commits and is reported failed (a connection lost
    inside COMMIT: the acknowledgement never came)."""

    def __init__(self) -> None:
        self.remaining = 0
        self.failed = 0
        self.armed = False
        self.lost = 0

    def fail(self, n: int) -> None:
        self.remaining = n

    def lose_ack(self) -> None:
        self.armed = True

    def before_commit(self) -> None:
        if self.remaining > 0:
            self.remaining -= 1
            self.failed += 1
            raise OperationalError("COMMIT", None, Exception("database or disk is full"))

    def after_commit(self) -> None:
        if self.armed:
            self.armed = False
            self.lost += 1
            raise OperationalError("COMMIT", None, Exception("connection lost in COMMIT"))


def stacked(
    deal: dict[int, str], draws: str = "", tail: str = "", players: int = 4, dealer: int = 0
) -> list[int]:
    """A stacked wall in the scenario language's terms (engine.wall.build_wall)."""
    return build_wall(
        {s: parse(t) for s, t in deal.items()}, parse(draws), parse(tail), players, dealer
    )


class TimedTransport(RecordingTransport):
    """A recording transport that also notes the fake clock's time of every message."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__()
        self.clock = clock
        self.times: list[float] = []

    def send(self, text: str) -> bool:
        self.times.append(self.clock.now())
        return super().send(text)


class Client:
    """One WebSocket client, in memory: what it sends goes through the real dispatcher."""

    def __init__(self, h: Harness, name: str, token: str, player_id: int) -> None:
        self.h = h
        self.name = name
        self.token = token
        self.player_id = player_id
        self.rec = RecordingTransport()
        self.conn = Conn(h.settings.bad_messages_per_minute, self.rec, now=h.clock.now)
        self.conn.addr = "127.0.0.1"
        self.read = 0  # messages already looked at by ``new()``

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.rec.messages

    async def send(self, msg: dict[str, Any]) -> None:
        await self.h.dispatcher.handle(self.conn, json.dumps(msg))
        await self.h.settle()

    def new(self) -> list[dict[str, Any]]:
        out = self.rec.messages[self.read :]
        self.read = len(self.rec.messages)
        return out

    def of_type(self, t: str) -> list[dict[str, Any]]:
        return [m for m in self.rec.messages if m.get("type") == t]

    def last(self, t: str) -> dict[str, Any] | None:
        ms = self.of_type(t)
        return ms[-1] if ms else None

    @property
    def state(self) -> dict[str, Any] | None:
        return self.last("state")

    @property
    def legal(self) -> list[dict[str, Any]]:
        st = self.state
        return list(st["view"].get("legal_actions") or []) if st else []

    async def act(self, action: dict[str, Any]) -> None:
        st = self.state
        assert st is not None, f"{self.name} has no state to act on"
        await self.send({"type": "act", "seq": st["seq"], "action": action})

    async def disconnect(self) -> None:
        self.h.dispatcher.disconnected(self.conn)
        await self.h.settle()

    def errors(self) -> list[str]:
        return [m["code"] for m in self.of_type("error")]


class Harness:
    def __init__(
        self,
        data_dir: Path,
        deals: DealSource | None = None,
        settings: Settings | None = None,
        db_url: str = "",
        **overrides: Any,
    ) -> None:
        base = settings or Settings(
            data_dir=data_dir,
            db_url=db_url,
            claim_pause_ms=600,
            claim_window="fast",  # exact pauses; the fixed window is tested on its own
            bot_delay_ms=300,
            grace_s=120.0,
        )
        self.settings = replace(base, **overrides) if overrides else base
        self.clock = FakeClock()
        self.faults = FailNext()
        self.deals = deals if deals is not None else FixedDeals("inproc", dealer=0)
        self.app = create_app(self.settings, clock=self.clock, deals=self.deals, faults=self.faults)
        self.http = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=self.app), base_url="http://testserver"
        )

    @property
    def lobby(self) -> Any:
        return self.app.state.lobby

    @property
    def store(self) -> Any:
        return self.app.state.store

    @property
    def dispatcher(self) -> Any:
        return self.app.state.dispatcher

    async def hints_done(self) -> None:
        """Until every hint being prepared has been answered (each is a task of its own,
        its bot thinking in the search worker process), then :meth:`settle`."""
        while self.dispatcher.hints:
            # a bound only against a hang (a hint is one search in the worker process)
            await asyncio.wait_for(asyncio.gather(*list(self.dispatcher.hints)), 120)
        await self.settle()

    async def settle(self, give_up_s: float = 300.0) -> None:
        """Until every actor and the store's writer are idle: it waits for work to finish,
        never for time to pass (``give_up_s`` only stops a server that never settles; a
        slow database on a loaded machine needs many turns of the loop)."""
        import time

        start = time.monotonic()
        while time.monotonic() - start < give_up_s:
            await asyncio.sleep(0)
            store = self.store
            if store._pending or store._wake.is_set() or store._side:
                await asyncio.sleep(0.001)  # a commit in the database's thread
                continue
            if all(t.idle for t in list(self.lobby.tables.values())):
                # one more turn: a command just finished may have queued a commit
                await asyncio.sleep(0)
                if not store._pending and all(t.idle for t in list(self.lobby.tables.values())):
                    return
        raise AssertionError("the server did not settle")

    async def advance(self, seconds: float) -> None:
        """Move the fake clock forward, firing each due timer in order and letting the
        tables finish what it started before the next one."""
        end = self.clock.now() + seconds
        while True:
            due = self.clock.next_due()
            if due is None or self.clock.now() + due > end:
                break
            self.clock.advance(due)
            await self.settle()
        self.clock.advance(end - self.clock.now())
        await self.settle()

    # ------------------------------------------------------------------ REST helpers

    async def guest(self, name: str) -> Client:
        r = await self.http.post("/api/guests", json={"name": name})
        assert r.status_code == 200, r.text
        g = r.json()
        c = Client(self, g["name"], g["token"], g["player_id"])
        await c.send({"type": "hello", "token": c.token})
        return c

    async def table(self, owner: Client, **body: Any) -> int:
        body.setdefault("profile", "fuzhou-tcy")
        body.setdefault("hands", 1)
        r = await self.http.post(
            "/api/tables", json=body, headers={"Authorization": f"Bearer {owner.token}"}
        )
        assert r.status_code == 200, r.text
        await self.settle()
        return int(r.json()["id"])

    async def seat(self, client: Client, table: int, as_: str = "player") -> None:
        await client.send({"type": "join", "table": table, "as": as_})

    async def ready(self, *clients: Client) -> None:
        for c in clients:
            await c.send({"type": "ready"})

    async def alone_with_bots(self, name: str, **table: Any) -> tuple[Client, int]:
        """A guest seated alone at a new table of three bots, ready (its match dealt):
        the guest and the table's id."""
        me = await self.guest(name)
        tid = await self.table(me, bots=3, **table)
        await self.seat(me, tid)
        await self.ready(me)
        return me, tid


@asynccontextmanager
async def running(data_dir: Path, **kw: Any) -> AsyncIterator[Harness]:
    """A started harness (the app's lifespan: migrations, restore), stopped afterwards."""
    h = Harness(data_dir, **kw)
    async with h.app.router.lifespan_context(h.app):
        try:
            yield h
        finally:
            await h.http.aclose()


def game_of_wall(wall: Sequence[int], profile: str = "fuzhou-tcy", dealer: int = 0) -> Game:
    """The hand a stacked wall deals (to look ahead at what a test will meet)."""
    return Game.from_wall(profile, list(wall), dealer=dealer)


__all__ = ["Client", "FailNext", "Harness", "StackedDeals", "running", "stacked"]
