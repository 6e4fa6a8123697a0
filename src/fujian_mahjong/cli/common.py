"""Helpers shared by the ``fjmj`` subcommands."""

from __future__ import annotations

import sys
from typing import NoReturn


class CliError(Exception):
    """A bad argument or input file: printed as one line, exit 2."""


def fail(message: str, code: int = 2) -> NoReturn:
    print(f"fjmj: error: {message}", file=sys.stderr)
    raise SystemExit(code)
