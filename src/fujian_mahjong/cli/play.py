"""``fjmj play``: play a match in the terminal against three bots."""

from __future__ import annotations

import argparse

from fujian_mahjong.bots import BOT_KINDS
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.rules import BUILTIN, DEFAULT, get_profile


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("play", help="play a match in the terminal against three bots")
    p.add_argument("--profile", default=DEFAULT, help=f"one of {', '.join(BUILTIN)}")
    p.add_argument("--seed", default="0")
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.add_argument("--bots", choices=tuple(BOT_KINDS), default="heuristic")
    p.add_argument("--hands", type=int, default=0, help="hands in the match (0: until you quit)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    prof = get_profile(args.profile)
    if prof.players_max < 4:
        raise MahjongError(f"--profile: {prof.name} cannot seat four players")
    if args.hands < 0:
        raise MahjongError("--hands must be >= 0")
    from fujian_mahjong.tui.app import run_app

    run_app(profile=args.profile, seed=args.seed, lang=args.lang, bots=args.bots, hands=args.hands)
    return 0
