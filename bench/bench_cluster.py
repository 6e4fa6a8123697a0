"""Cluster capacity: bot-only tables' decisions per second with 1 and with 2 `fjmj serve`
processes on one PostgreSQL database and one Redis (``--redis``; docs/deploy.md).

For each process count K: a fresh PostgreSQL database and Redis key prefix, K processes
(`--claim-pause-ms 0 --bot-delay-ms 0`), then N bot-only tables of H hands each made
round-robin through the K processes (a table runs in the process that made it). The clock
runs from the first table's creation until every table is closed; the decisions are the
``act`` events stored in the database (exact, whatever the batching of commits). Also: the
servers' CPU seconds per decision (/proc/PID/stat), PostgreSQL's commits over the run
(pg_stat_database) and the machine's load average — other work on the machine makes every
figure worse. Target: 2 processes >= 1.6x the decisions/s of one.

``python bench/bench_cluster.py [--tables 40] [--hands 4] [--procs 1,2]``;
``python bench/bench_cluster.py --rolling 100 --procs 3``: a rolling restart of 3 processes
under 100 live tables (``rolling``: decisions lost, errors, timeouts charged, p99);
$FJMJ_BENCH_PG names the PostgreSQL admin URL (default postgresql://postgres@127.0.0.1:5432/
test), $FJMJ_BENCH_REDIS the Redis URL (default redis://127.0.0.1:6379/0).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

PG = os.environ.get("FJMJ_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("FJMJ_BENCH_REDIS", "redis://127.0.0.1:6379/0")
FJMJ = str(Path(sys.executable).with_name("fjmj"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _pg(sql: str, db: str | None = None) -> list[Any]:
    import asyncpg

    url = PG if db is None else PG.rsplit("/", 1)[0] + "/" + db
    conn = await asyncpg.connect(url, timeout=10)
    try:
        return list(await conn.fetch(sql))
    finally:
        await conn.close()


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _create(
    procs: list[tuple[subprocess.Popen[bytes], str]],
    tables: int,
    hands: int,
    auth: dict[str, str],
) -> None:
    """The bot-only tables, round-robin through the processes, 8 requests at a time."""
    sem = asyncio.Semaphore(8)
    async with httpx.AsyncClient(timeout=60) as http:

        async def one(i: int) -> None:
            async with sem:
                r = await http.post(
                    procs[i % len(procs)][1] + "/api/tables",
                    json={"bots": 4, "hands": hands},
                    headers=auth,
                )
                r.raise_for_status()

        await asyncio.gather(*(one(i) for i in range(tables)))


def drop_redis_prefix(prefix: str) -> None:
    """Deletes a run's Redis keys (``{prefix}:*``); a Redis that cannot be reached is left
    as it is."""
    with contextlib.suppress(Exception):
        import redis

        r = redis.Redis.from_url(REDIS)
        keys = list(r.scan_iter(f"{prefix}:*"))
        if keys:
            r.delete(*keys)


def measure(k: int, tables: int, hands: int, tmp: Path) -> dict[str, Any]:
    db = f"fjmj_bench_{secrets.token_hex(5)}"
    prefix = f"fjmjbench{secrets.token_hex(3)}"
    asyncio.run(_pg(f'CREATE DATABASE "{db}"'))
    url = PG.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1) + "/" + db
    procs: list[tuple[subprocess.Popen[bytes], str]] = []
    clustered = k > 0
    k = max(1, k)
    try:
        for i in range(k):
            port = free_port()
            cmd = [FJMJ, "serve", "--port", str(port), "--data-dir", str(tmp / f"{k}-{i}")]
            cmd += ["--db", url]
            if clustered:
                cmd += ["--redis", REDIS, "--redis-prefix", prefix]
            cmd += ["--claim-pause-ms", "0", "--bot-delay-ms", "0", "--bot-tables-per-player", "0"]
            log = open(tmp / f"{k}-{i}.log", "wb")  # noqa: SIM115 - closed with the process
            p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
            base = f"http://127.0.0.1:{port}"
            end = time.monotonic() + 60
            while True:
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(base + "/api/tables", timeout=1).status_code == 200:
                        break
                if time.monotonic() > end or p.poll() is not None:
                    raise RuntimeError(f"process {i} did not start; see {tmp}/{k}-{i}.log")
                time.sleep(0.1)
            procs.append((p, base))
        tok = httpx.post(procs[0][1] + "/api/guests", json={"name": "bench"}).json()["token"]
        auth = {"Authorization": f"Bearer {tok}"}
        cpu0 = [cpu_seconds(p.pid) for p, _ in procs]
        commits0 = asyncio.run(
            _pg(f"SELECT xact_commit FROM pg_stat_database WHERE datname = '{db}'")
        )[0][0]
        t0 = time.monotonic()
        asyncio.run(_create(procs, tables, hands, auth))
        created = time.monotonic() - t0
        # the window: from the moment every table exists to the last hand's end; the
        # decisions: those of the hands dealt inside it (whole hands, counted exactly)
        start = asyncio.run(_pg("SELECT now()", db))[0][0]
        while True:
            open_ = asyncio.run(_pg("SELECT count(*) FROM tables WHERE status <> 'closed'", db))
            if open_[0][0] == 0:
                break
            if time.monotonic() - t0 > 1800:
                raise RuntimeError("the tables did not finish in 30 minutes")
            time.sleep(0.2)
        elapsed = time.monotonic() - t0
        cpu = sum(cpu_seconds(p.pid) - c for (p, _), c in zip(procs, cpu0, strict=True))
        row = asyncio.run(
            _pg(
                "SELECT count(*) FILTER (WHERE h.created_at >= "
                f"'{start.isoformat()}'), count(*), "
                "(SELECT max(ended_at) FROM hands) FROM events e JOIN hands h "
                "ON h.id = e.hand_id WHERE e.data->>'type' = 'act'",
                db,
            )
        )[0]
        inside, n, last = int(row[0]), int(row[1]), row[2]
        window = (last - start).total_seconds()
        commits1 = asyncio.run(
            _pg(f"SELECT xact_commit FROM pg_stat_database WHERE datname = '{db}'")
        )[0][0]
        return {
            "processes": k,
            "redis": clustered,
            "tables": tables,
            "hands": hands,
            "decisions": n,
            "seconds": round(elapsed, 2),
            "creating_s": round(created, 2),
            "window_s": round(window, 2),
            "decisions_per_s": round(inside / window, 1),
            "server_cpu_ms_per_decision": round(1000 * cpu / max(1, n), 3),
            "pg_commits_per_s": round((commits1 - commits0) / elapsed, 1),
            "load_average": [round(x, 2) for x in os.getloadavg()],
        }
    finally:
        for p, _ in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p, _ in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                print(f"process {p.pid} did not stop within 30 s: killed", file=sys.stderr)
                p.kill()
        drop_redis_prefix(prefix)
        asyncio.run(_pg(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'))


def run() -> list[tuple[str, float, str, float]]:
    """``make bench`` rows: bot-only decisions/s with 1 process without Redis, 1 and 2
    processes on PostgreSQL + Redis (60 tables × 12 hands), and the 2-process ratio."""
    with tempfile.TemporaryDirectory() as d:
        r0, r1, r2 = (measure(k, 60, 12, Path(d)) for k in (0, 1, 2))
    return [
        ("cluster: bot-only decisions/s, 1 process, PostgreSQL", r0["decisions_per_s"], "/s", 0),
        (
            "cluster: bot-only decisions/s, 1 process, PostgreSQL+Redis",
            r1["decisions_per_s"],
            "/s",
            0,
        ),
        (
            "cluster: bot-only decisions/s, 2 processes, PostgreSQL+Redis",
            r2["decisions_per_s"],
            "/s",
            0,
        ),
        (
            "cluster: 2 processes / 1 (both with Redis), x100",
            100 * r2["decisions_per_s"] / r1["decisions_per_s"],
            "",
            160,
        ),
    ]


# --------------------------------------------------------------------------- rolling restart


def _start_proc(port: int, url: str, prefix: str, tmp: Path, name: str) -> subprocess.Popen[bytes]:
    cmd = [FJMJ, "serve", "--port", str(port), "--data-dir", str(tmp / name), "--db", url]
    cmd += ["--redis", REDIS, "--redis-prefix", prefix, "--claim-pause-ms", "30"]
    cmd += ["--bot-delay-ms", "300", "--bot-tables-per-player", "0", "--grace-s", "120"]
    cmd += ["--guests-per-address", "100000"]
    log = open(tmp / f"{name}.log", "ab")  # noqa: SIM115 - closed with the process
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    end = time.monotonic() + 60
    while True:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                return p
        if time.monotonic() > end or p.poll() is not None:
            raise RuntimeError(f"{name} did not start; see {tmp}/{name}.log")
        time.sleep(0.1)


class Seat:
    """One human seat of a table (three bots with it), played by this client: acts 50–250 ms
    after each prompt, moves to another process when its socket closes."""

    def __init__(self, ports: list[int], first: int, token: str, table: int) -> None:
        self.ports, self.i, self.token, self.table = ports, first, token, table
        self.seat: int | None = None
        self.acks: list[tuple[float, float]] = []  # (sent at, ack latency)
        self.errors: list[str] = []
        self.timeouts = 0
        self.moves = 0
        # hand -> discards shown, in order (None: the socket was opened again there)
        self.seen: dict[int, list[tuple[int, str] | None]] = {}
        self.stop = False

    async def run(self) -> None:
        import websockets

        auto = False
        while not self.stop:
            port = self.ports[self.i % len(self.ports)]
            try:
                async with websockets.connect(f"ws://127.0.0.1:{port}/ws") as ws:
                    await ws.send(json.dumps({"type": "hello", "token": self.token}))
                    await ws.send(json.dumps({"type": "join", "table": self.table}))
                    for shown in self.seen.values():
                        shown.append(None)
                    pending: float | None = None
                    async for raw in ws:
                        m = json.loads(raw)
                        t = m.get("type")
                        if pending is not None and "seq" in m:
                            self.acks.append((pending, time.monotonic() - pending))
                            pending = None
                        if t == "seated":
                            self.seat = m["seat"]
                            await ws.send(json.dumps({"type": "ready"}))
                        elif t == "error":
                            if m["code"] in ("no_table", "unavailable", "table_closed"):
                                await asyncio.sleep(0.2)
                                break  # again, elsewhere
                            if m["code"] not in ("stale", "not_your_turn", "not_now"):
                                self.errors.append(m["code"])
                        elif t == "discard":
                            self.seen.setdefault(m["hand"], []).append((m["seat"], m["tile"]))
                        elif t == "state":
                            mine = [x for x in m.get("seats", []) if x.get("seat") == self.seat]
                            now_auto = bool(mine and mine[0].get("auto"))
                            self.timeouts += now_auto and not auto
                            auto = now_auto
                            legal = m["view"]["legal_actions"]
                            if legal and not self.stop:
                                await asyncio.sleep(0.05 + 0.2 * ((m["seq"] * 37) % 11) / 10)
                                act = (
                                    next((a for a in legal if a["type"] == "win"), None)
                                    or next((a for a in legal if a["type"] == "discard"), None)
                                    or next((a for a in legal if a["type"] == "pass"), legal[0])
                                )
                                pending = time.monotonic()
                                await ws.send(
                                    json.dumps({"type": "act", "seq": m["seq"], "action": act})
                                )
                        if self.stop:
                            return
            except (OSError, websockets.WebSocketException):
                await asyncio.sleep(0.1)
            self.moves += 1
            self.i += 1


def rolling(n_tables: int, procs: int, tmp: Path, before_s: float = 10.0) -> dict[str, Any]:
    """A rolling restart of ``procs`` processes (SIGTERM, then started again on its port,
    one after the other) under ``n_tables`` live tables, each with one scripted human seat
    (its socket on another process than the table's for two thirds of them) and three bots.
    Decisions lost: discards some client was shown that the stored log does not have;
    errors: error messages other than a stale or early action and join retries; timeouts
    charged: a human seat turned 托管 by a missed turn; the p99 of an action's
    acknowledgement (the next message of the table stream) during the restart."""
    db = f"fjmj_bench_{secrets.token_hex(5)}"
    prefix = f"fjmjroll{secrets.token_hex(3)}"
    asyncio.run(_pg(f'CREATE DATABASE "{db}"'))
    url = PG.rsplit("/", 1)[0].replace("postgresql://", "postgresql+asyncpg://", 1) + "/" + db
    ports = [free_port() for _ in range(procs)]
    ps: list[subprocess.Popen[bytes]] = []
    try:
        for i, port in enumerate(ports):
            ps.append(_start_proc(port, url, prefix, tmp, f"r{i}"))

        async def main() -> dict[str, Any]:
            seats: list[Seat] = []
            async with httpx.AsyncClient(timeout=60) as http:
                for i in range(n_tables):
                    base = f"http://127.0.0.1:{ports[i % procs]}"
                    g = (await http.post(base + "/api/guests", json={"name": f"h{i}"})).json()
                    r = await http.post(
                        base + "/api/tables",
                        json={"bots": 3, "hands": 64, "turn_seconds": 30},
                        headers={"Authorization": f"Bearer {g['token']}"},
                    )
                    r.raise_for_status()
                    seats.append(Seat(ports, i + (i % 3 != 0), g["token"], r.json()["id"]))
            tasks = [asyncio.create_task(s.run()) for s in seats]
            await asyncio.sleep(before_s)
            t0 = time.monotonic()
            stops = []
            for i in range(procs):
                ts = time.monotonic()
                ps[i].send_signal(signal.SIGTERM)
                await asyncio.to_thread(ps[i].wait, 60)
                stops.append(round(time.monotonic() - ts, 2))
                ps[i] = await asyncio.to_thread(_start_proc, ports[i], url, prefix, tmp, f"r{i}")
            t1 = time.monotonic()
            await asyncio.sleep(before_s)
            for s in seats:
                s.stop = True
            await asyncio.wait(tasks, timeout=15)
            during = sorted(x for s in seats for at, x in s.acks if t0 <= at <= t1)
            calm = sorted(x for s in seats for at, x in s.acks if at < t0)
            hands = sorted({h for s in seats for h in s.seen})
            rows = await _pg(
                "SELECT hand_id, data FROM events WHERE data->>'type' = 'act' AND "
                f"hand_id IN ({','.join(map(str, hands)) or '0'}) ORDER BY hand_id, seq",
                db,
            )
            stored: dict[int, list[tuple[int, str]]] = {}
            for r in rows:
                d = json.loads(r[1]) if isinstance(r[1], str) else r[1]
                if "tile" in d["action"]:  # a discard (a `discard` shows a robbed gold too)
                    stored.setdefault(int(r[0]), []).append((d["seat"], d["action"]["tile"]))
            lost = 0
            for s in seats:
                for h, shown in s.seen.items():
                    # each discard shown must be in the stored log, in order; after a socket
                    # was opened again the last discard may be shown once more
                    log_ = stored.get(h, [])
                    at, last = 0, None
                    for x in shown:
                        if x is None:
                            last = "again"
                            continue
                        if last == "again" and at > 0 and log_[at - 1] == x:
                            last = None
                            continue
                        last = None
                        while at < len(log_) and log_[at] != x:
                            at += 1
                        if at == len(log_):
                            lost += 1
                            if os.environ.get("FJMJ_BENCH_DEBUG"):
                                print("lost", h, x, shown, log_, file=sys.stderr)
                        else:
                            at += 1
            codes: dict[str, int] = {}
            for s in seats:
                for c in s.errors:
                    codes[c] = codes.get(c, 0) + 1

            def p(xs: list[float], q: float) -> float | None:
                return round(1000 * xs[int(q * (len(xs) - 1))], 1) if xs else None

            return {
                "tables": n_tables,
                "processes": procs,
                "restart_s": round(t1 - t0, 1),
                "stop_s": stops,
                "decisions_lost": lost,
                "errors": sum(len(s.errors) for s in seats),
                "errors_by_code": codes,
                "timeouts_charged": sum(s.timeouts for s in seats),
                "reconnects": sum(s.moves for s in seats),
                "acks_during": len(during),
                "ack_p50_ms_during": p(during, 0.5),
                "ack_p99_ms_during": p(during, 0.99),
                "ack_p99_ms_before": p(calm, 0.99),
                "load_average": [round(x, 2) for x in os.getloadavg()],
            }

        return asyncio.run(main())
    finally:
        for p in ps:
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
        for p in ps:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        drop_redis_prefix(prefix)
        if os.environ.get("FJMJ_BENCH_DEBUG"):
            print("kept database", db, "logs in", tmp, file=sys.stderr)
        else:
            asyncio.run(_pg(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--rolling",
        type=int,
        metavar="TABLES",
        default=0,
        help="measure a rolling restart of --procs' last count of processes under TABLES "
        "live tables (one human seat each) instead",
    )
    ap.add_argument("--tables", type=int, default=40)
    ap.add_argument("--hands", type=int, default=8)
    ap.add_argument(
        "--procs",
        default="1,2",
        help="process counts to run, e.g. 1,2 (0: one process without --redis)",
    )
    a = ap.parse_args(argv)
    if a.rolling:
        with tempfile.TemporaryDirectory() as d:
            k = max(2, int(a.procs.split(",")[-1]))
            tmp = Path(os.environ.get("FJMJ_BENCH_DEBUG_DIR") or d)
            print(json.dumps(rolling(a.rolling, k, tmp)), flush=True)
        return 0
    results = []
    with tempfile.TemporaryDirectory() as d:
        for k in (int(x) for x in a.procs.split(",")):
            res = measure(k, a.tables, a.hands, Path(d))
            results.append(res)
            print(json.dumps(res), flush=True)
    one = next((r for r in results if r["processes"] == 1 and r["redis"]), None)
    for r in results:
        if one is not None and r["processes"] > 1:
            print(
                f"{r['processes']} processes: {r['decisions_per_s'] / one['decisions_per_s']:.2f}x"
                " the decisions/s of 1 process with --redis (target >= 1.6x for 2)"
            )
    plain = next((r for r in results if not r["redis"]), None)
    for r in results:
        if plain is not None and r["redis"]:
            print(
                f"{r['processes']} process(es) with --redis: "
                f"{r['decisions_per_s'] / plain['decisions_per_s']:.2f}x one process without"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
