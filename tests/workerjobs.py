"""Jobs for the worker pool's tests (tests/test_workers.py): plain functions of the standard
library only, so a spawned worker imports them at once. Each job that waits, waits for a
file the test writes, never for a length of time it hopes is long enough."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any


def pid() -> int:
    return os.getpid()


def fail(message: str) -> int:
    raise ValueError(message)


def die() -> int:
    """Kills its own worker, as the OOM killer would."""
    os._exit(1)


def hang() -> int:
    """Never answers (a bug, or a result half sent)."""
    time.sleep(3600)
    return 0


def sleep(seconds: float) -> int:
    """A slow job."""
    time.sleep(seconds)
    return os.getpid()


def started_then_wait(started: str, release: str) -> int:
    """Says it has started (its pid in ``started``), then waits for ``release`` to exist."""
    Path(started + ".tmp").write_text(str(os.getpid()))
    os.replace(started + ".tmp", started)
    while not Path(release).exists():
        time.sleep(0.005)
    return os.getpid()


def once_then_pid(started: str) -> int:
    """The first run says it has started (its pid in ``started``) and waits for ever (to be
    killed); a run after that answers at once."""
    if Path(started).exists():
        return os.getpid()
    Path(started + ".tmp").write_text(str(os.getpid()))
    os.replace(started + ".tmp", started)
    time.sleep(3600)
    return 0


# stand-ins for ``build_review`` (tests/test_review_api.py)


def quick_review(events: list[dict[str, Any]], seat: int, bot: str) -> dict[str, Any]:
    """Instant, and says which log and which worker process it saw."""
    return {"seat": seat, "bot": bot, "head": events[0], "pid": os.getpid(), "decisions": []}


def dying_review(events: list[dict[str, Any]], seat: int, bot: str) -> dict[str, Any]:
    """A review that kills its worker (as the OOM killer would)."""
    os._exit(1)


def stuck_review(events: list[dict[str, Any]], seat: int, bot: str) -> dict[str, Any]:
    """A review whose worker never answers (a bug, or a result half sent)."""
    time.sleep(3600)
    return {}
