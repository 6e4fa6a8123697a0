"""``fjmj replay FILE``: verify a hand's event log (R12) and print it in words.

A void hand's log (a leaver, 解散) ends where the hand was cut short, without the ``end``
event that reveals the seed: ``--seed`` gives the seed the server revealed (``hand_void``,
``GET /api/hands/{id}``) and the log is verified against it up to where it stops (R12).

Exit status: 0 the log verifies; 1 it is a hand log (``start`` … ``end``) that does not
verify; 2 bad input — unreadable, not a regular file, too large, not UTF-8, empty, not JSON
Lines of event objects, or not shaped like a hand log.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from fujian_mahjong.cli.common import CliError
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.fileio import excerpt, loads, read_input

if TYPE_CHECKING:
    from fujian_mahjong.rules import Profile

MAX_EVENTS = 20_000  # a hand has a few hundred events


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("replay", help="verify an event log (JSON Lines) and print the play-by-play")
    p.add_argument("file", help="event log (.jsonl), or - for standard input")
    p.add_argument("--lang", choices=("zh", "en"), default="zh")
    p.add_argument("--quiet", action="store_true", help="only verify")
    p.add_argument(
        "--seed",
        default=None,
        help="the seed of a void hand, whose log stops without the 'end' that reveals it "
        "(the server's hand_void or GET /api/hands/{id}); checked against the commitment",
    )
    add_profile_option(p)
    p.set_defaults(func=run)


def parse_log(text: str, where: str, complete: bool = True) -> list[dict[str, Any]]:
    """The events of a JSON Lines hand log; :class:`CliError` (bad input) if the text is not
    one (empty, a line that is not a JSON object with a string ``type``, no ``start`` first or
    — ``complete`` — no ``end`` last, absurdly long)."""
    events: list[dict[str, Any]] = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        e = loads(line, f"{where}: line {i}")
        if not isinstance(e, dict) or not isinstance(e.get("type"), str):
            raise CliError(f"{where}: line {i}: not an event (a JSON object with a 'type')")
        events.append(e)
        if len(events) > MAX_EVENTS:
            raise CliError(f"{where}: more than {MAX_EVENTS:,} events: not a hand log")
    if not events:
        raise CliError(f"{where}: empty: not a hand log")
    if events[0]["type"] != "start":
        raise CliError(f"{where}: not a hand log (the first event is not 'start')")
    if complete and events[-1]["type"] != "end":
        raise CliError(
            f"{where}: not a complete hand log (the last event is not 'end'; a void hand's "
            "log verifies with --seed SEED)"
        )
    return events


def verify(
    events: list[dict[str, Any]], profile: Profile | None = None, seed: str | None = None
) -> str | None:
    """None if the log verifies (R12), else the one-line reason it does not. ``profile``:
    a user profile's rules, for a log that names no built-in profile; ``seed``: the
    revealed seed of a hand whose log stops before its ``end`` (a void hand)."""
    from fujian_mahjong.engine.replay import apply_decisions, fresh_game

    try:
        apply_decisions(fresh_game(events, seed=seed, profile=profile), events)
    except MahjongError as e:
        return excerpt(e, 240)
    except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError) as e:
        # a field of the wrong type or size that the engine did not anticipate
        return f"line 1: cannot replay: {type(e).__name__}: {excerpt(e)}"
    return None


def add_profile_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--profile",
        metavar="FILE",
        default=None,
        help="the profile (.toml) of a log made with a profile of your own (fjmj simulate "
        "--profile FILE); its name must be the log's",
    )


def log_profile(path: str | None, events: list[dict[str, Any]], where: str) -> Profile | None:
    """The user profile (``--profile FILE``) a log is replayed with: None for a log of a
    built-in profile; a log naming another one needs its file (bad input: CliError)."""
    if path is not None:
        from fujian_mahjong.rules import load_profile_file

        try:
            return load_profile_file(path)
        except MahjongError as e:
            raise CliError(f"--profile: {e}") from None
    named = events[0].get("profile")
    if isinstance(named, str):
        from fujian_mahjong.rules import BUILTIN

        if named not in BUILTIN:
            raise CliError(
                f"{where}: its profile {excerpt(named)!r} is not built in: give its file "
                "with --profile FILE"
            )
    return None


def run(args: argparse.Namespace) -> int:
    from fujian_mahjong.i18n import t

    where = excerpt("standard input" if args.file == "-" else args.file, 120)
    if args.seed is not None and not 0 < len(args.seed) <= 200:
        raise CliError("--seed: give the hand's revealed seed (1 to 200 characters)")
    events = parse_log(read_input(args.file), where, complete=args.seed is None)
    profile = log_profile(args.profile, events, where)
    why = verify(events, profile, args.seed)
    if why is not None:
        print(f"fjmj: error: {where}: {t('replay.failed', args.lang)}: {why}", file=sys.stderr)
        return 1
    if not args.quiet:
        from fujian_mahjong.engine.narrate import narrate

        # the outcomes in words; a claim that lost to a higher one is said as lost
        for line in narrate(events, args.lang, hand_over=events[-1]["type"] == "end"):
            print(line["text"])
    print(t("replay.verified", args.lang, n=len(events)))
    return 0
