"""Server load benchmark: real `fjmj serve` processes and an independent load client (other
processes), over loopback WebSockets.

(a) N tables x 4 human clients that act 300 ms after each prompt (default 600 ms claim
    pause): from a client's discard to every seat of the table having the public `discard`
    notice, and to every seat having its next `state` (minus the pause); p50/p99, target
    p99 < 50 ms at 200 tables for one process, zero errors; the server's event-loop lag
    (server/looplag.py, read from the operator metrics) over the same interval, its CPU per
    decision (/proc/PID/stat) and its memory per table (resident set growth / tables);
(b) bot-only tables at full speed: decisions applied per second (target >= 3,500);
(c) the load of (a) on K processes (``--procs 2``) sharing a fresh PostgreSQL database and a
    fresh Redis key prefix (``--redis``, docs/deploy.md): table k is made through, and runs
    in, process k mod K, and seat i of every table connects through process i mod K, so with
    2 processes two seats of every table reach their table over Redis. Decisions/s, CPU per
    decision and memory per table are summed over the processes; the loop lag's p50/p99 are
    those of all the processes' samples together (each process's own p99, CPU and memory
    are printed under the row); the processes' logs are read for cluster warnings (a table
    moved to another process, a lease renewal or a Redis call that failed: target 0).
    Bot-only tables on several processes: bench/bench_cluster.py.

`python bench/bench_server.py` runs 50 bot-only tables and 200 human tables on SQLite;
`make bench` (run()) adds 100 human tables for 20 s on 2 processes (PostgreSQL + Redis).
`python bench/bench_server.py --full` runs the whole ladder: 25/50/100/200 tables on SQLite,
on PostgreSQL (a fresh database on 127.0.0.1, dropped after; $FJMJ_BENCH_PG names the admin
URL) and on 2 processes on PostgreSQL + Redis ($FJMJ_BENCH_REDIS, default
redis://127.0.0.1:6379/0) — about 15 minutes. One cell: `--tables 100 --db postgresql
--serve-arg=--ws-deflate`, `--procs 2 --tables 200` (more than one process implies
PostgreSQL), `--procs 1,2 --tables 50` (both on PostgreSQL, for a comparison), `--procs 2
--direct` (every seat through its table's process: no Redis hop; "pg+redis x2 d"). The
machine's load average is printed with every run (other work on the machine makes every
figure worse).
Environment (quick set): FJMJ_BENCH_TABLES (200), FJMJ_BENCH_SECONDS (30),
FJMJ_BENCH_BOT_TABLES (50), FJMJ_BENCH_DB (an SQLAlchemy URL instead of SQLite),
FJMJ_BENCH_CLUSTER_TABLES (100; 0: no 2-process cell), FJMJ_BENCH_CLUSTER_SECONDS (20).
FJMJ_BENCH_FJMJ: the previous build's `fjmj` (the code before a change, in its own venv):
(a) and (b) are measured for it too, in the same run, its rows first (the 2-process cell,
bench_soak.py and bench_claims.py measure this build only); `--runs N` runs every cell N
times, the two builds alternately, and ends with every run's figures per build and how
many met the targets.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# this build's `fjmj`; FJMJ_BENCH_FJMJ: the previous build's (e.g. the code before a change,
# in its own venv): `make bench` and `main` then measure both in the same run, the previous
# build first
THIS = str(Path(sys.executable).with_name("fjmj"))
PREV = os.environ.get("FJMJ_BENCH_FJMJ", "")
# the targets (docs/architecture.md): one process, 200 human tables; bot-only tables
TARGET_TABLES, TARGET_CPU_MS, TARGET_P99_MS, TARGET_BOT_RATE = 200, 1.0, 50.0, 3500
TABLES = int(os.environ.get("FJMJ_BENCH_TABLES", "200"))
SECONDS = float(os.environ.get("FJMJ_BENCH_SECONDS", "30"))
BOT_TABLES = int(os.environ.get("FJMJ_BENCH_BOT_TABLES", "50"))
# the quick set's cell on 2 processes (PostgreSQL + Redis); 0 tables: none
CLUSTER_TABLES = int(os.environ.get("FJMJ_BENCH_CLUSTER_TABLES", "100"))
CLUSTER_SECONDS = float(os.environ.get("FJMJ_BENCH_CLUSTER_SECONDS", "20"))
LADDER = (25, 50, 100, 200)
CLIENT_PROCS = 2
# FJMJ_BENCH_DB=postgresql+asyncpg://… runs the quick set against an (empty) database
DB = os.environ.get("FJMJ_BENCH_DB", "")
PG_ADMIN = os.environ.get("FJMJ_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
THINK_S = 0.3
PAUSE_S = 0.6
WINDOW = ("claims", "window_a")

Row = tuple[str, float, str, float]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (/proc/PID/stat: utime, stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _loadavg() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


@contextlib.contextmanager
def _database(kind: str) -> Iterator[str]:
    """The server's database URL: "" (SQLite in the data dir), a given URL, or a fresh
    PostgreSQL database (``postgresql``) dropped afterwards — never the tests' own."""
    if kind != "postgresql":
        yield kind if kind != "sqlite" else ""
        return
    import asyncpg

    name = f"fjmj_bench_{secrets.token_hex(5)}"

    async def do(sql: str) -> None:
        conn = await asyncpg.connect(PG_ADMIN, timeout=5)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(do(f'CREATE DATABASE "{name}"'))
    base = PG_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1)
    try:
        yield f"{base}/{name}"
    finally:
        asyncio.run(do(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


class _Server:
    def __init__(
        self,
        db: str = "",
        serve_args: tuple[str, ...] = (),
        keep_log: bool = False,
        fjmj: str = "",
        **opts: Any,
    ) -> None:
        import httpx

        self.http = httpx.Client(timeout=30)
        self.port = _port()
        self.dir = tempfile.mkdtemp(prefix="fjmj-bench-")
        # operator metrics need the operator token; many guests from one address
        self.token = "bench-operator-token-0123456789"
        tok_file = Path(self.dir) / "operator-token"
        tok_file.write_text(self.token)
        args = [fjmj or THIS, "serve", "--port", str(self.port), "--data-dir", self.dir]
        args += ["--operator-token-file", str(tok_file), "--guests-per-address", "100000"]
        args += ["--bot-tables-per-player", "0"]  # the bot-only runs make 50-60 at once
        # the exact pause (fast): the figures compare with earlier runs; bench_claims.py
        # measures the fixed window
        args += ["--claim-window", "fast"]
        if db:
            args += ["--db", db]
        for k, v in opts.items():
            args += ["--" + k.replace("_", "-"), str(v)]
        args += list(serve_args)
        # FJMJ_BENCH_SERVER_LOG=FILE keeps the server's output (e.g. asyncio's debug log);
        # keep_log: in serve.log of its data dir (read by _cluster_warnings)
        log = os.environ.get("FJMJ_BENCH_SERVER_LOG")
        self.log = Path(log) if log else Path(self.dir) / "serve.log"
        keep = bool(log) or keep_log
        out = open(self.log, "ab") if keep else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(args, stdout=out, stderr=out)
        self.base = f"http://127.0.0.1:{self.port}"
        for _ in range(600):
            if self.proc.poll() is not None:
                raise RuntimeError(f"fjmj serve exited ({self.proc.returncode}): {args}")
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

    def metrics(self) -> dict[str, Any]:
        r = self.http.get(
            self.base + "/api/metrics", headers={"Authorization": f"Bearer {self.token}"}
        )
        r.raise_for_status()
        return dict(r.json())

    def fresh(self) -> tuple[dict[str, Any], float, float]:
        """A metrics snapshot taken now (they refresh at most every 10 s), with the server's
        CPU seconds and the monotonic time read at the same moment."""
        while True:
            m = self.metrics()
            if float(m["snapshot_age_s"]) == 0.0:
                return m, _cpu_s(self.proc.pid), time.monotonic()
            time.sleep(max(0.05, 10.0 - float(m["snapshot_age_s"])))

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _add(*counts: list[int]) -> list[int]:
    """Element-wise sum of histograms (an empty one counts as zeros)."""
    width = max((len(c) for c in counts), default=0)
    return [sum(c[i] for c in counts if c) for i in range(width)]


def _gcs(m: dict[str, Any]) -> list[int]:
    return [int(x) for x in m.get("gc_collections") or [0, 0, 0]]


def _lag(*pairs: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, float]:
    """The loop lag between two metrics snapshots of each process (m0, m1): p50/p99 from the
    difference of their cumulative histograms (a bucket's upper edge), summed over the
    processes, and the largest sample of the last minute in any of them."""
    from fujian_mahjong.server.looplag import histogram_percentile

    diffs = []
    for m0, m1 in pairs:
        c0, c1 = m0.get("loop_lag_counts"), m1.get("loop_lag_counts")
        if not c0 or not c1:
            return {"p50": float("nan"), "p99": float("nan"), "max": float("nan")}
        diffs.append([b - a for a, b in zip(c0, c1, strict=True)])
    d = _add(*diffs)
    return {
        "p50": histogram_percentile(d, 50),
        "p99": histogram_percentile(d, 99),
        "max": max(float(m1.get("loop_lag_max_ms") or 0.0) for _, m1 in pairs),
    }


# ------------------------------------------------------------------------ load client process


async def _client_main(spec: dict[str, Any]) -> dict[str, Any]:
    """One load process: whole tables (four seats each), acting THINK_S after each prompt."""
    import orjson
    import websockets

    from fujian_mahjong.server.looplag import LoopLag

    loads = orjson.loads  # the client's own parsing must not be what is measured

    # the load client's own loop lag: a slow client delays what it measures
    lag = LoopLag()
    lag.start()
    until = time.monotonic() + spec["seconds"] + spec["warmup"]
    measure_from = time.monotonic() + spec["warmup"]
    lat: list[float] = []
    after: list[float] = []
    errors: list[str] = []
    states = 0

    async def table(tid: int, tokens: list[str], urls: list[str]) -> None:
        nonlocal states
        pending: dict[str, Any] = {}  # the action being timed: start time, seats still to hear
        start_at = time.monotonic() + random.uniform(0.0, 1.0)
        # each seat through its own process's URL (several processes: some seats reach their
        # table's process over Redis)
        conns = [await websockets.connect(u, max_size=2**24) for u in urls]

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
                m = loads(raw)
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

    await asyncio.gather(*(table(t["id"], t["tokens"], t["urls"]) for t in spec["tables"]))
    await lag.stop()
    return {
        "lat": lat,
        "after": after,
        "errors": errors,
        "states": states,
        "lag_counts": lag.counts,
    }


def _client_entry() -> None:
    spec = json.loads(sys.stdin.read())
    try:  # the load client on uvloop too: a slow client delays what it measures
        import uvloop

        result = uvloop.run(_client_main(spec))
    except ImportError:
        result = asyncio.run(_client_main(spec))
    Path(spec["out"]).write_text(json.dumps(result))


# ------------------------------------------------------------------------ the runs


def _pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))]


def _cluster_warnings(logs: list[Path]) -> list[str]:
    """The cluster's warnings in the servers' logs (a table stopped or taken over, a lease
    renewal or a Redis call that failed), the start lines left out; each file read once
    (with FJMJ_BENCH_SERVER_LOG the processes share one)."""
    found = []
    for log in dict.fromkeys(logs):
        if log.exists():
            lines = log.read_text(errors="replace").splitlines()
            found += [x for x in lines if "cluster: " in x and "cluster: node " not in x]
    return found


def _stop_all(servers: list[_Server]) -> None:
    """Stops every process at once, then waits for each (a cluster process stopped while the
    others run gives its tables back, and another would take them over)."""
    for srv in servers:
        with contextlib.suppress(ProcessLookupError):
            srv.proc.terminate()
    for srv in servers:
        srv.stop()


def humans(
    n_tables: int,
    seconds: float,
    db: str = "",
    serve_args: tuple[str, ...] = (),
    procs: int = 1,
    direct: bool = False,
    fjmj: str = "",
) -> dict[str, Any]:
    """N tables x 4 clients acting THINK_S after each prompt; the figures as a dict.

    ``procs`` = K > 1: K processes on the one PostgreSQL database ``db`` and a fresh Redis key
    prefix (bench_cluster.REDIS, $FJMJ_BENCH_REDIS); table k is made through, and so runs
    in, process k mod K, and seat i of every table connects through process i mod K (with
    K = 2, two seats of each table reach it over Redis); ``direct``: every seat through its
    table's process instead (nothing forwarded: the cost of the Redis hop, by difference).
    Decisions, CPU and memory growth are summed over the processes; the loop lag's
    percentiles are those of all the processes' samples together (``lag_p99_each``: each
    process's own)."""
    if procs > 1 and not db.startswith("postgresql"):
        raise ValueError("several processes need PostgreSQL (a postgresql+asyncpg:// URL)")
    cluster: dict[str, Any] = {}
    prefix = f"fjmjbench{secrets.token_hex(3)}"
    if procs > 1:
        from bench.bench_cluster import REDIS

        cluster = {"redis": REDIS, "redis_prefix": prefix}
    servers: list[_Server] = []
    try:
        for _ in range(procs):
            # one after the other: the first start migrates the fresh database
            servers.append(
                _Server(
                    db,
                    serve_args,
                    keep_log=procs > 1,
                    fjmj=fjmj,
                    claim_pause_ms=600,
                    bot_delay_ms=0,
                    grace_s=120,
                    **cluster,
                )
            )
        rss0 = [_rss_kb(srv.proc.pid) for srv in servers]
        urls = [f"ws://127.0.0.1:{srv.port}/ws" for srv in servers]
        tables = []
        for k in range(n_tables):
            # the process each seat's socket (and its guest's sign-up) goes through
            via = [k % procs if direct else i % procs for i in range(4)]
            toks = [
                servers[j].post("/api/guests", {"name": f"b{k}-{i}"})["token"]
                for i, j in enumerate(via)
            ]
            t = servers[k % procs].post("/api/tables", {"hands": 64, "turn_seconds": 60}, toks[0])
            tables.append({"id": t["id"], "tokens": toks, "urls": [urls[j] for j in via]})
        warmup = 5.0
        out = Path(servers[0].dir)
        clients = []
        for j in range(CLIENT_PROCS):
            spec = {
                "tables": tables[j::CLIENT_PROCS],
                "seconds": seconds,
                "warmup": warmup,
                # the result goes to a file: uvloop's client truncates a pipe at 64 KiB
                "out": str(out / f"client-{j}.json"),
            }
            p = subprocess.Popen(
                [sys.executable, __file__, "--client"],
                stdin=subprocess.PIPE,
                text=True,
                cwd=ROOT,
            )
            assert p.stdin is not None
            p.stdin.write(json.dumps(spec))
            p.stdin.close()
            clients.append(p)
        time.sleep(warmup)
        before = [srv.fresh() for srv in servers]
        time.sleep(max(seconds - 2.0, 10.5))  # past the metrics snapshot's refresh
        after_ = [srv.fresh() for srv in servers]
        rss1 = [_rss_kb(srv.proc.pid) for srv in servers]
        load = _loadavg()
        lat: list[float] = []
        after: list[float] = []
        errors: list[str] = []
        client_lag: list[int] = []
        for j, p in enumerate(clients):
            p.wait(timeout=seconds + warmup + 120)
            r = json.loads((out / f"client-{j}.json").read_text())
            lat += r["lat"]
            after += r["after"]
            errors += r["errors"]
            client_lag = _add(client_lag, r["lag_counts"])
    finally:
        # read before the stop: stopped at once, each process hands its tables over
        # (draining, docs/deploy.md), which is the shutdown, not a move during the run
        moved = _cluster_warnings([srv.log for srv in servers])
        _stop_all(servers)
        for srv in servers:
            shutil.rmtree(srv.dir, ignore_errors=True)
        if procs > 1:
            from bench.bench_cluster import drop_redis_prefix

            drop_redis_prefix(prefix)
    from fujian_mahjong.server.looplag import histogram_percentile

    pairs = [(m0, m1) for (m0, _, _), (m1, _, _) in zip(before, after_, strict=True)]
    lag = _lag(*pairs)
    decisions = [int(m1["actions"]) - int(m0["actions"]) for m0, m1 in pairs]
    cpu = [c1 - c0 for (_, c0, _), (_, c1, _) in zip(before, after_, strict=True)]
    span = [max(1e-6, t1 - t0) for (_, _, t0), (_, _, t1) in zip(before, after_, strict=True)]
    return {
        "tables": n_tables,
        "procs": procs,
        "direct": direct,
        "notice_p50": 1000 * _pct(lat, 50),
        "notice_p99": 1000 * _pct(lat, 99),
        "state_p50": 1000 * _pct(after, 50),
        "state_p99": 1000 * _pct(after, 99),
        "timed": len(lat),
        "errors": len(errors),
        "error_codes": sorted(set(errors)),
        "rate": sum(d / w for d, w in zip(decisions, span, strict=True)),
        "cpu_ms": 1000 * sum(cpu) / max(1, sum(decisions)),
        "cpu_share": sum(c / w for c, w in zip(cpu, span, strict=True)),
        "kib_per_table": (sum(rss1) - sum(rss0)) / n_tables,
        "lag_p50": lag["p50"],
        "lag_p99": lag["p99"],
        "lag_max": lag["max"],
        "cluster_warnings": moved,
        "lag_p99_each": [_lag(pair)["p99"] for pair in pairs],
        "decisions_each": decisions,
        "cpu_share_each": [c / w for c, w in zip(cpu, span, strict=True)],
        "kib_each": [b - a for a, b in zip(rss0, rss1, strict=True)],
        "client_lag_p99": histogram_percentile(client_lag, 99),
        # collections per generation summed over the processes, the longest pause of any
        "gc": _add(
            *(
                [int(b) - int(a) for a, b in zip(_gcs(m0), _gcs(m1), strict=True)]
                for m0, m1 in pairs
            )
        ),
        "gc_max_ms": [
            max(xs)
            for xs in zip(*(m1.get("gc_pause_max_ms") or [0.0] * 3 for _, m1 in pairs), strict=True)
        ],
        "load": load,
    }


def bots(
    n_tables: int,
    seconds: float,
    db: str = "",
    serve_args: tuple[str, ...] = (),
    fjmj: str = "",
) -> dict[str, Any]:
    """N bot-only tables at full speed: decisions/s, CPU per decision, memory per table."""
    srv = _Server(db, serve_args, fjmj=fjmj, claim_pause_ms=600, bot_delay_ms=0, grace_s=120)
    try:
        tok = srv.post("/api/guests", {"name": "bench"})["token"]
        rss0 = _rss_kb(srv.proc.pid)
        for _ in range(n_tables):
            srv.post("/api/tables", {"bots": 4, "hands": 64}, tok)
        time.sleep(2.0)
        m0, c0, t0 = srv.fresh()
        time.sleep(max(seconds, 10.5))  # past the metrics snapshot's refresh
        m1, c1, t1 = srv.fresh()
        rss1 = _rss_kb(srv.proc.pid)
        load = _loadavg()
    finally:
        srv.stop()
        shutil.rmtree(srv.dir, ignore_errors=True)
    decisions = int(m1["actions"]) - int(m0["actions"])
    lag = _lag((m0, m1))
    return {
        "tables": n_tables,
        "rate": decisions / max(1e-6, t1 - t0),
        "cpu_ms": 1000 * (c1 - c0) / max(1, decisions),
        "kib_per_table": (rss1 - rss0) / n_tables,
        "lag_p99": lag["p99"],
        "load": load,
    }


def _human_rows(r: dict[str, Any], db: str) -> list[Row]:
    n = r["tables"]
    pre = f"server{db}: {n} tables x 4 clients,"
    # several processes: the lag of all their samples together, CPU and memory summed
    every = "; all processes" if r.get("procs", 1) > 1 else ""
    rows: list[Row] = [
        (f"{pre} p50 discard->every seat notified (ms)", r["notice_p50"], "ms", 0),
        (f"{pre} p99 discard->every seat notified (ms; target < 50)", r["notice_p99"], "ms", 0),
        (f"{pre} p50 discard->every seat's state - pause (ms)", r["state_p50"], "ms", 0),
        (f"{pre} p99 discard->every seat's state - pause (ms)", r["state_p99"], "ms", 0),
        (f"{pre} event-loop lag p99 (ms{every})", r["lag_p99"], "ms", 0),
        (f"{pre} discards timed", float(r["timed"]), "", 0),
        (f"{pre} errors (target 0)", float(r["errors"]), "", 0),
        (f"{pre} decisions/s", r["rate"], "/s", 0),
        (f"{pre} server CPU per decision (ms{every})", r["cpu_ms"], "ms", 0),
        (f"{pre} memory per table (KiB{every})", r["kib_per_table"], "KiB", 0),
    ]
    if r.get("procs", 1) > 1:
        moved = float(len(r["cluster_warnings"]))
        rows.append((f"{pre} tables moved / cluster warnings (target 0)", moved, "", 0))
    return rows


def _bot_rows(r: dict[str, Any], db: str) -> list[Row]:
    n = r["tables"]
    return [
        (f"server{db}: {n} bot-only tables, decisions/s", r["rate"], "/s", TARGET_BOT_RATE),
        (f"server{db}: {n} bot-only tables, server CPU per decision (ms)", r["cpu_ms"], "ms", 0),
        (f"server{db}: memory per bot table ({n} tables), KiB", r["kib_per_table"], "KiB", 0),
    ]


def run() -> list[Row]:
    """The quick set (`make bench`): bot-only tables, then TABLES human tables on one
    process, then CLUSTER_TABLES human tables on 2 processes (PostgreSQL + Redis)."""
    print(f"  (bench_server: load average {_loadavg()} before)", flush=True)
    db = " (PostgreSQL)" if DB.startswith("postgresql") else ""
    rows: list[Row] = []
    for label, fjmj in _builds():
        # FJMJ_BENCH_FJMJ: the previous build's rows first, then this build's
        rows += _bot_rows(bots(BOT_TABLES, min(SECONDS, 10.0), DB, fjmj=fjmj), db + label)
        rows += _human_rows(humans(TABLES, SECONDS, DB, fjmj=fjmj), db + label)
    if CLUSTER_TABLES:
        with _database("postgresql") as url:
            r = humans(CLUSTER_TABLES, CLUSTER_SECONDS, url, procs=2, fjmj=THIS)
        for w in r["cluster_warnings"] + [f"errors: {r['error_codes']}"] * bool(r["errors"]):
            print(f"  (bench_server, 2 processes: {w})", flush=True)
        rows += _human_rows(r, " (2 processes, PostgreSQL+Redis)")
    print(f"  (bench_server: load average {_loadavg()} after)", flush=True)
    return rows


HEAD = (
    f"{'db':<12} {'tables':>6} {'notice p50/p99':>15} {'state p50/p99':>14} "
    f"{'lag p50/p99/max':>16} {'dec/s':>6} {'cpu ms/dec':>10} {'KiB/table':>9} "
    f"{'errors':>6}  load avg"
)


def _builds() -> list[tuple[str, str]]:
    """(label, fjmj) of the builds to measure: the previous one (FJMJ_BENCH_FJMJ) first."""
    return [(" (previous build)", PREV), ("", THIS)] if PREV else [("", THIS)]


def _cell(kind: str, procs: int, direct: bool = False) -> str:
    return kind if procs == 1 else f"pg+redis x{procs}" + " d" * direct


def _line(db: str, r: dict[str, Any]) -> str:
    return (
        f"{db:<12} {r['tables']:>6} {r['notice_p50']:>7.0f}/{r['notice_p99']:<7.0f}"
        f"{r['state_p50']:>6.0f}/{r['state_p99']:<7.0f} "
        f"{r['lag_p50']:>5.1f}/{r['lag_p99']:>4.0f}/{r['lag_max']:<5.0f} {r['rate']:>6.0f} "
        f"{r['cpu_ms']:>10.2f} {r['kib_per_table']:>9.0f} {r['errors']:>6}  {r['load']}"
    )


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--full",
        action="store_true",
        help="25/50/100/200 tables on SQLite, PostgreSQL and 2 processes on PostgreSQL+Redis",
    )
    ap.add_argument("--tables", type=int, nargs="*", help="human table counts (a ladder)")
    ap.add_argument("--db", choices=("sqlite", "postgresql", "both"), default=None)
    ap.add_argument(
        "--procs",
        default=None,
        help="server process counts, e.g. 2 or 1,2; more than 1: PostgreSQL + Redis "
        "(default 1; --full: 1,2)",
    )
    ap.add_argument(
        "--direct",
        action="store_true",
        help="several processes: every seat through its table's process (no Redis hop)",
    )
    ap.add_argument("--seconds", type=float, default=SECONDS, help="measured seconds per run")
    ap.add_argument("--bot-tables", type=int, default=BOT_TABLES, help="0: no bot-only run")
    ap.add_argument(
        "--serve-arg", action="append", default=[], help="an extra `fjmj serve` argument"
    )
    ap.add_argument(
        "--runs",
        type=int,
        default=1,
        help="runs of every cell (with FJMJ_BENCH_FJMJ: of each build, alternately)",
    )
    a = ap.parse_args(argv)
    if a.runs < 1:
        ap.error(f"--runs must be at least 1, got {a.runs}")
    ladder = a.tables if a.tables is not None else (list(LADDER) if a.full else [TABLES])
    procs = [int(x) for x in a.procs.split(",")] if a.procs else ([1, 2] if a.full else [1])
    default_db = "both" if a.full else ("postgresql" if max(procs) > 1 else "sqlite")
    dbs = {"sqlite": ["sqlite"], "postgresql": ["postgresql"], "both": ["sqlite", "postgresql"]}[
        a.db or default_db
    ]
    # several processes share PostgreSQL through Redis: no SQLite cell with more than one
    cells = [(kind, k) for kind in dbs for k in procs if kind == "postgresql" or k == 1]
    if not cells:
        ap.error("more than one process needs --db postgresql")
    extra = tuple(a.serve_arg)
    print(f"load average before: {_loadavg()}; {os.cpu_count()} CPUs; serve args {extra}")
    builds = _builds()
    if PREV:
        print(f"builds, alternately: previous {PREV}, this {THIS}; {a.runs} run(s) each")
    seen: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for i in range(a.runs):
        if a.runs > 1:
            print(f"-- run {i + 1} of {a.runs}", flush=True)
        for label, fjmj in builds:
            # bot-only tables on one process (bench/bench_cluster.py measures them on several)
            for kind in dict.fromkeys(kind for kind, k in cells if k == 1):
                if a.bot_tables:
                    with _database(kind) as url:
                        r = bots(a.bot_tables, min(a.seconds, 10.0), url, extra, fjmj=fjmj)
                    seen.setdefault((label, f"{kind} bot-only"), []).append(r)
                    print(
                        f"{kind:<12} {a.bot_tables} bot-only tables{label}: {r['rate']:,.0f} "
                        f"decisions/s, {r['cpu_ms']:.2f} ms CPU/decision, "
                        f"{r['kib_per_table']:.0f} KiB/table, lag p99 {r['lag_p99']:.0f} ms  "
                        f"(load {r['load']})",
                        flush=True,
                    )
            print(HEAD + (f"  [{label.strip(' ()')}]" if label else ""), flush=True)
            for kind, k in cells:
                for n in ladder:
                    with _database(kind) as url:
                        r = humans(n, a.seconds, url, extra, procs=k, direct=a.direct, fjmj=fjmj)
                    seen.setdefault((label, f"{_cell(kind, k, a.direct)} {n}"), []).append(r)
                    _print_human(_cell(kind, k, a.direct), r)
    if a.runs > 1 or PREV:
        _summary(seen)
    return 0


def _print_human(cell: str, r: dict[str, Any]) -> None:
    print(_line(cell, r), flush=True)
    if r.get("procs", 1) > 1:
        print(
            f"  per process: decisions {r['decisions_each']}, lag p99 "
            f"{[round(x) for x in r['lag_p99_each']]} ms, CPU (cores) "
            f"{[round(x, 2) for x in r['cpu_share_each']]}, RSS growth "
            f"{r['kib_each']} KiB (the row: sums; lag: all samples together)"
        )
        for w in r["cluster_warnings"]:
            print(f"  {w}", flush=True)
    print(
        f"  gc collections (gen 0/1/2) {r['gc']}, longest pauses {r['gc_max_ms']} ms;"
        f" load clients' own loop lag p99 {r['client_lag_p99']:.0f} ms"
    )
    if r["errors"]:
        print(f"  errors: {r['error_codes']}", flush=True)


def _summary(seen: dict[tuple[str, str], list[dict[str, Any]]]) -> None:
    """Every run's figures side by side, per build and cell, and in how many runs the targets
    were met (docs/architecture.md: at TARGET_TABLES human tables on one process, CPU per
    decision and the notice's p99; bot-only decisions/s). A figure a run could not measure
    (nan: no discard timed, no lag samples) is printed as None and misses its target."""

    def r0(x: float) -> int | None:
        return None if math.isnan(x) else round(x)

    print("summary (every run, in order):", flush=True)
    for (label, cell), rs in seen.items():
        build = label.strip(" ()") or "this build"
        cpu = [round(r["cpu_ms"], 2) for r in rs]
        if "bot-only" in cell:
            rate = [round(r["rate"]) for r in rs]
            ok = sum(x >= TARGET_BOT_RATE for x in rate)
            print(
                f"  {build}, {cell}: decisions/s {rate} (>= {TARGET_BOT_RATE:,} in {ok} of "
                f"{len(rs)}); CPU ms/decision {cpu}"
            )
            continue
        p99 = [r0(r["notice_p99"]) for r in rs]
        met = ""
        if cell.endswith(f" {TARGET_TABLES}") and rs[0].get("procs", 1) == 1:
            n_cpu = sum(x <= TARGET_CPU_MS for x in cpu)
            n_p99 = sum(x is not None and x < TARGET_P99_MS for x in p99)
            met = (
                f" (CPU <= {TARGET_CPU_MS} ms in {n_cpu} of {len(rs)}, p99 < "
                f"{TARGET_P99_MS:.0f} ms in {n_p99} of {len(rs)})"
            )
        gc = [max(r["gc_max_ms"] or [0]) for r in rs]
        print(
            f"  {build}, {cell} tables{met}: CPU ms/decision {cpu}; notice p99 ms {p99}; "
            f"lag p99 {[r0(r['lag_p99']) for r in rs]} ms; longest GC pause {gc} ms; "
            f"KiB/table {[round(r['kib_per_table']) for r in rs]}; "
            f"load {[r['load'] for r in rs]}",
            flush=True,
        )


if __name__ == "__main__":
    if "--client" in sys.argv:
        _client_entry()
    else:
        sys.path.insert(0, str(ROOT))
        sys.exit(main(sys.argv[1:]))
