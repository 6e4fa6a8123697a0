"""``fjmj simulate``: bot arena with statistics."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from fujian_mahjong.bots import BOT_KINDS
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.rules import BUILTIN, DEFAULT, get_profile
from fujian_mahjong.sim import SimulationError, Summary, simulate


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("simulate", help="bots play many hands; arena statistics")
    p.add_argument(
        "--profile", default=DEFAULT, help=f"one of {', '.join(BUILTIN)} or a .toml file"
    )
    p.add_argument("--hands", type=int, default=1000)
    p.add_argument("--seed", default="0")
    p.add_argument(
        "--players",
        default="heuristic,heuristic,random,random",
        help="bot kind per seat, comma-separated (random, heuristic); seats rotate",
    )
    p.add_argument("--workers", type=int, default=1, help="worker processes")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--log-dir", help="write each hand's event log (JSONL) here")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=run)


def _table(sm: Summary) -> Table:
    d = sm.to_json()
    t = Table(
        title=f"{sm.profile}: {sm.hands} hands, {d['hands_per_s']} hands/s, draws {d['draw_rate']:.1%}"
    )
    t.add_column("bot kind")
    t.add_column("seats", justify="right")
    t.add_column("win rate", justify="right")
    t.add_column("mean points/hand", justify="right")
    t.add_column("95% CI", justify="right")
    for k, st in sm.kind_stats.items():
        t.add_row(
            k,
            str(st["seats"]),
            f"{st['win_rate']:.1%}",
            f"{st['mean_points']:+.2f}",
            f"[{st['ci95_low']:+.2f}, {st['ci95_high']:+.2f}]",
        )
    return t


def run(args: argparse.Namespace) -> int:
    prof = get_profile(args.profile)
    kinds = [k.strip() for k in args.players.split(",") if k.strip()]
    for k in kinds:
        if k not in BOT_KINDS:
            raise MahjongError(
                f"--players: unknown bot kind {k!r} (expected {', '.join(BOT_KINDS)})"
            )
    if not prof.players_min <= len(kinds) <= prof.players_max:
        raise MahjongError(
            f"--players: {prof.name} plays with {prof.players_min}-{prof.players_max} players, got {len(kinds)}"
        )
    if args.hands < 1:
        raise MahjongError("--hands must be at least 1")
    if args.workers < 1:
        raise MahjongError("--workers must be at least 1")
    err = Console(stderr=True)
    try:
        if args.no_progress or not sys.stderr.isatty():
            sm = simulate(
                prof.name if args.profile in BUILTIN else args.profile,
                args.hands,
                args.seed,
                kinds,
                args.workers,
                args.log_dir,
            )
        else:
            with Progress(
                TextColumn("[bold]simulate"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]} hands/s"),
                TimeRemainingColumn(),
                console=err,
            ) as bar:
                task = bar.add_task("hands", total=args.hands, rate="-")
                import time

                t0 = time.perf_counter()
                done = [0]

                def tick(n: int) -> None:
                    done[0] += n
                    rate = done[0] / max(1e-9, time.perf_counter() - t0)
                    bar.update(task, advance=n, rate=f"{rate:,.0f}")

                sm = simulate(
                    args.profile, args.hands, args.seed, kinds, args.workers, args.log_dir, tick
                )
    except SimulationError as e:
        print(f"fjmj: simulate: engine error: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(sm.to_json(), ensure_ascii=False))
    else:
        out = Console()
        out.print(_table(sm))
        d = sm.to_json()
        out.print(
            "win rate by seat: "
            + ", ".join(f"{i}: {w:.1%}" for i, w in enumerate(d["win_rate_by_seat"]))
        )
        out.print("win kinds: " + ", ".join(f"{k} {v}" for k, v in d["win_kinds"].items()))
        out.print(
            "specials: " + (", ".join(f"{k} {v}" for k, v in d["specials"].items()) or "none")
        )
    return 0
