"""``fjmj simulate``: bots play N hands; seats rotate over the bot kinds (arena).

Determinism: hand i uses the seed ``hand_seed(seed, i)``, dealer ``i mod n`` and the bot kinds
rotated by ``i`` — so its result depends only on (seed, i), and the summary is the same
for any number of worker processes (records are aggregated in hand order).

Memory is bounded whatever ``hands`` is: hands are streamed (a few chunks in flight per
worker, each record folded into running sums and dropped), never pre-allocated per hand.
Faults: an interrupt (Ctrl-C, SIGTERM in the CLI) terminates the worker
processes before it propagates; a worker that dies raises :class:`WorkerDied` naming it; a
hand log is written to a temporary name and renamed, so a full disk or a vanished log
directory raises :class:`LogWriteError` and leaves no partial log file.
"""

from __future__ import annotations

import contextlib
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
    hand_seed = derive_seed(seed, i)
    bots = [make_bot(k, f"{hand_seed}:{s}") for s, k in enumerate(rot)]
    try:
        g = Game.new(profile, seed=hand_seed, players=n, dealer=i % n)
        decisions = play_out(g, bots, 5000)
    except MahjongError as e:
        raise SimulationError(f"hand {i} (seed {hand_seed!r}, profile {profile}): {e}") from e
    except Exception as e:  # an engine bug of any kind: report the seed
        raise SimulationError(
            f"hand {i} (seed {hand_seed!r}, profile {profile}): {type(e).__name__}: {e}"
        ) from e
    if log_dir is not None:
        write_log(Path(log_dir, f"hand-{i:07d}.jsonl"), to_jsonl(g.events))
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


class Accumulator:
    """The summary's running sums: records are folded in (in hand order) and dropped, so
    memory does not grow with the number of hands. Payments are integers, so the sums are
    exact and the result does not depend on how the hands were split among workers."""

    def __init__(self, profile: str, seed: str, kinds: Sequence[str]) -> None:
        self.kinds = tuple(kinds)
        n = len(kinds)
        self.sm = Summary(profile, 0, seed, self.kinds, wins_by_seat=[0] * n)
        self.count: dict[str, int] = dict.fromkeys(self.kinds, 0)
        self.total: dict[str, int] = dict.fromkeys(self.kinds, 0)
        self.squares: dict[str, int] = dict.fromkeys(self.kinds, 0)
        self.wins_kind: dict[str, int] = dict.fromkeys(self.kinds, 0)

    def add(self, r: HandRecord) -> None:
        sm = self.sm
        sm.hands += 1
        if r.winner is None:
            sm.draws += 1  # a draw is counted in draw_rate, not among the win kinds
        else:
            sm.wins_by_seat[r.winner] += 1
            self.wins_kind[r.kinds[r.winner]] += 1
            sm.win_kinds[r.win] = sm.win_kinds.get(r.win, 0) + 1
        for sp in r.specials:
            sm.specials[sp] = sm.specials.get(sp, 0) + 1
        for s, p in enumerate(r.payments):
            k = r.kinds[s]
            self.count[k] += 1
            self.total[k] += p
            self.squares[k] += p * p

    def summary(self) -> Summary:
        sm = self.sm
        for k in self.count:
            m = self.count[k]
            mean = self.total[k] / m if m else 0.0
            # sample variance from exact integer sums: (Σx² − (Σx)²/m) / (m − 1)
            var = (self.squares[k] - self.total[k] ** 2 / m) / (m - 1) if m > 1 else 0.0
            half = 1.96 * math.sqrt(max(0.0, var) / m) if m else 0.0
            sm.kind_stats[k] = {
                "seats": self.kinds.count(k),
                "seat_hands": m,
                "win_rate": round(self.wins_kind[k] / m, 4) if m else 0.0,
                "mean_points": round(mean, 4),
                "ci95_low": round(mean - half, 4),
                "ci95_high": round(mean + half, 4),
            }
        return sm


def summarise(
    records: Sequence[HandRecord], profile: str, seed: str, kinds: Sequence[str]
) -> Summary:
    """The summary of finished hands (any order; aggregated in hand order)."""
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
) -> Summary:
    """Play ``hands`` hands; raises SimulationError (with the seed) on an engine error,
    WorkerDied if a worker process dies, LogWriteError if a hand log cannot be written."""
    seed = str(seed)
    kinds = tuple(kinds)
    for k in kinds:
        make_bot(k)
    if log_dir is not None:
        try:
            Path(log_dir).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise LogWriteError(f"--log-dir {log_dir}: {e.strerror or e}") from None
    t0 = time.perf_counter()
    acc = Accumulator(profile, seed, kinds)
    if workers <= 1:
        for i in range(hands):
            acc.add(play_hand(profile, seed, i, kinds, log_dir))
            if progress:
                progress(1)
    else:
        size = max(1, min(200, hands // (workers * 8) or 1))
        for chunk in _parallel(profile, seed, hands, kinds, workers, size, log_dir):
            for r in chunk:
                acc.add(r)
            if progress:
                progress(len(chunk))
    sm = acc.summary()
    sm.seconds = time.perf_counter() - t0
    return sm


def _worker_init() -> None:
    """Workers leave Ctrl-C to the parent (which terminates them): no tracebacks from them."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # the parent's SIGTERM handler (fjmj simulate) is inherited by fork: a worker just dies
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _parallel(
    profile: str,
    seed: str,
    hands: int,
    kinds: tuple[str, ...],
    workers: int,
    size: int,
    log_dir: str | None,
) -> Iterator[list[HandRecord]]:
    """Chunks of records in hand order, with at most ``4 × workers`` chunks in flight (the
    jobs are generated lazily: nothing is allocated per hand up front). On any exit — done,
    an error, an interrupt, the consumer stopping — the worker processes are terminated."""
    from collections import deque
    from concurrent.futures import Future, ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    ex = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)
    seen: dict[int, Any] = {}  # pid -> Process, remembered to name a worker that died
    pending: deque[Future[list[HandRecord]]] = deque()
    starts = iter(range(0, hands, size))
    finished = False

    def job(a: int) -> tuple[str, str, list[int], tuple[str, ...], str | None]:
        return profile, seed, list(range(a, min(hands, a + size))), kinds, log_dir

    try:
        for a in starts:
            pending.append(ex.submit(_chunk, job(a)))
            if len(pending) >= 4 * workers:
                break
        while pending:
            seen.update(getattr(ex, "_processes", None) or {})
            fut = pending.popleft()
            try:
                chunk = fut.result()
            except BrokenProcessPool:
                raise WorkerDied(_dead_worker(seen)) from None
            nxt = next(starts, None)
            if nxt is not None:
                pending.append(ex.submit(_chunk, job(nxt)))
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


def _dead_worker(seen: dict[int, Any]) -> str:
    import signal

    # the pool terminates the surviving workers (SIGTERM) once one dies: name another first.
    # A dead worker's exit code is only known once it has been reaped: wait for it briefly.
    for p in seen.values():
        if getattr(p, "exitcode", 0) is None:
            with contextlib.suppress(Exception):
                p.join(timeout=1.0)
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
