"""Safe file input and output for every front end (the CLI, the terminal game, scenario
files): size caps, regular files only, strict UTF-8, bounded JSON, one-line errors with short
excerpts, atomic writes.

Hostile input must never give a traceback, hang or exhaust memory: every reader here refuses
what it cannot handle with an :class:`~fujian_mahjong.errors.InputError` whose message is one
line and echoes at most a short excerpt of the input.
"""

from __future__ import annotations

import sys
from typing import Any

from fujian_mahjong.errors import InputError

__all__ = [
    "EXCERPT",
    "MAX_INPUT_BYTES",
    "MAX_INT_DIGITS",
    "MAX_JSON_DEPTH",
    "decode",
    "excerpt",
    "loads",
    "misspelt",
    "read_bytes",
    "read_input",
    "write_atomic",
]

MAX_INPUT_BYTES = 10 * 1024 * 1024  # 10 MiB: a hand log is ~30 KB, a scenario file less
MAX_JSON_DEPTH = 64  # events and scenarios nest 4–5 levels
MAX_INT_DIGITS = 30  # no count, seat or point value in any input needs more
EXCERPT = 60  # characters of the input an error message may echo


def excerpt(text: object, limit: int = EXCERPT) -> str:
    """``text`` on one line, cut to ``limit`` characters (errors never echo whole inputs)."""
    s = " ".join(str(text).split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


def read_bytes(path: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a regular file (or of standard input for ``-``), at most ``limit``.

    Refuses FIFOs, devices and directories (reading them could hang or never end) and files
    over the cap, with a one-line :class:`InputError`."""
    import os
    import stat

    shown = "standard input" if path == "-" else excerpt(path, 120)
    if path == "-":
        if sys.stdin is None:
            raise InputError("standard input is closed")
        data = sys.stdin.buffer.read(limit + 1)
    else:
        try:
            st = os.stat(path)
        except (OSError, ValueError) as e:  # ValueError: a NUL byte in the name
            raise InputError(f"{shown}: cannot read: {_why(e)}") from None
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{shown}: is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{shown}: not a regular file (FIFOs and devices are refused)")
        if st.st_size > limit:
            raise InputError(f"{shown}: too large ({st.st_size:,} bytes; the limit is {limit:,})")
        try:
            # O_NONBLOCK: should the path have become a FIFO since the check, open() must
            # not wait for a writer
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    raise InputError(f"{shown}: not a regular file")
                data = f.read(limit + 1)
        except OSError as e:
            raise InputError(f"{shown}: cannot read: {_why(e)}") from None
    if len(data) > limit:
        raise InputError(f"{shown}: too large (the limit is {limit:,} bytes)")
    return data


def misspelt(keys: Any, known: Any) -> tuple[str, str] | None:
    """The first of ``keys`` that is not ``known`` but nearly one that is missing (a typo
    such as ``expct`` or ``flower``: otherwise silently ignored, its check or its count
    lost), and the known key it is near; None if there is none. Keys far from every known
    one (a ``comment``), or near one that is given too, are left alone."""
    import difflib

    given = [k for k in keys if isinstance(k, str)]
    missing = [k for k in known if k not in given]
    for k in given:
        if k not in known:
            near = difflib.get_close_matches(k, missing, n=1, cutoff=0.75)
            if near:
                return k, near[0]
    return None


def _why(e: Exception) -> str:
    return excerpt(e.strerror if isinstance(e, OSError) and e.strerror else e)


def decode(data: bytes, where: str) -> str:
    """Strict UTF-8 (a leading BOM is allowed); anything else is bad input."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(
            f"{excerpt(where, 120)}: not UTF-8 text (bad byte at offset {e.start})"
        ) from None


def read_input(path: str, limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of a regular file, or of standard input for ``-``; InputError if not."""
    return decode(read_bytes(path, limit), "standard input" if path == "-" else path)


def _depth_ok(text: str, limit: int) -> bool:
    """Whether brackets nest at most ``limit`` deep (a linear scan that skips strings), so a
    100,000-deep document is refused before the recursive parser sees it."""
    depth = 0
    in_str = False
    esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def _bad_constant(name: str) -> Any:
    raise InputError(f"{name} is not a number JSON allows")


def _parse_int(s: str) -> int:
    if len(s.lstrip("-")) > MAX_INT_DIGITS:
        raise InputError(f"a number with {len(s)} digits (at most {MAX_INT_DIGITS})")
    return int(s)


def _parse_float(s: str) -> float:
    if len(s) > 40:
        raise InputError(f"a number written with {len(s)} characters (at most 40)")
    x = float(s)
    if x in (float("inf"), float("-inf")):
        raise InputError(f"{excerpt(s)} is out of range")
    return x


def loads(text: str, where: str) -> Any:
    """``json.loads`` for untrusted input: no NaN/Infinity, integers of at most 30 digits,
    nesting at most 64 deep; errors are one-line :class:`InputError` naming ``where``."""
    import json

    if not _depth_ok(text, MAX_JSON_DEPTH):
        raise InputError(f"{where}: JSON nested more than {MAX_JSON_DEPTH} levels deep")
    try:
        return json.loads(
            text, parse_constant=_bad_constant, parse_int=_parse_int, parse_float=_parse_float
        )
    except InputError as e:
        raise InputError(f"{where}: {e}") from None
    except json.JSONDecodeError as e:
        raise InputError(f"{where}: not valid JSON ({e.msg} at column {e.colno})") from None
    except (ValueError, RecursionError) as e:
        raise InputError(f"{where}: not valid JSON ({excerpt(e)})") from None


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary name in the same directory and a rename,
    so a full disk or a vanished directory never leaves a partial file behind."""
    import contextlib
    import os
    import tempfile

    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".part")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
