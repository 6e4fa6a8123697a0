"""``fjmj``: the command-line entry point with its subcommands.

Start-up is kept fast (``fjmj --help`` and ``fjmj analyze`` in < 70 ms as whole
processes): the top-level parser only knows each subcommand's name and one-line help from
the table below; the module that implements a subcommand is imported only when that
subcommand is run (or asked for ``--help``).

Every error is one line on standard error starting with ``fjmj: error:``; bad input exits
with status 2, and no traceback is ever printed (an unexpected exception is reported as one
line naming its type, exit 1).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

PREFIX = "fjmj: error:"

# subcommand -> (module under fujian_mahjong.cli, one-line help). A module may add several
# subcommands (serve.py adds ``serve`` and ``db``); a module that is not installed is skipped.
COMMANDS: dict[str, tuple[str, str]] = {
    "analyze": ("analyze", "analyse a hand: win, waits, shanten, decompositions (R7)"),
    "score": ("score", "score a win situation given as JSON (R10)"),
    "play": ("play", "play a match in the terminal against bots"),
    "replay": ("replay", "verify an event log (JSON Lines) and print the play-by-play"),
    "review": ("review", "review one seat's decisions in a hand log against the 高手 (strong bot)"),
    "simulate": ("simulate", "bots play many hands; arena statistics"),
    "scenario": ("scenario", "run rule scenarios (.json / .jsonl) and check expectations"),
    "serve": ("serve", "run the online table server"),
    "db": ("serve", "manage the server's database (migrations)"),
    "admin": ("admin", "administer accounts and silver on the server's database"),
}


def _one_line(message: object, limit: int = 300) -> str:
    """A message on one line, at most ``limit`` characters (never echo a whole input)."""
    text = " ".join(str(message).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # One line, exit 2 (argparse would print the whole usage).
        print(f"{PREFIX} {_one_line(message)} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


SubParsers = argparse._SubParsersAction


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fujian-mahjong")
    except PackageNotFoundError:  # running from a source tree without an install
        return "0+unknown"


class _VersionAction(argparse.Action):
    """``--version`` that looks the version up only when asked (importlib.metadata is slow)."""

    def __init__(self, option_strings: Sequence[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"fjmj {_version()}")
        parser.exit()


def _module_exists(module: str) -> bool:
    from importlib.util import find_spec

    return find_spec(f"fujian_mahjong.cli.{module}") is not None


def _chosen(argv: Sequence[str]) -> str | None:
    """The subcommand named on the command line (the first non-option word), if known."""
    for a in argv:
        if a == "--":
            return None
        if not a.startswith("-"):
            return a if a in COMMANDS else None
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``fjmj`` parser. Only the subcommand named in ``argv`` gets its full parser (its
    module is imported); the others are listed by name and help. With ``argv=None`` every
    subcommand's full parser is built (for documentation and tests)."""
    import importlib

    parser = _Parser(
        prog="fjmj",
        description="Fujian gold mahjong (福州麻将 / 三明麻将): analysis, scoring, play, "
        "simulation, reviews, the table server.",
        epilog="Run 'fjmj COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    sub: SubParsers[_Parser] = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=_Parser
    )
    chosen = _chosen(argv) if argv is not None else None
    if argv is None:
        full = list(dict.fromkeys(m for m, _ in COMMANDS.values()))
    else:
        full = [COMMANDS[chosen][0]] if chosen else []
    for module in full:
        if _module_exists(module):
            importlib.import_module(f"fujian_mahjong.cli.{module}").add_parser(sub)
    for name, (module, help_) in COMMANDS.items():
        if name not in sub.choices and module not in full and _module_exists(module):
            sub.add_parser(name, help=help_, add_help=False)
    return parser


def _innermost(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The parser of the subcommand ``args`` ran (``fjmj db upgrade``: upgrade's), else
    ``parser`` itself."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        chosen = getattr(args, subs[0].dest, None) if subs and subs[0].dest else None
        if not subs or chosen not in subs[0].choices:
            return parser
        parser = subs[0].choices[chosen]


def _run(argv: list[str]) -> int:
    parser = build_parser(argv)
    if not argv:
        parser.print_help()
        return 0
    args, extra = parser.parse_known_args(argv)
    if extra:
        # named by the (sub)command that was run: "see fjmj simulate --help", not "fjmj"
        _innermost(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 0
    from fujian_mahjong.errors import MahjongError

    try:
        return int(args.func(args))
    except MahjongError as e:
        print(f"{PREFIX} {_one_line(e)}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``fjmj``; returns the exit status. Never lets a traceback through."""
    args = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):
        # a terminal whose encoding cannot show 中文 (PYTHONIOENCODING=latin-1): a "?" for
        # each character it lacks, not an internal error
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "") == "strict":
            reconfigure(errors="replace")
    try:
        return _run(args)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except KeyboardInterrupt:
        print(f"{PREFIX} interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (``fjmj replay log | head``): stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except RecursionError:
        print(f"{PREFIX} input nested too deeply", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"{PREFIX} out of memory", file=sys.stderr)
        return 1
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"{PREFIX} {_one_line(where + (e.strerror or str(e)))}", file=sys.stderr)
        return 1
    except Exception as e:  # a bug: one line naming it, never a traceback
        print(f"{PREFIX} internal error: {type(e).__name__}: {_one_line(e)}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
