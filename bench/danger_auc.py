"""Can a network read deal-ins from the seat view better than the 高手's model? (docs/bots.md,
"The neural bot", variants that failed.)

    python bench/danger_auc.py --hands 3000 --seeds dA,dB --workers 2

The teacher (``strong-fast``) plays ``--hands`` hands of fuzhou-tcy per seed. At each discard
the seat's observation and view features are recorded (what the network reads, R12), and
per kind held (the gold aside) the label: discarding it now would let an opponent win
(``Game._may_win_on``, the engine's own rule: R5, R8.4; hidden information, used only as the
label). A small network (observation + view features → 256 → 128 → 34 sigmoid, Adam,
cross-entropy over the kinds held) is fitted on 90% of the decisions; the AUC on the rest is
compared with that of the 高手's deal-in model (``tile_risk``, a view feature) on the same
(decision, kind) pairs.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fujian_mahjong.bots.neural import V_RISK, view_features
from fujian_mahjong.engine.events import Phase
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.rl.encoding import OBS_HIGH
from fujian_mahjong.rl.train import teacher_factory
from fujian_mahjong.rl.vec import VecGames


def teacher_discards(seed: str, hands: int) -> Iterator[tuple[Any, SeatView, Any]]:
    """The teacher's self-play, ``hands`` hands of fuzhou-tcy, 16 at a time: at each turn
    where the seat acting may discard, (its game, its seat view, its observation)."""
    make = teacher_factory("strong-fast")
    batch = 16
    vec = VecGames(batch, "fuzhou-tcy", 4)
    out = vec.reset([f"{seed}/{i}" for i in range(batch)])
    bots = [[make(f"{seed}/{i}:0:{s}") for s in range(4)] for i in range(batch)]
    done = 0
    while done < hands:
        acts = np.zeros(batch, dtype=np.int64)
        for i in range(batch):
            view = vec.view(i)
            acts[i] = vec.index_of(i, bots[i][int(out.seat[i])].act(view).action)
            if view.phase == Phase.TURN and any(a.type == "discard" for a in view.legal):
                yield vec.games[i], view, out.obs[i]
        out = vec.step(acts)
        for i in np.flatnonzero(out.done).tolist():
            done += 1
            j = int(vec.hands[i]) - 1
            bots[i] = [make(f"{seed}/{i}:{j}:{s}") for s in range(4)]


def collect(args: tuple[str, int]) -> dict[str, Any]:
    obs, vf, y, held = [], [], [], []
    for g, view, ob in teacher_discards(*args):
        s = view.seat
        h = np.zeros(34, np.uint8)
        lab = np.zeros(34, np.uint8)
        for k in range(34):
            if g.counts[s][k] and k != g.gold:
                h[k] = 1
                lab[k] = any(g._may_win_on(o, k, True) for o in range(4) if o != s)
        obs.append(np.minimum(ob, 255).astype(np.uint8))
        vf.append(view_features(view).astype(np.float16))
        y.append(lab)
        held.append(h)
    return {"obs": np.array(obs), "vf": np.array(vf), "y": np.array(y), "held": np.array(held)}


def auc(score: Any, label: Any) -> float:
    """The area under the ROC curve (ties share their average rank)."""
    order = np.argsort(score, kind="mergesort")
    s, t = score[order], label[order]
    _, first, count = np.unique(s, return_index=True, return_counts=True)
    ranks = np.repeat(first + (count + 1) / 2.0, count)
    pos = t.sum()
    neg = len(t) - pos
    return float((ranks[t > 0].sum() - pos * (pos + 1) / 2) / (pos * neg))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--hands", type=int, default=3000, help="hands per seed")
    ap.add_argument("--seeds", default="dA,dB")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=5)
    a = ap.parse_args(argv)
    t0 = time.time()
    jobs = [(s, a.hands) for s in a.seeds.split(",")]
    with ProcessPoolExecutor(a.workers) as ex:
        parts = list(ex.map(collect, jobs))
    obs = np.concatenate([p["obs"] for p in parts])
    vf = np.concatenate([p["vf"] for p in parts])
    y = np.concatenate([p["y"] for p in parts]).astype(np.float32)
    held = np.concatenate([p["held"] for p in parts]).astype(np.float32)
    n = len(obs)
    print(f"{n:,} discards, {int(held.sum()):,} (discard, kind) pairs, "
          f"{(y * held).sum() / held.sum():.1%} would deal in; {time.time() - t0:.0f} s")  # fmt: skip
    scale = np.concatenate([1 / np.maximum(OBS_HIGH, 1), np.ones(vf.shape[1])]).astype(np.float32)

    def x(j: Any) -> Any:
        return np.concatenate([obs[j].astype(np.float32), vf[j].astype(np.float32)], 1) * scale

    tr, va = np.arange(int(n * 0.9)), np.arange(int(n * 0.9), n)  # the last hands held out
    hv = held[va] > 0
    base = auc(vf[va][:, V_RISK : V_RISK + 34].astype(np.float32)[hv], y[va][hv])
    print(f"the 高手's deal-in model (tile_risk): AUC {base:.4f}")
    rng = np.random.default_rng(0)
    sizes = [len(scale), 256, 128, 34]
    p: dict[str, Any] = {}
    for i in range(3):
        p[f"w{i}"] = (rng.standard_normal(sizes[i : i + 2]) * math.sqrt(2 / sizes[i])).astype(
            np.float32
        )
        p[f"b{i}"] = np.zeros(sizes[i + 1], np.float32)
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v2 = {k: np.zeros_like(v) for k, v in p.items()}

    def forward(xb: Any) -> list[Any]:
        hs = [xb]
        for i in range(3):
            z = hs[-1] @ p[f"w{i}"] + p[f"b{i}"]
            hs.append(np.maximum(z, 0) if i < 2 else z)
        return hs

    t = 0
    for ep in range(a.epochs):
        order = rng.permutation(tr)
        for s in range(0, len(order), 256):
            j = np.sort(order[s : s + 256])
            hs = forward(x(j))
            d = (1 / (1 + np.exp(-hs[-1])) - y[j]) * held[j] / max(held[j].sum(), 1)
            t += 1
            for i in reversed(range(3)):
                g_w, g_b = hs[i].T @ d, d.sum(0)
                if i:
                    d = (d @ p[f"w{i}"].T) * (hs[i] > 0)
                for k, g in ((f"w{i}", g_w), (f"b{i}", g_b)):
                    m[k] = 0.9 * m[k] + 0.1 * g
                    v2[k] = 0.999 * v2[k] + 0.001 * g * g
                    p[k] -= 1e-3 * (m[k] / (1 - 0.9**t)) / (np.sqrt(v2[k] / (1 - 0.999**t)) + 1e-8)
        z = np.concatenate([forward(x(va[b : b + 4096]))[-1] for b in range(0, len(va), 4096)])
        print(f"epoch {ep + 1}: the network's AUC {auc(z[hv], y[va][hv]):.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
