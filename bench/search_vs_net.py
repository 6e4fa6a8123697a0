"""How much of the neural bot's deficit against three 高手 is the 高手's search? (docs/bots.md,
"The neural bot": what comes next.)

    python bench/search_vs_net.py --deals 1000 --seed eval-s --workers 2

Each deal is played every seating 1 v 3 by the shipped network (or ``--weights``) twice: against
three ``strong`` (the 高手, with its rollout search) and against three ``strong-fast`` (the
same rules without the search: the network's teacher). Both runs are the seatings and seeds of
``fjmj simulate --duplicate`` (``rl.train._stats_deal``), so the first is the acceptance
run's figure on these deals. Printed: the network's points a hand against each, and their
paired difference with its 95% half-width clustered by deal: what the search is worth to
three opponents against the network.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fujian_mahjong.rl.train import _stats_deal


def deal(args: tuple[str, str, int, str | None]) -> tuple[int, float, float, int]:
    """Deal k: the network's mean points a hand against strong and against strong-fast, and
    in how many seatings the two differ."""
    profile, seed, k, weights = args
    s = [r["points"] for r in _stats_deal((profile, seed, k, "strong", weights))]
    f = [r["points"] for r in _stats_deal((profile, seed, k, "strong-fast", weights))]
    return k, sum(s) / len(s), sum(f) / len(f), sum(a != b for a, b in zip(s, f, strict=True))


def mean_hw(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, 1.96 * math.sqrt(var / n)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
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
        rows = sorted(ex.map(deal, jobs, chunksize=4))
    strong = [r[1] for r in rows]
    fast = [r[2] for r in rows]
    diff = [s - f for s, f in zip(strong, fast, strict=True)]
    out: dict[str, Any] = {
        "deals": len(rows),
        "start": a.start,
        "seed": a.seed,
        "v_strong": mean_hw(strong),
        "v_strong_fast": mean_hw(fast),
        "search_worth": mean_hw(diff),
        "deals_differing": sum(1 for r in rows if r[3]),
        "seconds": round(time.time() - t0, 1),
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
