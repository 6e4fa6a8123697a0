"""The neural bot against the 高手 and its teacher (docs/bots.md, "The neural bot").

    python bench/net_vs_teacher.py search --deals 1000 --start 0 --seed eval-s --workers 2
    python bench/net_vs_teacher.py departures --deals 4000 --seed eval-s --workers 2

``search``: how much of the network's deficit against three 高手 is the 高手's search? Each
deal is played every seating 1 v 3 by the network twice, against three ``strong`` (the 高手)
and against three ``strong-fast`` (the same rules without the search: the network's
teacher), with the seatings and seeds of ``fjmj simulate --duplicate``
(``rl.train._stats_deal``), so the first is the acceptance run's figure on these deals.
Printed: the network's points a hand against each and their paired difference (what the
search is worth to the three), with 95% half-widths clustered by deal.

``departures``: where does the network lose to its teacher? Each deal is played every
seating against three ``strong-fast`` twice: with the network in the seat and with
``strong-fast`` there. The bots are deterministic, so the two hands are the same up to the
seat's first decision where the network departs from its teacher; per kind of that first
departure (the network's action → the teacher's): the hands, the mean of the network's
points less the teacher's with its 95% half-width, and its share of the difference a hand.
Hands where the two never depart give 0 and are counted apart.
"""

from __future__ import annotations

import argparse
import json
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
from fujian_mahjong.rl.train import _mean_ci as mean_hw
from fujian_mahjong.rl.train import _stats_deal
from fujian_mahjong.sim.simulate import DEALER

_POLICY: Any = None


def search_deal(args: tuple[str, str, int, str | None]) -> tuple[float, float, int]:
    """Deal k: the network's mean points a hand against strong and against strong-fast, and
    in how many seatings the two differ."""
    profile, seed, k, weights = args
    s = [r["points"] for r in _stats_deal((profile, seed, k, "strong", weights))]
    f = [r["points"] for r in _stats_deal((profile, seed, k, "strong-fast", weights))]
    return sum(s) / len(s), sum(f) / len(f), sum(a != b for a, b in zip(s, f, strict=True))


def departures_deal(args: tuple[str, str, int, str | None]) -> list[tuple[str, float]]:
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
                    kind = f"{ea['action']['type']} -> {eb['action']['type']}"
                else:
                    kind = f"other ({ea['type']}/{eb['type']})"
                break
        out.append((kind, float(pa.payments[me] - pb.payments[me])))
    return out


def search(rows: list[tuple[float, float, int]]) -> dict[str, Any]:
    strong = [r[0] for r in rows]
    fast = [r[1] for r in rows]
    return {
        "v_strong": mean_hw(strong),
        "v_strong_fast": mean_hw(fast),
        "search_worth": mean_hw([s - f for s, f in zip(strong, fast, strict=True)]),
        "deals_differing": sum(1 for r in rows if r[2]),
    }


def departures(per_deal: list[list[tuple[str, float]]]) -> dict[str, Any]:
    # per deal the mean over its seatings: the clustered CI of the whole difference
    whole = mean_hw([sum(d for _, d in rows) / len(rows) for rows in per_deal])
    groups: dict[str, list[float]] = defaultdict(list)
    for rows in per_deal:
        for kind, d in rows:
            groups[kind].append(d)
    hands = sum(len(v) for v in groups.values())
    table = []
    for kind, ds in sorted(groups.items(), key=lambda kv: sum(kv[1])):
        mu, hw = mean_hw(ds)
        table.append(
            {
                "first departure": kind,
                "hands": len(ds),
                "mean": round(mu, 2),
                "hw": round(hw, 2),
                "per hand": round(sum(ds) / hands, 3),
            }
        )
    return {"net_minus_teacher": whole, "by_kind": table}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("what", choices=["search", "departures"])
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
        if a.what == "search":
            out = search(list(ex.map(search_deal, jobs, chunksize=4)))
        else:
            out = departures(list(ex.map(departures_deal, jobs, chunksize=8)))
    head = {"deals": a.deals, "start": a.start, "seed": a.seed}
    print(json.dumps({**head, **out, "seconds": round(time.time() - t0, 1)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
