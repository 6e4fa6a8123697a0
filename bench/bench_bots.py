"""Bot benchmarks: complete hands per second of CPU time (``time.process_time``, one core)
through the bot protocol (seat views), with 4 random bots and with 4 heuristic bots, per
profile, then every kind of the difficulty ladder (docs/bots.md) on fuzhou-tcy and the
高手's think time per decision (bench/strong.py). The heuristic row starts in a fresh state
of this process (its first hands include the analysis caches' warm-up, like a cold worker).

Two rows measure the same fuzhou-tcy hands in a child process with ``FJMJ_PURE_PYTHON=1``
(the modules' pure-Python sources instead of the mypyc-compiled ones), so one run shows what
compilation gains (docs/engine.md)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from fujian_mahjong.rules import BUILTIN
from fujian_mahjong.sim import play_hand


def _rate(profile: str, kind: str, n: int) -> float:
    t0 = time.process_time()
    for i in range(n):
        play_hand(profile, "bench", i, (kind,) * 4)
    return n / (time.process_time() - t0)


def _pure_rate(kind: str, n: int) -> float:
    """``_rate("fuzhou-tcy", kind, n)`` in a child process on the pure-Python modules."""
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from bench.bench_bots import _rate; "
        f"print(_rate('fuzhou-tcy', {kind!r}, {n}))"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        [sys.executable, "-c", code, root],
        env={**os.environ, "FJMJ_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def run() -> list[tuple[str, float, str, float]]:
    out = []
    p0 = "fuzhou-tcy"
    for p in BUILTIN:
        out.append(
            (f"bots: 4 random bots hands/s, CPU time ({p})", _rate(p, "random", 1500), "/s", 1000)
        )
    for p in BUILTIN:
        # target: >= 700/s for fuzhou-tcy (2.5x the 270-450/s of the first heuristic)
        out.append(
            (
                f"bots: 4 heuristic bots hands/s, CPU time ({p})",
                _rate(p, "heuristic", 400),
                "/s",
                700,
            )
        )
    # the ladder's other kinds (4 bots of one kind, fuzhou-tcy); heuristic-v1 is the frozen
    # reference the 普通 heuristic must stay within 0.7x of
    for kind, n in (("greedy", 400), ("heuristic-v1", 400)):
        out.append(
            (f"bots: 4 {kind} bots hands/s, CPU time (fuzhou-tcy)", _rate(p0, kind, n), "/s", 0)
        )
    out.append(
        ("bots: random hands/s, pure Python (fuzhou-tcy)", _pure_rate("random", 1500), "/s", 0)
    )
    out.append(
        ("bots: heuristic hands/s, pure Python (fuzhou-tcy)", _pure_rate("heuristic", 400), "/s", 0)
    )
    from bench.strong import run as strong_rows  # the 高手: one core, mean and p99 think time

    return out + strong_rows()
