"""The server's one pool of worker processes (docs/architecture.md, "The worker pool"): the
高手's searches — its own moves and the hints (server/scheduler.py) — and the reviews
(server/web_api.py) run here, never on the event loop (a search is pure Python: in a
thread it would hold the GIL against every table).

``create_app`` makes one (or takes one) and hands it to whoever needs it through the app's
state (``app.state.workers``, ``Lobby.workers``). ``await pool.run(fn, *args,
timeout=…)`` is all a caller sees; the pool owns what goes wrong:

- **bounded concurrency**: at most ``size`` jobs run at once, one per process; the others
  wait in the pool, not in a process, and a job's timeout starts when a process takes it;
- **a stuck or slow job** (not answered within its timeout): its process is killed and
  forgotten (the next job starts a new one) and the caller gets :class:`WorkerTimeout`.
  Only that process: the jobs in the others go on;
- **a killed worker** (the OOM killer, a crash, ``kill -9``): the job it was running is
  tried once more in a new process (the jobs are pure functions of their arguments, so a
  second run gives the same answer, and a worker killed for another reason should not
  cost anyone an answer); a second death is :class:`WorkerLost`;
- **a caller that stops waiting** (its task cancelled): the job still runs to its end or
  its timeout, and the process is used again only then;
- **close()** asks idle processes to exit, kills busy ones and any that have not exited
  within ``grace_s``, and never waits longer than that and a few seconds more.

It is not a ``ProcessPoolExecutor``: that one can only be stopped through its private
attributes (its processes, its result pipe), and a worker killed while sending a result
leaves its thread waiting for the rest of the message for ever. Here each process has its
own pipe, read by a daemon thread per job: a killed process closes its end, the thread
reads end-of-file, and nothing ever waits on a dead process.

One event loop at a time uses a pool (the app's). Workers are spawned, not forked (the
server's threads and sockets stay in the server), on the first job that needs one, and
each exits by itself when the server dies (``procs.watch_parent``)."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from typing import Any, TypeVar

from fujian_mahjong.procs import serve_jobs

T = TypeVar("T")

# worker processes of the server's pool: a search or a review uses one core, and the
# server's own process keeps one on a two-core machine when one of each runs
DEFAULT_SIZE = 2
# a killed process is gone at once; this bounds the wait for its reader thread anyway
_REAP_S = 5.0


class WorkerError(RuntimeError):
    """A job that got no answer from its worker process."""


class WorkerTimeout(WorkerError, TimeoutError):
    """The job was not answered within its timeout: its process was killed."""


class WorkerLost(WorkerError):
    """The job's process died twice under it (killed, out of memory)."""


class WorkerClosed(WorkerError):
    """The pool was closed before the job was answered."""


@dataclass
class WorkerStats:
    """What the pool has done since it was made (``GET /metrics``)."""

    jobs: int = 0  # jobs answered (a result or the job's own exception)
    timeouts: int = 0  # jobs not answered in time (their process killed)
    lost: int = 0  # processes that died under a job
    started: int = 0  # processes started


class _Lost(Exception):
    """An attempt whose process died: tried again once by ``run``."""


_DIED = object()  # the reader thread's answer when the process has gone


class _Worker:
    """One process and the parent's end of its pipe."""

    def __init__(self, ctx: Any, name: str) -> None:
        self.conn, child = ctx.Pipe()
        self.process: BaseProcess = ctx.Process(
            target=serve_jobs, args=(child, os.getpid()), name=name, daemon=True
        )
        self.process.start()
        child.close()  # the process holds the only other end: its death is end-of-file here

    @property
    def pid(self) -> int:
        return self.process.pid or 0

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()

    def alive(self) -> bool:
        try:
            return self.process.is_alive()
        except ValueError:  # already closed
            return False


def _exchange(
    loop: asyncio.AbstractEventLoop,
    answer: asyncio.Future[tuple[bool, Any]],
    w: _Worker,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
) -> None:
    """In a daemon thread: send the job, wait for its answer (blocking, never on the loop)."""
    out: tuple[bool, Any]
    try:
        w.conn.send((fn, args))
        out = w.conn.recv()
    except (EOFError, OSError):  # the process died, before or while answering
        w.kill()
        with contextlib.suppress(Exception):
            w.process.join(_REAP_S)
        out = (False, _DIED)
    except Exception as e:  # the job or its answer could not be pickled: the process is fine
        out = (False, e)

    def settle() -> None:
        if not answer.done():
            answer.set_result(out)

    with contextlib.suppress(RuntimeError):  # the loop has closed: nobody waits any more
        loop.call_soon_threadsafe(settle)


class WorkerPool:
    """Up to ``size`` worker processes for CPU-bound jobs (module docstring)."""

    def __init__(self, size: int = DEFAULT_SIZE, *, name: str = "fjmj-worker") -> None:
        if size < 1:
            raise ValueError(f"a worker pool needs at least one process, not {size}")
        self.size = size
        self.name = name
        self.stats = WorkerStats()
        self._ctx = multiprocessing.get_context("spawn")
        self._idle: list[_Worker] = []
        self._all: set[_Worker] = set()
        self._attempts: set[asyncio.Task[tuple[bool, Any]]] = set()
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Semaphore | None = None

    @property
    def closed(self) -> bool:
        return self._closed

    def pids(self) -> list[int]:
        """The pool's live processes (idle or busy)."""
        return sorted(w.pid for w in self._all if w.alive())

    async def run(self, fn: Callable[..., T], *args: Any, timeout: float) -> T:
        """``fn(*args)`` in a worker process: its result, or the exception it raised (its
        traceback in a note). ``fn`` and the arguments must pickle (a module-level
        function). Raises :class:`WorkerTimeout` (not answered within ``timeout`` seconds
        of a process taking it: that process is killed), :class:`WorkerLost` (its process
        died twice) or :class:`WorkerClosed`."""
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            if self._closed:
                raise WorkerClosed("the worker pool is closed")
            slots = self._slots_of(loop)
            await slots.acquire()
            try:
                task = loop.create_task(self._attempt(slots, fn, args, timeout))
            except BaseException:
                slots.release()
                raise
            self._attempts.add(task)
            task.add_done_callback(self._attempt_done)
            try:
                # shielded: a caller that stops waiting leaves the job to end (or time out)
                # before its process takes another
                ok, value = await asyncio.shield(task)
            except _Lost:
                if self._closed:
                    raise WorkerClosed("the worker pool was closed during the job") from None
                if attempt == 2:
                    raise WorkerLost("the worker process died twice running this job") from None
                continue
            if ok:
                return value  # type: ignore[no-any-return]
            raise value
        raise AssertionError("unreachable")

    async def close(self, grace_s: float = 1.0) -> None:
        """Stop every process: idle ones are asked to exit, busy ones killed, and any still
        there after ``grace_s`` killed. Bounded (``grace_s`` plus a few seconds at worst);
        jobs waiting or running get :class:`WorkerClosed`. A closed pool takes no job."""
        self._closed = True
        idle, self._idle = self._idle, []
        for w in idle:
            try:
                w.conn.send(None)  # a few bytes into an empty pipe: never blocks
            except Exception:
                w.kill()
        for w in self._all:
            if w not in idle:
                w.kill()  # busy: its job is cut short
        deadline = time.monotonic() + grace_s
        while any(w.alive() for w in self._all) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        for w in self._all:
            if w.alive():
                w.kill()
        if self._attempts:  # their reader threads end on end-of-file from the killed processes
            await asyncio.wait(list(self._attempts), timeout=_REAP_S)
        for w in list(self._all):
            self._forget(w)

    # ------------------------------------------------------------------ internals

    def _slots_of(self, loop: asyncio.AbstractEventLoop) -> asyncio.Semaphore:
        if self._slots is None or self._loop is not loop:
            self._loop, self._slots = loop, asyncio.Semaphore(self.size)
        return self._slots

    def _attempt_done(self, task: asyncio.Task[tuple[bool, Any]]) -> None:
        self._attempts.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: its caller may have stopped waiting

    async def _worker(self) -> _Worker:
        while self._idle:
            w = self._idle.pop()
            if w.alive():
                return w
            self.stats.lost += 1  # died while idle
            self._forget(w)
        # a spawn writes the new process's preparation data: in a thread, off the loop
        w = await asyncio.to_thread(_Worker, self._ctx, self.name)
        self.stats.started += 1
        self._all.add(w)
        if self._closed:
            self._forget(w)
            raise _Lost
        return w

    def _forget(self, w: _Worker) -> None:
        w.kill()
        self._all.discard(w)
        with contextlib.suppress(Exception):
            w.conn.close()
        with contextlib.suppress(Exception):
            w.process.join(0)  # reaped if it has exited (a killed one has, or soon will)

    async def _attempt(
        self,
        slots: asyncio.Semaphore,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        timeout: float,
    ) -> tuple[bool, Any]:
        """One try of a job on one process; holds one of the pool's slots throughout."""
        try:
            if self._closed:
                raise _Lost
            w = await self._worker()
            loop = asyncio.get_running_loop()
            answer: asyncio.Future[tuple[bool, Any]] = loop.create_future()
            threading.Thread(
                target=_exchange, args=(loop, answer, w, fn, args), daemon=True, name=self.name
            ).start()
            try:
                ok, value = await asyncio.wait_for(asyncio.shield(answer), timeout)
            except TimeoutError:
                self.stats.timeouts += 1
                w.kill()  # its reader thread reads end-of-file and ends
                await asyncio.wait([answer], timeout=_REAP_S)
                self._forget(w)
                raise WorkerTimeout(
                    f"the worker did not answer within {timeout:g} s; it was stopped"
                ) from None
            if value is _DIED:
                if not self._closed:  # close() kills busy processes itself
                    self.stats.lost += 1
                self._forget(w)
                raise _Lost
            self.stats.jobs += 1
            if self._closed:
                self._forget(w)
            else:
                self._idle.append(w)
            return ok, value
        finally:
            slots.release()
