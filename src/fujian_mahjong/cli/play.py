"""``fjmj play``: play a match in the terminal against bots (Textual)."""

from __future__ import annotations

import argparse
import sys

from fujian_mahjong.cli.common import CliError


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("play", help="play a match in the terminal against bots")
    p.add_argument(
        "--profile",
        default="fuzhou-tcy",
        help="fuzhou-tcy, fuzhou-bianfeng, fuzhou-doudou, sanming or a .toml file",
    )
    p.add_argument(
        "--seed", default=None, help="replay a match (default: a fresh seed, printed at the end)"
    )
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.add_argument("--bots", choices=("heuristic", "random"), default="heuristic")
    p.add_argument("--hands", default="0", help="hands in the match (0: until you quit)")
    p.add_argument(
        "--players", default=None, help="players at the table (sanming: 2-4; default: 4)"
    )
    p.add_argument("--log-dir", help="save each finished hand's event log (JSONL) here")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from fujian_mahjong.bots import BOT_KINDS
    from fujian_mahjong.cli.simulate import check_log_dir, check_profile, text_arg, whole_number

    prof = check_profile(args.profile)
    if args.bots not in BOT_KINDS:
        raise CliError(f"--bots: expected one of {', '.join(BOT_KINDS)}")
    players = (
        whole_number("--players", args.players, 2, 4)
        if args.players is not None
        else max(prof.players_min, min(4, prof.players_max))
    )
    if not prof.players_min <= players <= prof.players_max:
        raise CliError(
            f"--players: {prof.name} plays with {prof.players_min}-{prof.players_max} players"
        )
    hands = whole_number("--hands", args.hands, 0, 10_000)
    seed = text_arg("--seed", args.seed, 200) if args.seed is not None else None
    log_dir = check_log_dir(args.log_dir) if args.log_dir else None
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CliError("play needs an interactive terminal (standard input and output)")
    from fujian_mahjong.tui.app import run_app

    run_app(
        profile=args.profile,
        seed=seed,
        lang=args.lang,
        bots=args.bots,
        hands=hands,
        players=players,
        log_dir=log_dir,
    )
    return 0
