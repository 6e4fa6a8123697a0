"""CLI start-up benchmark (README, "Benchmarks"): ``fjmj --help`` and ``fjmj analyze`` as whole
processes must start in < 70 ms.

run.py checks ``value >= target``, so a start-up time is reported as starts per second
(1000 / median milliseconds): the 70 ms target is 1000 / 70 ≈ 14.3 starts/s.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_MS = 70.0
RUNS = 15


def _fjmj() -> list[str]:
    """The installed console script beside this interpreter, else ``python -m``."""
    script = Path(sys.executable).with_name("fjmj")
    return [str(script)] if script.exists() else [sys.executable, "-m", "fujian_mahjong"]


def median_ms(args: list[str], runs: int = RUNS) -> float:
    """Median wall time of ``fjmj ARGS`` as a fresh process, in milliseconds."""
    cmd = _fjmj() + args
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run(cmd, capture_output=True, check=False, env=env)  # warm the OS file cache
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False, env=env)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def run() -> list[tuple[str, float, str, float]]:
    rows = []
    for label, args in (
        ("fjmj --help", ["--help"]),
        ("fjmj analyze HAND", ["analyze", "123m456m789m234s678s5p", "--gold", "5p"]),
    ):
        ms = median_ms(args)
        rows.append(
            (
                f"cli: {label} starts/s ({ms:.0f} ms, < {TARGET_MS:.0f} ms)",
                1000 / ms,
                "/s",
                1000 / TARGET_MS,
            )
        )
    return rows


if __name__ == "__main__":
    for row in run():
        print(row)
