"""Server load benchmark (issue 11): a real `fjmj serve` process and load clients in other
processes, over loopback WebSockets.

(a) 200 tables x 4 human clients that act 300 ms after each prompt (claim pause 600 ms):
    latency from a client's action to every seat of the table receiving the message it
    causes — a discard's public notice at all four seats, and the state that follows a
    claim or a win; p50/p99, target p99 < 50 ms, zero errors;
(b) 50 bot-only tables at full speed: decisions applied per second (target >= 2,000);
(c) the server's memory per table (resident set growth / tables) in both runs.

`python bench/bench_server.py` prints the rows; `make bench` runs it with the others.
Sizes can be lowered for a quick look: FJMJ_BENCH_TABLES=20 FJMJ_BENCH_SECONDS=5.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FJMJ = str(Path(sys.executable).with_name("fjmj"))
TABLES = int(os.environ.get("FJMJ_BENCH_TABLES", "200"))
SECONDS = float(os.environ.get("FJMJ_BENCH_SECONDS", "30"))
BOT_TABLES = int(os.environ.get("FJMJ_BENCH_BOT_TABLES", "50"))
CLIENT_PROCS = 2
# FJMJ_BENCH_DB=postgresql+asyncpg://… runs against an (empty) PostgreSQL database instead
DB = os.environ.get("FJMJ_BENCH_DB", "")
THINK_S = 0.3
PAUSE_S = 0.6
WINDOW = ("claims", "window_a")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class _Server:
    def __init__(self, **opts: Any) -> None:
        import httpx

        self.http = httpx.Client(timeout=30)
        self.port = _port()
        self.dir = tempfile.mkdtemp(prefix="fjmj-bench-")
        # operator metrics (actions) need the operator token; many guests from one address
        self.token = "bench-operator-token-0123456789"
        tok_file = Path(self.dir) / "operator-token"
        tok_file.write_text(self.token)
        args = [FJMJ, "serve", "--port", str(self.port), "--data-dir", self.dir]
        args += ["--operator-token-file", str(tok_file), "--guests-per-address", "100000"]
        # the exact pause (fast): the figures compare with earlier runs; bench_claims.py
        # measures the fixed window
        args += ["--claim-window", "fast"]
        if DB:
            args += ["--db", DB]
        for k, v in opts.items():
            args += ["--" + k.replace("_", "-"), str(v)]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(300):
            try:
                self.http.get(self.base + "/api/health").raise_for_status()
                return
            except Exception:
                time.sleep(0.1)
        raise RuntimeError("fjmj serve did not start")

    def post(self, path: str, body: dict[str, Any], token: str | None = None) -> Any:
        h = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.http.post(self.base + path, json=body, headers=h)
        r.raise_for_status()
        return r.json()

    def actions(self) -> tuple[int, float]:
        """Decisions applied so far and the monotonic time they were counted at (the
        operator metrics are a snapshot refreshed at most every 10 s)."""
        r = self.http.get(
            self.base + "/api/metrics", headers={"Authorization": f"Bearer {self.token}"}
        )
        r.raise_for_status()
        m = r.json()
        return int(m["actions"]), time.monotonic() - float(m["snapshot_age_s"])

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# ------------------------------------------------------------------------ load client process


async def _client_main(spec: dict[str, Any]) -> dict[str, Any]:
    """One load process: whole tables (four seats each), acting THINK_S after each prompt."""
    import websockets

    url = spec["url"]
    until = time.monotonic() + spec["seconds"] + spec["warmup"]
    measure_from = time.monotonic() + spec["warmup"]
    lat: list[float] = []
    after: list[float] = []
    errors: list[str] = []
    states = 0

    async def table(tid: int, tokens: list[str]) -> None:
        nonlocal states
        pending: dict[str, Any] = {}  # the action being timed: start time, seats still to hear
        start_at = time.monotonic() + random.uniform(0.0, 1.0)
        conns = [await websockets.connect(url, max_size=2**24) for _ in tokens]

        async def seat(i: int, ws: Any, token: str) -> None:
            nonlocal states
            await ws.send(json.dumps({"type": "hello", "token": token}))
            await ws.send(json.dumps({"type": "join", "table": tid, "as": "player"}))
            # tables open at random moments, not all in the same millisecond (a real lobby)
            await asyncio.sleep(start_at - time.monotonic())
            await ws.send(json.dumps({"type": "ready"}))
            act_task: asyncio.Task[None] | None = None
            while time.monotonic() < until:
                try:
                    raw = await asyncio.wait_for(ws.recv(), max(0.01, until - time.monotonic()))
                except (TimeoutError, websockets.ConnectionClosed):
                    break
                now = time.monotonic()
                m = json.loads(raw)
                t = m["type"]
                if t == "error":
                    errors.append(m["code"])
                    continue
                if pending and t == "discard" and i in pending["notice"]:
                    pending["notice"].discard(i)
                    if not pending["notice"] and pending["t0"] >= measure_from:
                        lat.append(now - pending["t0"])
                elif pending and t == "state" and m["view"]["phase"] not in WINDOW:
                    pending["state"].discard(i)
                    if not pending["state"]:
                        if pending["t0"] >= measure_from and not pending["notice"]:
                            after.append(now - pending["t0"] - PAUSE_S)
                        pending.clear()
                elif t in ("hand_end", "hand_void"):
                    pending.clear()
                if t == "state":
                    states += 1
                    legal = m["view"]["legal_actions"]
                    if legal:
                        if act_task is not None:
                            act_task.cancel()
                        act_task = asyncio.create_task(act(ws, m["seq"], legal))
                elif t == "hand_end":
                    await ws.send(json.dumps({"type": "ready"}))
                elif t == "table_closed":
                    break

        async def act(ws: Any, seq: int, legal: list[dict[str, Any]]) -> None:
            await asyncio.sleep(THINK_S)
            a = (
                next((x for x in legal if x["type"] == "win"), None)
                or next((x for x in legal if x["type"] == "discard"), None)
                or next((x for x in legal if x["type"] == "pass"), legal[0])
            )
            # a discard: every seat hears its notice at once, and its next state after the
            # claim pause (whether or not anyone could claim)
            if a["type"] == "discard" and not pending:
                pending.update(t0=time.monotonic(), notice={0, 1, 2, 3}, state={0, 1, 2, 3})
            with contextlib.suppress(websockets.ConnectionClosed):
                await ws.send(json.dumps({"type": "act", "seq": seq, "action": a}))

        try:
            await asyncio.gather(
                *(seat(i, ws, tok) for i, (ws, tok) in enumerate(zip(conns, tokens, strict=True)))
            )
        finally:
            for ws in conns:
                await ws.close()

    await asyncio.gather(*(table(t["id"], t["tokens"]) for t in spec["tables"]))
    return {"lat": lat, "after": after, "errors": errors, "states": states}


def _client_entry() -> None:
    spec = json.loads(sys.stdin.read())
    print(json.dumps(asyncio.run(_client_main(spec))))


# ------------------------------------------------------------------------ the runs


def _pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def _humans(n_tables: int, seconds: float) -> list[tuple[str, float, str, float]]:
    srv = _Server(claim_pause_ms=600, bot_delay_ms=0, grace_s=120)
    try:
        rss0 = _rss_kb(srv.proc.pid)
        tables = []
        for k in range(n_tables):
            toks = [srv.post("/api/guests", {"name": f"b{k}-{i}"})["token"] for i in range(4)]
            t = srv.post("/api/tables", {"hands": 64, "turn_seconds": 60}, toks[0])
            tables.append({"id": t["id"], "tokens": toks})
        warmup = 5.0
        procs = []
        for j in range(CLIENT_PROCS):
            spec = {
                "url": f"ws://127.0.0.1:{srv.port}/ws",
                "tables": tables[j::CLIENT_PROCS],
                "seconds": seconds,
                "warmup": warmup,
            }
            p = subprocess.Popen(
                [sys.executable, __file__, "--client"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                cwd=ROOT,
            )
            assert p.stdin is not None
            p.stdin.write(json.dumps(spec))
            p.stdin.close()
            procs.append(p)
        time.sleep(warmup + seconds / 2)
        rss1 = _rss_kb(srv.proc.pid)
        a0, t0 = srv.actions()
        c0 = _cpu_s(srv.proc.pid)
        time.sleep(max(seconds / 4, 10.5))  # past the metrics snapshot's refresh
        a1, t1 = srv.actions()
        cpu = _cpu_s(srv.proc.pid) - c0
        rate = (a1 - a0) / max(1e-6, t1 - t0)
        cpu_per = 1000 * cpu / max(1, a1 - a0)
        lat: list[float] = []
        after: list[float] = []
        errors: list[str] = []
        for p in procs:
            assert p.stdout is not None
            out = p.stdout.read()
            p.wait(timeout=seconds + warmup + 120)
            r = json.loads(out.strip().splitlines()[-1])
            lat += r["lat"]
            after += r["after"]
            errors += r["errors"]
    finally:
        srv.stop()
    return [
        (
            f"server: {n_tables} tables x 4 clients, p50 discard->every seat notified (ms)",
            1000 * _pct(lat, 50),
            "ms",
            0,
        ),
        (
            f"server: {n_tables} tables x 4 clients, p99 discard->every seat notified (ms; target < 50)",
            1000 * _pct(lat, 99),
            "ms",
            0,
        ),
        (
            f"server: {n_tables} tables x 4 clients, p50 discard->every seat's state - pause (ms)",
            1000 * _pct(after, 50),
            "ms",
            0,
        ),
        (
            f"server: {n_tables} tables x 4 clients, p99 discard->every seat's state - pause (ms)",
            1000 * _pct(after, 99),
            "ms",
            0,
        ),
        (f"server: {n_tables} tables x 4 clients, discards timed", float(len(lat)), "", 0),
        (f"server: {n_tables} tables x 4 clients, errors (target 0)", float(len(errors)), "", 0),
        (f"server: {n_tables} tables x 4 clients, decisions/s", rate, "/s", 0),
        (f"server: {n_tables} tables x 4 clients, server CPU per decision (ms)", cpu_per, "ms", 0),
        (
            f"server: memory per human table ({n_tables} tables, 4 sockets each), KiB",
            (rss1 - rss0) / n_tables,
            "KiB",
            0,
        ),
    ]


def _bots(n_tables: int, seconds: float) -> list[tuple[str, float, str, float]]:
    srv = _Server(claim_pause_ms=600, bot_delay_ms=0, grace_s=120)
    try:
        tok = srv.post("/api/guests", {"name": "bench"})["token"]
        rss0 = _rss_kb(srv.proc.pid)
        for _ in range(n_tables):
            srv.post("/api/tables", {"bots": 4, "hands": 64}, tok)
        time.sleep(2.0)
        a0, t0 = srv.actions()
        time.sleep(max(seconds, 10.5))  # past the metrics snapshot's refresh
        a1, t1 = srv.actions()
        rate = (a1 - a0) / max(1e-6, t1 - t0)
        rss1 = _rss_kb(srv.proc.pid)
    finally:
        srv.stop()
    return [
        (f"server: {n_tables} bot-only tables, decisions/s", rate, "/s", 2000),
        (
            f"server: memory per bot table ({n_tables} tables), KiB",
            (rss1 - rss0) / n_tables,
            "KiB",
            0,
        ),
    ]


def run() -> list[tuple[str, float, str, float]]:
    return _bots(BOT_TABLES, min(SECONDS, 10.0)) + _humans(TABLES, SECONDS)


if __name__ == "__main__":
    if "--client" in sys.argv:
        _client_entry()
    else:
        sys.path.insert(0, str(ROOT))
        for label, value, unit, target in run():
            print(f"{label:<72} {value:>12,.2f} {unit}  {'>= ' + str(target) if target else ''}")
