"""Engine benchmark (README, "Benchmarks"): complete random-policy hands per second of CPU time
(``time.process_time``, one core: the figure does not depend on other load)."""

from __future__ import annotations

import random
import time

from fujian_mahjong.engine import Game
from fujian_mahjong.rules import BUILTIN


def _hands(profile: str, n: int) -> float:
    rng = random.Random(1)
    t0 = time.process_time()
    for i in range(n):
        g = Game.new(profile, seed=i, dealer=i % 4)
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, rng.choice(g.legal_actions(s)))
    return n / (time.process_time() - t0)


def run() -> list[tuple[str, float, str, float]]:
    # the target (README, "Benchmarks"): >= 2,800/s for fuzhou-tcy (2x the 1,250-1,500/s before it)
    return [
        (f"engine: random-policy hands/s, CPU time ({p})", _hands(p, 1500), "/s", 2800)
        for p in BUILTIN
    ]
