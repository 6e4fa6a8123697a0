"""``fjmj simulate --backend ray``: hand batches as Ray tasks, on this machine or a cluster.

The result is exactly the local backend's: deal k still plays the seed ``hand_seed(seed, k)``
(``play_deal``: one hand, or every seating with ``duplicate``), batches are the same deal
ranges, and deals are folded into the summary in deal order whatever order the tasks
finish in. Ray is an optional extra
(``pip install 'fujian-mahjong[ray]'``) imported only here, only when this backend runs.

``address=None`` starts a private local Ray instance with ``workers`` CPUs (stopped at the
end); ``"auto"`` or ``"HOST:PORT"`` joins a running cluster (``ray start``), where at most
``workers`` tasks run at once. Hand logs (``log_dir``) are written by the tasks, so on a
cluster they land on the node that played the hand.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Sequence
from typing import Any

from fujian_mahjong.errors import MahjongError
from fujian_mahjong.sim.simulate import (
    Accumulator,
    HandRecord,
    SimulationError,
    Summary,
    WorkerDied,
    check_kinds,
    chunk_size,
    play_deal,
)


class RayBackendError(MahjongError):
    """Ray is missing, or the cluster could not be reached or failed."""


def batch_size(hands: int, workers: int, per_deal: int = 1) -> int:
    """Deals per task: the local backend's chunking (about 8 batches per worker, ≤ 200
    hands' worth)."""
    return chunk_size(hands, workers, per_deal)


def play_batch(
    profile: str,
    seed: str,
    start: int,
    stop: int,
    kinds: tuple[str, ...],
    log_dir: str | None,
    duplicate: bool = False,
) -> list[tuple[HandRecord, ...]]:
    """Deals ``start..stop-1`` of a simulation (the body of one Ray task)."""
    return [play_deal(profile, seed, k, kinds, log_dir, duplicate) for k in range(start, stop)]


def check_address(address: str, timeout: float = 5.0) -> None:
    """Fail fast (one line) when ``HOST:PORT`` does not answer: Ray itself would retry for
    minutes. ``auto`` is left to Ray (it reads the address of the cluster started here)."""
    if address == "auto":
        return
    host, sep, port_text = address.rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise RayBackendError(f"--address must be auto or HOST:PORT, got {address!r}")
    try:
        with socket.create_connection((host.strip("[]"), int(port_text)), timeout=timeout):
            pass
    except OSError as e:
        why = e.strerror or type(e).__name__
        raise RayBackendError(f"cannot reach Ray at {address}: {why}") from None


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayBackendError(
            "the ray backend needs Ray: pip install 'fujian-mahjong[ray]'"
        ) from None
    return ray


def simulate_ray(
    profile: str,
    hands: int,
    seed: int | str,
    kinds: Sequence[str],
    workers: int = 1,
    log_dir: str | None = None,
    progress: Callable[[int], None] | None = None,
    address: str | None = None,
    duplicate: bool = False,
) -> Summary:
    """Like :func:`fujian_mahjong.sim.simulate` (same positional arguments), with the
    batches run as Ray tasks; ``address`` as in the module docstring."""
    import time

    seed = str(seed)
    kinds = tuple(kinds)
    check_kinds(kinds, duplicate)
    if workers < 1:
        raise MahjongError(f"workers must be at least 1, got {workers}")
    ray = _import_ray()
    if address is not None:
        check_address(address)
    t0 = time.perf_counter()
    started = False
    if not ray.is_initialized():
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        try:
            if address is None:
                ray.init(  # "local": a new private instance, never a cluster running here
                    address="local",
                    num_cpus=workers,
                    include_dashboard=False,
                    log_to_driver=False,
                    configure_logging=False,
                )
            else:
                ray.init(address=address, log_to_driver=False, configure_logging=False)
        except Exception as e:  # ConnectionError, RuntimeError, ValueError from Ray
            where = "a local Ray instance" if address is None else f"Ray at {address!r}"
            msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise RayBackendError(f"cannot start {where}: {msg}") from None
        started = True
    try:
        acc = Accumulator(profile, seed, kinds, duplicate)
        _run(ray, acc, profile, seed, hands, kinds, workers, log_dir, progress, duplicate)
    finally:
        if started:
            ray.shutdown()
    sm = acc.summary()
    sm.seconds = time.perf_counter() - t0
    return sm


def _run(
    ray: Any,
    acc: Accumulator,
    profile: str,
    seed: str,
    hands: int,
    kinds: tuple[str, ...],
    workers: int,
    log_dir: str | None,
    progress: Callable[[int], None] | None,
    duplicate: bool = False,
) -> None:
    task = ray.remote(num_cpus=1, max_retries=0)(play_batch)
    size = batch_size(hands, workers, acc.sm.seatings)
    starts = iter(range(0, hands, size))
    in_flight: dict[Any, int] = {}  # ObjectRef -> batch number
    done: dict[
        int, list[tuple[HandRecord, ...]]
    ] = {}  # finished out of order, waiting for their turn
    next_batch = 0  # the batch to fold into the summary next (hand order)
    submitted = 0

    def submit() -> bool:
        nonlocal submitted
        a = next(starts, None)
        if a is None:
            return False
        ref = task.remote(profile, seed, a, min(hands, a + size), kinds, log_dir, duplicate)
        in_flight[ref] = submitted
        submitted += 1
        return True

    try:
        while len(in_flight) < workers and submit():
            pass
        while in_flight:
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            ref = ready[0]
            b = in_flight.pop(ref)
            try:
                deals: list[tuple[HandRecord, ...]] = ray.get(ref)
            except ray.exceptions.RayTaskError as e:
                cause = getattr(e, "cause", None)
                if isinstance(cause, MahjongError):
                    raise cause from None
                raise SimulationError(f"a Ray task failed: {str(e).splitlines()[0]}") from None
            except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as e:
                raise WorkerDied(f"a Ray worker died: {str(e).splitlines()[0]}") from None
            done[b] = deals
            submit()
            if progress:
                progress(sum(len(deal) for deal in deals))
            while next_batch in done:
                for deal in done.pop(next_batch):
                    acc.add_deal(deal)
                next_batch += 1
    finally:
        for ref in in_flight:
            ray.cancel(ref, force=True)
