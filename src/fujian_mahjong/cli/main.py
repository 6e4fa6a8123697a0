"""``fjmj``: the command-line entry point with its subcommands."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

from fujian_mahjong.cli import analyze
from fujian_mahjong.errors import MahjongError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # One line, exit 2 (argparse would print the whole usage).
        print(f"fjmj: error: {message} (see fjmj --help)", file=sys.stderr)
        raise SystemExit(2)


SubParsers = argparse._SubParsersAction


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="fjmj",
        description="Fujian gold mahjong (福州麻将 / 三明麻将): analysis, scoring, play, simulation.",
    )
    sub: SubParsers[_Parser] = parser.add_subparsers(
        dest="command", required=True, parser_class=_Parser
    )
    analyze.add_parser(sub)
    for mod in _optional_modules():
        mod.add_parser(sub)
    return parser


def _optional_modules() -> list[ModuleType]:
    mods: list[ModuleType] = []
    for name in ("score", "replay", "simulate", "scenario", "play", "review", "serve", "admin"):
        try:
            mods.append(importlib.import_module(f"fujian_mahjong.cli.{name}"))
        except ModuleNotFoundError as e:
            if e.name != f"fujian_mahjong.cli.{name}":
                raise
    return mods


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = int(args.func(args))
    except MahjongError as e:
        print(f"fjmj: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
