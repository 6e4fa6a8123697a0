"""Bot benchmarks (issues bots/simulator, 16): complete hands per second of CPU time
(``time.process_time``, one core) through the bot protocol (seat views), with 4 random bots
and with 4 heuristic bots, per profile. The heuristic row starts in a fresh state of this
process (its first hands include the analysis caches' warm-up, like a cold worker).

The last two rows measure the same fuzhou-tcy hands in a child process with
``FJMJ_PURE_PYTHON=1`` (the modules' pure-Python sources instead of the mypyc-compiled
ones), so one run shows what compilation gains (issue 16 step 3)."""

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
    for p in BUILTIN:
        out.append(
            (f"bots: 4 random bots hands/s, CPU time ({p})", _rate(p, "random", 1500), "/s", 1000)
        )
    for p in BUILTIN:
        # issue 16 target: >= 700/s for fuzhou-tcy (2.5x the 270-450/s before it)
        out.append(
            (
                f"bots: 4 heuristic bots hands/s, CPU time ({p})",
                _rate(p, "heuristic", 400),
                "/s",
                700,
            )
        )
    out.append(
        ("bots: random hands/s, pure Python (fuzhou-tcy)", _pure_rate("random", 1500), "/s", 0)
    )
    out.append(
        ("bots: heuristic hands/s, pure Python (fuzhou-tcy)", _pure_rate("heuristic", 400), "/s", 0)
    )
    return out
