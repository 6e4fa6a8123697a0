"""Worker processes never outlive the process that started them (fujian_mahjong/procs.py):
the worker pool of ``fjmj serve`` (server/workers.py: spawned workers) after its server is
killed by SIGKILL. A real parent process and its real worker; the test waits for the worker
to go, up to a bound, never for a fixed time."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.test_cli_faults import _alive

PARENT = """
import asyncio, os, sys, time
from fujian_mahjong.server.workers import WorkerPool

async def main(pool):
    return await asyncio.gather(*(pool.run(os.getpid, timeout=60) for _ in range(2)))

if __name__ == "__main__":
    pool = WorkerPool(2)  # two jobs at once: two processes
    print(" ".join(map(str, asyncio.run(main(pool)))), flush=True)
    time.sleep(3600)
"""


def test_the_servers_workers_exit_when_the_server_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "parent.py"
    script.write_text(PARENT)
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, env={**os.environ})
    assert p.stdout is not None
    workers: list[int] = []
    try:
        workers = [int(x) for x in p.stdout.readline().split()]
        assert len(workers) == 2 and all(_alive(w) for w in workers)
        p.send_signal(signal.SIGKILL)  # no shutdown, no atexit: nothing tells the workers
        p.wait(10)
        deadline = time.monotonic() + 20
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(w) for w in workers), "a worker outlived its killed server"
    finally:
        p.kill()
        for w in workers:  # a failed run leaves nothing behind
            with contextlib.suppress(OSError):
                os.kill(w, signal.SIGKILL)
