"""``fjmj simulate``: bots play N hands; seats rotate over the bot kinds (arena).

The arena is fair: seat 0 deals every hand and the kinds rotate over the seats, so in hand
i seat s plays ``kinds[(s + i) mod n]`` and every kind takes every seat *relative to the
dealer* exactly once in any n consecutive hands (``--hands`` a multiple of n balances the
whole run). (The old arena dealt from seat ``i mod n`` as well; with an even number of
players that kept each kind at the dealer or the dealer's opposite only.)

Duplicate (``duplicate=True``, ``fjmj simulate --duplicate``): each *deal* (hand k's seed,
dealer seat 0, so the same wall and the same tiles to the same seats) is played once per
distinct seating of the kinds (:func:`duplicate_seatings`), so the luck of the deal cancels
between the kinds. The seatings are every distinct arrangement of the listed kinds, taken
in sorted order: listing the kinds in another order plays the same hands. Statistics are
clustered by deal (one observation per deal per kind: its mean over the seats it played in
that deal's seatings); a non-duplicate run is the same with one seating per deal.

Determinism: deal k uses the seed ``hand_seed(seed, k)`` and the bot at seat s the seed
``f"{hand seed}:{s}"`` — so its result depends only on (seed, k), and the summary is the
same for any number of worker processes and on the Ray backend (results are integers, folded
in deal order).

Memory is bounded whatever ``hands`` is: hands are streamed (a few chunks in flight per
worker, each record folded into running sums and dropped), never pre-allocated per hand.
Faults: an interrupt (Ctrl-C, SIGTERM in the CLI) terminates the worker
processes before it propagates; a worker that dies raises :class:`WorkerDied` naming it; a
hand log is written to a temporary name and renamed, so a full disk or a vanished log
directory raises :class:`LogWriteError` and leaves no partial log file.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fujian_mahjong.bots import make_bot
from fujian_mahjong.bots.base import play_out
from fujian_mahjong.engine import Game, to_jsonl
from fujian_mahjong.engine.match import hand_seed as derive_seed
from fujian_mahjong.errors import MahjongError

DEALER = 0  # the seat that deals every hand of the arena (the kinds rotate instead)
MAX_SEATINGS = 24  # 4 distinct kinds at 4 seats: 4! seatings per deal in duplicate mode


class SimulationError(MahjongError):
    """An engine error during a simulation (a bug): carries the hand's seed."""


class WorkerDied(MahjongError):
    """A worker process ended without finishing its hands (killed, out of memory)."""


class LogWriteError(MahjongError):
    """A hand log could not be written (full disk, directory removed); nothing partial is left."""


def write_log(path: Path, text: str) -> None:
    """Write a hand log through a temporary name and a rename (never a partial file)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise LogWriteError(f"cannot write {path}: {e.strerror or e}") from None


@dataclass(frozen=True, slots=True)
class HandRecord:
    index: int  # the hand (the deal, in duplicate mode)
    seed: str
    kinds: tuple[str, ...]  # bot kind per seat
    winner: int | None
    win: str  # win kind, or "draw"
    specials: tuple[str, ...]
    payments: tuple[int, ...]
    decisions: int
    discarder: int | None = None  # the seat that dealt in (discarded the winning tile)
    dealer: int = DEALER


def seat_kinds(kinds: Sequence[str], i: int) -> tuple[str, ...]:
    """Arena rotation: seat s plays kind ``kinds[(s + i) mod n]`` in hand i (seat 0 deals)."""
    n = len(kinds)
    return tuple(kinds[(s + i) % n] for s in range(n))


def duplicate_seatings(kinds: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Duplicate mode: every distinct seating of the kinds (a kind listed m times sits in m
    seats of each), in sorted order — the same for any order the kinds are listed in.
    Each kind takes each seat equally often: 1 vs 3 gives the 4 rotations, 2 vs 2 the 6
    seatings (partners side by side and opposite), 4 distinct kinds the 24."""
    return tuple(sorted(set(itertools.permutations(sorted(kinds)))))


def seatings_per_deal(kinds: Sequence[str], duplicate: bool) -> int:
    """Hands played per deal: 1, or the number of :func:`duplicate_seatings`."""
    return len(duplicate_seatings(kinds)) if duplicate else 1


def _play(
    profile: str, index: int, what: str, hand_seed: str, rot: tuple[str, ...], log: Path | None
) -> HandRecord:
    n = len(rot)
    bots = [make_bot(k, f"{hand_seed}:{s}") for s, k in enumerate(rot)]
    try:
        g = Game.new(profile, seed=hand_seed, players=n, dealer=DEALER)
        decisions = play_out(g, bots, 5000)
    except MahjongError as e:
        raise SimulationError(f"{what} (seed {hand_seed!r}, profile {profile}): {e}") from e
    except Exception as e:  # an engine bug of any kind: report the seed
        raise SimulationError(
            f"{what} (seed {hand_seed!r}, profile {profile}): {type(e).__name__}: {e}"
        ) from e
    if log is not None:
        write_log(log, to_jsonl(g.events))
    sc = g.score()
    assert sc is not None
    return HandRecord(
        index,
        hand_seed,
        rot,
        g.win["winner"] if g.win else None,
        g.win["win"] if g.win else "draw",
        sc.specials if g.win else (),
        sc.payments,
        decisions,
        g.win["discarder"] if g.win else None,
        DEALER,
    )


def play_hand(
    profile: str, seed: str, i: int, kinds: Sequence[str], log_dir: str | None = None
) -> HandRecord:
    """Hand i of an arena run (kinds rotated by i, seat 0 deals)."""
    log = Path(log_dir, f"hand-{i:07d}.jsonl") if log_dir is not None else None
    return _play(profile, i, f"hand {i}", derive_seed(seed, i), seat_kinds(kinds, i), log)


def play_deal(
    profile: str,
    seed: str,
    k: int,
    kinds: Sequence[str],
    log_dir: str | None = None,
    duplicate: bool = False,
) -> tuple[HandRecord, ...]:
    """Deal k: one hand (:func:`play_hand`), or in duplicate mode the same seed played
    once per seating of :func:`duplicate_seatings` (logs ``hand-K-J.jsonl``, J the seating)."""
    if not duplicate:
        return (play_hand(profile, seed, k, kinds, log_dir),)
    hand_seed = derive_seed(seed, k)
    out = []
    for j, rot in enumerate(duplicate_seatings(kinds)):
        log = Path(log_dir, f"hand-{k:07d}-{j}.jsonl") if log_dir is not None else None
        out.append(_play(profile, k, f"deal {k} seating {j}", hand_seed, rot, log))
    return tuple(out)


def placements2(payments: Sequence[int]) -> tuple[int, ...]:
    """Twice each seat's placement points (integers, so sums stay exact): with n players
    1st scores n − 1, 2nd n − 2, …, last 0, ranked by the hand's points; tied seats share
    the average of their places (a draw with no payments gives everyone (n − 1)/2)."""
    return tuple(
        2 * sum(1 for q in payments if q < p) + sum(1 for q in payments if q == p) - 1
        for p in payments
    )


def chunk_size(units: int, workers: int, per_unit: int = 1) -> int:
    """Deals per chunk (task): about 8 chunks per worker, at most 200 hands' worth."""
    return max(1, min(200 // per_unit or 1, units // (workers * 8) or 1))


def _chunk(
    args: tuple[str, str, list[int], tuple[str, ...], str | None, bool],
) -> list[tuple[HandRecord, ...]]:
    profile, seed, idx, kinds, log_dir, duplicate = args
    return [play_deal(profile, seed, k, kinds, log_dir, duplicate) for k in idx]


@dataclass
class Summary:
    profile: str
    hands: int  # hands played (deals × seatings in duplicate mode)
    seed: str
    kinds: tuple[str, ...]
    seconds: float = 0.0
    wins_by_seat: list[int] = field(default_factory=list)
    win_kinds: dict[str, int] = field(default_factory=dict)
    specials: dict[str, int] = field(default_factory=dict)
    draws: int = 0
    kind_stats: dict[str, dict[str, Any]] = field(default_factory=dict)
    duplicate: bool = False
    deals: int = 0
    seatings: int = 1
    points_by_seat: list[int] = field(default_factory=list)
    field_points: int = 0  # the sum of every seat's points (0 where payments are zero-sum)

    def to_json(self) -> dict[str, Any]:
        n = len(self.kinds)
        hands = self.hands or 1
        return {
            "profile": self.profile,
            "hands": self.hands,
            "seed": self.seed,
            "players": list(self.kinds),
            "seconds": round(self.seconds, 3),
            "hands_per_s": round(self.hands / self.seconds, 1) if self.seconds else None,
            "win_rate_by_seat": [round(w / hands, 4) for w in self.wins_by_seat],
            "draw_rate": round(self.draws / hands, 4),
            "win_kinds": dict(sorted(self.win_kinds.items())),
            "specials": dict(sorted(self.specials.items())),
            "by_kind": self.kind_stats,
            "duplicate": self.duplicate,
            "deals": self.deals,
            "seatings": self.seatings,
            "dealer_seat": DEALER,
            "mean_points_by_seat": [_r(p / hands) for p in self.points_by_seat],
            "field": {
                "points_per_hand": _r(self.field_points / (hands * n)) if n else 0.0,
                "placement": (n - 1) / 2,
            },
        }


def _r(x: float) -> float:
    return round(x, 4) + 0.0  # + 0.0: never -0.0


def _ci(total: int, squares: int, deals: int, per_deal: int) -> tuple[float, float, float]:
    """Mean and 95% CI of the per-deal means ``x_d / per_deal`` from exact integer sums
    (``total`` = Σ x_d, ``squares`` = Σ x_d²): mean ± 1.96·sd/√deals."""
    if deals == 0 or per_deal == 0:
        return 0.0, 0.0, 0.0
    mean = total / (deals * per_deal)
    if deals < 2:
        return mean, mean, mean
    # sample variance of x_d / per_deal; the numerator D·Σx² − (Σx)² is an exact integer
    num = deals * squares - total * total
    var = max(0, num) / (deals * (deals - 1) * per_deal * per_deal)
    half = 1.96 * math.sqrt(var / deals)
    return mean, mean - half, mean + half


class Accumulator:
    """The summary's running sums: deals are folded in (in deal order) and dropped, so
    memory does not grow with the number of hands. Payments and (doubled) placement points
    are integers, so the sums are exact and the result does not depend on how the hands
    were split among workers.

    Per kind and deal the sums ``x`` (points) and ``z`` (2 × placement points) over every
    seat the kind played in that deal are one clustered observation; ``y = n·x − m·T``
    (``m`` the kind's seats per hand, ``T`` every seat's points in the deal) is n·m·seatings
    times its difference from the field's mean, so identical bots give exactly 0."""

    def __init__(
        self, profile: str, seed: str, kinds: Sequence[str], duplicate: bool = False
    ) -> None:
        self.kinds = tuple(kinds)
        n = len(kinds)
        self.n = n
        self.names = tuple(dict.fromkeys(self.kinds))  # distinct kinds, as listed
        self.mult = {k: self.kinds.count(k) for k in self.names}
        seatings = seatings_per_deal(self.kinds, duplicate)
        self.sm = Summary(
            profile,
            0,
            seed,
            self.kinds,
            wins_by_seat=[0] * n,
            points_by_seat=[0] * n,
            duplicate=duplicate,
            seatings=seatings,
        )

        def zero() -> dict[str, int]:
            return dict.fromkeys(self.names, 0)

        self.count = zero()
        self.total = zero()
        self.wins_kind = zero()
        self.deal_ins = zero()
        self.sq_points = zero()  # Σ_d x_d²
        self.diff = zero()  # Σ_d y_d
        self.sq_diff = zero()
        self.place = zero()  # Σ_d z_d
        self.sq_place = zero()
        self.diff_place = zero()
        self.sq_diff_place = zero()

    def add(self, r: HandRecord) -> None:
        """A hand that is a deal of its own (a non-duplicate run)."""
        self.add_deal((r,))

    def add_deal(self, records: Sequence[HandRecord]) -> None:
        """One deal: its hands (one per seating)."""
        sm = self.sm
        sm.deals += 1
        x = dict.fromkeys(self.names, 0)
        z = dict.fromkeys(self.names, 0)
        t = 0
        zt = 0
        for r in records:
            sm.hands += 1
            if r.winner is None:
                sm.draws += 1  # a draw is counted in draw_rate, not among the win kinds
            else:
                sm.wins_by_seat[r.winner] += 1
                self.wins_kind[r.kinds[r.winner]] += 1
                sm.win_kinds[r.win] = sm.win_kinds.get(r.win, 0) + 1
                if r.discarder is not None:
                    self.deal_ins[r.kinds[r.discarder]] += 1
            for sp in r.specials:
                sm.specials[sp] = sm.specials.get(sp, 0) + 1
            for s, (p, pl) in enumerate(zip(r.payments, placements2(r.payments), strict=True)):
                k = r.kinds[s]
                self.count[k] += 1
                self.total[k] += p
                sm.points_by_seat[s] += p
                x[k] += p
                z[k] += pl
                t += p
                zt += pl
        sm.field_points += t
        n = self.n
        for k in self.names:
            m = self.mult[k]
            y = n * x[k] - m * t
            w = n * z[k] - m * zt
            self.sq_points[k] += x[k] * x[k]
            self.diff[k] += y
            self.sq_diff[k] += y * y
            self.place[k] += z[k]
            self.sq_place[k] += z[k] * z[k]
            self.diff_place[k] += w
            self.sq_diff_place[k] += w * w

    def summary(self) -> Summary:
        sm = self.sm
        d = sm.deals
        n = self.n
        for k in self.names:
            m = self.count[k]
            per = self.mult[k] * sm.seatings  # the kind's seat-hands per deal
            mean, lo, hi = _ci(self.total[k], self.sq_points[k], d, per)
            dm, dlo, dhi = _ci(self.diff[k], self.sq_diff[k], d, n * per)
            pm, plo, phi = _ci(self.place[k], self.sq_place[k], d, 2 * per)
            qm, qlo, qhi = _ci(self.diff_place[k], self.sq_diff_place[k], d, 2 * n * per)
            sm.kind_stats[k] = {
                "seats": self.mult[k],
                "seat_hands": m,
                "win_rate": _r(self.wins_kind[k] / m) if m else 0.0,
                # the first keys, kept: the mean and its 95% CI (clustered by deal)
                "mean_points": _r(mean),
                "ci95_low": _r(lo),
                "ci95_high": _r(hi),
                "points_per_hand": _r(mean),
                "ci95": [_r(lo), _r(hi)],
                "points_vs_field": _r(dm),
                "points_vs_field_ci95": [_r(dlo), _r(dhi)],
                "placement": _r(pm),
                "placement_ci95": [_r(plo), _r(phi)],
                "placement_vs_field": _r(qm),
                "placement_vs_field_ci95": [_r(qlo), _r(qhi)],
                "deal_ins_per_hand": _r(self.deal_ins[k] / m) if m else 0.0,
            }
        return sm


def summarise(
    records: Sequence[HandRecord], profile: str, seed: str, kinds: Sequence[str]
) -> Summary:
    """The summary of finished hands of a non-duplicate run (any order; aggregated in hand
    order)."""
    acc = Accumulator(profile, seed, kinds)
    for r in sorted(records, key=lambda r: r.index):
        acc.add(r)
    return acc.summary()


def simulate(
    profile: str,
    hands: int,
    seed: int | str,
    kinds: Sequence[str],
    workers: int = 1,
    log_dir: str | None = None,
    progress: Callable[[int], None] | None = None,
    duplicate: bool = False,
) -> Summary:
    """Play ``hands`` hands (duplicate: ``hands`` deals, each in every seating; ``progress``
    is told the hands played); raises SimulationError (with the seed) on an engine error,
    WorkerDied if a worker process dies, LogWriteError if a hand log cannot be written."""
    seed = str(seed)
    kinds = tuple(kinds)
    check_kinds(kinds, duplicate)
    if log_dir is not None:
        try:
            Path(log_dir).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise LogWriteError(f"--log-dir {log_dir}: {e.strerror or e}") from None
    t0 = time.perf_counter()
    acc = Accumulator(profile, seed, kinds, duplicate)
    if workers <= 1:
        for k in range(hands):
            deal = play_deal(profile, seed, k, kinds, log_dir, duplicate)
            acc.add_deal(deal)
            if progress:
                progress(len(deal))
    else:
        size = chunk_size(hands, workers, acc.sm.seatings)
        for chunk in _parallel(profile, seed, hands, kinds, workers, size, log_dir, duplicate):
            for deal in chunk:
                acc.add_deal(deal)
            if progress:
                progress(sum(len(deal) for deal in chunk))
    sm = acc.summary()
    sm.seconds = time.perf_counter() - t0
    return sm


def check_kinds(kinds: Sequence[str], duplicate: bool) -> None:
    """Every kind is a bot kind (MahjongError if not); duplicate needs ≤ MAX_SEATINGS."""
    for k in kinds:
        make_bot(k)
    if duplicate and seatings_per_deal(kinds, True) > MAX_SEATINGS:
        raise MahjongError(f"duplicate: too many seatings for {len(kinds)} players")


def _worker_init(parent: int | None = None) -> None:
    """Workers leave Ctrl-C to the parent (which terminates them): no tracebacks from them."""
    import signal

    from fujian_mahjong.procs import watch_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the parent's SIGTERM handler (fjmj simulate) is inherited by fork: a worker just dies
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    watch_parent(parent)  # a killed parent leaves no worker behind


def _parallel(
    profile: str,
    seed: str,
    hands: int,
    kinds: tuple[str, ...],
    workers: int,
    size: int,
    log_dir: str | None,
    duplicate: bool = False,
) -> Iterator[list[tuple[HandRecord, ...]]]:
    """Chunks of deals (each its records) in deal order, with at most ``4 × workers`` chunks in flight (the
    jobs are generated lazily: nothing is allocated per hand up front). On any exit — done,
    an error, an interrupt, the consumer stopping — the worker processes are terminated."""
    from collections import deque
    from concurrent.futures import Future, ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    ex = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init, initargs=(os.getpid(),))
    seen: dict[int, Any] = {}  # pid -> Process, remembered to name a worker that died
    pending: deque[Future[list[tuple[HandRecord, ...]]]] = deque()
    starts = iter(range(0, hands, size))
    finished = False

    def job(a: int) -> tuple[str, str, list[int], tuple[str, ...], str | None, bool]:
        return profile, seed, list(range(a, min(hands, a + size))), kinds, log_dir, duplicate

    try:
        for a in starts:
            pending.append(ex.submit(_chunk, job(a)))
            if len(pending) >= 4 * workers:
                break
        while pending:
            seen.update(getattr(ex, "_processes", None) or {})
            fut = pending.popleft()
            # a dead worker breaks the pool: the result being waited for raises it, and so
            # does the next submit when that result came in before the death was noticed
            try:
                chunk = fut.result()
                nxt = next(starts, None)
                if nxt is not None:
                    pending.append(ex.submit(_chunk, job(nxt)))
            except BrokenProcessPool:
                raise WorkerDied(_dead_worker(seen)) from None
            yield chunk
        finished = True
    finally:
        if not finished:
            _terminate(ex, seen)
            if log_dir is not None:
                for tmp in Path(log_dir).glob(".hand-*.part") if Path(log_dir).is_dir() else ():
                    with contextlib.suppress(OSError):
                        tmp.unlink()
        ex.shutdown(wait=True, cancel_futures=True)


def _terminate(ex: Any, seen: dict[int, Any]) -> None:
    """Stop every worker process now (ProcessPoolExecutor has no public way in 3.11)."""
    procs = {**seen, **(getattr(ex, "_processes", None) or {})}
    for p in procs.values():
        with contextlib.suppress(Exception):
            p.terminate()
    for p in procs.values():
        with contextlib.suppress(Exception):
            p.join(timeout=2)
            if p.is_alive():
                p.kill()
                p.join(timeout=2)
    # A worker stopped while it was sending a result leaves half a message in the results
    # pipe, and the executor's manager thread then waits for the rest for ever — so
    # `shutdown(wait=True)`, and the interpreter's exit, which join that thread, hung (one
    # Ctrl-C in about ten). Every worker is gone now: closing this process's own copy of the
    # pipe's write end, the last one open, turns that wait into end-of-file, which the
    # manager thread handles as a broken pool and exits.
    writer = getattr(getattr(ex, "_result_queue", None), "_writer", None)
    if writer is not None:
        with contextlib.suppress(Exception):
            writer.close()


def _dead_worker(seen: dict[int, Any]) -> str:
    import signal

    # the pool terminates the surviving workers (SIGTERM) once one dies: name another first.
    # A dead worker's exit code is only known once it has been reaped: wait for it briefly.
    # The executor's own thread reaps the same processes at the same moment, and a join
    # that loses that race returns with the code still unset (the other thread sets it a
    # moment later): look again until every code is known or a second has passed.
    deadline = time.monotonic() + 1.0
    while True:
        pending = [p for p in seen.values() if getattr(p, "exitcode", 0) is None]
        if not pending or time.monotonic() > deadline:
            break
        for p in pending:
            with contextlib.suppress(Exception):
                p.join(timeout=0.05)
        time.sleep(0.005)
    codes = [(pid, getattr(p, "exitcode", None)) for pid, p in seen.items()]
    codes.sort(key=lambda x: x[1] == -signal.SIGTERM)
    for pid, code in codes:
        if code:
            how = (
                f"was killed by {signal.Signals(-code).name}"
                if code < 0 and -code in signal.valid_signals()
                else f"exited with status {code}"
            )
            return f"worker process {pid} {how}; the simulation stopped"
    return "a worker process died unexpectedly; the simulation stopped"
