"""``fjmj simulate``: bots play N hands; seats rotate over the bot kinds (arena).

Determinism: hand i uses the seed ``"{seed}:{i}"``, dealer ``i mod n`` and the bot kinds
rotated by ``i`` — so its result depends only on (seed, i), and the summary is the same
for any number of worker processes (records are aggregated in hand order).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fujian_mahjong.bots import make_bot
from fujian_mahjong.engine import Game, to_jsonl
from fujian_mahjong.errors import MahjongError


class SimulationError(MahjongError):
    """An engine error during a simulation (a bug): carries the hand's seed."""


@dataclass(frozen=True, slots=True)
class HandRecord:
    index: int
    seed: str
    kinds: tuple[str, ...]  # bot kind per seat
    winner: int | None
    win: str  # win kind, or "draw"
    specials: tuple[str, ...]
    payments: tuple[int, ...]
    decisions: int


def seat_kinds(kinds: Sequence[str], i: int) -> tuple[str, ...]:
    """Arena rotation: seat s plays kind ``kinds[(s + i) mod n]`` in hand i."""
    n = len(kinds)
    return tuple(kinds[(s + i) % n] for s in range(n))


def play_hand(
    profile: str, seed: str, i: int, kinds: Sequence[str], log_dir: str | None = None
) -> HandRecord:
    rot = seat_kinds(kinds, i)
    n = len(kinds)
    hand_seed = f"{seed}:{i}"
    bots = [make_bot(k, f"{hand_seed}:{s}") for s, k in enumerate(rot)]
    try:
        g = Game.new(profile, seed=hand_seed, players=n, dealer=i % n)
        decisions = 0
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, bots[s].act(g.seat_view(s)).action)
            decisions += 1
            if decisions > 5000:
                raise MahjongError("the hand does not end (over 5,000 decisions)")
    except MahjongError as e:
        raise SimulationError(f"hand {i} (seed {hand_seed!r}, profile {profile}): {e}") from e
    except Exception as e:  # an engine bug of any kind: report the seed
        raise SimulationError(
            f"hand {i} (seed {hand_seed!r}, profile {profile}): {type(e).__name__}: {e}"
        ) from e
    if log_dir is not None:
        Path(log_dir, f"hand-{i:07d}.jsonl").write_text(to_jsonl(g.events), encoding="utf-8")
    sc = g.score()
    assert sc is not None
    return HandRecord(
        i,
        hand_seed,
        rot,
        g.win["winner"] if g.win else None,
        g.win["win"] if g.win else "draw",
        sc.specials if g.win else (),
        sc.payments,
        decisions,
    )


def _chunk(args: tuple[str, str, list[int], tuple[str, ...], str | None]) -> list[HandRecord]:
    profile, seed, idx, kinds, log_dir = args
    return [play_hand(profile, seed, i, kinds, log_dir) for i in idx]


@dataclass
class Summary:
    profile: str
    hands: int
    seed: str
    kinds: tuple[str, ...]
    seconds: float = 0.0
    wins_by_seat: list[int] = field(default_factory=list)
    win_kinds: dict[str, int] = field(default_factory=dict)
    specials: dict[str, int] = field(default_factory=dict)
    draws: int = 0
    kind_stats: dict[str, dict[str, float]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.profile,
            "hands": self.hands,
            "seed": self.seed,
            "players": list(self.kinds),
            "seconds": round(self.seconds, 3),
            "hands_per_s": round(self.hands / self.seconds, 1) if self.seconds else None,
            "win_rate_by_seat": [round(w / self.hands, 4) for w in self.wins_by_seat],
            "draw_rate": round(self.draws / self.hands, 4),
            "win_kinds": dict(sorted(self.win_kinds.items())),
            "specials": dict(sorted(self.specials.items())),
            "by_kind": self.kind_stats,
        }


def summarise(
    records: Sequence[HandRecord], profile: str, seed: str, kinds: Sequence[str]
) -> Summary:
    n = len(kinds)
    sm = Summary(profile, len(records), seed, tuple(kinds), wins_by_seat=[0] * n)
    per_kind: dict[str, list[int]] = {k: [] for k in dict.fromkeys(kinds)}
    wins_kind: dict[str, int] = dict.fromkeys(per_kind, 0)
    for r in sorted(records, key=lambda r: r.index):
        if r.winner is None:
            sm.draws += 1
        else:
            sm.wins_by_seat[r.winner] += 1
            wins_kind[r.kinds[r.winner]] += 1
        sm.win_kinds[r.win] = sm.win_kinds.get(r.win, 0) + 1
        for sp in r.specials:
            sm.specials[sp] = sm.specials.get(sp, 0) + 1
        for s in range(n):
            per_kind[r.kinds[s]].append(r.payments[s])
    for k, xs in per_kind.items():
        m = len(xs)
        mean = sum(xs) / m if m else 0.0
        var = sum((x - mean) ** 2 for x in xs) / (m - 1) if m > 1 else 0.0
        half = 1.96 * math.sqrt(var / m) if m else 0.0
        seats_of_kind = kinds.count(k)
        sm.kind_stats[k] = {
            "seats": seats_of_kind,
            "seat_hands": m,
            "win_rate": round(wins_kind[k] / m, 4) if m else 0.0,
            "mean_points": round(mean, 4),
            "ci95_low": round(mean - half, 4),
            "ci95_high": round(mean + half, 4),
        }
    return sm


def simulate(
    profile: str,
    hands: int,
    seed: int | str,
    kinds: Sequence[str],
    workers: int = 1,
    log_dir: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> Summary:
    """Play ``hands`` hands; raises SimulationError (with the seed) on an engine error."""
    seed = str(seed)
    kinds = tuple(kinds)
    for k in kinds:
        make_bot(k)
    if log_dir is not None:
        Path(log_dir).mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    records: list[HandRecord] = []
    if workers <= 1:
        for i in range(hands):
            records.append(play_hand(profile, seed, i, kinds, log_dir))
            if progress:
                progress(1)
    else:
        size = max(1, min(200, hands // (workers * 8) or 1))
        jobs = [
            (profile, seed, list(range(a, min(hands, a + size))), kinds, log_dir)
            for a in range(0, hands, size)
        ]
        with ProcessPoolExecutor(max_workers=workers) as ex:
            for chunk in ex.map(_chunk, jobs):
                records.extend(chunk)
                if progress:
                    progress(len(chunk))
    sm = summarise(records, profile, seed, kinds)
    sm.seconds = time.perf_counter() - t0
    return sm
