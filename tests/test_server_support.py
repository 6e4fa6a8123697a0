"""Support for the server tests (no tests here): a real `fjmj serve` process on a free
loopback port, WebSocket clients (`websockets`), and the spy that checks every message a
client received against what its seat may see (R12)."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import websockets

from fujian_mahjong.engine import Action, Game
from fujian_mahjong.engine.replay import fresh_game
from fujian_mahjong.server.presenter import public_view
from fujian_mahjong.server.protocol import server_message
from fujian_mahjong.server.visibility import WINDOW_PHASES
from tests.conftest import free_port
from tests.serving import OPENING_MS, wait_serving

FJMJ = str(Path(sys.executable).with_name("fjmj"))


class Server:
    """`fjmj serve` in a subprocess (the tests talk to it only over loopback)."""

    def __init__(
        self,
        data_dir: Path,
        db: str = "",
        claim_pause_ms: int = 30,
        bot_delay_ms: int = 0,
        grace_s: float = 120.0,
        opening_ms: int = OPENING_MS,
    ) -> None:
        """``opening_ms``: a hand's opening (the server's is 3000, docs/protocol.md "The
        opening"): short by default, as the bots of every hand with a human wait it out and
        these tests are not about it (tests/test_opening_clock.py is)."""
        self.data_dir = data_dir
        self.db = db
        self.opts = [
            "--claim-pause-ms",
            str(claim_pause_ms),
            "--claim-window",
            "fast",
            "--bot-delay-ms",
            str(bot_delay_ms),
            "--grace-s",
            str(grace_s),
            "--opening-ms",
            str(opening_ms),
        ]
        self.port = 0
        self.proc: subprocess.Popen[str] | None = None
        self.log = data_dir / "server.log"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> Server:
        self.port = free_port()
        cmd = [FJMJ, "serve", "--port", str(self.port), "--data-dir", str(self.data_dir)]
        if self.db:
            cmd += ["--db", self.db]
        with open(self.log, "a") as out:
            self.proc = subprocess.Popen(
                cmd + self.opts, stdout=out, stderr=subprocess.STDOUT, text=True
            )
        # a failing test must not leave its server running
        atexit.register(self.kill)
        try:
            wait_serving(self.proc, self.base, self.log)
        except BaseException:
            self.kill()
            raise
        return self

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout=15)

    def stop(self) -> None:
        self.kill(signal.SIGINT)

    # REST helpers -----------------------------------------------------------------------

    def guest(self, name: str) -> dict[str, Any]:
        r = httpx.post(self.base + "/api/guests", json={"name": name}, timeout=10)
        r.raise_for_status()
        return dict(r.json())

    def table(self, token: str, **body: Any) -> dict[str, Any]:
        r = httpx.post(
            self.base + "/api/tables",
            json=body,
            headers={"Authorization": f"Bearer {token}"},
            timeout=10,
        )
        r.raise_for_status()
        return dict(r.json())

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return httpx.get(self.base + path, timeout=10, **kw)


@dataclass
class Received:
    t: float
    msg: dict[str, Any]


@dataclass
class Client:
    """A WebSocket client that records every message (with its arrival time)."""

    url: str
    token: str
    log: list[Received] = field(default_factory=list)
    ws: Any = None
    queue: asyncio.Queue[dict[str, Any] | None] = field(default_factory=asyncio.Queue)
    reader: asyncio.Task[None] | None = None
    seat: int | None = None
    closed_code: int | None = None

    async def connect(self) -> Client:
        self.ws = await websockets.connect(self.url, max_size=2**24)
        self.reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        try:
            async for raw in self.ws:
                m = json.loads(raw)
                self.log.append(Received(time.monotonic(), m))
                await self.queue.put(m)
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed_code = self.ws.close_code
            await self.queue.put(None)

    async def send(self, m: Any) -> None:
        await self.ws.send(m if isinstance(m, str) else json.dumps(m))

    async def recv(self, timeout: float = 20) -> dict[str, Any]:
        m = await asyncio.wait_for(self.queue.get(), timeout)
        if m is None:
            raise ConnectionError(f"connection closed ({self.closed_code})")
        return m

    async def expect(self, typ: str, timeout: float = 20) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            m = await self.recv(max(0.01, end - time.monotonic()))
            if m.get("type") == typ:
                return m
            if m.get("type") == "error" and typ in ("welcome", "seated"):
                raise AssertionError(f"expected {typ}, got {m}")

    async def hello_join(self, table: Any, as_: str = "player", ready: bool = False) -> None:
        await self.send({"type": "hello", "token": self.token})
        await self.expect("welcome")
        await self.send({"type": "join", "table": table, "as": as_})
        m = await self.expect("seated")
        self.seat = m["seat"]
        if ready:
            await self.send({"type": "ready"})

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await self.reader

    def states(self) -> list[dict[str, Any]]:
        return [r.msg for r in self.log if r.msg.get("type") == "state"]


def naive(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Win if offered, else discard the first legal tile, else pass (as check-server)."""
    return (
        next((a for a in legal if a["type"] == "win"), None)
        or next((a for a in legal if a["type"] == "discard"), None)
        or next((a for a in legal if a["type"] == "pass"), legal[0])
    )


async def play(
    c: Client, until: str = "hand_end", stop_after: int | None = None, timeout: float = 60
) -> dict[str, Any] | None:
    """Answer every actionable state naively until a message of type ``until`` (returned);
    with ``stop_after``, return None after that many own actions."""
    acts = 0
    end = time.monotonic() + timeout
    while True:
        m = await c.recv(max(0.01, end - time.monotonic()))
        t = m.get("type")
        if t == until:
            return m
        if t == "state" and m["view"]["legal_actions"]:
            await c.send(
                {"type": "act", "seq": m["seq"], "action": naive(m["view"]["legal_actions"])}
            )
            acts += 1
            if stop_after is not None and acts >= stop_after:
                return None


# -------------------------------------------------------------------------------- the spy


def _key(v: dict[str, Any]) -> str:
    return json.dumps(v, sort_keys=True, ensure_ascii=False)


def seat_views(events: list[dict[str, Any]]) -> tuple[list[set[str]], set[str]]:
    """Every view each seat (and a spectator) could have been shown during the hand in
    ``events``: the hand is dealt again from its revealed seed (or stacked wall) and
    replayed decision by decision."""
    g: Game = fresh_game(events)
    per: list[set[str]] = [set() for _ in range(g.n)]
    public: set[str] = set()

    def snap() -> None:
        to_act = g.to_act()
        for s in range(g.n):
            v = g.view(s)
            v["to_act"] = [s] if s in to_act else []
            per[s].add(_key(v))
        public.add(_key(public_view(g)))

    snap()
    while len(g.events) < len(events):
        e = events[len(g.events)]
        assert e["type"] == "act", f"expected a decision, got {e['type']}"
        g.apply(int(e["seat"]), Action.from_json(e["action"]))
        snap()
    assert g.events == events, "the log does not replay"
    return per, public


def opening_for(events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """The hand's opening as ``seat`` may see it, from its log (R4, R5, R12): each 补花 of
    the deal (a ``flower`` event with its ``round``) with its public seat, round and flowers,
    and the replacement tiles (``drawn``) only for ``seat``'s own (a spectator, None, sees
    none); then the 开金, its gold and the flowers flipped onto the dealer."""
    out: list[dict[str, Any]] = []
    for e in events:
        if e["type"] == "gold":
            return [*out, {"gold": e["gold"], "to_dealer": e.get("to_dealer", "")}]
        if e["type"] == "flower" and "round" in e:
            out.append({k: e[k] for k in ("seat", "round", "flowers")})
            if seat is not None and e["seat"] == seat:
                out[-1]["drawn"] = e["drawn"]
    raise AssertionError("the log has no 开金")


def check_opening(m: dict[str, Any], events: list[dict[str, Any]], seat: int | None) -> bool:
    """A state message's ``opening`` (R12): exactly what ``seat`` may see of the opening
    (no other seat's replacement tiles; a spectator none), and only while its view shows
    no discard and no meld. Returns whether it had one."""
    if "opening" not in m:
        return False
    v = m["view"]
    assert not any(v["discards"]) and not any(v["melds"]), "an opening after the first discard"
    assert m["opening"] == opening_for(events, seat), (
        f"seat {seat} was sent an opening it may not see: {m['opening']}"
    )
    return True


def spy(
    c: Client,
    logs: dict[int, list[dict[str, Any]]],
    seat: int | None,
    pause_ms: int = 0,
) -> int:
    """Check everything ``c`` received: each message has its documented shape; each state's
    view is exactly one this seat could see at some point of the hand (so never another
    seat's concealed tiles, nor the wall), and so is its ``opening`` (``check_opening``: no
    other seat's 补花 replacements), which a seat that saw the hand before its first
    discard was sent; ``to_act`` never names another seat; nothing but
    a state arrives between a discard and the state that follows it (so no message names
    who was asked); a seat not asked waits at least the claim pause. Returns the number of
    states checked."""
    cache: dict[int, tuple[list[set[str]], set[str]]] = {}
    checked = 0
    after_discard: float | None = None
    prev_legal = False
    # per hand: whether a state showed no discard and no meld, whether one had the opening
    early: dict[int, bool] = {}
    opened: dict[int, bool] = {}
    for i, r in enumerate(c.log):
        m = r.msg
        server_message.validate_python(m)
        t = m["type"]
        if t == "state":
            v = m["view"]
            hand_id = m["hand"]
            if hand_id not in cache:
                cache[hand_id] = seat_views(logs[hand_id])
            per, public = cache[hand_id]
            if seat is None:
                assert _key(v) in public, "a spectator saw something not public"
                assert v["hand"] == "" or v["phase"] == "over"
            else:
                assert v["seat"] == seat
                assert _key(v) in per[seat], f"seat {seat} was sent a view it may not see"
            opened[hand_id] = check_opening(m, logs[hand_id], seat) or opened.get(hand_id, False)
            if not any(v["discards"]) and not any(v["melds"]):
                early[hand_id] = True
            if v["phase"] != "over":
                assert "hands" not in v
                assert set(v["to_act"]) <= ({seat} if seat is not None else set())
            if v["phase"] in WINDOW_PHASES and not v["legal_actions"]:
                # only a seat that was asked (and has just answered) sees an open window
                assert prev_legal, "a seat that was not asked saw an open claim window"
            if after_discard is not None and v["phase"] not in WINDOW_PHASES and pause_ms:
                # half the pause: both messages' arrival jitters under load; a cut pause is ~0
                assert r.t - after_discard >= pause_ms / 1000 * 0.5, (
                    "the claim pause was cut: "
                    + str(
                        [
                            (
                                x.msg["type"],
                                x.msg.get("seat"),
                                x.msg.get("view", {}).get("phase"),
                                x.msg.get("seq"),
                            )
                            for x in c.log[max(0, i - 6) : i + 1]
                        ]
                    )
                )
            after_discard = None
            prev_legal = bool(v["legal_actions"])
            checked += 1
        elif t == "discard":
            if m["seat"] != seat:
                after_discard = r.t
        elif t == "seats":
            assert after_discard is None, "a seat list went out inside a claim window: " + str(
                [(x.msg["type"], x.msg.get("seat")) for x in c.log[max(0, i - 6) : i + 1]]
            )
        elif t in ("hand_end", "hand_void"):
            after_discard = None
    missing = [h for h in early if not opened.get(h)]
    assert not missing, f"hands {missing} were seen before their first discard, with no opening"
    return checked


def fetch_log(server: Server, hand_id: int) -> list[dict[str, Any]]:
    r = server.get(f"/api/hands/{hand_id}/log")
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in r.text.splitlines() if line.strip()]


def verify_with_cli(server: Server, hand_id: int, tmp: Path) -> str:
    """Download a finished hand's JSONL log and verify it with `fjmj replay`."""
    r = server.get(f"/api/hands/{hand_id}/log")
    f = tmp / f"hand-{hand_id}.jsonl"
    f.write_text(r.text)
    out = subprocess.run(
        [FJMJ, "replay", "--quiet", str(f)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def env_flag(name: str) -> bool:
    return os.environ.get(name) == "1"
