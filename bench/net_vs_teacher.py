"""Where does the neural bot lose to its teacher? (docs/bots.md, "The neural bot".)

    python bench/net_vs_teacher.py --deals 2000 --seed eval-s --workers 2

Each deal is played every seating 1 v 3 against three ``strong-fast`` (the 高手's rules
without its search, the network's teacher, which the 高手's search does not change against
the network: bench/search_vs_net.py) twice: with the network in the seat and with
``strong-fast`` there. The bots are deterministic, so the two hands are the same up to the
seat's first decision where the network departs from its teacher; per kind of that first
departure (the network's action → the teacher's), the number of hands and the mean of the
network's points less the teacher's, with its 95% half-width. Hands where the two never
depart give 0 and are counted apart.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fujian_mahjong.bots.base import play_out
from fujian_mahjong.bots.neural import NeuralBot, load_policy
from fujian_mahjong.bots.strong import StrongBot
from fujian_mahjong.engine import Game
from fujian_mahjong.engine.match import hand_seed
from fujian_mahjong.sim.simulate import DEALER

_POLICY: Any = None


def _kind(action: dict[str, Any]) -> str:
    return str(action["type"])


def deal(args: tuple[str, str, int, str | None]) -> list[tuple[str, float]]:
    """Deal k, every seating: (the first departure's kind, network − teacher points)."""
    global _POLICY
    profile, seed, k, weights = args
    if _POLICY is None:
        _POLICY = load_policy(weights)
    hs = hand_seed(seed, k)
    out = []
    for me in range(4):
        games = []
        for net in (True, False):
            bots: list[Any] = [
                StrongBot(f"{hs}:{s}", max_rollouts=0, deadline_s=None) for s in range(4)
            ]
            if net:
                bots[me] = NeuralBot(f"{hs}:{me}", _POLICY)
            g = Game.new(profile, seed=hs, players=4, dealer=DEALER)
            play_out(g, bots, 5000)
            games.append(g)
        a, b = games
        pa, pb = a.score(), b.score()
        assert pa is not None and pb is not None
        kind = "same"
        for ea, eb in zip(a.events, b.events, strict=False):
            if ea != eb:
                if ea["type"] == "act" and eb["type"] == "act" and ea["seat"] == me:
                    kind = f"{_kind(ea['action'])} -> {_kind(eb['action'])}"
                else:
                    kind = f"other ({ea['type']}/{eb['type']})"
                break
        out.append((kind, float(pa.payments[me] - pb.payments[me])))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--seed", default="eval-s")
    ap.add_argument("--profile", default="fuzhou-tcy")
    ap.add_argument("--weights", default=None, help="default: the shipped weights")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    t0 = time.time()
    jobs = [(a.profile, a.seed, k, a.weights) for k in range(a.start, a.start + a.deals)]
    with ProcessPoolExecutor(a.workers) as ex:
        per_deal = list(ex.map(deal, jobs, chunksize=8))
    # per deal: the mean over its seatings (the clustered CI of the whole difference)
    means = [sum(d for _, d in rows) / len(rows) for rows in per_deal]
    n = len(means)
    m = sum(means) / n
    hw = 1.96 * math.sqrt(sum((x - m) ** 2 for x in means) / (n - 1) / n)
    groups: dict[str, list[float]] = defaultdict(list)
    for rows in per_deal:
        for kind, d in rows:
            groups[kind].append(d)
    hands = sum(len(v) for v in groups.values())
    table = []
    for kind, ds in sorted(groups.items(), key=lambda kv: sum(kv[1])):
        mu = sum(ds) / len(ds)
        h = 1.96 * math.sqrt(sum((x - mu) ** 2 for x in ds) / max(1, len(ds) - 1) / len(ds))
        # its share of the whole difference a hand
        table.append(
            {
                "first departure": kind,
                "hands": len(ds),
                "mean": round(mu, 2),
                "hw": round(h, 2),
                "per hand": round(sum(ds) / hands, 3),
            }
        )
    print(
        json.dumps(
            {
                "deals": n,
                "net_minus_teacher": [round(m, 3), round(hw, 3)],
                "seconds": round(time.time() - t0, 1),
                "by_kind": table,
            },
            indent=1,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
