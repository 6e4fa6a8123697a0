"""Bot benchmarks (issues bots/simulator, 16): complete hands per second of CPU time
(``time.process_time``, one core) through the bot protocol (seat views), with 4 random bots
and with 4 heuristic bots, per profile. The heuristic row starts in a fresh state of this
process (its first hands include the analysis caches' warm-up, like a cold worker)."""

from __future__ import annotations

import time

from fujian_mahjong.rules import BUILTIN
from fujian_mahjong.sim import play_hand


def _rate(profile: str, kind: str, n: int) -> float:
    t0 = time.process_time()
    for i in range(n):
        play_hand(profile, "bench", i, (kind,) * 4)
    return n / (time.process_time() - t0)


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
    return out
