"""A slow, obviously-correct reference for R7 hand analysis (no tables, no DP).

The leftmost natural tile must belong to some group: a pong (with 0–2 golds), a chow in any
of its three positions (golds fill the missing ranks), or the pair (with 0–1 golds). When
no natural tile is left, the golds left must make the pair (if still needed) and pongs.

Hands are count vectors of 27 kinds, or 34 when the honours are playable (R1/R7
``fuzhou-doudou``): an honour (27..33) joins only a pong or the pair, never a chow.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache


def ref_win(nat: list[int], w: int, need_pair: bool = True) -> bool:
    """Can the natural tiles ``nat`` and ``w`` golds make groups (and the pair)?"""
    return _win(tuple(nat), w, need_pair)


# Remembering answers only saves repeated searches (the same leftover tiles are reached by
# many orders of removal, and by each tile tried in ref_waits / ref_shanten); the search
# itself is the plain one below.
@lru_cache(maxsize=1 << 16)
def _win(key: tuple[int, ...], w: int, need_pair: bool) -> bool:
    nat = list(key)
    i = next((k for k in range(len(nat)) if nat[k]), -1)
    if i < 0:
        if need_pair:
            return w >= 2 and (w - 2) % 3 == 0
        return w % 3 == 0
    r = i % 9
    base = i - r
    nat[i] -= 1  # a copy of the key: nothing to put back after
    # pong: i plus two more of i, each natural or gold
    for extra_nat in range(0, min(nat[i], 2) + 1):
        golds = 2 - extra_nat
        if golds <= w:
            nat[i] -= extra_nat
            ok = _win(tuple(nat), w - golds, need_pair)
            nat[i] += extra_nat
            if ok:
                return True
    # pair
    if need_pair:
        if nat[i] >= 1:
            nat[i] -= 1
            ok = _win(tuple(nat), w, False)
            nat[i] += 1
            if ok:
                return True
        if w >= 1 and _win(tuple(nat), w - 1, False):
            return True
    # chows containing i (R7: never of honours)
    for start in (r - 2, r - 1, r) if i < 27 else ():
        if start < 0 or start + 2 > 8:
            continue
        others = [base + x for x in (start, start + 1, start + 2) if x != r]
        # each other rank natural (if available) or a gold
        for mask in range(4):
            used = [k for b, k in enumerate(others) if mask >> b & 1]
            golds = 2 - len(used)
            if golds > w or any(nat[k] == 0 for k in used):
                continue
            for k in used:
                nat[k] -= 1
            ok = _win(tuple(nat), w - golds, need_pair)
            for k in used:
                nat[k] += 1
            if ok:
                return True
    return False


def ref_is_win(counts: Sequence[int], gold: int | None) -> bool:
    nat = [0 if k == gold else counts[k] for k in range(len(counts))]
    w = counts[gold] if gold is not None else 0
    return ref_win(nat, w)


def ref_waits(counts: Sequence[int], gold: int | None) -> list[int]:
    """Kinds whose addition wins: 27 suited, or all 34 when ``counts`` has the honours."""
    out = []
    for k in range(len(counts)):
        c = list(counts)
        c[k] += 1
        if k == gold or ref_is_win(c, gold):
            # a natural tile of the gold kind is a gold: it wins iff the hand is ready
            if k == gold:
                if ref_is_win(c, gold):
                    out.append(k)
            else:
                out.append(k)
    return out


def ref_shanten(counts: Sequence[int], gold: int | None) -> int:
    """Fewest swaps (discard a natural tile, take a gold) that make the hand win, minus 1.

    A gold is the best possible draw, so this is the number of draws needed minus one.
    For a 3k+1 hand: the fewest golds to add (each draw) … computed as swaps on hand+gold.
    """
    c = list(counts)
    g = gold if gold is not None else 0
    size = sum(c)
    if size % 3 == 1:
        # one draw first: the best draw is a gold (it can stand for anything)
        c[g] += 1
        return _swaps(c, g) if gold is not None else _swaps_nogold(c)
    return _swaps(c, g) - 1 if gold is not None else _swaps_nogold(c) - 1


def _swaps(c: list[int], g: int) -> int:
    nat = [0 if k == g else c[k] for k in range(len(c))]
    w = c[g]
    m = 0
    while True:
        if _try_remove(nat, w + m, m, 0):
            return m
        m += 1


def _swaps_nogold(c: list[int]) -> int:
    nat = list(c)
    m = 0
    while True:
        if _try_remove(nat, m, m, 0):
            return m
        m += 1


def _try_remove(nat: list[int], w: int, left: int, start: int) -> bool:
    if left == 0:
        return ref_win(nat, w)
    for k in range(start, len(nat)):
        if nat[k]:
            nat[k] -= 1
            ok = _try_remove(nat, w, left - 1, k)
            nat[k] += 1
            if ok:
                return True
    return False
