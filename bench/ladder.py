"""The difficulty ladder measured in duplicate (docs/bots.md, "The difficulty ladder").

    python bench/ladder.py                       # the table and the ratings (markdown)
    python bench/ladder.py --deals 2000 --write  # ... and write them into docs/bots.md
    python bench/ladder.py --match heuristic,heuristic-v1,heuristic-v1,heuristic-v1
    python bench/ladder.py --calibrate           # refit the danger model (bots/heuristic.py)

Every match is ``fjmj simulate --duplicate`` (the same deals, every seating of the kinds,
seat 0 deals: ``sim.play_deal``), summed with the simulator's own :class:`Accumulator`, so the
figures are the ones ``fjmj simulate --duplicate`` prints; on top of them this counts, per
kind, the specials its wins scored and how often one of its seats places above one of the
other kind's seats in the same hand (ties count half), which gives the ratings:

* ``points/hand ± CI``: clustered by deal (docs/bots.md, duplicate mode);
* ``outranks``: P(a seat of this kind ends a hand above a seat of the other kind);
* the rating of a kind (``bots.BOT_RATINGS``, for server/rating.py's openskill
  Plackett-Luce): ``mu = 25 + c·ln(P / (1 − P))``, P its ``outranks`` against ``heuristic``
  in their 2-vs-2 match (so ``heuristic`` is 25), c = 2·√(β² + 1) with β = 25/6 (four seats of
  sigma 1: Plackett-Luce orders two of them with odds e^(Δmu/c)); ``sigma`` is the same
  transform of the 95% half-width of P, at least 1.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fujian_mahjong.sim.simulate import (
    Accumulator,
    HandRecord,
    duplicate_seatings,
    play_deal,
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "bots.md"
BEGIN = "<!-- ladder:begin (python bench/ladder.py --write) -->"
END = "<!-- ladder:end -->"
SPECIALS = ("jin_que", "jin_long", "san_jin_dao", "qing_yi_se", "ping_hu", "qiang_jin")
ANCHOR = "heuristic"  # mu = 25
BETA = 25 / 6
C = 2 * math.sqrt(BETA**2 + 1.0)  # Plackett-Luce's c for four seats of sigma 1


def _chunk(args: tuple[str, str, list[int], tuple[str, ...]]) -> list[tuple[HandRecord, ...]]:
    profile, seed, idx, kinds = args
    return [play_deal(profile, seed, k, kinds, None, True) for k in idx]


class Match:
    """One duplicate match: the simulator's summary plus specials and outranking per kind."""

    def __init__(self, profile: str, kinds: tuple[str, ...], deals: int, seed: str) -> None:
        self.profile = profile
        self.kinds = kinds
        self.deals = deals
        self.seed = seed
        self.acc = Accumulator(profile, seed, kinds, True)
        names = tuple(dict.fromkeys(kinds))
        self.specials: dict[str, dict[str, int]] = {k: {} for k in names}
        self.pairs: dict[str, list[float]] = {k: [0.0, 0.0] for k in names}  # above, pairs
        self.seconds = 0.0

    def add(self, deal: tuple[HandRecord, ...]) -> None:
        self.acc.add_deal(deal)
        for r in deal:
            if r.winner is not None:
                sp = self.specials[r.kinds[r.winner]]
                for s in r.specials:
                    sp[s] = sp.get(s, 0) + 1
            n = len(r.kinds)
            for a in range(n):
                for b in range(n):
                    ka, kb = r.kinds[a], r.kinds[b]
                    if ka == kb:
                        continue
                    pa, pb = r.payments[a], r.payments[b]
                    cell = self.pairs[ka]
                    cell[0] += 1.0 if pa > pb else 0.5 if pa == pb else 0.0
                    cell[1] += 1.0

    def run(self, workers: int) -> Match:
        t0 = time.perf_counter()
        per = len(duplicate_seatings(self.kinds))
        size = max(1, min(200 // per or 1, self.deals // (workers * 8) or 1))
        jobs = [
            (self.profile, self.seed, list(range(i, min(i + size, self.deals))), self.kinds)
            for i in range(0, self.deals, size)
        ]
        if workers <= 1:
            for j in jobs:
                for deal in _chunk(j):
                    self.add(deal)
        else:
            with ProcessPoolExecutor(workers) as ex:
                for chunk in ex.map(_chunk, jobs):
                    for deal in chunk:
                        self.add(deal)
        self.seconds = time.perf_counter() - t0
        return self

    def summary(self) -> dict[str, Any]:
        sm = self.acc.summary().to_json()
        for k, st in sm["by_kind"].items():
            above, pairs = self.pairs[k]
            st["outranks"] = above / pairs if pairs else 0.5
            st["specials"] = dict(sorted(self.specials[k].items()))
        return sm


def _label(kinds: tuple[str, ...]) -> str:
    names = list(dict.fromkeys(kinds))
    if len(names) == 2:
        a, b = names
        return f"{kinds.count(a)} {a} v {kinds.count(b)} {b}"
    return " / ".join(names)


def _row(label: str, k: str, st: dict[str, Any]) -> str:
    lo, hi = st["ci95"]
    half = (hi - lo) / 2
    sp = st["specials"]
    specials = ", ".join(f"{SHORT.get(s, s)} {n}" for s, n in sp.items() if s in SHORT) or "–"
    return (
        f"| {label} | {k} | {st['points_per_hand']:+.2f} ± {half:.2f} | {st['win_rate']:.1%} "
        f"| {st['deal_ins_per_hand']:.1%} | {st['placement']:.3f} | {st['outranks']:.3f} "
        f"| {specials} |"
    )


SHORT = {
    "jin_que": "金雀",
    "jin_long": "金龙",
    "san_jin_dao": "三金倒",
    "qing_yi_se": "清一色",
}


def ladder_matches(kinds: list[str]) -> list[tuple[str, tuple[str, ...]]]:
    """(profile, kinds) of the ladder's matches: each kind 2 v 2 against ``heuristic`` (the
    ratings), greedy v random, heuristic v heuristic-v1 also 1 v 3, in fuzhou-tcy; the
    heuristics again in the other profiles."""
    out: list[tuple[str, tuple[str, ...]]] = []
    for k in kinds:
        if k != ANCHOR:
            out.append(("fuzhou-tcy", (ANCHOR, ANCHOR, k, k)))
    out.append(("fuzhou-tcy", ("greedy", "greedy", "random", "random")))
    out.append(("fuzhou-tcy", ("heuristic", "heuristic-v1", "heuristic-v1", "heuristic-v1")))
    for profile in ("sanming", "fuzhou-doudou", "fuzhou-bianfeng"):
        out.append((profile, ("heuristic", "heuristic", "heuristic-v1", "heuristic-v1")))
    return out


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def ratings(results: list[tuple[str, tuple[str, ...], dict[str, Any], int]]) -> dict[str, Any]:
    """``{kind: (mu, sigma)}`` from the 2 v 2 matches against the anchor in fuzhou-tcy."""
    out: dict[str, tuple[float, float]] = {ANCHOR: (25.0, 1.0)}
    for profile, kinds, sm, hands in results:
        names = set(kinds)
        if profile != "fuzhou-tcy" or ANCHOR not in names or len(names) != 2:
            continue
        if kinds.count(ANCHOR) != 2:
            continue
        (k,) = names - {ANCHOR}
        p = sm["by_kind"][k]["outranks"]
        mu = 25 + C * _logit(p)
        # the CI of p from the binomial of the hands (the pairs in one hand are correlated,
        # so hands count, not pairs), through the same transform
        half = 1.96 * math.sqrt(p * (1 - p) / max(1, hands))
        sigma = max(1.0, C * (_logit(p + half) - _logit(p)))
        out[k] = (round(mu, 1), round(sigma, 1))
    return out


def render(
    results: list[tuple[str, tuple[str, ...], dict[str, Any], int]],
    deals: int,
    seed: str,
    strong_deals: int = 0,
) -> str:
    lines = [
        BEGIN,
        "",
        f"Measured by `python bench/ladder.py --deals {deals}"
        + (f" --strong-deals {strong_deals}" if strong_deals else "")
        + f"` (seed {seed!r}; the compiled "
        "modules, two worker processes): duplicate, every seating of each deal, seat 0 deals. "
        "`outranks`: the chance that a seat of this kind ends a hand above a seat of the other "
        "kind (equal points count half); specials: those its wins scored.",
        "",
        "| match (profile) | kind | points/hand ± 95% CI | win | deal-in | placement "
        "| outranks | specials made |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for profile, kinds, sm, hands in results:
        label = f"{_label(kinds)} ({profile}, {sm['deals']:,} deals, {hands:,} hands)"
        for k, st in sm["by_kind"].items():
            lines.append(_row(label, k, st))
            label = ""
    rt = ratings(results)
    lines += [
        "",
        "Ratings (`fujian_mahjong.bots.BOT_RATINGS`, from the 2 v 2 matches against "
        "`heuristic` above):",
        "",
        "| kind | mu | sigma |",
        "|---|---|---|",
    ]
    for k, (mu, sigma) in sorted(rt.items(), key=lambda x: x[1][0]):
        lines.append(f"| {k} | {mu} | {sigma} |")
    lines += ["", END]
    return "\n".join(lines)


def write_doc(text: str) -> None:
    doc = DOC.read_text(encoding="utf-8")
    pat = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pat.search(doc):
        raise SystemExit(f"{DOC}: no ladder markers ({BEGIN} … {END})")
    DOC.write_text(pat.sub(lambda _m: text, doc), encoding="utf-8")


def calibrate(hands: int) -> None:  # pragma: no cover - a research tool
    """Refit the danger model's coefficients on heuristic-v1 self-play (numpy): the chance
    that a seat is ready and the chance that a kind is among a ready seat's waits, from
    what another seat could see at each discard (the features of bots/heuristic.py)."""
    import numpy as np

    from fujian_mahjong.analysis import shanten_keys, waits_keys
    from fujian_mahjong.bots import make_bot
    from fujian_mahjong.engine import Game
    from fujian_mahjong.rules import BUILTIN

    ready_x: list[list[float]] = []
    ready_y: list[float] = []
    wait_x: list[list[float]] = []
    wait_y: list[float] = []
    for profile in BUILTIN:
        for i in range(hands):
            seed = f"calibrate-{profile}-{i}"
            g = Game.new(profile, seed=seed, players=4, dealer=0)
            bots = [make_bot("heuristic-v1", f"{seed}:{s}") for s in range(4)]
            while not g.is_over():
                s = g.to_act()[0]
                v = g.seat_view(s)
                d = bots[s].act(v)
                if g.phase == "turn" and d.action.type == "discard":
                    vis = v.visible_counts()
                    gold = g.gold
                    ug = max(0, 4 - vis[gold])
                    for o in range(4):
                        if o == s or g.gold_discarded[o]:
                            continue
                        kk = g.keys[o]
                        w = g.counts[o][gold]
                        m = len(g.melds[o])
                        sh = shanten_keys(kk[0], kk[1], kk[2], w, 5 - m, kk[3])
                        disc = v.discards(o)
                        mid = sum(1 for k in disc[-3:] if k < 27 and 2 <= k % 9 <= 6)
                        ready_x.append([m, min(len(disc), 12), mid, ug])
                        ready_y.append(float(sh <= 0))
                        if sh > 0:
                            continue
                        ws = set(
                            waits_keys(kk[0], kk[1], kk[2], w, gold, kk[3], v.honours_playable)
                        )
                        per = [0, 0, 0, 0]
                        for k in disc:
                            per[min(k // 9, 3)] += 1
                        ds = set(disc)
                        for t in range(v.playable_kinds):
                            if t == gold:
                                continue
                            r = t % 9
                            sj = t < 27 and ((r >= 3 and t - 3 in ds) or (r <= 5 and t + 3 in ds))
                            wait_x.append(
                                [
                                    t in ds,
                                    min(vis[t], 3) == 1,
                                    min(vis[t], 3) == 2,
                                    vis[t] >= 3,
                                    t < 27 and r in (0, 8),
                                    t < 27 and r in (1, 7),
                                    t >= 27,
                                    per[min(t // 9, 3)] / max(1, len(disc)),
                                    sj,
                                    ug,
                                ]
                            )
                            wait_y.append(float(t in ws))
                g.apply(s, d.action)

    def logit(x: Any, y: Any) -> Any:
        x = np.column_stack([np.ones(len(x)), np.asarray(x, dtype=float)])
        y = np.asarray(y)
        b = np.zeros(x.shape[1])
        for _ in range(50):
            p = 1 / (1 + np.exp(-x @ b))
            grad = x.T @ (p - y) + 1e-3 * b
            h = (x * (p * (1 - p))[:, None]).T @ x + 1e-3 * np.eye(len(b))
            b -= np.linalg.solve(h, grad)
        return b

    print("ready [R0, R_MELD, R_DISC, R_MID, R_GOLD]:", logit(ready_x, ready_y).round(3))
    print(
        "wait [W0, W_OWN, W_VIS1, W_VIS2, W_VIS3, term, 2/8, honour, W_SUIT, W_SUJI, W_GOLD]:",
        logit(wait_x, wait_y).round(3),
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--deals", type=int, default=500)
    ap.add_argument("--seed", default="ladder")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--profile", default=None, help="only matches in this profile")
    ap.add_argument("--match", default=None, help="one match: comma-separated kinds")
    ap.add_argument("--write", action="store_true", help="write the table into docs/bots.md")
    ap.add_argument(
        "--strong-deals",
        type=int,
        default=0,
        help="also strong 2 v 2 against heuristic, this many deals (it thinks up to a second "
        "per decision: a few hundred deals take hours on two cores)",
    )
    ap.add_argument("--calibrate", type=int, nargs="?", const=300, default=None)
    args = ap.parse_args(argv)
    if args.calibrate:
        calibrate(args.calibrate)
        return 0
    from fujian_mahjong.bots import LADDER

    if args.match:
        matches = [(args.profile or "fuzhou-tcy", tuple(args.match.split(",")))]
    else:
        kinds = [k for k in (*LADDER, "heuristic-v1") if k != "strong"]
        matches = [m for m in ladder_matches(kinds) if args.profile in (None, m[0])]
        if args.strong_deals and "strong" in LADDER:
            matches.insert(3, ("fuzhou-tcy", (ANCHOR, ANCHOR, "strong", "strong")))
    results = []
    for profile, kinds in matches:
        deals = args.strong_deals if "strong" in kinds and not args.match else args.deals
        m = Match(profile, kinds, deals, args.seed).run(args.workers)
        sm = m.summary()
        hands = sm["hands"]
        results.append((profile, kinds, sm, hands))
        print(f"# {_label(kinds)} ({profile}): {hands} hands in {m.seconds:.0f} s", flush=True)
        for k, st in sm["by_kind"].items():
            print("  " + _row("", k, st), flush=True)
    text = render(results, args.deals, args.seed, args.strong_deals)
    print(text)
    if args.write:
        write_doc(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
