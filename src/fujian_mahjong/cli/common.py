"""Helpers shared by the ``fjmj`` subcommands: the one-line argument error and exit.

Safe input (size caps, regular files only, strict UTF-8, bounded JSON) and atomic file
writes live in :mod:`fujian_mahjong.fileio`, shared with the terminal game and scenario files.
"""

from __future__ import annotations

import sys
from typing import NoReturn

from fujian_mahjong.errors import MahjongError
from fujian_mahjong.fileio import excerpt


class CliError(MahjongError):
    """A bad argument or input: printed as one line, exit 2."""


def fail(message: str, code: int = 2) -> NoReturn:
    print(f"fjmj: error: {excerpt(message, 300)}", file=sys.stderr)
    raise SystemExit(code)
