"""``fjmj replay FILE``: verify a hand's event log (R12) and print it in words."""

from __future__ import annotations

import argparse

from fujian_mahjong.cli.common import read_input
from fujian_mahjong.engine.narrate import describe
from fujian_mahjong.engine.replay import from_jsonl, replay
from fujian_mahjong.errors import ReplayError


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("replay", help="verify an event log (JSON Lines) and print the play-by-play")
    p.add_argument("file", help="event log (.jsonl), or - for standard input")
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.add_argument("--quiet", action="store_true", help="only verify")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import sys

    text = read_input(args.file)
    try:
        events = from_jsonl(text)
        replay(events)
    except ReplayError as e:
        print(f"fjmj: replay: {args.file}: does not verify: {e}", file=sys.stderr)
        return 1
    if not args.quiet:
        for ev in events:
            line = describe(ev, args.lang)
            if line:
                print(line)
    ok = "记录验证通过" if args.lang == "zh" else "log verified"
    print(f"{ok}: {len(events)} events")
    return 0
