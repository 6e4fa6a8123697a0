"""RL and Ray benchmarks (docs/rl.md, "Benchmarks").

* env steps/s: the PettingZoo AEC env driven by masked random agents (each step reads the
  acting agent's observation and mask, picks a legal action, steps), one core (CPU time of
  the process, so other load on the machine does not count), per profile;
  also through ``fujian_mahjong.rl.env`` (PettingZoo's order/bounds wrappers).
* Ray simulation hands/s with 1 and 2 workers on a local ``ray.init(num_cpus=2)`` (start-up
  excluded, workers warmed up), and their ratio (the scaling on this machine).
"""

from __future__ import annotations

import os
import random
import time
from typing import Any

import numpy as np

from fujian_mahjong.rl import env, raw_env
from fujian_mahjong.rules import BUILTIN

Row = tuple[str, float, str, float]


def env_steps_per_s(profile: str, seconds: float = 2.0, wrapped: bool = False) -> float:
    e: Any = (
        env(profile=profile, seed="bench") if wrapped else raw_env(profile=profile, seed="bench")
    )
    rng = random.Random(0)
    steps = 0
    # CPU time of this process: the figure for "one core", whatever else the machine runs
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        e.reset()
        while True:
            agent = e.agent_selection
            if e.terminations[agent]:
                break
            legal = np.flatnonzero(e.observe(agent)["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps / (time.process_time() - t0)


def ray_rows(hands: int = 400) -> list[Row]:
    try:
        import ray
    except ImportError:
        return []
    from fujian_mahjong.sim.ray_backend import simulate_ray

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    kinds = ("heuristic", "heuristic", "random", "random")
    ray.init(
        address="local",
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
    )
    try:
        simulate_ray("fuzhou-tcy", 40, "warm-up", kinds, workers=2)  # start both workers
        rates = {}
        for w in (1, 2):
            sm = simulate_ray("fuzhou-tcy", hands, "bench", kinds, workers=w)
            rates[w] = sm.hands / sm.seconds
    finally:
        ray.shutdown()
    return [
        ("ray: simulate hands/s, 1 worker (fuzhou-tcy)", rates[1], "/s", 0),
        ("ray: simulate hands/s, 2 workers (fuzhou-tcy)", rates[2], "/s", 0),
        ("ray: 2-worker / 1-worker hands/s ratio", rates[2] / rates[1], "x", 0),
    ]


def run() -> list[Row]:
    out: list[Row] = []
    for p in BUILTIN:
        out.append(
            (f"rl: env steps/s, masked random agents ({p})", env_steps_per_s(p), "/s", 10_000)
        )
    out.append(
        (
            "rl: env steps/s via rl.env() wrappers (fuzhou-tcy)",
            env_steps_per_s("fuzhou-tcy", wrapped=True),
            "/s",
            0,
        )
    )
    out.extend(ray_rows())
    return out


if __name__ == "__main__":
    for label, value, unit, target in run():
        print(f"{label:<70} {value:>12,.2f}{unit}  {f'target {target:,}' if target else ''}")
