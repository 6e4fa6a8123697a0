"""Masked-policy REINFORCE in plain numpy: one learning seat against random bots.

    make venv    # once: .venv with the rl extra (pettingzoo, gymnasium) and matplotlib; or,
                 # in a venv of your own, pip install 'fujian-mahjong[rl]' matplotlib
    .venv/bin/python examples/train_masked.py            # 10-35 s on one CPU core

The policy scores each *legal* action (the ``action_mask``) with a linear function of a
few features computed from the seat's own observation — the action's type, and for
discards the shanten (向听) the hand keeps after that discard and whether the tile is a
gold — and samples from the softmax over the legal actions only. REINFORCE with batch-
normalised advantages learns the weights from whole-hand returns (the R10 points).
Starting from all-zero weights (= a masked random agent), it learns to keep its hand
close to ready, to take wins and to stop passing on claims.

The learning curve (points per hand and win rate, moving averages) is saved as a PNG
(docs/rl-learning-curve.png by default) with the level of a masked random agent. For a
neural policy, feed the full ``observation`` vector instead (docs/rl.md lists its slices).
Errors are one line on standard error: exit 2 for bad input (an unknown ``--profile``), 1
when the rl extra or matplotlib is missing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

NEEDS = (
    "needs the rl extra and matplotlib: make venv, or pip install 'fujian-mahjong[rl]' matplotlib"
)

try:
    import gymnasium
    import matplotlib
    import numpy as np

    import fujian_mahjong.rl  # noqa: F401  (registers FujianMahjong-v0)
    from fujian_mahjong.analysis import shanten
    from fujian_mahjong.errors import MahjongError
    from fujian_mahjong.rl import encoding as E
    from fujian_mahjong.rules import get_profile
except ImportError as _e:
    if __name__ != "__main__":
        raise
    print(f"train_masked.py: error: {NEEDS} ({_e.name or _e} is missing)", file=sys.stderr)
    raise SystemExit(1) from None

# action type of every index (the blocks of the action table in docs/rl.md)
BLOCKS = [
    ("discard", E.A_DISCARD, E.A_ROB_GOLD_DISCARD),
    ("rob_gold+discard", E.A_ROB_GOLD_DISCARD, E.A_JIN_KAN),
    ("jin_kan", E.A_JIN_KAN, E.A_CONCEALED_KONG),
    ("concealed_kong", E.A_CONCEALED_KONG, E.A_ADDED_KONG),
    ("added_kong", E.A_ADDED_KONG, E.A_CHOW),
    ("chow", E.A_CHOW, E.A_PONG),
    ("pong", E.A_PONG, E.A_KONG),
    ("kong", E.A_KONG, E.A_WIN),
    ("win", E.A_WIN, E.A_THREE_GOLDS),
    ("three_golds", E.A_THREE_GOLDS, E.A_ROB_GOLD),
    ("rob_gold", E.A_ROB_GOLD, E.A_PASS),
    ("pass", E.A_PASS, E.N_ACTIONS),
]
TYPE_OF = np.zeros(E.N_ACTIONS, dtype=np.intp)
for _t, (_name, _lo, _hi) in enumerate(BLOCKS):
    TYPE_OF[_lo:_hi] = _t
FEATURES = [name for name, _, _ in BLOCKS] + ["-shanten after discard", "discards a gold"]


def features(obs: np.ndarray, legal: np.ndarray, honours: bool) -> np.ndarray:
    """One feature row per legal action, from the seat's own observation only."""
    n_kinds = 34 if honours else 27
    hand = obs[E.O_HAND : E.O_HAND + n_kinds].astype(int).tolist()
    gold = int(np.argmax(obs[E.O_GOLD : E.O_GOLD + 34]))
    melds = int(obs[E.O_SEATS + 4])  # own slot: number of melds
    f = np.zeros((len(legal), len(FEATURES)))
    f[np.arange(len(legal)), TYPE_OF[legal]] = 1.0
    memo: dict[int, int] = {}
    for i, a in enumerate(legal):
        if a < E.A_CONCEALED_KONG:  # discard, rob_gold+discard, jin_kan: a tile leaves
            k = int(a) % 34
            if k not in memo:
                hand[k] -= 1
                memo[k] = shanten(hand, gold, melds, honours=honours)
                hand[k] += 1
            f[i, -2] = -memo[k] / 4.0
            f[i, -1] = float(k == gold)
    return f


def run_hand(
    env: gymnasium.Env,  # type: ignore[type-arg]
    rng: np.random.Generator,
    theta: np.ndarray,
    honours: bool,
    learn: bool,
) -> tuple[float, bool, list[tuple[np.ndarray, int, np.ndarray]]]:
    """One hand; returns (points, won, trajectory of (features, choice, probabilities))."""
    obs, _ = env.reset()
    traj = []
    while True:
        legal = np.flatnonzero(obs["action_mask"])
        if learn:
            f = features(obs["observation"], legal, honours)
            z = f @ theta
            p = np.exp(z - z.max())
            p /= p.sum()
            j = int(rng.choice(len(legal), p=p))
            if len(legal) > 1:  # a forced move carries no gradient
                traj.append((f, j, p))
        else:
            j = int(rng.integers(len(legal)))
        obs, r, term, trunc, info = env.step(int(legal[j]))
        if term or trunc:
            return float(r), info.get("winner") == 0, traj  # the learner sits at seat 0


def moving(x: list[float], w: int) -> np.ndarray:
    return np.convolve(np.asarray(x, dtype=float), np.ones(w) / w, mode="valid")


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except ImportError as e:
        print(f"train_masked.py: error: {NEEDS} ({e.name or e} is missing)", file=sys.stderr)
        return 1
    except MahjongError as e:
        print(f"train_masked.py: error: {e}", file=sys.stderr)
        return 2


def _main(argv: list[str] | None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--profile", default="fuzhou-tcy")
    ap.add_argument("--opponents", default="random", choices=("random", "heuristic"))
    ap.add_argument("--hands", type=int, default=3000, help="training hands")
    ap.add_argument("--seconds", type=float, default=50.0, help="stop training after this")
    ap.add_argument("--lr", type=float, default=1.0)
    ap.add_argument("--batch", type=int, default=16, help="hands per policy update")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--window", type=int, default=300, help="moving-average window (hands)")
    ap.add_argument("--out", default="docs/rl-learning-curve.png")
    args = ap.parse_args(argv)

    honours = getattr(get_profile(args.profile), "honours", "flowers") == "playable"
    rng = np.random.default_rng(args.seed)
    env = gymnasium.make("FujianMahjong-v0", profile=args.profile, opponents=args.opponents)
    t0 = time.perf_counter()
    theta = np.zeros(len(FEATURES))
    # the level to beat: a masked random agent on its own stream of hands
    env.reset(seed=10_000 + args.seed)
    rand = [run_hand(env, rng, theta, honours, learn=False)[:2] for _ in range(400)]
    random_pts = float(np.mean([p for p, _ in rand]))
    random_win = float(np.mean([w for _, w in rand]))

    env.reset(seed=args.seed)
    pts: list[float] = []
    wins: list[float] = []
    t1 = time.perf_counter()
    while len(pts) < args.hands and time.perf_counter() - t1 < args.seconds:
        batch = [run_hand(env, rng, theta, honours, learn=True) for _ in range(args.batch)]
        ret = np.array([r for r, _, _ in batch])
        pts.extend(ret.tolist())
        wins.extend(float(won) for _, won, _ in batch)
        # advantages normalised within the batch: a baseline and a scale in one
        adv = (ret - ret.mean()) / (ret.std() + 1e-8)
        grad = np.zeros_like(theta)
        for a, (_, _, traj) in zip(adv, batch, strict=True):
            for f, j, p in traj:
                grad += a * (f[j] - p @ f)  # ∇ log softmax over the legal actions only
        theta += args.lr * grad / len(batch)
    dt = time.perf_counter() - t0
    w = min(args.window, max(1, len(pts) // 4))
    print(f"{len(pts)} training hands + 400 random-agent hands in {dt:.1f} s")
    print(
        f"points/hand: random agent {random_pts:+.2f}; first {w} hands {np.mean(pts[:w]):+.2f},"
        f" last {w} {np.mean(pts[-w:]):+.2f}"
    )
    print(
        f"win rate:    random agent {random_win:.1%}; first {w} hands {np.mean(wins[:w]):.1%},"
        f" last {w} {np.mean(wins[-w:]):.1%}"
    )
    print("weights: " + ", ".join(f"{n} {v:+.2f}" for n, v in zip(FEATURES, theta, strict=True)))

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.arange(w, len(pts) + 1)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.4), dpi=110)
    a1.plot(x, moving(pts, w), label="REINFORCE (masked)")
    a1.axhline(random_pts, color="grey", ls="--", label="masked random agent")
    a1.set_xlabel("training hands")
    a1.set_ylabel(f"points per hand ({w}-hand mean)")
    a1.legend(loc="upper left", fontsize=8)
    a2.plot(x, 100 * moving(wins, w), color="tab:green", label="REINFORCE (masked)")
    a2.axhline(100 * random_win, color="grey", ls="--", label="masked random agent")
    a2.set_xlabel("training hands")
    a2.set_ylabel(f"win rate % ({w}-hand mean)")
    a2.legend(loc="upper left", fontsize=8)
    fig.suptitle(f"FujianMahjong-v0 ({args.profile}), one learning seat vs 3 {args.opponents} bots")
    fig.tight_layout()
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    print(f"learning curve: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
