"""Engine benchmark (issue: engine): complete random-policy hands per second, one core."""

from __future__ import annotations

import random
import time

from fujian_mahjong.engine import Game
from fujian_mahjong.rules import BUILTIN


def _hands(profile: str, n: int) -> float:
    rng = random.Random(1)
    t0 = time.perf_counter()
    for i in range(n):
        g = Game.new(profile, seed=i, dealer=i % 4)
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, rng.choice(g.legal_actions(s)))
    return n / (time.perf_counter() - t0)


def run() -> list[tuple[str, float, str, float]]:
    return [(f"engine: random-policy hands/s ({p})", _hands(p, 1500), "/s", 1000) for p in BUILTIN]
