"""Waiting for a server process the tests started until it serves (no tests here).

A process starting on a busy machine (CI's two cores shared with browsers, Ray and other
servers) may take many times its usual start-up: a fixed deadline of a few tens of seconds
fails then, although nothing is wrong. So the tests wait on the process's own readiness
signal — its readiness probe (``GET /readyz``, docs/deploy.md) answering 200 — and give up
only when the process has exited, or after ``START_CEILING_S``, a ceiling far above any
real start-up that only keeps a hung start-up from hanging the suite."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import httpx

# a hand's opening at the economy, crash and server suites' servers (``--opening-ms``): they are
# about silver, not the opening (docs/protocol.md, "The opening"), and each hand's bots
# would wait the 3 s of it
OPENING_MS = 200

START_CEILING_S = 300.0


def log_tail(log: Path | None, chars: int = 2000) -> str:
    if log is None:
        return ""
    try:
        return log.read_text(errors="replace")[-chars:]
    except OSError:
        return ""


def wait_serving(
    proc: subprocess.Popen[bytes] | subprocess.Popen[str],
    base: str,
    log: Path | None = None,
    path: str = "/readyz",
    what: str = "fjmj serve",
    ceiling: float = START_CEILING_S,
) -> float:
    """Until ``GET base+path`` answers 200: the seconds it took. ``RuntimeError`` with the
    log's tail when the process exits first or the ceiling passes.

    A request that connects waits for its answer (``fjmj serve`` binds its port before it
    migrates the database and restores its tables: the answer comes once it serves); one
    refused (the port not bound yet) is tried again 50 ms later."""
    t0 = time.monotonic()
    end = t0 + ceiling
    with httpx.Client(timeout=httpx.Timeout(ceiling, connect=5.0)) as http:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"{what} exited ({proc.returncode}) before it served:\n{log_tail(log)}"
                )
            try:
                if http.get(base + path).status_code == 200:
                    return time.monotonic() - t0
            except httpx.TransportError:
                pass
            if time.monotonic() > end:
                raise RuntimeError(
                    f"{what} still running but not serving {path} after {ceiling:.0f} s "
                    f"(a hung start-up):\n{log_tail(log)}"
                )
            time.sleep(0.05)
