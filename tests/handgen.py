"""Seeded generators of realistic hands for the analysis tests and benchmarks."""

from __future__ import annotations

import random


def random_hand(rng: random.Random, size: int, gold: int, golds: int) -> list[int]:
    """A 27-count hand of ``size`` tiles with exactly ``golds`` golds (gold kind)."""
    pool = [k for k in range(27) for _ in range(4) if k != gold]
    c = [0] * 27
    for k in rng.sample(pool, size - golds):
        c[k] += 1
    c[gold] = golds
    return c


def near_win_hand(rng: random.Random, size: int, gold: int, golds: int) -> list[int]:
    """A hand built from melds and a pair, then perturbed and given golds (often wins)."""
    while True:
        c = [0] * 27
        melds = (size - 2) // 3
        ok = True
        for _ in range(melds):
            if rng.random() < 0.6:
                s = rng.randrange(3)
                r = rng.randrange(7)
                for x in range(3):
                    c[9 * s + r + x] += 1
            else:
                c[rng.randrange(27)] += 3
        c[rng.randrange(27)] += 2
        extra = size - sum(c)
        for _ in range(extra):
            c[rng.randrange(27)] += 1
        # perturb: swap up to 2 tiles for random ones
        for _ in range(rng.randrange(3)):
            ks = [k for k in range(27) if c[k]]
            c[rng.choice(ks)] -= 1
            c[rng.randrange(27)] += 1
        # golds: replace random natural tiles by the gold kind
        c[gold] = 0
        while sum(c) > size - golds:
            ks = [k for k in range(27) if c[k]]
            c[rng.choice(ks)] -= 1
        while sum(c) < size - golds:
            c[rng.randrange(27)] += 1
        c[gold] = golds
        if all(c[k] <= 4 for k in range(27) if k != gold):
            c[gold] = golds
            ok = sum(c) == size
            if ok:
                return c


# ---------------------------------------------------------------- with playable honours
# R1/R7 (fuzhou-doudou, honours = "playable"): 34-count hands, honours at 27..33.


def random_hand34(rng: random.Random, size: int, gold: int, golds: int) -> list[int]:
    """A 34-count hand of ``size`` tiles dealt from the 136 playable tiles, with exactly
    ``golds`` golds (the gold kind, 0..33, may be an honour)."""
    pool = [k for k in range(34) for _ in range(4) if k != gold]
    c = [0] * 34
    for k in rng.sample(pool, size - golds):
        c[k] += 1
    c[gold] = golds
    return c


def near_win_hand34(rng: random.Random, size: int, gold: int, golds: int) -> list[int]:
    """Like :func:`near_win_hand` over 34 kinds: chows of suited kinds, pongs and the pair
    of any kind (honours often), then perturbed and given golds (often wins)."""
    while True:
        c = [0] * 34
        for _ in range((size - 2) // 3):
            if rng.random() < 0.45:
                s = rng.randrange(3)
                r = rng.randrange(7)
                for x in range(3):
                    c[9 * s + r + x] += 1
            else:
                c[rng.choice((rng.randrange(27), 27 + rng.randrange(7)))] += 3
        c[rng.choice((rng.randrange(27), 27 + rng.randrange(7)))] += 2
        for _ in range(size - sum(c)):
            c[rng.randrange(34)] += 1
        for _ in range(rng.randrange(3)):
            ks = [k for k in range(34) if c[k]]
            c[rng.choice(ks)] -= 1
            c[rng.randrange(34)] += 1
        c[gold] = 0
        while sum(c) > size - golds:
            ks = [k for k in range(34) if c[k]]
            c[rng.choice(ks)] -= 1
        while sum(c) < size - golds:
            c[rng.randrange(34)] += 1
        if all(n <= 4 for k, n in enumerate(c) if k != gold) and c[gold] == 0:
            c[gold] = golds
            return c
