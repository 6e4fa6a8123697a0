"""Test-only: the real app under uvicorn with a crash point injected (no tests here).

``python -m tests.crash_server --crash-at NAME --port P --data-dir D [--db URL]
[--quickmatch-wait-s S]`` serves
like ``fjmj serve --claim-pause-ms 0 --bot-delay-ms 0`` but SIGKILLs itself when the economy
reaches the named point (``settle_before_commit``, ``settle_after_commit``;
server/economy.py). The command line of ``fjmj serve`` has no such option."""

from __future__ import annotations

import argparse
import os
import signal
from pathlib import Path

import uvicorn

from fujian_mahjong.server.app import create_app
from fujian_mahjong.server.settings import Settings
from tests.serving import OPENING_MS


class CrashAt:
    """Store faults: no failing commit, a SIGKILL at one named point."""

    def __init__(self, name: str) -> None:
        self.name = name

    def before_commit(self) -> None:
        return None

    def point(self, name: str) -> None:
        if name == self.name:
            os.kill(os.getpid(), signal.SIGKILL)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--crash-at", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--db", default="")
    ap.add_argument("--quickmatch-wait-s", type=float, default=10.0)
    a = ap.parse_args()
    st = Settings(
        data_dir=a.data_dir,
        db_url=a.db,
        port=a.port,
        claim_pause_ms=0,
        claim_window="fast",
        bot_delay_ms=0,
        opening_s=OPENING_MS / 1000,
        quickmatch_wait_s=a.quickmatch_wait_s,
    )
    a.data_dir.mkdir(parents=True, exist_ok=True)
    app = create_app(st, faults=CrashAt(a.crash_at))
    uvicorn.run(app, host="127.0.0.1", port=a.port, log_level="warning", lifespan="on")


if __name__ == "__main__":
    main()
