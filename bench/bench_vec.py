"""The batched environment and the neural bot (docs/rl.md, "Benchmarks"; docs/bots.md,
"The neural bot").

* vec env steps/s: ``VecGames`` of 1 and 64 games driven by masked random agents (one
  batched draw per step: a random legal index per game), one core (CPU time of the
  process), fuzhou-tcy; a step of the batch is N decisions, counted as N steps, beside the
  single AEC environment's figure in bench_rl.
* the same batch with the shipped policy network choosing every action (batched
  inference; a network that reads the view features computes them per game from its seat
  view): the rate self-play would run at.
* the neural bot's think time per decision (``NeuralBot.act`` on a seat view, one core):
  mean and 99th percentile, over the decisions of a few self-play hands.
"""

from __future__ import annotations

import time

import numpy as np

from fujian_mahjong.rl.vec import VecGames

Row = tuple[str, float, str, float]


def vec_steps_per_s(n: int, seconds: float = 1.5, policy: bool = False) -> float:
    vec = VecGames(n, "fuzhou-tcy", 4)
    out = vec.reset([f"bench{i}" for i in range(n)])
    rng = np.random.default_rng(0)
    net = None
    if policy:
        from fujian_mahjong.bots.neural import load_policy, view_features

        net = load_policy()
    steps = 0
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        if net is not None:
            vf = (
                np.stack([view_features(vec.view(i)) for i in range(n)])
                if net.view_features
                else None
            )
            a = net.act_batch(out.obs, out.mask, vf)
        else:
            # a uniformly random legal index per game: argmax of noise on the mask
            a = (rng.random(out.mask.shape) * out.mask).argmax(axis=1)
        out = vec.step(a)
        steps += n
    return steps / (time.process_time() - t0)


def think_times(hands: int = 6) -> tuple[float, float]:
    from fujian_mahjong.bots.neural import NeuralBot
    from fujian_mahjong.engine import Game

    times: list[float] = []
    for h in range(hands):
        g = Game.new("fuzhou-tcy", seed=f"think{h}")
        bots = [NeuralBot(f"think{h}:{s}") for s in range(4)]
        while not g.is_over():
            s = g.to_act()[0]
            v = g.seat_view(s)
            t0 = time.process_time()
            d = bots[s].act(v)
            times.append(time.process_time() - t0)
            g.apply(s, d.action)
    arr = np.array(times) * 1000
    return float(arr.mean()), float(np.percentile(arr, 99))


def run() -> list[Row]:
    rows: list[Row] = [
        ("vec env steps/s, 1 game, random agents (fuzhou-tcy)", vec_steps_per_s(1), "/s", 0),
        ("vec env steps/s, 64 games, random agents", vec_steps_per_s(64), "/s", 0),
        (
            "vec env steps/s, 64 games, neural policy (batched)",
            vec_steps_per_s(64, policy=True),
            "/s",
            0,
        ),
    ]
    mean, p99 = think_times()
    rows += [
        ("neural bot think time, mean (ms per decision)", mean, " ms", 0),
        ("neural bot think time, p99 (ms per decision)", p99, " ms", 0),
    ]
    return rows


if __name__ == "__main__":
    for label, value, unit, _ in run():
        print(f"{label:<58} {value:>12,.2f}{unit}")
