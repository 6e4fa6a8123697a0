"""Memory soak (docs/architecture.md, "Memory"): one `fjmj serve` process plays at least
FJMJ_BENCH_SOAK_HANDS (100,000) bot-only hands, keeping FJMJ_BENCH_SOAK_TABLES (16) bot-only
tables live at a time (a new one of 64 hands as each closes), and reads the process's
resident memory (/proc/PID/status VmRSS) when a fifth of the hands (20,000) and when all of
them are done. Target: at most 5 % growth between the two. Also: hands per second over the
whole run.

Both readings are taken with the same number of tables live (the tables still playing at
the end are not waited for), so the difference is what the hands played in between left
behind, not the live tables' own memory. Hands are counted exactly: the closed tables' and
each live table's ``hands_played`` (GET /api/tables). Bots of kind FJMJ_BENCH_SOAK_BOT
(``greedy``: the most hands per second of every kind, measured on this machine: greedy 21,
random 13, heuristic 9 hands/s at a load average of 11 — random bots' hands are long, the
heuristic's decisions dear), no claim pause, no bot delay, SQLite in a temporary directory
(deleted afterwards); the server is started as the other benchmarks start it
(bench/bench_server.py: this build's `fjmj`).
Progress lines (hands, hands/s, RSS) every FJMJ_BENCH_SOAK_EVERY (10,000) hands.

``python bench/bench_soak.py [--hands N] [--tables T] [--bot KIND] [--every N]``; on a
loaded machine the run is slower (the load average is printed), the growth is what counts.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_server import Row, _loadavg, _rss_kb, _Server

HANDS = int(os.environ.get("FJMJ_BENCH_SOAK_HANDS", "100000"))
TABLES = int(os.environ.get("FJMJ_BENCH_SOAK_TABLES", "16"))
BOT = os.environ.get("FJMJ_BENCH_SOAK_BOT", "greedy")
EVERY = int(os.environ.get("FJMJ_BENCH_SOAK_EVERY", "10000"))
HANDS_PER_TABLE = 64  # the most a table may have (POST /api/tables)
GROWTH_TARGET_PCT = 5.0


def soak(
    hands: int = HANDS, tables: int = TABLES, bot: str = BOT, every: int = EVERY
) -> dict[str, Any]:
    """Play ``hands`` bot-only hands on one server; RSS (KiB) at ``hands // 5`` and at
    ``hands`` hands, hands/s, and the RSS curve every ``every`` hands."""
    srv = _Server(claim_pause_ms=0, bot_delay_ms=0, grace_s=120)
    try:
        tok = srv.post("/api/guests", {"name": "soak"})["token"]
        mine: dict[int, int] = {}  # live table -> its hands
        closed = 0  # hands of the tables that have closed
        made = 0
        first_mark = max(1, hands // 5)
        rss_first: int | None = None
        curve: list[tuple[int, int, float]] = []
        next_print = every
        t0 = time.monotonic()
        while True:
            # always ``tables`` live tables; the first ones are shorter (1/T, 2/T, … of 64
            # hands) so that the later ones open and close at different moments
            while len(mine) < tables:
                n = HANDS_PER_TABLE
                if made < tables:
                    n = max(1, HANDS_PER_TABLE * (made + 1) // tables)
                body = {"bots": 4, "hands": n, "bot_kind": bot}
                mine[int(srv.post("/api/tables", body, tok)["id"])] = n
                made += 1
            r = srv.http.get(srv.base + "/api/tables")
            r.raise_for_status()
            live = {int(t["id"]): int(t["hands_played"]) for t in r.json()}
            for tid in [t for t in mine if t not in live]:
                closed += mine.pop(tid)
            done = closed + sum(live[t] for t in mine)
            if rss_first is None and done >= first_mark:
                rss_first = _rss_kb(srv.proc.pid)
            if done >= next_print or done >= hands:
                rate = done / max(1e-6, time.monotonic() - t0)
                rss = _rss_kb(srv.proc.pid)
                curve.append((done, rss, rate))
                print(
                    f"  (bench_soak: {done:,} hands, {rate:,.1f} hands/s, RSS {rss / 1024:,.1f} "
                    f"MiB, load average {_loadavg()})",
                    flush=True,
                )
                next_print = (done // every + 1) * every
            if done >= hands:
                # read with the tables still live, as at the first reading (the last ones
                # are not waited for: fewer live tables would flatter the figure)
                rss_last = _rss_kb(srv.proc.pid)
                break
            time.sleep(0.25)
        seconds = time.monotonic() - t0
    finally:
        srv.stop()
        shutil.rmtree(srv.dir, ignore_errors=True)
    assert rss_first is not None
    return {
        "hands": done,
        "first_mark": first_mark,
        "rate": done / max(1e-6, seconds),
        "rss_first_kib": rss_first,
        "rss_last_kib": rss_last,
        "growth_pct": 100.0 * (rss_last - rss_first) / rss_first,
        "tables": tables,
        "bot": bot,
        "curve": curve,
    }


def rows(r: dict[str, Any]) -> list[Row]:
    pre = f"soak: {r['tables']} bot-only tables ({r['bot']}), one process"
    n1, n2 = r["first_mark"], r["hands"]
    return [
        (f"{pre}, hands played", float(n2), "", 0),
        (f"{pre}, hands/s", r["rate"], "/s", 0),
        (f"{pre}, RSS after {n1:,} hands (MiB)", r["rss_first_kib"] / 1024, "MiB", 0),
        (f"{pre}, RSS after {n2:,} hands (MiB)", r["rss_last_kib"] / 1024, "MiB", 0),
        # a negative target is an upper bound (bench/run.py)
        (f"{pre}, RSS growth {n1:,} -> {n2:,} hands (%)", r["growth_pct"], "%", -5.0),
    ]


def run() -> list[Row]:
    print(f"  (bench_soak: {HANDS:,} hands, load average {_loadavg()} before)", flush=True)
    out = rows(soak())
    print(f"  (bench_soak: load average {_loadavg()} after)", flush=True)
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=HANDS)
    ap.add_argument("--tables", type=int, default=TABLES)
    ap.add_argument("--bot", default=BOT)
    ap.add_argument("--every", type=int, default=EVERY)
    a = ap.parse_args(argv)
    print(f"load average {_loadavg()}", flush=True)
    r = soak(a.hands, a.tables, a.bot, a.every)
    for label, value, unit, _ in rows(r):
        print(f"{label:<72} {value:>12,.2f} {unit}")
    print(f"load average {_loadavg()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
