"""The 高手 (``StrongBot``, kind ``strong``): its models, its arena and its think time.

    python bench/strong.py think [--hands 20]             # mean and p99 think time per decision
    python bench/strong.py arena --deals 100 [--players strong,heuristic-v1,heuristic-v1,heuristic-v1]
    python bench/strong.py calibrate [--hands 3000]       # re-measure the bot's models

``run()`` is the ``make bench`` entry (bench/run.py): the strong bot's mean and p99 think
time per decision, one core, over a few hands against three heuristic bots.

``arena`` is ``fjmj simulate --duplicate`` with the strong bot (the kinds ``strong`` and
``heuristic-v1`` are registered here when the package does not have them yet);
``calibrate`` plays heuristic bots against each other in the project's own simulator and
prints the tables that ``fujian_mahjong.bots.strong`` keeps as constants (the deal-in model
and the odds that weight its sampled worlds).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fujian_mahjong.analysis import shanten_keys
from fujian_mahjong.bots import BOT_KINDS
from fujian_mahjong.bots.heuristic_v1 import HeuristicV1Bot
from fujian_mahjong.bots.strong import (
    StrongBot,
    Weights,
    danger_features,
    determinize,
    public_state,
)
from fujian_mahjong.engine import Game


def register_kinds(**strong_options: Any) -> None:
    """Make ``strong`` (with these options) and ``heuristic-v1`` bot kinds in this process
    (and in the simulator's worker processes, which fork from it)."""
    opts = dict(strong_options)
    for key in ("base", "policy"):  # a bot kind's name -> that bot (they keep no state)
        if isinstance(opts.get(key), str):
            from fujian_mahjong.bots import make_bot

            opts[key] = make_bot(opts[key])
    if strong_options or "strong" not in BOT_KINDS:
        BOT_KINDS["strong"] = functools.partial(StrongBot, **opts)
    if "heuristic-v1" not in BOT_KINDS:
        BOT_KINDS["heuristic-v1"] = HeuristicV1Bot


# ---------------------------------------------------------------------------- think time


def think_times(
    hands: int = 20, seed: str = "think", profile: str = "fuzhou-tcy", **options: Any
) -> dict[str, float]:
    """The strong bot at seat 0 against three heuristic-v1 bots: think time per decision of
    the strong bot (seconds of wall clock, one core), searches and rollouts."""
    opp = HeuristicV1Bot()
    times: list[float] = []
    searches = 0
    departures = 0
    rollouts = 0
    for i in range(hands):
        strong = StrongBot(f"{seed}:{i}", **options)
        bots = [strong, opp, opp, opp]
        g = Game.new(profile, seed=f"{seed}:{i}")
        while not g.is_over():
            s = g.to_act()[0]
            v = g.seat_view(s)
            t0 = time.perf_counter()
            d = bots[s].act(v)
            if s == 0:
                times.append(time.perf_counter() - t0)
                if strong.last is not None:
                    searches += 1
                    departures += strong.last.chosen != 0
            g.apply(s, d.action)
        rollouts += strong.rollouts
    times.sort()
    n = len(times)
    return {
        "hands": hands,
        "decisions": n,
        "searches": searches,
        "departures": departures,
        "rollouts": rollouts,
        "mean_ms": 1000 * sum(times) / n if n else 0.0,
        "p99_ms": 1000 * times[min(n - 1, int(0.99 * n))] if n else 0.0,
        "max_ms": 1000 * times[-1] if n else 0.0,
    }


def run() -> list[tuple[str, float, str, float]]:
    """``make bench`` rows: the 高手's mean and p99 think time per decision (ms, one core)."""
    t = think_times(hands=12)
    return [
        ("strong bot: mean think time per decision (ms)", t["mean_ms"], " ms", 0),
        ("strong bot: p99 think time per decision (ms, <= 1000)", t["p99_ms"], " ms", 0),
        ("strong bot: searches per hand", t["searches"] / t["hands"], "", 0),
    ]


def print_think_times(hands: int = 20) -> None:
    """Print the think-time figures (what ``make bench`` shows)."""
    t = think_times(hands=hands)
    print(
        f"strong bot: {t['decisions']} decisions in {t['hands']} hands, {t['searches']} searched "
        f"({t['rollouts']} rollouts, {t['departures']} departures from the fast bot): "
        f"mean {t['mean_ms']:.1f} ms, p99 {t['p99_ms']:.1f} ms, "
        f"max {t['max_ms']:.1f} ms per decision"
    )


# ---------------------------------------------------------------------------- arena


def arena(
    deals: int,
    players: tuple[str, ...] = ("strong", "heuristic-v1", "heuristic-v1", "heuristic-v1"),
    workers: int = 1,
    seed: str = "0",
    profile: str = "fuzhou-tcy",
    **options: Any,
) -> dict[str, Any]:
    """``fjmj simulate --duplicate`` with the strong bot: the summary's JSON."""
    from fujian_mahjong.sim import simulate

    register_kinds(**options)
    sm = simulate(profile, deals, seed, list(players), workers=workers, duplicate=True)
    return sm.to_json()


def paired(
    deals: int,
    a: Any,
    b: Any,
    seed: str = "paired",
    profile: str = "fuzhou-tcy",
    opponent: str = "heuristic-v1",
    workers: int = 1,
) -> dict[str, float]:
    """Bot ``a`` against bot ``b`` (factories: seed -> bot) on the same hands: each deal is
    played in its 4 seatings with ``a`` at the rotating seat and ``opponent`` bots elsewhere,
    then again with ``b`` there; the mean per-deal difference of a's and b's points and its
    95% CI. The hands diverge only from the first decision where a and b differ, so this is
    far less noisy than two separate arena runs."""
    from concurrent.futures import ProcessPoolExecutor

    args = [(k, a, b, seed, profile, opponent) for k in range(deals)]
    if workers > 1:
        with ProcessPoolExecutor(workers) as ex:
            diffs = list(ex.map(_paired_deal, args, chunksize=max(1, deals // (8 * workers))))
    else:
        diffs = [_paired_deal(x) for x in args]
    n = len(diffs)
    m = sum(diffs) / n
    sd = math.sqrt(sum((d - m) ** 2 for d in diffs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n else 0.0
    return {"deals": n, "diff": m, "ci_low": m - half, "ci_high": m + half}


def _paired_deal(x: tuple[int, Any, Any, str, str, str]) -> float:
    from fujian_mahjong.bots import make_bot
    from fujian_mahjong.bots.base import play_out
    from fujian_mahjong.engine.match import hand_seed

    k, fa, fb, seed, profile, opponent = x
    hs = hand_seed(seed, k)
    total = 0.0
    for r in range(4):
        for sign, f in ((1, fa), (-1, fb)):
            bots = [make_bot(opponent, f"{hs}:{s}") for s in range(4)]
            bots[r] = f(f"{hs}:{r}")
            g = Game.new(profile, seed=hs, players=4, dealer=0)
            play_out(g, bots)
            sc = g.score()
            total += sign * (sc.payments[r] if sc is not None else 0)
    return total / 4


# ---------------------------------------------------------------------------- calibrate


def _shanten_of(g: Game, s: int) -> int:
    k = g.keys[s]
    return shanten_keys(k[0], k[1], k[2], g.counts[s][g.gold], 5 - len(g.melds[s]), k[3])


def _positions(profile: str, hands: int, rate: float, seed: str) -> list[tuple[Any, list[int]]]:
    """Turn decisions of four heuristic bots (a share ``rate`` of them): the seat's public
    state and every seat's true shanten."""
    rng = random.Random(seed)
    bot = HeuristicV1Bot()
    out: list[tuple[Any, list[int]]] = []
    for i in range(hands):
        g = Game.new(profile, seed=f"{seed}:{i}")
        while not g.is_over():
            s = g.to_act()[0]
            v = g.seat_view(s)
            d = bot.act(v)
            if g.phase == "turn" and d.action.type == "discard" and rng.random() < rate:
                pub = public_state(v)
                if pub is not None:
                    out.append((pub, [_shanten_of(g, o) for o in range(g.n)]))
            g.apply(s, d.action)
    return out


def calibrate_weights(
    profile: str = "fuzhou-tcy",
    hands: int = 3000,
    iterations: int = 4,
    swaps: int = 120,
    seed: str = "calibrate",
) -> dict[tuple[int, int], tuple[float, ...]]:
    """The odds of :class:`Weights`, fitted so that the sampled worlds' shanten of each other
    seat matches the fast bot's, by (turns, melds): start from P(true)/P(uniform), then
    repeat: draw a world at each position with the current odds, and multiply each cell's
    odds by P(true)/P(worlds)."""
    pos = _positions(profile, hands, 0.5, seed)
    cells = 5

    def cell(pub: Any, o: int) -> tuple[int, int]:
        ex = len(pub.melds[o])
        return min(len(pub.discards[o]) + ex, 12), min(ex, 3)

    true: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0] * cells)
    for pub, sh in pos:
        for o in range(pub.n):
            if o != pub.seat:
                true[cell(pub, o)][min(sh[o], cells - 1)] += 1
    table: dict[tuple[int, int], tuple[float, ...]] = {}
    rng = random.Random(seed)
    for it in range(iterations + 1):
        w = Weights(table) if it else None
        got: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0] * cells)
        for pub, _sh in pos:
            world = determinize(pub, rng, w, swaps if it else 0)
            for o in range(pub.n):
                if o != pub.seat:
                    got[cell(pub, o)][min(_shanten_of(world, o), cells - 1)] += 1
        new: dict[tuple[int, int], tuple[float, ...]] = {}
        for key in sorted(true):
            t_row = _pooled(true, key)
            g_row = _pooled(got, key)
            nt, ng = sum(t_row), sum(g_row)
            if nt < 30 or ng < 30:
                continue
            old = table.get(key, (1.0,) * cells)
            row = []
            for s in range(cells):
                pt = (t_row[s] + 0.5) / (nt + 0.5 * cells)
                pg = (g_row[s] + 0.5) / (ng + 0.5 * cells)
                row.append(min(500.0, max(0.005, old[s] * pt / pg)))
            for s in range(1, cells):
                row[s] = min(row[s], row[s - 1])  # never likelier as the hand gets worse
            new[key] = tuple(round(x, 3) for x in row)
        err = _mismatch(true, got)
        print(f"iteration {it}: mean |P(ready) true - worlds| = {err:.3f}", file=sys.stderr)
        table = new
    return table


def _pooled(tab: dict[tuple[int, int], list[float]], key: tuple[int, int]) -> list[float]:
    """A cell's counts with a little of its neighbours' (sparse late cells)."""
    t, m = key
    out = [0.0] * 5
    for (tt, mm), row in tab.items():
        if (tt, mm) == key:
            wgt = 1.0
        elif mm == m and abs(tt - t) == 1:
            wgt = 0.3
        elif abs(tt - t) <= 2 and abs(mm - m) <= 1:
            wgt = 0.1
        else:
            continue
        for s, x in enumerate(row):
            out[s] += wgt * x
    return out


def _mismatch(
    true: dict[tuple[int, int], list[float]], got: dict[tuple[int, int], list[float]]
) -> float:
    errs = []
    for key, row in true.items():
        n = sum(row)
        g = got.get(key)
        if n < 100 or not g or not sum(g):
            continue
        errs.append(abs(row[0] / n - g[0] / sum(g)))
    return sum(errs) / len(errs) if errs else math.nan


def calibrate_danger(
    profile: str = "fuzhou-tcy", hands: int = 3000, seed: str = "danger"
) -> list[float]:
    """The deal-in model: a logistic regression of "this other seat wins on this kind" on
    :func:`~fujian_mahjong.bots.strong.danger_features`, at every discard of four heuristic
    bots (numpy, Newton's method on the aggregated counts)."""
    import numpy as np

    bot = HeuristicV1Bot()
    agg: dict[tuple[float, ...], list[int]] = defaultdict(lambda: [0, 0])
    for i in range(hands):
        g = Game.new(profile, seed=f"{seed}:{i}")
        while not g.is_over():
            s = g.to_act()[0]
            v = g.seat_view(s)
            d = bot.act(v)
            if g.phase == "turn" and d.action.type == "discard":
                feats = danger_features(v)
                for o, rows in feats.items():
                    for k, f in rows.items():
                        r = agg[f]
                        r[0] += 1
                        r[1] += int(g._may_win_on(o, k, True))
            g.apply(s, d.action)
    x = np.array([list(f) for f in agg], float)
    n = np.array([r[0] for r in agg.values()], float)
    y = np.array([r[1] for r in agg.values()], float)
    beta = np.zeros(x.shape[1])
    beta[0] = -4.0
    for _ in range(60):
        p = 1 / (1 + np.exp(-x @ beta))
        grad = x.T @ (y - n * p)
        hess = (x * (n * p * (1 - p))[:, None]).T @ x + 1e-3 * np.eye(len(beta))
        beta += np.linalg.solve(hess, grad)
    return [round(float(b), 4) for b in beta]


# ---------------------------------------------------------------------------- CLI


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/strong.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("think", help="mean and p99 think time per decision")
    t.add_argument("--hands", type=int, default=20)
    a = sub.add_parser("arena", help="the duplicate arena with the strong bot")
    a.add_argument("--deals", type=int, default=100)
    a.add_argument("--players", default="strong,heuristic-v1,heuristic-v1,heuristic-v1")
    a.add_argument("--workers", type=int, default=1)
    a.add_argument("--seed", default="0")
    a.add_argument("--profile", default="fuzhou-tcy")
    a.add_argument("--options", default="{}", help="StrongBot keyword options (JSON)")
    pr = sub.add_parser("paired", help="strong against its fast bot on the same hands")
    pr.add_argument("--deals", type=int, default=500)
    pr.add_argument("--seed", default="paired")
    pr.add_argument("--workers", type=int, default=1)
    pr.add_argument("--options", default="{}", help="StrongBot keyword options (JSON)")
    pr.add_argument("--against", default="heuristic", help="the bot kind to compare with")
    c = sub.add_parser("calibrate", help="re-measure the strong bot's models")
    c.add_argument("--hands", type=int, default=3000)
    c.add_argument("--profile", default="fuzhou-tcy")
    c.add_argument("--what", choices=("weights", "danger", "both"), default="both")
    args = ap.parse_args(argv)
    if args.cmd == "think":
        print_think_times(args.hands)
    elif args.cmd == "arena":
        t0 = time.time()
        sm = arena(
            args.deals,
            tuple(args.players.split(",")),
            args.workers,
            args.seed,
            args.profile,
            **json.loads(args.options),
        )
        for kind, st in sm["by_kind"].items():
            lo, hi = st["ci95"]
            print(
                f"{kind:<14} {st['points_per_hand']:+8.3f} points/hand  95% CI [{lo:+.3f}, {hi:+.3f}]"
                f"  win {st['win_rate']:.3f}  deal-in {st['deal_ins_per_hand']:.3f}"
            )
        print(
            f"{sm['deals']} deals x {sm['seatings']} seatings = {sm['hands']} hands, "
            f"{time.time() - t0:.0f} s"
        )
    elif args.cmd == "paired":
        from fujian_mahjong.bots import make_bot

        register_kinds(**json.loads(args.options))
        t0 = time.time()
        r = paired(
            args.deals,
            BOT_KINDS["strong"],
            functools.partial(make_bot, args.against),
            args.seed,
            workers=args.workers,
        )
        print(
            f"strong - {args.against}: {r['diff']:+.3f} points/hand, 95% CI "
            f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}] over {r['deals']} deals x 4 seatings "
            f"(opponents heuristic-v1), {time.time() - t0:.0f} s"
        )
    else:
        if args.what in ("danger", "both"):
            print("_DANGER_BETA =", calibrate_danger(args.profile, args.hands))
        if args.what in ("weights", "both"):
            print("_RATIO =", calibrate_weights(args.profile, args.hands))
    return 0


if __name__ == "__main__":
    sys.exit(main())
