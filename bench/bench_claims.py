"""The claim pause and bot tables' priority (docs/architecture.md, "How long the claim
pause lasts" and "Bot tables yield"), measured.

(a) In-process, on the fake clock (tests/inproc.py): four humans play whole hands (the
    heuristic bot's choices); each human asked to answer a discard deliberates for a time
    drawn from a lognormal law (median 1 s, clipped to 0.2–4 s). For every discard, a seat
    that was not asked notes how long it waited from the ``discard`` notice to its next
    ``state`` — everything the network tells it about the window. The lengths are split by
    whether anyone was asked, for a ``fast`` and a ``fixed`` claim window: p50/p90/p99
    and the fraction over 650 ms. At ``fast`` the two laws differ (the deliberation shows);
    at ``fixed`` they should not.
(b) A real ``fjmj serve`` process (SQLite) with 20 tables of one human (a WebSocket
    client) and three bots, with 0 and then 60 bot-only tables playing at full speed
    beside them: the human's discard → its next ``state`` (the claim pause is 600 ms):
    p50/p90/p99.

`python bench/bench_claims.py` prints the rows; `make bench` runs it with the others.
FJMJ_BENCH_CLAIM_HANDS (default 40 per mode) and FJMJ_BENCH_SECONDS (default 20 for (b))
shrink it for a quick look.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HANDS = int(os.environ.get("FJMJ_BENCH_CLAIM_HANDS", "40"))
SECONDS = float(os.environ.get("FJMJ_BENCH_SECONDS", "20"))
PAUSE_MS = 600
WINDOW = ("claims", "window_a")

Row = tuple[str, float, str, float]


def _pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def answer_time(rng: random.Random) -> float:
    """How long a human takes over a claim prompt: lognormal, median 1 s, 0.2–4 s."""
    return min(4.0, max(0.2, rng.lognormvariate(0.0, 0.6)))


# ------------------------------------------------------------------------ (a) in-process


async def _pauses(mode: str, hands: int, tmp: Path) -> tuple[list[float], list[float]]:
    """(asked, not asked): a non-asked seat's wait from each discard notice to its next
    state, over ``hands`` hands at one table of four humans."""
    from fujian_mahjong.bots import HeuristicBot
    from fujian_mahjong.server.deals import FixedDeals
    from tests.inproc import running

    rng = random.Random(f"claims:{mode}")
    bot = HeuristicBot()
    asked_l: list[float] = []
    unasked_l: list[float] = []
    deals = FixedDeals("bench-claims", dealer=0)
    async with running(tmp, deals=deals, claim_pause_ms=PAUSE_MS, bot_delay_ms=300) as h:
        clients = [await h.guest(f"h{i}") for i in range(4)]
        tid = await h.table(clients[0], turn_seconds=30, hands=hands)
        table = h.lobby.tables[tid]
        table.cfg.claim_window = mode
        for c in clients:
            await h.seat(c, tid)
        await h.ready(*clients)
        stamps: list[list[float]] = []
        for c in clients:  # note the fake time of every message each client receives
            stamps.append([h.clock.now()] * len(c.messages))
            c.rec.send = _stamped(c.rec.send, stamps[-1], h.clock.now)  # type: ignore[method-assign]
        due: dict[int, float] = {}  # seat -> when its pending answer goes out
        done: dict[int, int] = {}  # seat -> seq of the state it answered
        # the discard being timed: who observes it (not asked), whether anyone was asked
        timing: dict[str, Any] = {}
        played = 0
        for _ in range(500_000):
            if played >= hands or table.status == "closed":
                break
            hs = table.hand
            now = h.clock.now()
            for i, c in enumerate(clients):
                first = c.read
                for k, m in enumerate(c.new(), start=first):
                    t = m["type"]
                    if t == "state" and i in timing.get("obs", ()):
                        timing["obs"].discard(i)
                        wait = stamps[i][k] - timing["at"][i]
                        (asked_l if timing["asked"] else unasked_l).append(wait)
                    elif t == "hand_end":
                        if i == 0:
                            played += 1
                        timing.clear()
                        await c.send({"type": "ready"})
            if hs is None or hs.game.is_over():
                nxt = h.clock.next_due()
                if nxt is None:
                    await h.advance(0.1)
                else:
                    await h.advance(nxt)
                continue
            g = hs.game
            acted = False
            for i, c in enumerate(clients):
                st = c.state
                if st is None or not c.legal or done.get(i) == st["seq"]:
                    continue
                if st["view"]["phase"] in WINDOW:
                    if i not in due:
                        due[i] = now + answer_time(rng)
                    if now < due[i] - 1e-9:
                        continue
                    del due[i]
                done[i] = st["seq"]
                action = bot.act(g.seat_view(i)).action.to_json()
                if st["view"]["phase"] == "turn" and action["type"] == "discard":
                    before = len(g.events)
                    await c.act(action)
                    # who was asked is the referee's secret: the bench reads it to sort
                    opened = g.phase in WINDOW and len(g.events) > before
                    asked = set(g.to_act()) if opened else set()
                    timing.clear()
                    timing.update(asked=bool(asked), obs={s for s in range(4)} - asked, at={})
                    for s in timing["obs"]:  # the notice each observer already has
                        cs = clients[s]
                        k = max(j for j, m in enumerate(cs.messages) if m["type"] == "discard")
                        timing["at"][s] = stamps[s][k]
                else:
                    await c.act(action)
                acted = True
                break
            if acted:
                continue
            # nothing to do now: the next answer or timer, whichever comes first
            nxt = h.clock.next_due()
            wait = min([*(t - now for t in due.values()), *([nxt] if nxt is not None else [])])
            await h.advance(max(0.0, wait))
    return asked_l, unasked_l


def _stamped(send: Any, times: list[float], now: Any) -> Any:
    def wrapped(text: str) -> bool:
        times.append(now())
        return bool(send(text))

    return wrapped


def _claims_rows(hands: int) -> list[Row]:
    rows: list[Row] = []
    for mode in ("fast", "fixed"):
        with tempfile.TemporaryDirectory(prefix="fjmj-claims-") as tmp:
            asked, unasked = asyncio.run(_pauses(mode, hands, Path(tmp)))
        for name, xs in (("someone asked", asked), ("nobody asked", unasked)):
            label = f"claim pause ({mode}), {name} (n={len(xs)})"
            for p in (50, 90, 99):
                rows.append((f"{label} p{p} (ms)", 1000 * _pct(xs, p), "ms", 0))
            over = 100 * sum(1 for x in xs if x > 0.65) / max(1, len(xs))
            rows.append((f"{label}: % over 650 ms", over, "%", 0))
        every = asked + unasked  # the pace: a discard's pause, whoever was asked
        mean = 1000 * sum(every) / max(1, len(every))
        rows.append((f"claim pause ({mode}), every discard: mean (ms)", mean, "ms", 0))
    return rows


# ------------------------------------------------------------------------ (b) a real server


async def _human(url: str, token: str, tid: int, until: float, lat: list[float]) -> None:
    """One human: acts 300 ms after each prompt (the heuristic's choice is not needed: the
    first legal discard, else pass); times each discard to its next state."""
    import websockets

    async with websockets.connect(url, max_size=2**24) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await ws.send(json.dumps({"type": "join", "table": tid, "as": "player"}))
        await ws.send(json.dumps({"type": "ready"}))
        sent: list[float] = []
        task: asyncio.Task[None] | None = None

        async def act(seq: int, legal: list[dict[str, Any]]) -> None:
            await asyncio.sleep(0.3)
            a = next((x for x in legal if x["type"] == "discard"), None) or next(
                (x for x in legal if x["type"] == "pass"), legal[0]
            )
            if a["type"] == "discard":
                sent[:] = [time.monotonic()]
            with contextlib.suppress(websockets.ConnectionClosed):
                await ws.send(json.dumps({"type": "act", "seq": seq, "action": a}))

        while time.monotonic() < until:
            try:
                raw = await asyncio.wait_for(ws.recv(), max(0.01, until - time.monotonic()))
            except (TimeoutError, websockets.ConnectionClosed):
                break
            m = json.loads(raw)
            if m["type"] == "state":
                if sent:
                    lat.append(time.monotonic() - sent.pop())
                legal = m["view"]["legal_actions"]
                if legal:
                    if task is not None:
                        task.cancel()
                    task = asyncio.create_task(act(m["seq"], legal))
            elif m["type"] == "hand_end":
                sent.clear()
                await ws.send(json.dumps({"type": "ready"}))
            elif m["type"] in ("table_closed", "hand_void"):
                break


def _server_latency(bot_tables: int, humans: int, seconds: float) -> list[float]:
    from bench.bench_server import _Server

    srv = _Server(claim_pause_ms=PAUSE_MS, bot_delay_ms=0, grace_s=120)
    try:
        tok = srv.post("/api/guests", {"name": "bench-bots"})["token"]
        for _ in range(bot_tables):
            srv.post("/api/tables", {"bots": 4, "hands": 64}, tok)
        tables = []
        for k in range(humans):
            t = srv.post("/api/guests", {"name": f"human{k}"})["token"]
            tid = srv.post("/api/tables", {"bots": 3, "hands": 64, "turn_seconds": 60}, t)["id"]
            tables.append((t, tid))
        spec = {"url": f"ws://127.0.0.1:{srv.port}/ws", "tables": tables, "seconds": seconds}
        p = subprocess.run(
            [sys.executable, __file__, "--client"],
            input=json.dumps(spec),
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=seconds + 120,
            check=True,
        )
        return list(json.loads(p.stdout.strip().splitlines()[-1]))
    finally:
        srv.stop()


async def _clients(spec: dict[str, Any]) -> list[float]:
    warmup = 3.0
    until = time.monotonic() + warmup + spec["seconds"]
    lat: list[float] = []
    await asyncio.gather(*(_human(spec["url"], t, tid, until, lat) for t, tid in spec["tables"]))
    return lat[len(spec["tables"]) :]  # (the first discard of each table: warm-up)


def _priority_rows(seconds: float) -> list[Row]:
    rows: list[Row] = []
    for bots in (0, 60):
        lat = _server_latency(bots, 20, seconds)
        label = f"server: 20 tables of 1 human, {bots} bot-only tables: human discard->state"
        for p in (50, 90, 99):
            rows.append((f"{label} p{p} (ms; pause {PAUSE_MS})", 1000 * _pct(lat, p), "ms", 0))
        rows.append((f"{label}: discards timed", float(len(lat)), "", 0))
    return rows


def run() -> list[Row]:
    return _claims_rows(HANDS) + _priority_rows(SECONDS)


if __name__ == "__main__":
    if "--client" in sys.argv:
        print(json.dumps(asyncio.run(_clients(json.loads(sys.stdin.read())))))
    else:
        for label, value, unit, _target in run():
            print(f"{label:<96} {value:>10,.1f} {unit}", flush=True)
