"""The server core's CPU per decision, in-process (no sockets): the real app (``create_app``,
SQLite in a temporary directory) on a fake clock, N tables of 4 human clients that answer
every prompt at once through the real dispatcher (``hello``/``join``/``ready``/``act`` as a
browser sends them). What it measures is the table server's own work per decision — the
engine, the views, the visibility rules, the messages (built, validated where that is on,
encoded), the store's commits (committed before anything about them is sent) and the
scheduling — without the WebSocket framing and the kernel's sockets, which
bench/bench_server.py measures with real processes.

    python bench/bench_core.py [--tables 200] [--seconds 20] [--profile out.prof]

``make bench`` (run()): 200 tables of 4 clients answering 300 ms after each prompt, 20 s
measured; CPU ms per decision (the process's CPU, the event loop's thread and the
database's, less the clients' decoding) and decisions per CPU second; with
``FJMJ_BENCH_PREV_SRC`` (another build's ``src``) the previous build's figure first, in the
same run. ``--profile`` writes a cProfile of the event loop's thread (its CPU time, not its
waits).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

Row = tuple[str, float, str, float]

TABLES = int(os.environ.get("FJMJ_BENCH_CORE_TABLES", "200"))
SECONDS = float(os.environ.get("FJMJ_BENCH_CORE_SECONDS", "20"))


THINK_S = 0.3  # a client answers 300 ms after its prompt (bench_server.py's clients do)


class Client:
    """A browser, in memory: it decodes the states it is sent (the cost of decoding is the
    client's, not the server's: it is taken out of the figure) and answers each prompt."""

    def __init__(self, loop: asyncio.AbstractEventLoop, dispatcher: Any) -> None:
        from fujian_mahjong.server.conn import Conn

        self.loop = loop
        self.dispatcher = dispatcher
        self.conn = Conn(1_000, self)
        self.conn.addr = "127.0.0.1"
        self.count = 0
        self.client_s = 0.0  # CPU spent decoding (the client's)
        self.tasks: set[asyncio.Task[None]] = set()

    # the Transport protocol (server/conn.py)
    def send(self, text: str) -> bool:
        self.count += 1
        if text.startswith('{"type":"state"'):
            # the decoding runs on the event loop's thread: its thread clock (a process
            # clock sums every thread's and costs about 5 µs a reading, the server's CPU)
            t0 = time.thread_time()
            st = json.loads(text)
            legal = st["view"].get("legal_actions") or []
            self.client_s += time.thread_time() - t0
            if legal and st.get("deadline_ms") is not None:
                msg = json.dumps({"type": "act", "seq": st["seq"], "action": _choice(legal)})
                self.loop.call_later(THINK_S, self._say, msg)
        elif text.startswith('{"type":"hand_end"'):
            self.loop.call_later(THINK_S, self._say, '{"type":"ready"}')
        return True

    def close(self, code: int, reason: str) -> None:
        pass

    def _say(self, text: str) -> None:
        task = self.loop.create_task(self.dispatcher.handle(self.conn, text))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


def _choice(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """Pass on every claim; on a turn discard the first tile offered."""
    for t in ("pass", "discard"):
        for a in legal:
            if a.get("type") == t:
                return a
    return legal[0]


async def _run(tables: int, seconds: float, prof: cProfile.Profile | None) -> dict[str, Any]:
    import httpx

    from fujian_mahjong.server.app import create_app
    from fujian_mahjong.server.settings import Settings

    data = Path(tempfile.mkdtemp(prefix="fjmj-core-"))
    # the server's defaults (claim pause, opening, turn time) but the exact claim pause, as
    # bench_server.py runs it; many guests from one address
    settings = Settings(data_dir=data, claim_window="fast", guests_per_address=100_000)
    app = create_app(settings)
    loop = asyncio.get_running_loop()
    async with app.router.lifespan_context(app):
        http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")
        dispatcher = app.state.dispatcher
        lobby = app.state.lobby
        clients: list[Client] = []
        for t in range(tables):
            seated = []
            for i in range(4):
                g = (await http.post("/api/guests", json={"name": f"c{t}-{i}"})).json()
                c = Client(loop, dispatcher)
                await dispatcher.handle(c.conn, json.dumps({"type": "hello", "token": g["token"]}))
                seated.append((c, g["token"]))
            r = await http.post(
                "/api/tables",
                json={"profile": "fuzhou-tcy", "hands": 64},
                headers={"Authorization": f"Bearer {seated[0][1]}"},
            )
            table = r.json()["id"]
            for c, _tok in seated:
                await dispatcher.handle(c.conn, json.dumps({"type": "join", "table": table}))
            for c, _tok in seated:
                await dispatcher.handle(c.conn, '{"type":"ready"}')
            clients += [c for c, _tok in seated]
        await http.aclose()

        def applied() -> int:
            return sum(t.actions for t in lobby.tables.values())

        def hands() -> int:  # the hands recorded in their matches (each hand's end costs
            # several transactions: how many fall in the window moves the figure)
            return sum(t.match.hands_played for t in lobby.tables.values() if t.match)

        await asyncio.sleep(min(5.0, seconds / 4))  # every table past its opening
        d0, h0, cpu0, wall0 = applied(), hands(), time.process_time(), time.perf_counter()
        main0 = time.thread_time()  # the event loop's thread (the rest: the database's)
        c0 = sum(c.client_s for c in clients)
        m0 = sum(c.count for c in clients)
        if prof is not None:
            prof.enable()
        await asyncio.sleep(seconds)
        if prof is not None:
            prof.disable()
        client = sum(c.client_s for c in clients) - c0
        cpu = time.process_time() - cpu0 - client
        loop_cpu = time.thread_time() - main0 - client
        n = applied() - d0
        ended = hands() - h0
        wall = time.perf_counter() - wall0
        msgs = sum(c.count for c in clients) - m0  # those of the measured window
        for c in clients:
            for task in list(c.tasks):
                task.cancel()
    return {
        "decisions": n,
        "cpu_ms": 1000.0 * cpu / max(1, n),
        "loop_ms": 1000.0 * loop_cpu / max(1, n),
        "rate": n / wall,
        "per_cpu_s": n / cpu,
        "messages": msgs,
        "hands": ended,
    }


def measure(
    tables: int = TABLES, seconds: float = SECONDS, profile: str | None = None
) -> dict[str, Any]:
    prof = cProfile.Profile(time.thread_time) if profile else None  # CPU, not waits
    r = asyncio.run(_run(tables, seconds, prof))
    if prof is not None and profile:
        prof.dump_stats(profile)
    return r


def _previous() -> dict[str, Any] | None:
    """The same measurement of another build (``FJMJ_BENCH_PREV_SRC``: the ``src`` folder of
    a checkout built with ``make venv``, e.g. the commit before a change), in a process of
    its own, so that one ``make bench`` prints both."""
    prev = os.environ.get("FJMJ_BENCH_PREV_SRC")
    if not prev:
        return None
    env = {**os.environ, "PYTHONPATH": prev}
    out = subprocess.run(
        [sys.executable, __file__, "--tables", str(TABLES), "--seconds", str(SECONDS), "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def run() -> list[Row]:
    rows: list[Row] = []
    prev = _previous()
    if prev is not None:
        rows.append(
            (
                f"server core in-process, {TABLES} human tables: CPU/decision (previous build)",
                prev["cpu_ms"],
                " ms",
                0,
            )
        )
    r = measure()
    rows.append(
        (f"server core in-process, {TABLES} human tables: CPU per decision", r["cpu_ms"], " ms", 0)
    )
    rows.append(("server core in-process: decisions per CPU second", r["per_cpu_s"], "/s", 1000))
    return rows


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=TABLES)
    ap.add_argument("--seconds", type=float, default=SECONDS)
    ap.add_argument("--profile", help="write cProfile stats here")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    a = ap.parse_args(argv)
    r = measure(a.tables, a.seconds, a.profile)
    if a.json:
        print(json.dumps(r))
        return 0
    print(
        f"{r['decisions']} decisions at {a.tables} tables ({r['rate']:.0f}/s): "
        f"{r['cpu_ms']:.3f} ms CPU each (event loop {r['loop_ms']:.3f}; "
        f"{r['per_cpu_s']:,.0f}/CPU s), "
        f"{r['messages'] / max(1, r['decisions']):.1f} messages each, "
        f"{r['hands']} hands ended; "
        f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
