"""Does the discard order tell more about deal-ins, and does it win points? (docs/bots.md, "The
neural bot", variants that failed.)

    python bench/danger_pairs.py --hands 2500 --play 3000

The teacher (``strong-fast``) plays ``--hands`` hands of fuzhou-tcy on each of two seeds.
At each discard, for each other seat that may win on a discard and each kind held (golds
aside), one row of public features (R12: the seat view only) and its label: that seat would
win on the kind now (``Game._may_win_on``, the engine's rule; hidden information, used only
as the label). The features are the 高手's twelve (``danger_features``) and what they leave
out: the order of that seat's discards (where each kind and its neighbours one to three
ranks away sit in its river, whether among its last four), the copies visible of the kind
and its neighbours, that seat's suit shares over its river, its last eight discards and its
melds, the 普通's ready chance and its inputs (middle tiles among the last three discards,
unseen golds), the rank. A logistic regression is fitted on 90% of the discards (Adam, by
decision); the AUC on the rest is compared with the 高手's own logistic (``_DANGER_BETA``) and
the 普通's model (its ready chance times its wait chance; 0 for a seat it does not fear).

``--play N`` then plays N deals twice, every seating 1 v 3 against three strong-fast: once
strong-fast at every seat, once with the learned model as the danger model of the one
seat's fast bot (the 普通's ``_Table.danger``: per opponent the chance that discarding the
kind deals in). The paired difference per deal is printed with its 95% half-width. The
fast bot's danger model is replaced in its Python source, so this runs with the pure-Python
modules (``FJMJ_PURE_PYTHON=1``, set here).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

os.environ["FJMJ_PURE_PYTHON"] = "1"  # before the package: its danger model is patched below
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from bench.danger_auc import auc, teacher_discards
from fujian_mahjong.bots import heuristic
from fujian_mahjong.bots.base import play_out
from fujian_mahjong.bots.strong import _DANGER_BETA, StrongBot, danger_features
from fujian_mahjong.engine import Game
from fujian_mahjong.engine.match import hand_seed
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.sim.simulate import DEALER

N_BASE = len(_DANGER_BETA)


def features(view: SeatView) -> dict[int, dict[int, list[float]]]:
    """Per other seat that may win on a discard, per kind held (golds aside): the row."""
    base = danger_features(view)
    vis = view.visible_counts()
    own = view.counts
    gold = view.gold
    ug = max(0, 4 - vis[gold]) if gold >= 0 else 0
    out: dict[int, dict[int, list[float]]] = {}
    for o, rows in base.items():
        dl = view.discards(o)
        n = max(len(dl), 1)
        last4 = set(dl[-4:])
        pos: dict[int, int] = {}
        for i, k in enumerate(dl):
            pos.setdefault(k, i)
        melds = view.melds(o)
        shares = np.zeros((3, 4))  # river, last eight discards, melds: per suit (honours 3)
        for row, tiles in enumerate((dl, dl[-8:], [t[0] for _m, t in melds if t])):
            for k in tiles:
                shares[row, min(k // 9, 3)] += 1
            shares[row] /= max(len(tiles), 1)
        mid3 = sum(1 for k in dl[-3:] if k < 27 and 2 <= k % 9 <= 6)
        ready = heuristic._ready_chance(len(melds), dl, ug)
        per: dict[int, list[float]] = {}
        for k, f in rows.items():
            r = k % 9 if k < 27 else -1
            x = [*f, vis[k] / 4, own[k] / 4, float(k in last4), pos[k] / n if k in pos else -1.0]
            for d in (-3, -2, -1, 1, 2, 3):
                j = k + d
                if k < 27 and 0 <= r + d <= 8:
                    at = pos[j] / n if j in pos else -1.0
                    x += [1.0, vis[j] / 4, float(j in pos), float(j in last4), at]
                else:
                    x += [0.0, 0.0, 0.0, 0.0, -1.0]
            x += [ready, mid3 / 3, ug / 4, float(k - 3 in pos or k + 3 in pos)]
            x += [*shares[:, min(k // 9, 3)], len(dl) / 20, view.live / 60, float(k >= 27)]
            x += [float(r == i) for i in range(9)]
            per[k] = x
        out[o] = per
    return out


def collect(args: tuple[str, int]) -> dict[str, Any]:
    xs: list[list[float]] = []
    ys: list[bool] = []
    ds: list[int] = []
    fast: list[float] = []  # the 普通's own chance (the model --play replaces)
    for decision, (g, view, _obs) in enumerate(teacher_discards(*args)):
        tb = heuristic._Table(view)
        for o, rows in features(view).items():
            opp = tb.opp(o)  # None: not ready enough for the 普通 to fear it
            for k, x in rows.items():
                fast.append(0.0 if opp is None else opp.p * opp.wait(k, tb.vis, tb.ug))
                xs.append(x)
                ys.append(g._may_win_on(o, k, True))
                ds.append(decision)
    return {
        "x": np.array(xs, np.float32),
        "y": np.array(ys, np.float32),
        "d": np.array(ds),
        "fast": np.array(fast),
    }


def fit(x: Any, y: Any, epochs: int, seed: int = 0) -> tuple[Any, float, Any, Any]:
    """A logistic regression on standardised features (Adam, batches of 512)."""
    rng = np.random.default_rng(seed)
    mu, sd = x.mean(0), x.std(0) + 1e-6
    xn = (x - mu) / sd
    w = np.zeros(x.shape[1], np.float32)
    b = 0.0
    mw, vw, mb, vb = np.zeros_like(w), np.zeros_like(w), 0.0, 0.0
    t = 0
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for s in range(0, len(order), 512):
            j = order[s : s + 512]
            d = (1 / (1 + np.exp(-(xn[j] @ w + b))) - y[j]) / len(j)
            gw, gb = xn[j].T @ d, float(d.sum())
            t += 1
            mw, vw = 0.9 * mw + 0.1 * gw, 0.999 * vw + 0.001 * gw * gw
            mb, vb = 0.9 * mb + 0.1 * gb, 0.999 * vb + 0.001 * gb * gb
            c1, c2 = 1 - 0.9**t, 1 - 0.999**t
            w -= 1e-3 * (mw / c1) / (np.sqrt(vw / c2) + 1e-8)
            b -= 1e-3 * (mb / c1) / (math.sqrt(vb / c2) + 1e-8)
    return w, b, mu, sd


MODEL: tuple[Any, float, Any, Any] | None = None
CURRENT: dict[int, dict[int, float]] | None = None  # the learned chances of the seat acting
_FAST_DANGER = heuristic._Table.danger


def _danger(self: Any, t: int, gold: int) -> tuple[float, float, int]:
    """The 普通's ``_Table.danger`` with the learned chance per opponent (for the one seat)."""
    if CURRENT is None:
        return _FAST_DANGER(self, t, gold)
    if t == gold:
        return 0.0, 0.0, -1  # R5: a discarded gold is never won on
    d = cost = top = 0.0
    worst = -1
    for o in self.opps:
        x = CURRENT.get(o.seat, {}).get(t, 0.0)
        d += x
        cost += x * o.cost
        if x * o.cost > top:
            top, worst = x * o.cost, o.seat
    return d, cost, worst


class LearnedDanger(StrongBot):
    """strong-fast whose fast bot reads the learned deal-in chances."""

    def act(self, view: SeatView) -> Any:
        global CURRENT
        assert MODEL is not None
        w, b, mu, sd = MODEL
        chances: dict[int, dict[int, float]] = {}
        for o, rows in features(view).items():
            ks = list(rows)
            if ks:
                z = ((np.array([rows[k] for k in ks], np.float32) - mu) / sd) @ w + b
                chances[o] = {k: 1 / (1 + math.exp(-float(v))) for k, v in zip(ks, z, strict=True)}
        CURRENT = chances
        try:
            return super().act(view)
        finally:
            CURRENT = None


def play(k: int) -> float:
    """Deal k, every seating: the learned seat's points less strong-fast's, averaged."""
    seed = hand_seed("danger-pairs", k)
    diff = 0.0
    for me in range(4):
        got = []
        for learned in (False, True):
            bots = [
                (LearnedDanger if learned and s == me else StrongBot)(
                    f"{seed}:{s}", max_rollouts=0, deadline_s=None
                )
                for s in range(4)
            ]
            g = Game.new("fuzhou-tcy", seed=seed, players=4, dealer=DEALER)
            play_out(g, bots, 5000)
            sc = g.score()
            assert sc is not None
            got.append(sc.payments[me])
        diff += (got[1] - got[0]) / 4
    return diff


def main(argv: list[str] | None = None) -> int:
    global MODEL
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--hands", type=int, default=2500, help="hands per seed")
    ap.add_argument("--seeds", default="dA,dB")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--play", type=int, default=0, help="deals of the paired match (0: none)")
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args(argv)
    heuristic._Table.danger = _danger  # type: ignore[method-assign]
    t0 = time.time()
    with ProcessPoolExecutor(a.workers) as ex:
        parts = list(ex.map(collect, [(s, a.hands) for s in a.seeds.split(",")]))
    x = np.concatenate([p["x"] for p in parts])
    y = np.concatenate([p["y"] for p in parts])
    fast = np.concatenate([p["fast"] for p in parts])
    offset = 0
    ds = []
    for p in parts:
        ds.append(p["d"] + offset)
        offset += int(p["d"].max()) + 1
    d = np.concatenate(ds)
    print(f"{len(x):,} (discard, seat, kind) rows of {x.shape[1]} features from {offset:,} "
          f"discards, {y.mean():.2%} would deal in; {time.time() - t0:.0f} s")  # fmt: skip
    cut = d[int(len(d) * 0.9)]
    tr, va = d < cut, d >= cut  # the last discards held out
    base = auc(x[va][:, :N_BASE] @ np.array(_DANGER_BETA, np.float32), y[va])
    w, b, mu, sd = fit(x[tr], y[tr], a.epochs)
    learned = auc(((x[va] - mu) / sd) @ w + b, y[va])
    print(f"held-out AUC: the 高手's model {base:.4f}, the 普通's {auc(fast[va], y[va]):.4f}, "
          f"the learned one {learned:.4f}")  # fmt: skip
    if not a.play:
        return 0
    MODEL = fit(x, y, a.epochs)  # every row
    t0 = time.time()
    with ProcessPoolExecutor(a.workers) as ex:
        diffs = np.array(list(ex.map(play, range(a.play), chunksize=4)))
    half = 1.96 * diffs.std(ddof=1) / math.sqrt(len(diffs))
    print(f"{len(diffs):,} deals v 3 strong-fast, learned danger − strong-fast: "
          f"{diffs.mean():+.2f} ± {half:.2f} points a hand ({int((diffs != 0).sum()):,} deals "
          f"differ); {time.time() - t0:.0f} s")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
