"""``fjmj simulate``: bot arena with statistics.

Seat 0 deals and the kinds rotate, so every kind plays every seat relative to the dealer
equally often; ``--duplicate`` plays each deal in every seating of the kinds and reports per
kind points and placement points with 95% CIs clustered by deal (docs/bots.md).

Every argument is validated where it enters (range, type, encoding); memory stays bounded
whatever ``--hands`` is (hands are streamed). Ctrl-C or SIGTERM stops the worker processes
and exits with one line (status 130 / 143); a worker that dies, or a hand log that cannot be
written, is one line too (status 1).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import TYPE_CHECKING, Any

from fujian_mahjong.cli.common import CliError
from fujian_mahjong.fileio import excerpt

if TYPE_CHECKING:
    from rich.table import Table

    from fujian_mahjong.sim import Summary

MAX_HANDS = 10**12
MAX_WORKERS = 256
MAX_SEED_CHARS = 200


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("simulate", help="bots play many hands; arena statistics")
    p.add_argument(
        "--profile",
        default="fuzhou-tcy",
        help="fuzhou-tcy (the default), fuzhou-bianfeng, fuzhou-doudou, sanming or a .toml file",
    )
    p.add_argument(
        "--hands",
        default="1000",
        help=f"hands to play (--duplicate: deals; 1 to {MAX_HANDS:.0e}; default 1000)",
    )
    p.add_argument(
        "--seed",
        default="0",
        help="the match seed, any text (default 0): the same seed plays the same hands",
    )
    p.add_argument(
        "--players",
        default="heuristic,heuristic,random,random",
        help="bot kind per seat, comma-separated (random, greedy, heuristic, neural, strong, "
        "heuristic-v1); seats rotate (default heuristic,heuristic,random,random)",
    )
    p.add_argument(
        "--duplicate",
        action="store_true",
        help="play each deal in every seating of the kinds (luck cancels); --hands counts deals",
    )
    p.add_argument(
        "--workers",
        default="1",
        help=f"worker processes (ray: tasks at once; 1 to {MAX_WORKERS}, default 1)",
    )
    p.add_argument(
        "--backend", choices=("local", "ray"), default="local", help="local processes or Ray"
    )
    p.add_argument("--address", help="ray: join a cluster (auto or HOST:PORT); default local")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument(
        "--log-dir",
        help="write each hand's event log (JSONL) here: a new or empty folder (one that "
        "holds an earlier run's hand-*.jsonl is refused)",
    )
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar on standard error (it is shown only on a terminal)",
    )
    p.set_defaults(func=run)


def _as_whole(s: str) -> int | None:
    if len(s) > 30 or not s.isascii():  # ASCII digits only (int() would take '１０')
        return None
    try:
        return int(s.replace("_", ""), 10)
    except ValueError:
        pass
    try:
        f = float(s)
    except ValueError:
        return None
    return int(f) if math.isfinite(f) and f == int(f) else None


def whole_number(option: str, text: object, lo: int, hi: int) -> int:
    """A whole number in [lo, hi] from an option's text ("1000", "1_000", "1e6")."""
    if isinstance(text, int) and not isinstance(text, bool):
        v: int | None = text
    else:
        v = _as_whole(str(text).strip())
    if v is None:
        raise CliError(f"{option}: expected a whole number, got {excerpt(text, 40)!r}")
    if not lo <= v <= hi:
        raise CliError(f"{option}: must be {lo:,} to {hi:,}, got {excerpt(v, 40)}")
    return v


def text_arg(option: str, text: str, limit: int) -> str:
    """An option's text: valid UTF-8 (argv may hold undecodable bytes), at most ``limit``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise CliError(f"{option}: not valid UTF-8") from None
    if len(text) > limit:
        raise CliError(f"{option}: {len(text):,} characters (at most {limit})")
    return text


def refuse_used_log_dir(path: str) -> None:
    """CliError when ``path`` already holds hand logs (``hand-*.jsonl``): a second run would
    overwrite the first's logs one by one, and a shorter one would leave a folder mixing two
    runs (README, docs/terminal.md). Reads only: nothing is made."""
    from pathlib import Path

    path = text_arg("--log-dir", path, 1000)
    p = Path(path)
    shown = excerpt(path, 120)
    if p.exists() and not p.is_dir():
        raise CliError(f"--log-dir {shown}: exists and is not a directory")
    try:
        used = p.is_dir() and next(p.glob("hand-*.jsonl"), None) is not None
    except OSError as e:
        raise CliError(f"--log-dir {shown}: cannot read it: {e.strerror or e}") from None
    if used:
        raise CliError(
            f"--log-dir {shown}: already holds hand logs (hand-*.jsonl) of an earlier run; "
            "give a new or empty folder"
        )


def check_log_dir(path: str) -> str:
    """A directory we can write hand logs into (created if missing) that holds no earlier
    run's hand logs; CliError if not."""
    import os
    import tempfile
    from pathlib import Path

    refuse_used_log_dir(path)
    path = text_arg("--log-dir", path, 1000)
    p = Path(path)
    shown = excerpt(path, 120)
    try:
        p.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=p, prefix=".probe-")
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise CliError(f"--log-dir {shown}: cannot write there: {e.strerror or e}") from None
    return path


def check_profile(name: str) -> Any:
    """The rule profile named by ``--profile``; a TOML path must be a small regular file."""
    from fujian_mahjong.errors import MahjongError
    from fujian_mahjong.fileio import decode, read_bytes
    from fujian_mahjong.rules import get_profile

    name = text_arg("--profile", name, 1000)
    try:
        if name.endswith(".toml"):
            decode(read_bytes(name, 1024 * 1024), name)  # refuses FIFOs, huge and binary files
        return get_profile(name)
    except MahjongError as e:
        raise CliError(f"--profile: {excerpt(e, 200)}") from None


def _table(sm: Summary) -> Table:
    from rich import box
    from rich.table import Table

    d = sm.to_json()
    played = (
        f"{sm.deals} deals × {sm.seatings} seatings = {sm.hands} hands (duplicate)"
        if sm.duplicate
        else f"{sm.hands} hands"
    )
    field_pts = d["field"]["points_per_hand"]
    notes = [
        f"points per hand, 95% CI clustered by {'deal' if sm.duplicate else 'hand'}",
        f"placement: 1st {len(sm.kinds) - 1} … last 0 by the hand's points, ties share",
    ]
    if field_pts:  # payments that do not sum to zero: show the difference from the field
        notes.append(f"field mean {field_pts:+.2f} points/hand")
    t = Table(
        title=f"{sm.profile}: {played}, {d['hands_per_s']} hands/s, draws {d['draw_rate']:.1%}",
        caption="; ".join(notes),
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    t.add_column("bot kind")
    t.add_column("seats", justify="right")
    t.add_column("win", justify="right")
    t.add_column("deal-in", justify="right")
    t.add_column("points", justify="right")
    t.add_column("95% CI", justify="right")
    if field_pts:
        t.add_column("vs field", justify="right")
    t.add_column("placement", justify="right")
    t.add_column("vs field", justify="right")
    for k, st in sm.kind_stats.items():
        lo, hi = st["ci95"]
        row = [
            k,
            str(st["seats"]),
            f"{st['win_rate']:.1%}",
            f"{st['deal_ins_per_hand']:.1%}",
            f"{st['points_per_hand']:+.2f}",
            f"[{lo:+.1f}, {hi:+.1f}]",
        ]
        if field_pts:
            row.append(f"{st['points_vs_field']:+.2f}")
        row += [f"{st['placement']:.3f}", f"{st['placement_vs_field']:+.3f}"]
        t.add_row(*row)
    return t


class Terminated(BaseException):
    """Raised in the main process by SIGTERM, so that cleanup (stopping workers) runs."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


def run(args: argparse.Namespace) -> int:
    import signal

    from fujian_mahjong.bots import BOT_KINDS
    from fujian_mahjong.rules import BUILTIN

    prof = check_profile(args.profile)
    players = text_arg("--players", args.players, 1000)
    kinds = [k.strip() for k in players.split(",") if k.strip()]
    for k in kinds:
        if k not in BOT_KINDS:
            raise CliError(
                f"--players: unknown bot kind {excerpt(k, 30)!r} (expected {', '.join(BOT_KINDS)})"
            )
    if not prof.players_min <= len(kinds) <= prof.players_max:
        raise CliError(f"--players: {prof.name} plays with {prof.players_text}, got {len(kinds)}")
    hands = whole_number("--hands", args.hands, 1, MAX_HANDS)
    workers = whole_number("--workers", args.workers, 1, MAX_WORKERS)
    seed = text_arg("--seed", str(args.seed), MAX_SEED_CHARS)
    _check_backend(args)  # before the log directory is made: a refusal leaves nothing
    log_dir = check_log_dir(args.log_dir) if getattr(args, "log_dir", None) else None
    profile = prof.name if args.profile in BUILTIN else args.profile
    old = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        sm = _simulate(args, profile, hands, seed, kinds, workers, log_dir)
    except _Exit as e:
        print(f"fjmj: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            "fjmj: error: simulate interrupted (Ctrl-C); worker processes stopped", file=sys.stderr
        )
        return 130
    except Terminated:
        print(
            "fjmj: error: simulate terminated (SIGTERM); worker processes stopped", file=sys.stderr
        )
        return 143
    finally:
        signal.signal(signal.SIGTERM, old)
    if args.json:
        print(json.dumps(sm.to_json(), ensure_ascii=False))
    else:
        from rich.console import Console

        class _Console(Console):
            def on_broken_pipe(self) -> None:
                # rich exits 1 itself; fjmj's main answers a closed pipe (``| head``) with 0
                raise BrokenPipeError

        out = _Console()
        out.print(_table(sm))
        d = sm.to_json()
        out.print(
            "win rate by seat (seat 0 deals): "
            + ", ".join(f"{i}: {w:.1%}" for i, w in enumerate(d["win_rate_by_seat"]))
        )
        out.print(
            "mean points by seat: "
            + ", ".join(f"{i}: {p:+.2f}" for i, p in enumerate(d["mean_points_by_seat"]))
        )
        # draws are reported in the title (draw rate), not as a kind of win
        kinds_won = {k: v for k, v in d["win_kinds"].items() if k != "draw"}
        out.print("win kinds: " + (", ".join(f"{k} {v}" for k, v in kinds_won.items()) or "none"))
        out.print(
            "specials: " + (", ".join(f"{k} {v}" for k, v in d["specials"].items()) or "none")
        )
    return 0


def _simulate(
    args: argparse.Namespace,
    profile: str,
    hands: int,
    seed: str,
    kinds: list[str],
    workers: int,
    log_dir: str | None,
) -> Summary:
    import functools

    from fujian_mahjong.sim import SimulationError, simulate
    from fujian_mahjong.sim.ray_backend import RayBackendError
    from fujian_mahjong.sim.simulate import LogWriteError, WorkerDied, seatings_per_deal

    address = getattr(args, "address", None)
    duplicate = bool(getattr(args, "duplicate", False))
    if getattr(args, "backend", "local") == "ray":  # same summary, Ray tasks (docs/rl.md)
        from fujian_mahjong.sim.ray_backend import simulate_ray

        addr = text_arg("--address", address, 300) if address else None
        simulate = functools.partial(simulate_ray, address=addr, duplicate=duplicate)
    else:
        simulate = functools.partial(simulate, duplicate=duplicate)
    try:
        if getattr(args, "no_progress", False) or not sys.stderr.isatty():
            return simulate(profile, hands, seed, kinds, workers, log_dir)
        import time

        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        with Progress(
            TextColumn("[bold]simulate"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]} hands/s"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
        ) as bar:
            total = hands * seatings_per_deal(kinds, duplicate)
            task = bar.add_task("hands", total=total, rate="-")
            t0 = time.perf_counter()
            done = [0]

            def tick(n: int) -> None:
                done[0] += n
                rate = done[0] / max(1e-9, time.perf_counter() - t0)
                bar.update(task, advance=n, rate=f"{rate:,.0f}")

            return simulate(profile, hands, seed, kinds, workers, log_dir, tick)
    except SimulationError as e:
        raise _Exit(f"simulate: engine error: {excerpt(e, 300)}") from None
    except (WorkerDied, LogWriteError, RayBackendError) as e:
        raise _Exit(f"simulate: {excerpt(e, 300)}") from None


def _check_backend(args: argparse.Namespace) -> None:
    """``--address``: only with ``--backend ray``, and ``auto`` or ``HOST:PORT`` (bad input,
    exit 2); whether Ray answers there is found out later (exit 1)."""
    address = getattr(args, "address", None)
    if address is None:
        return
    if getattr(args, "backend", "local") != "ray":
        raise CliError("--address needs --backend ray")
    address = text_arg("--address", address, 300)
    if address == "auto":
        return
    host, sep, port = address.rpartition(":")
    digits = port.isascii() and port.isdigit() and len(port) <= 5
    if not sep or not host.strip("[]") or not digits or not 0 < int(port) < 65536:
        raise CliError(
            f"--address: expected auto or HOST:PORT (a port 1-65535), got {excerpt(address, 60)!r}"
        )


class _Exit(Exception):
    """A one-line failure of the run itself (not bad input): exit status 1."""
