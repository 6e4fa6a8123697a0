"""Helpers shared by the ``fjmj`` subcommands."""

from __future__ import annotations

import sys
from typing import NoReturn


class CliError(Exception):
    """A bad argument or input file: printed as one line, exit 2."""


def fail(message: str, code: int = 2) -> NoReturn:
    print(f"fjmj: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def read_input(path: str) -> str:
    """The text of a file, or of standard input for ``-``; MahjongError if unreadable."""
    from pathlib import Path

    from fujian_mahjong.errors import MahjongError

    try:
        return sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) else "not UTF-8 text"
        raise MahjongError(f"{path}: cannot read: {why}") from None
