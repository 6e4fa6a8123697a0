"""Analysis benchmarks (README, "Benchmarks"). One core, CPython.

Corpus: a fixed seeded set of realistic hands — 16 or 17 tiles dealt at random from the
108 suited tiles (the indicator removed), with 0–3 golds. The caller passes the
representation the engine keeps incrementally: the three per-suit base-5 keys and the
number of golds (``split_keys``), so timing covers the analysis itself.

Rows "with honours" (R1/R7 ``fuzhou-doudou``): hands dealt from the 136 playable tiles,
the gold any of the 34 kinds (an honour too), passed as ``split_keys34`` gives them.
"""

from __future__ import annotations

import random
import time

from fujian_mahjong.analysis import (
    is_win_keys,
    shanten_keys,
    split_keys,
    split_keys34,
    waits_keys,
)
from fujian_mahjong.analysis.tables import (
    build_need_table,
    kept_honours_id,
    kept_id,
    need_table,
)


def _corpus(n: int, size: int, seed: int) -> list[tuple[int, int, int, int, int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        gold = rng.randrange(27)
        golds = rng.choice((0, 0, 1, 1, 2, 3))
        pool = [k for k in range(27) for _ in range(4) if k != gold]
        c = [0] * 27
        for k in rng.sample(pool, size - golds):
            c[k] += 1
        c[gold] = golds
        k0, k1, k2, w = split_keys(c, gold)
        out.append((k0, k1, k2, w, gold))
    return out


def _corpus34(n: int, size: int, seed: int) -> list[tuple[int, int, int, int, int, int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        gold = rng.randrange(34)
        golds = rng.choice((0, 0, 1, 1, 2, 3))
        pool = [k for k in range(34) for _ in range(4) if k != gold]
        c = [0] * 34
        for k in rng.sample(pool, size - golds):
            c[k] += 1
        c[gold] = golds
        k0, k1, k2, kh, w = split_keys34(c, gold)
        out.append((k0, k1, k2, kh, w, gold))
    return out


def _rate(fn: object, n: int) -> float:
    t0 = time.perf_counter()
    fn()  # type: ignore[operator]
    return n / (time.perf_counter() - t0)


def run() -> list[tuple[str, float, str, float]]:
    t0 = time.perf_counter()
    need_table.__wrapped__()  # uncached: read + decompress the shipped table
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    build_need_table()
    build = time.perf_counter() - t0
    c17 = _corpus(20_000, 17, 1)
    c16 = _corpus(20_000, 16, 2)
    # warm the shanten vectors for the corpus (memoised per suit key, like a running game)
    for k0, k1, k2, _w, _g in c16 + c17:
        kept_id(k0), kept_id(k1), kept_id(k2)

    reps = 10

    def wins() -> None:
        for _ in range(reps):
            for k0, k1, k2, w, _g in c17:
                is_win_keys(k0, k1, k2, w)

    def waits() -> None:
        for k0, k1, k2, w, g in c16:
            waits_keys(k0, k1, k2, w, g)

    def shanten() -> None:
        for k0, k1, k2, w, _g in c17:
            shanten_keys(k0, k1, k2, w, 5)

    h17 = _corpus34(20_000, 17, 3)
    h16 = _corpus34(20_000, 16, 4)
    for k0, k1, k2, kh, _w, _g in h16 + h17:
        kept_id(k0), kept_id(k1), kept_id(k2), kept_honours_id(kh)

    def wins_h() -> None:
        for _ in range(reps):
            for k0, k1, k2, kh, w, _g in h17:
                is_win_keys(k0, k1, k2, w, kh)

    def waits_h() -> None:
        for k0, k1, k2, kh, w, g in h16:
            waits_keys(k0, k1, k2, w, g, kh, True)

    def shanten_h() -> None:
        for k0, k1, k2, kh, w, _g in h17:
            shanten_keys(k0, k1, k2, w, 5, kh)

    results = [
        ("analysis: need table load from package (s)", load, "s", 0.0),
        ("analysis: need table full build (s)", build, "s", 0.0),
        ("analysis: is_win checks/s (17 tiles)", _rate(wins, reps * len(c17)), "/s", 1_000_000),
        ("analysis: waits hands/s (16 tiles)", _rate(waits, len(c16)), "/s", 100_000),
        ("analysis: shanten hands/s (17 tiles)", _rate(shanten, len(c17)), "/s", 100_000),
        (
            "analysis: is_win checks/s (17 tiles, with honours)",
            _rate(wins_h, reps * len(h17)),
            "/s",
            1_000_000,
        ),
        (
            "analysis: waits hands/s (16 tiles, with honours)",
            _rate(waits_h, len(h16)),
            "/s",
            100_000,
        ),
        (
            "analysis: shanten hands/s (17 tiles, with honours)",
            _rate(shanten_h, len(h17)),
            "/s",
            100_000,
        ),
    ]
    return results
