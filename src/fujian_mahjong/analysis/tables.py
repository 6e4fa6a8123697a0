"""Per-suit lookup tables for hand analysis (查表法, R7).

A suit's tiles are a count vector ``c[0..8]`` (each 0–4) encoded as the base-5 integer
``key = sum(c[i] * 5**i)``; golds are wildcards (jokers) for any suited kind.

The *need table* (one byte per key, 5**9 = 1,953,125 keys) stores, for the tiles of one suit:

* ``f``: the fewest jokers that complete ALL of them into melds (chows/pongs), and
* ``d = fp - f`` where ``fp`` is the fewest jokers completing them into melds plus exactly
  one pair (``fp <= f + 2``: a pair of two jokers; ``d`` is always in -1..2),

packed as ``f * 4 + (d + 1)``. A whole hand with ``w`` golds wins iff
``f0 + f1 + f2 + min(d0, d1, d2, 2) <= w`` (leftover jokers form pongs; copy limits are
ignored, Decision D-13). So a win check is three lookups.

The table is built once (``python -m fujian_mahjong.analysis.tables``; it takes about
10-20 s in CPython) and shipped gzip-compressed in the package as ``need.bin.gz``.
If the file is missing it is rebuilt on first use and written to the user cache dir.
"""

from __future__ import annotations

import gzip
import os
import sys
import time
from functools import cache
from pathlib import Path
from typing import Final

POW5 = tuple(5**i for i in range(10))
NKEYS = 5**9
_FILE = Path(__file__).with_name("need.bin.gz")


def digits(key: int) -> list[int]:
    """Decode a suit key into its 9 counts."""
    out = []
    for _ in range(9):
        key, r = divmod(key, 5)
        out.append(r)
    return out


def encode(counts: list[int] | tuple[int, ...]) -> int:
    """Encode 9 counts (each 0–4) into a suit key."""
    return sum(c * p for c, p in zip(counts, POW5, strict=False))


def leftmost(key: int) -> tuple[int, int, int, int]:
    """The leftmost non-empty rank i of a suit key and the counts at i, i+1, i+2."""
    i = 0
    k = key
    while k % 5 == 0:
        k //= 5
        i += 1
    return i, k % 5, (k // 5) % 5 if i <= 7 else 0, (k // 25) % 5 if i <= 6 else 0


def build_need_table() -> bytes:
    """Compute the need table for every suit key by dynamic programming.

    Keys are processed in ascending order; every option removes tiles from the leftmost
    non-empty rank, so it refers to a smaller key that is already computed.
    """
    f = bytearray(NKEYS)
    fp = bytearray(NKEYS)
    fp[0] = 2  # R7: the pair made of two jokers
    p = POW5
    for key in range(1, NKEYS):
        i, a, b, c = leftmost(key)
        pi = p[i]
        best = 99
        bestp = 99
        # pong with j real copies and 3 - j jokers
        for j in range(1, min(a, 3) + 1):
            sub = key - j * pi
            cost = 3 - j
            if f[sub] + cost < best:
                best = f[sub] + cost
            if fp[sub] + cost < bestp:
                bestp = fp[sub] + cost
            # pair with j real copies (j <= 2) and 2 - j jokers
            if j <= 2 and f[sub] + 2 - j < bestp:
                bestp = f[sub] + 2 - j
        if i <= 6:
            # chow i, i+1, i+2: each of i+1, i+2 real if present (or a joker anyway)
            for use_b in (0, 1) if b else (0,):
                for use_c in (0, 1) if c else (0,):
                    sub = key - pi - use_b * p[i + 1] - use_c * p[i + 2]
                    cost = 2 - use_b - use_c
                    if f[sub] + cost < best:
                        best = f[sub] + cost
                    if fp[sub] + cost < bestp:
                        bestp = fp[sub] + cost
        if 1 <= i <= 7 and b:
            # chow (i-1), i, i+1 with a joker for i-1 (matters for 8-9)
            sub = key - pi - p[i + 1]
            if f[sub] + 1 < best:
                best = f[sub] + 1
            if fp[sub] + 1 < bestp:
                bestp = fp[sub] + 1
        if best + 2 < bestp:
            bestp = best + 2
        f[key] = best
        fp[key] = bestp
    out = bytearray(NKEYS)
    for key in range(NKEYS):
        d = fp[key] - f[key]
        if not -1 <= d <= 2 or f[key] > 63:
            raise AssertionError(f"need table invariant broken at key {key}: f={f[key]} d={d}")
        out[key] = f[key] * 4 + d + 1
    return bytes(out)


def _cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "fujian_mahjong" / "need.bin"


@cache
def need_table() -> bytes:
    """The need table: shipped in the package, else cached, else built (and cached)."""
    if _FILE.exists():
        data = gzip.decompress(_FILE.read_bytes())
        if len(data) == NKEYS:
            return data
    cp = _cache_path()
    if cp.exists() and cp.stat().st_size == NKEYS:
        return cp.read_bytes()
    data = build_need_table()
    try:
        cp.parent.mkdir(parents=True, exist_ok=True)
        cp.write_bytes(data)
    except OSError:
        pass  # a read-only home only costs a rebuild next time
    return data


# Kept vectors for shanten: for a suit key, KEPT[key] = (A0..A5, B0..B5) where A[j] is the most
# real tiles that fit into at most j (partial) melds and B[j] the same plus one (partial) pair.
# Partial blocks are subsets of a chow or pong: {i}, {ii}, {iii}, {i,i+1}, {i,i+2}, {i,i+1,i+2}.
# Element 12 is the vector's *length*: the least j with A[j] == A[5] and B[j] == B[5]
# (more blocks add nothing), so ``combine_kept`` can skip the saturated tail.
#
# For a cold process as fast as a warm one: the 1,953,125 suit keys take only 152
# distinct vectors, so the *kept table* ships like the need table (``kept.bin.gz``): one byte
# per key, the vector's id, after the vectors themselves. ``_kept_build`` is the recursive
# definition it is built from (``python -m fujian_mahjong.analysis.tables``).
_EMPTY_KEPT = (0,) * 13
_KEPT_FILE = Path(__file__).with_name("kept.bin.gz")
_VEC_LEN = 13


def _with_length(res: list[int]) -> tuple[int, ...]:
    n = 5
    while n and res[n - 1] == res[5] and res[5 + n] == res[11]:
        n -= 1
    return (*res[:12], n)


@cache
def _kept_build(key: int) -> tuple[int, ...]:
    if key == 0:
        return _EMPTY_KEPT
    i, a, b, c = leftmost(key)
    p = POW5
    pi = p[i]
    res = list(_kept_build(key - pi)[:12])  # drop one copy of rank i
    blocks: list[tuple[int, int]] = [(pi, 1)]
    if a >= 2:
        blocks.append((2 * pi, 2))
    if a >= 3:
        blocks.append((3 * pi, 3))
    if b:
        blocks.append((pi + p[i + 1], 2))
    if c:
        blocks.append((pi + p[i + 2], 2))
        if b:
            blocks.append((pi + p[i + 1] + p[i + 2], 3))
    for used, size in blocks:
        sub = _kept_build(key - used)
        for j in range(1, 6):
            v = sub[j - 1] + size
            if v > res[j]:
                res[j] = v
            v = sub[6 + j - 1] + size
            if v > res[6 + j]:
                res[6 + j] = v
    for used, size in ((pi, 1), (2 * pi, 2)) if a >= 2 else ((pi, 1),):
        sub = _kept_build(key - used)
        for j in range(6):
            v = sub[j] + size
            if v > res[6 + j]:
                res[6 + j] = v
    for j in range(6):
        if j and res[j - 1] > res[j]:
            res[j] = res[j - 1]
        if res[j] > res[6 + j]:
            res[6 + j] = res[j]
        if j and res[6 + j - 1] > res[6 + j]:
            res[6 + j] = res[6 + j - 1]
    return _with_length(res)


def build_kept_table() -> bytes:
    """The kept table: a count byte n, n vectors of 13 bytes (ids in order of first
    appearance over ascending keys, so the empty vector is id 0), then one id per key."""
    ids: dict[tuple[int, ...], int] = {}
    out = bytearray(NKEYS)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10000))
    try:
        for key in range(NKEYS):  # ascending: every sub-key is already memoised
            v = _kept_build(key)
            i = ids.get(v)
            if i is None:
                i = ids[v] = len(ids)
            out[key] = i
    finally:
        sys.setrecursionlimit(limit)
        _kept_build.cache_clear()
    if len(ids) > 255:
        raise AssertionError(f"{len(ids)} kept vectors do not fit one byte")
    head = bytearray([len(ids)])
    for v in ids:
        head += bytes(v)
    return bytes(head + out)


def _kept_cache_path() -> Path:
    return _cache_path().with_name("kept.bin")


def _valid_kept(data: bytes) -> bool:
    return bool(data) and len(data) == 1 + data[0] * _VEC_LEN + NKEYS


def _kept_data(head_only: bool) -> bytes:
    """The kept table (or only its count byte and vectors): shipped in the package, else
    cached, else built (about 20 s) and cached."""
    if _KEPT_FILE.exists():
        with gzip.open(_KEPT_FILE, "rb") as f:
            n = f.read(1)
            if n:
                head = n + f.read(n[0] * _VEC_LEN)
                data = head if head_only else head + f.read()
                if head_only or _valid_kept(data):
                    return data
    cp = _kept_cache_path()
    data = cp.read_bytes() if cp.exists() else b""
    if not _valid_kept(data):
        data = build_kept_table()
        try:
            cp.parent.mkdir(parents=True, exist_ok=True)
            cp.write_bytes(data)
        except OSError:
            pass  # a read-only home only costs a rebuild next time
    return data


def _kept_vectors() -> list[tuple[int, ...]]:
    head = _kept_data(head_only=True)
    return [tuple(head[1 + i * _VEC_LEN : 1 + (i + 1) * _VEC_LEN]) for i in range(head[0])]


# ----------------------------------------------------------------------------------------
# The honour "suit" (R1/R7, profile field ``honours = "playable"``): seven kinds 1z–7z that
# make pongs and pairs only, never chows. Its key is ``kh = sum(c[i] * 5**i)`` over the
# seven counts. The kinds never interact, so the need values have a closed form per kind:
# a count c costs ``(-c) % 3`` jokers to complete into pongs, and hosting the pair changes
# that by -1 when ``c % 3 != 0`` (c = 1, 2, 4) and by +2 otherwise (the joker pair).

HONOUR_COST = (0, 2, 1, 0, 2, 1)  # jokers to complete c copies (0–5) into pongs
HONOUR_PAIR_D = (2, -1, -1, 2, -1, -1)  # best change when this kind also hosts the pair


@cache
def honour_table() -> bytes:
    """Need values of every honour key, packed like the suit table: ``f * 4 + (d + 1)``.

    Built one digit at a time with ``bytes.translate`` (under a millisecond): the key
    ``c + 5 * rest`` takes the value of ``rest`` with c's cost added and, when c can host
    the pair (``HONOUR_PAIR_D[c] == -1``), d lowered to -1.
    """
    maps = []
    for c in range(5):
        m = bytearray(256)
        for v in range(256):
            f, d1 = v >> 2, v & 3
            if HONOUR_PAIR_D[c] == -1:
                d1 = 0
            m[v] = min(255, (f + HONOUR_COST[c]) * 4 + d1)
        maps.append(bytes(m))
    table = bytes([3])  # the empty key: f = 0, d = 2
    for _ in range(7):
        out = bytearray(5 * len(table))
        for c in range(5):
            out[c::5] = table.translate(maps[c])
        table = bytes(out)
    return table


# Kept vectors (see ``kept``) of one honour kind holding c copies: blocks are {i}, {ii},
# {iii}; the pair is {i} or {ii}. Four copies need two blocks (pong + single) to keep all.
_HONOUR_KIND_KEPT: tuple[tuple[int, ...], ...] = (
    _EMPTY_KEPT,
    (0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1),
    (0, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1),
    (0, 3, 3, 3, 3, 3, 2, 3, 3, 3, 3, 3, 1),
    (0, 3, 4, 4, 4, 4, 2, 4, 4, 4, 4, 4, 2),
)


def combine_kept(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Max-plus convolution of two kept vectors (blocks split between two tile sets).

    Only j0 <= len(a), j1 <= len(b) are tried (beyond its length a vector is flat); for
    j <= len(a) + len(b) the exact-sum maximum is already monotone in j, and past it the
    result stays flat.
    """
    la = a[12]
    lb = b[12]
    out = [0] * 12
    for j0 in range(la + 1 if la < 5 else 6):
        a0 = a[j0]
        ap = a[6 + j0]
        top = 5 - j0
        for j1 in range(lb + 1 if lb < top else top + 1):
            j = j0 + j1
            x = a0 + b[j1]
            if x > out[j]:
                out[j] = x
            x = ap + b[j1]
            y = a0 + b[6 + j1]
            if y > x:
                x = y
            if x > out[6 + j]:
                out[6 + j] = x
    n = la + lb
    if n < 5:
        for j in range(n + 1, 6):
            out[j] = out[n]
            out[6 + j] = out[6 + n]
        return (*out, n)
    return (*out, 5)


@cache
def _kept_honour_sorted(counts: tuple[int, ...]) -> tuple[int, ...]:
    v: tuple[int, ...] = _EMPTY_KEPT
    for c in counts:
        if c:
            v = combine_kept(v, _HONOUR_KIND_KEPT[c])
    return v


@cache
def kept_honours(kh: int) -> tuple[int, ...]:
    """Kept vector of an honour key. The kinds are interchangeable, so the vector depends
    only on the sorted counts (a few hundred distinct vectors); memoised per key too."""
    out = []
    for _ in range(7):
        kh, r = divmod(kh, 5)
        if r:
            out.append(r)
    return _kept_honour_sorted(tuple(sorted(out)))


# Interned kept vectors: a hand's suits take only a few hundred distinct vectors, so
# combinations are memoised per pair of vector ids, not per pair of keys, which makes
# shanten on fresh hands several times faster. The suit vectors come first, with the ids of
# the kept table; honour and combined vectors are interned after them as they appear.
#
# The vectors load at import (1,977 bytes); the per-key ids (1.9 MB) only once a process has
# asked for ``_COLD_LIMIT`` keys: a one-off analysis (``fjmj analyze``) computes its few keys
# recursively and starts fast, a simulation reads the table after its first decisions.
KEPT_VECTORS: list[tuple[int, ...]] = _kept_vectors()
_VECTOR_ID: dict[tuple[int, ...], int] = {v: i for i, v in enumerate(KEPT_VECTORS)}
_KEPT_IDS: bytes | None = None
_COLD_LIMIT = 200
_cold = 0


def _intern(v: tuple[int, ...]) -> int:
    i = _VECTOR_ID.get(v)
    if i is None:
        i = _VECTOR_ID[v] = len(KEPT_VECTORS)
        KEPT_VECTORS.append(v)
    return i


def load_kept_ids() -> bytes:
    """The per-key ids of the kept table (read once per process)."""
    global _KEPT_IDS
    if _KEPT_IDS is None:
        data = _kept_data(head_only=False)
        ids = data[1 + data[0] * _VEC_LEN :]
        if KEPT_VECTORS[: data[0]] != _kept_vectors() or len(ids) != NKEYS:
            raise AssertionError("the kept table does not match its vectors")
        _KEPT_IDS = ids
        _kept_build.cache_clear()
    return _KEPT_IDS


def kept_id(key: int) -> int:
    """Interned id of ``kept(key)`` (index into ``KEPT_VECTORS``): one byte of the kept
    table (computed recursively for a process's first keys, see above)."""
    ids = _KEPT_IDS
    if ids is not None:
        return ids[key]
    global _cold
    _cold += 1
    if _cold > _COLD_LIMIT:
        return load_kept_ids()[key]
    return _VECTOR_ID[_kept_build(key)]


def kept(key: int) -> tuple[int, ...]:
    """The kept vector of a suit key (see above)."""
    return KEPT_VECTORS[kept_id(key)]


# Which ranks of a suit key hold a tile depends only on the 9-bit mask of its non-zero
# digits: a fixed table per half of the key (ranks 0-4: 3,125 keys; ranks 5-8: 625) and
# one tuple per mask, instead of a memo per key (docs/architecture.md, "Memory": a memo
# per suit key grew with every new hand a long-running server saw).
_LO: Final = 5**5
_NKEYS: Final = 5**9  # NKEYS as a compiled constant


def _mask(key: int, ranks: int) -> int:
    m = 0
    for r in range(ranks):
        if key // POW5[r] % 5:
            m |= 1 << r
    return m


def _ranks_of(mask: int, reach: int) -> tuple[int, ...]:
    return tuple(
        r for r in range(9) if any(mask >> h & 1 and abs(r - h) <= reach for h in range(9))
    )


_LO_MASK: Final[tuple[int, ...]] = tuple(_mask(k, 5) for k in range(_LO))
_HI_MASK: Final[tuple[int, ...]] = tuple(_mask(k, 4) << 5 for k in range(POW5[4]))
_HELD: Final[tuple[tuple[int, ...], ...]] = tuple(_ranks_of(m, 0) for m in range(512))
_NEAR: Final[tuple[tuple[int, ...], ...]] = tuple(_ranks_of(m, 2) for m in range(512))


def held_ranks(key: int) -> tuple[int, ...]:
    """The ranks (0-8) with a tile in a suit key."""
    if 0 <= key < _NKEYS:
        return _HELD[_LO_MASK[key % _LO] | _HI_MASK[key // _LO]]
    return tuple(r for r in range(9) if key // POW5[r] % 5)  # not a suit key: as computed


def near_ranks(key: int) -> tuple[int, ...]:
    """The ranks within two of a rank with a tile in a suit key (the draws that may help)."""
    if 0 <= key < _NKEYS:
        return _NEAR[_LO_MASK[key % _LO] | _HI_MASK[key // _LO]]
    held = held_ranks(key)
    return tuple(r for r in range(9) if any(abs(r - h) <= 2 for h in held))


@cache
def kept_honours_id(kh: int) -> int:
    """Interned id of ``kept_honours(kh)``."""
    return _intern(kept_honours(kh))


def main() -> None:
    t0 = time.perf_counter()
    data = build_need_table()
    dt = time.perf_counter() - t0
    _FILE.write_bytes(gzip.compress(data, 9))
    print(f"built need table: {NKEYS} keys in {dt:.1f} s -> {_FILE} ({_FILE.stat().st_size} bytes)")
    t0 = time.perf_counter()
    data = build_kept_table()
    dt = time.perf_counter() - t0
    _KEPT_FILE.write_bytes(gzip.compress(data, 9))
    size = _KEPT_FILE.stat().st_size
    print(f"built kept table: {data[0]} vectors in {dt:.1f} s -> {_KEPT_FILE} ({size} bytes)")


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
