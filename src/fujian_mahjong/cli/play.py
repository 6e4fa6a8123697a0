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
    p.add_argument(
        "--bots",
        default="heuristic",
        help="the bots' kind: random, greedy (新手), heuristic (普通), neural (熟手), "
        "strong (高手) or heuristic-v1; one for every bot, or one per bot seat, comma-separated "
        "(e.g. greedy,heuristic,strong)",
    )
    p.add_argument("--hands", default="0", help="hands in the match (0: until you quit)")
    p.add_argument(
        "--players", default=None, help="players at the table (sanming: 2-4; default: 4)"
    )
    p.add_argument(
        "--log-dir",
        help="save each finished hand's event log (JSONL) here: a new or empty folder (one "
        "that holds an earlier match's hand-*.jsonl is refused)",
    )
    p.set_defaults(func=run)


def seat_kinds(text: str, players: int) -> list[str]:
    """The bot kind of every seat from ``--bots``: one kind for all, or one per bot seat
    (seats 1 to players - 1; seat 0 is the human, given the first kind)."""
    from fujian_mahjong.bots import BOT_KINDS
    from fujian_mahjong.fileio import excerpt

    kinds = [k.strip() for k in str(text).split(",")]
    for k in kinds:
        if k not in BOT_KINDS:
            raise CliError(
                f"--bots: unknown bot kind {excerpt(k, 30)!r} (expected {', '.join(BOT_KINDS)})"
            )
    if len(kinds) == 1:
        return kinds * players
    if len(kinds) != players - 1:
        raise CliError(
            f"--bots: one kind, or one per bot seat ({players - 1} with {players} players), "
            f"got {len(kinds)}"
        )
    return [kinds[0], *kinds]


def run(args: argparse.Namespace) -> int:
    from fujian_mahjong.cli.simulate import (
        check_log_dir,
        check_profile,
        refuse_used_log_dir,
        text_arg,
        whole_number,
    )

    prof = check_profile(args.profile)
    players = (
        whole_number("--players", args.players, 2, 4)
        if args.players is not None
        else max(prof.players_min, min(4, prof.players_max))
    )
    if not prof.players_min <= players <= prof.players_max:
        raise CliError(f"--players: {prof.name} plays with {prof.players_text}, got {players}")
    kinds = seat_kinds(text_arg("--bots", args.bots, 200), players)
    hands = whole_number("--hands", args.hands, 0, 10_000)
    seed = text_arg("--seed", args.seed, 200) if args.seed is not None else None
    if args.log_dir:
        refuse_used_log_dir(args.log_dir)  # an earlier match's logs are never overwritten
    if not (sys.stdin and sys.stdout and sys.stdin.isatty() and sys.stdout.isatty()):
        # before the log directory is made: a refused play leaves nothing behind
        raise CliError("play needs an interactive terminal (standard input and output)")
    log_dir = check_log_dir(args.log_dir) if args.log_dir else None
    from fujian_mahjong.bots import make_bot
    from fujian_mahjong.tui.app import PlayApp

    app = PlayApp(
        profile=args.profile,
        seed=seed,
        lang=args.lang,
        bots=kinds[1],
        hands=hands,
        players=players,
        log_dir=log_dir,
    )
    if len(set(kinds[1:])) > 1:  # one kind per bot seat (seeded as the app seeds its bots)
        app.bots = [make_bot(k, f"{app.seed}:{s}") for s, k in enumerate(kinds)]
    try:
        app.run()
    finally:
        print(app.summary_text())  # as tui.app.run_app: the standings, logs and the seed
    return 0
