"""Test-only: the real app under uvicorn on chosen deals (no tests here).

``python -m tests.serve_test_server --port P --data-dir D [--seed S | --walls FILE.json]
[--dealer N] [--claim-pause-ms MS] [--bot-delay-ms MS] [--grace-s S] [--turn-seconds S]``
serves like ``fjmj serve`` (real clock, real sockets, the browser client at /) but every
match is dealt by a test's deal source (server/deals.py):

- ``--seed S``: ``FixedDeals(S, dealer)``, hand k of a match plays HMAC(S, k);
- ``--walls FILE.json``: ``StackedDeals(walls, dealer)``, hand k of a match plays wall
  ``k % len(walls)``; the file holds a JSON list of walls, each 144 tiles head to tail, as
  a tile string (``"146779m12668p…"``, spaces allowed) or a list of kind numbers.

Without either, deals are as in production (``SecretDeals``). ``fjmj serve`` deliberately
has no such options: a network client can never choose a deal."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

import uvicorn

from fujian_mahjong.server.app import create_app
from fujian_mahjong.server.deals import DealSource, FixedDeals, StackedDeals
from fujian_mahjong.server.settings import OPENING_S, Settings
from fujian_mahjong.tiles import parse


def load_walls(path: Path) -> list[list[int]]:
    """The walls of a ``--walls`` file (tile strings or lists of kinds)."""
    data: Any = json.loads(path.read_text())
    if not isinstance(data, list) or not data:
        raise SystemExit(f"{path}: expected a non-empty JSON list of walls")
    walls = []
    for i, w in enumerate(data):
        wall = parse(w) if isinstance(w, str) else [int(k) for k in w]
        if len(wall) != 144:
            raise SystemExit(f"{path}: wall {i} has {len(wall)} tiles, not 144")
        walls.append(wall)
    return walls


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m tests.serve_test_server", description=__doc__)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--db", default="", help="SQLAlchemy URL (default: SQLite in the data dir)")
    deal = ap.add_mutually_exclusive_group()
    deal.add_argument("--seed", help="a fixed match seed (FixedDeals)")
    deal.add_argument("--walls", type=Path, help="a JSON file of stacked walls (StackedDeals)")
    ap.add_argument("--dealer", type=int, default=0, help="the first dealer (default 0)")
    ap.add_argument("--claim-pause-ms", type=int, default=60)
    ap.add_argument("--bot-delay-ms", type=int, default=0)
    ap.add_argument("--grace-s", type=float, default=120.0)
    ap.add_argument("--turn-seconds", type=float, default=15.0)
    ap.add_argument(
        "--opening-ms",
        type=int,
        default=round(OPENING_S * 1000),
        help="a hand's opening at a table with humans (default: the server's)",
    )
    ap.add_argument("--log-level", default="warning")
    lobby_options(ap)
    return ap


def deal_source(args: argparse.Namespace) -> DealSource | None:
    if args.seed is not None:
        return FixedDeals(args.seed, dealer=args.dealer)
    if args.walls is not None:
        return StackedDeals(load_walls(args.walls), dealer=args.dealer)
    return None


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if os.environ.get("FJMJ_TEST_CHEAP_HASH") == "1":  # set by tests/conftest.py
        from tests.cheap_hash import use_cheap_hash

        use_cheap_hash()
    args.data_dir.mkdir(parents=True, exist_ok=True)
    settings = Settings(
        data_dir=args.data_dir,
        db_url=args.db,
        host=args.host,
        port=args.port,
        claim_pause_ms=args.claim_pause_ms,
        claim_window="fast",  # the journeys time the pause; the fixed window has its own tests
        bot_delay_ms=args.bot_delay_ms,
        grace_s=args.grace_s,
        turn_seconds=args.turn_seconds,
        opening_s=args.opening_ms / 1000,
    )
    settings = lobby_settings(args, settings)
    app = create_app(settings, deals=deal_source(args))
    print(f"serve_test_server: http://{args.host}:{args.port}/", flush=True)
    # the app's lifespan creates or migrates the database (Store.open)
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws_max_size=65536,
        lifespan="on",
    )
    return 0


# --------------------------------------------------------------------------- lobby options
# (tests/test_web_lobby.py: rooms, quick match, relief and stake bounds from a
# `fjmj serve --config` file, read as `fjmj serve` reads it)


def lobby_options(ap: argparse.ArgumentParser) -> None:
    ap.add_argument(
        "--rooms-config",
        type=Path,
        help="a `fjmj serve --config` TOML file: [server], [relief], [tables], [[rooms]]",
    )


def lobby_settings(args: argparse.Namespace, settings: Settings) -> Settings:
    if args.rooms_config is None:
        return settings
    from dataclasses import replace

    from fujian_mahjong.server.rooms import load_config

    return replace(settings, **load_config(args.rooms_config))


if __name__ == "__main__":
    sys.exit(main())
