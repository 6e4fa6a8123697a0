"""The server's worker pool (server/workers.py; docs/architecture.md, "The worker pool"):
real spawned processes running the jobs of tests/workerjobs.py. A job that must be running
before the test acts says so in a file; a process that must be gone is waited for up to a
generous bound, never for a fixed time. The timeouts that must expire are short; those that
must not are long."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from fujian_mahjong.server.app import create_app
from fujian_mahjong.server.settings import OPENING_S, Settings
from fujian_mahjong.server.workers import (
    WorkerClosed,
    WorkerLost,
    WorkerPool,
    WorkerTimeout,
)
from tests import workerjobs as jobs
from tests.inproc import running

LONG = 60.0  # a timeout that must never expire (a worker's start on a loaded machine)
CEILING = 30.0  # the bound on anything awaited: only a hang reaches it


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def _until(cond: Callable[[], bool], what: str) -> None:
    start = time.monotonic()
    while not cond():
        assert time.monotonic() - start < CEILING, what
        await asyncio.sleep(0.005)


async def _pid_in(path: Path) -> int:
    await _until(path.exists, "the job never started")
    return int(path.read_text())


def _run(main: Callable[[WorkerPool], object], size: int = 1) -> None:
    """``main(pool)`` on a fresh pool, which is closed (and checked empty) afterwards."""

    async def outer() -> None:
        pool = WorkerPool(size)
        try:
            await main(pool)  # type: ignore[misc]
        finally:
            pids = pool.pids()
            await asyncio.wait_for(pool.close(), CEILING)
            await _until(lambda: not any(_alive(p) for p in pids), "a worker outlived close()")

    asyncio.run(outer())


def test_a_job_runs_in_a_worker_and_its_exception_comes_back() -> None:
    async def main(pool: WorkerPool) -> None:
        first = await pool.run(jobs.pid, timeout=LONG)
        assert first != os.getpid() and pool.pids() == [first]
        with pytest.raises(ValueError, match="no such tile") as e:
            await pool.run(jobs.fail, "no such tile", timeout=LONG)
        assert "in the worker process" in "".join(e.value.__notes__)
        assert await pool.run(jobs.pid, timeout=LONG) == first  # the same process, again
        assert pool.stats.jobs == 3 and pool.stats.started == 1

    _run(main)


def test_a_killed_worker_is_replaced_and_its_job_tried_once_more(tmp_path: Path) -> None:
    """``kill -9`` of the process running a job: the job runs again in a new process, and
    its caller gets the answer as if nothing had happened."""

    async def main(pool: WorkerPool) -> None:
        started = tmp_path / "started"
        job = asyncio.ensure_future(pool.run(jobs.once_then_pid, str(started), timeout=LONG))
        victim = await _pid_in(started)
        os.kill(victim, signal.SIGKILL)
        again = await asyncio.wait_for(job, CEILING)
        assert again != victim and pool.pids() == [again]
        assert pool.stats.lost == 1 and pool.stats.started == 2

    _run(main)


def test_a_job_that_kills_every_worker_it_runs_in_is_lost_after_two() -> None:
    async def main(pool: WorkerPool) -> None:
        with pytest.raises(WorkerLost):
            await asyncio.wait_for(pool.run(jobs.die, timeout=LONG), CEILING)
        assert pool.stats.lost == 2 and pool.pids() == []
        assert await pool.run(jobs.pid, timeout=LONG)  # the next job: a new process

    _run(main)


def test_a_worker_killed_while_idle_is_replaced_before_the_next_job() -> None:
    async def main(pool: WorkerPool) -> None:
        first = await pool.run(jobs.pid, timeout=LONG)
        os.kill(first, signal.SIGKILL)
        await _until(lambda: not _alive(first), "the killed worker never died")
        second = await asyncio.wait_for(pool.run(jobs.pid, timeout=LONG), CEILING)
        assert second != first

    _run(main)


def test_a_stuck_worker_is_killed_and_only_it(tmp_path: Path) -> None:
    """A job that never answers: past its timeout its caller gets WorkerTimeout and its
    process is killed; the job in the other process goes on to its answer."""

    async def main(pool: WorkerPool) -> None:
        started, release = tmp_path / "started", tmp_path / "release"
        neighbour = asyncio.ensure_future(
            pool.run(jobs.started_then_wait, str(started), str(release), timeout=LONG)
        )
        other = await _pid_in(started)
        stuck = await pool.run(jobs.pid, timeout=LONG)  # the second process, warmed up
        assert stuck != other
        with pytest.raises(WorkerTimeout) as e:
            await asyncio.wait_for(pool.run(jobs.hang, timeout=0.3), CEILING)
        assert isinstance(e.value, TimeoutError)
        await _until(lambda: not _alive(stuck), "the stuck worker was not killed")
        assert pool.pids() == [other] and pool.stats.timeouts == 1
        release.touch()
        assert await asyncio.wait_for(neighbour, CEILING) == other
        assert await pool.run(jobs.pid, timeout=LONG) == other  # the survivor, used again

    _run(main, size=2)


def test_a_slow_worker_is_treated_as_stuck() -> None:
    """A job that would answer, but later than its timeout: the same as one that never
    would. A job within its timeout is answered by the same kind of job's process."""

    async def main(pool: WorkerPool) -> None:
        slow = await pool.run(jobs.sleep, 0.0, timeout=LONG)
        with pytest.raises(WorkerTimeout):
            await asyncio.wait_for(pool.run(jobs.sleep, 5.0, timeout=0.2), CEILING)
        await _until(lambda: not _alive(slow), "the slow worker was not killed")
        assert pool.pids() == []
        assert await pool.run(jobs.sleep, 0.01, timeout=LONG) != slow

    _run(main)


def test_concurrency_is_bounded_and_a_waiting_job_s_timeout_has_not_started(
    tmp_path: Path,
) -> None:
    """One process: a second job waits in the pool (not in the process) while the first
    runs, and its timeout, shorter than the wait, starts only when the process takes it."""

    async def main(pool: WorkerPool) -> None:
        started, release = tmp_path / "started", tmp_path / "release"
        first = asyncio.ensure_future(
            pool.run(jobs.started_then_wait, str(started), str(release), timeout=LONG)
        )
        worker = await _pid_in(started)
        second = asyncio.ensure_future(pool.run(jobs.pid, timeout=1.0))
        await asyncio.sleep(1.5)  # longer than the second's timeout
        assert not second.done() and pool.pids() == [worker]
        release.touch()
        assert await asyncio.wait_for(first, CEILING) == worker
        assert await asyncio.wait_for(second, CEILING) == worker

    _run(main)


def test_a_caller_that_stops_waiting_leaves_the_job_to_finish(tmp_path: Path) -> None:
    """A cancelled caller (a search no longer wanted): its job keeps its process until it
    ends, and the process is used again then, not killed."""

    async def main(pool: WorkerPool) -> None:
        started, release = tmp_path / "started", tmp_path / "release"
        job = asyncio.ensure_future(
            pool.run(jobs.started_then_wait, str(started), str(release), timeout=LONG)
        )
        worker = await _pid_in(started)
        job.cancel()
        after = asyncio.ensure_future(pool.run(jobs.pid, timeout=LONG))
        await asyncio.sleep(0.2)
        assert not after.done()  # the process is still the cancelled job's
        release.touch()
        assert await asyncio.wait_for(after, CEILING) == worker
        assert pool.stats.timeouts == pool.stats.lost == 0

    _run(main)


def test_close_is_bounded_and_kills_a_stuck_worker() -> None:
    async def main() -> None:
        pool = WorkerPool(2)
        stuck = asyncio.ensure_future(pool.run(jobs.hang, timeout=3600))
        await _until(lambda: len(pool.pids()) == 1, "the first worker never started")
        idle = await pool.run(jobs.pid, timeout=LONG)  # the second process, idle afterwards
        pids = pool.pids()
        assert len(pids) == 2 and idle in pids
        start = time.monotonic()
        await asyncio.wait_for(pool.close(grace_s=0.5), CEILING)
        assert time.monotonic() - start < 10.0
        with pytest.raises(WorkerClosed):
            await asyncio.wait_for(stuck, CEILING)
        await _until(lambda: not any(_alive(p) for p in pids), "a worker outlived close()")
        assert pool.closed and pool.pids() == []
        with pytest.raises(WorkerClosed):
            await pool.run(jobs.pid, timeout=LONG)

    asyncio.run(main())


# ------------------------------------------------------------------------ through the server


def test_a_hint_is_the_strong_bots_search_in_the_apps_pool(tmp_path: Path) -> None:
    """create_app makes the pool (``app.state.workers``), the tables' schedulers use it, the
    hint (the 高手's search) runs there, and the app's shutdown stops its processes."""

    async def main() -> None:
        async with running(tmp_path) as h:
            pool = h.app.state.workers
            assert isinstance(pool, WorkerPool)
            me = await h.guest("hinted")
            tid = await h.table(me, bots=3, turn_seconds=60)
            await h.seat(me, tid)
            await h.ready(me)
            assert h.app.state.lobby.tables[tid].sched.workers is pool
            await h.advance(OPENING_S + 1.0)
            assert me.legal
            await me.send({"type": "hint"})
            await h.hints_done()
            hint = me.last("hint")
            assert hint is not None and hint["action"] in me.legal
            assert pool.stats.jobs == 1 and pool.stats.timeouts == pool.stats.lost == 0
            pids = pool.pids()
            assert len(pids) == 1
            page = h.app.state.metrics.render().decode()
            assert f'fjmj_worker_jobs_total{{pid="{os.getpid()}"}} 1.0' in page
            assert f'fjmj_worker_timeouts_total{{pid="{os.getpid()}"}} 0.0' in page
        assert pool.closed
        await _until(lambda: not any(_alive(p) for p in pids), "a worker outlived the app")

    asyncio.run(main())


def test_a_pool_passed_to_create_app_is_used_and_left_open(tmp_path: Path) -> None:
    async def main() -> None:
        pool = WorkerPool(1)
        app = create_app(Settings(data_dir=tmp_path), workers=pool)
        async with app.router.lifespan_context(app):
            assert app.state.workers is pool and app.state.lobby.workers is pool
        assert not pool.closed  # its maker's to close
        await pool.close()

    asyncio.run(main())
