"""``fjmj replay FILE``: verify a hand's event log (R12) and print it in words.

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
    add_profile_option(p)
    p.set_defaults(func=run)


def parse_log(text: str, where: str) -> list[dict[str, Any]]:
    """The events of a JSON Lines hand log; :class:`CliError` (bad input) if the text is not
    one (empty, a line that is not a JSON object with a string ``type``, no ``start`` first or
    no ``end`` last, absurdly long)."""
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
    if events[-1]["type"] != "end":
        raise CliError(f"{where}: not a complete hand log (the last event is not 'end')")
    return events


def verify(events: list[dict[str, Any]], profile: Profile | None = None) -> str | None:
    """None if the log verifies (R12), else the one-line reason it does not. ``profile``:
    a user profile's rules, for a log that names no built-in profile."""
    from fujian_mahjong.engine.replay import replay

    try:
        replay(events, profile)
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
    events = parse_log(read_input(args.file), where)
    profile = log_profile(args.profile, events, where)
    why = verify(events, profile)
    if why is not None:
        print(f"fjmj: error: {where}: {t('replay.failed', args.lang)}: {why}", file=sys.stderr)
        return 1
    if not args.quiet:
        from fujian_mahjong.engine.narrate import narrate

        # the outcomes in words; a claim that lost to a higher one is said as lost
        for line in narrate(events, args.lang, hand_over=True):
            print(line["text"])
    print(t("replay.verified", args.lang, n=len(events)))
    return 0
