"""Bot benchmarks (issue: bots/simulator): complete hands/s on one core through the bot
protocol (seat views), with 4 random bots and with 4 heuristic bots, per profile."""

from __future__ import annotations

import time

from fujian_mahjong.rules import BUILTIN
from fujian_mahjong.sim import play_hand


def _rate(profile: str, kind: str, n: int) -> float:
    t0 = time.perf_counter()
    for i in range(n):
        play_hand(profile, "bench", i, (kind,) * 4)
    return n / (time.perf_counter() - t0)


def run() -> list[tuple[str, float, str, float]]:
    out = []
    for p in BUILTIN:
        out.append((f"bots: 4 random bots hands/s ({p})", _rate(p, "random", 1500), "/s", 1000))
    for p in BUILTIN:
        out.append((f"bots: 4 heuristic bots hands/s ({p})", _rate(p, "heuristic", 400), "/s", 200))
    return out
