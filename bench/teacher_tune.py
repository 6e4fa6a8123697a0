"""Is the teacher's tuning still right against its own field? (docs/bots.md, "The neural
bot": what comes next.)

    python bench/teacher_tune.py --deals 1500 --variant '{"threat": 0.45}' --variant '{"ready_fold": 1.0}'

Each deal is played every seating 1 v 3 against three ``strong-fast`` (the 高手's rules
without its search, the network's teacher): once with ``strong-fast`` in the seat, once per
variant with ``StrongBot(max_rollouts=0, **variant)`` there (its keyword arguments:
``threat``, ``self_draw``, ``ready_fold``, ``stay_ready``, ``alpha``, ``ready_claims`` …).
Per variant the paired difference a hand is printed with its 95% half-width (clustered by
deal) and the number of deals where it changed the outcome.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fujian_mahjong.bots.base import play_out
from fujian_mahjong.bots.strong import StrongBot
from fujian_mahjong.engine import Game
from fujian_mahjong.engine.match import hand_seed
from fujian_mahjong.sim.simulate import DEALER


def deal(k: int, variants: list[dict[str, Any]], profile: str, seed: str) -> Any:
    """Deal k: the seat's points per seating (4) and per player (strong-fast, the variants)."""
    hs = hand_seed(seed, k)
    out = []
    for me in range(4):
        row = []
        for kw in [{}, *variants]:
            bots = [
                StrongBot(f"{hs}:{s}", max_rollouts=0, deadline_s=None, **(kw if s == me else {}))
                for s in range(4)
            ]
            g = Game.new(profile, seed=hs, players=4, dealer=DEALER)
            play_out(g, bots, 5000)
            sc = g.score()
            assert sc is not None
            row.append(sc.payments[me])
        out.append(row)
    return np.array(out, float)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--deals", type=int, default=1500)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--seed", default="tune")
    ap.add_argument("--profile", default="fuzhou-tcy")
    ap.add_argument("--variant", action="append", required=True, help="StrongBot kwargs, JSON")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    try:
        variants = [json.loads(v) for v in a.variant]
        for v in variants:
            StrongBot(0, **v)
    except (ValueError, TypeError) as e:
        print(f"teacher_tune: --variant: {e}", file=sys.stderr)
        return 2
    t0 = time.time()
    play = partial(deal, variants=variants, profile=a.profile, seed=a.seed)
    with ProcessPoolExecutor(a.workers) as ex:
        res = np.array(list(ex.map(play, range(a.start, a.start + a.deals), chunksize=8)))
    diff = (res[:, :, 1:] - res[:, :, :1]).mean(axis=1)  # per deal, per variant
    for j, v in enumerate(variants):
        x = diff[:, j]
        half = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
        print(f"{json.dumps(v):40s} {x.mean():+.2f} ± {half:.2f} points a hand "
              f"({int((x != 0).sum()):,} deals differ)")  # fmt: skip
    print(f"{len(diff):,} deals of {a.profile} (from {a.start}), {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
