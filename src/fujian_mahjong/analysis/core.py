"""R7 hand analysis with golds: win, waits, readiness, shanten and decompositions.

Representation: a concealed hand is a count vector over the 27 suited kinds (index = kind),
or over 34 kinds when the profile plays the honours (R1 ``honours = "playable"``,
``fuzhou-doudou``: 1z–7z at indexes 27..33, pongs and pairs only). Every tile of the gold
kind in the hand is a gold (R5: the indicator is out of play, the other three copies are
golds), i.e. a wildcard for any playable kind; the analysis moves those into the wildcard
count ``w``. The hot-path functions (``*_keys``) take the three per-suit keys (see
:mod:`.tables`), ``w`` and, with honours, the honour key ``kh`` directly, so a caller keeping
the keys incrementally (the engine) pays three or four table lookups per win check. With
``kh == 0`` (no honours in hand, or a profile where honours are flowers) every hot path
runs exactly the 27-kind code.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, Final

from fujian_mahjong._compiled import reduce_dataclass
from fujian_mahjong.analysis.tables import (
    KEPT_VECTORS,
    POW5,
    _intern,
    combine_kept,
    honour_table,
    kept_honours_id,
    kept_id,
    need_table,
)
from fujian_mahjong.errors import HandError
from fujian_mahjong.tiles import KIND_STR, NUM_SUITED, fmt

_T = need_table()
_TH = honour_table()
NUM_PLAYABLE = 34  # 27 suited + 7 honours (R1, fuzhou-doudou)


def split_keys(counts: Sequence[int], gold: int | None) -> tuple[int, int, int, int]:
    """Per-suit keys and the number of golds of a 27-count hand."""
    k = [0, 0, 0]
    for kind in range(NUM_SUITED):
        n = counts[kind]
        if n and kind != gold:
            k[kind // 9] += n * POW5[kind % 9]
    w = counts[gold] if gold is not None and gold < NUM_SUITED else 0
    return k[0], k[1], k[2], w


def split_keys34(counts: Sequence[int], gold: int | None) -> tuple[int, int, int, int, int]:
    """``(k0, k1, k2, kh, w)`` of a 27- or 34-count hand; ``kh`` is the honour key
    ``sum(counts[27 + i] * 5**i)`` and ``w`` the golds (the gold kind may be an honour)."""
    k = [0, 0, 0]
    for kind in range(NUM_SUITED):
        n = counts[kind]
        if n and kind != gold:
            k[kind // 9] += n * POW5[kind % 9]
    kh = 0
    for i in range(len(counts) - NUM_SUITED):
        n = counts[NUM_SUITED + i]
        if n and NUM_SUITED + i != gold:
            kh += n * POW5[i]
    w = counts[gold] if gold is not None and 0 <= gold < len(counts) else 0
    return k[0], k[1], k[2], kh, w


def need_keys(k0: int, k1: int, k2: int, kh: int = 0) -> int:
    """Fewest jokers that complete the natural tiles into melds plus one pair."""
    a = _T[k0]
    b = _T[k1]
    c = _T[k2]
    if kh:
        h = _TH[kh]
        d = min(a & 3, b & 3, c & 3, h & 3)
        return (a >> 2) + (b >> 2) + (c >> 2) + (h >> 2) + d - 1
    d = min(a & 3, b & 3, c & 3, 3)
    return (a >> 2) + (b >> 2) + (c >> 2) + d - 1


def meld_need_keys(k0: int, k1: int, k2: int, kh: int = 0) -> int:
    """Fewest jokers that complete the natural tiles into melds only (no pair)."""
    f = (_T[k0] >> 2) + (_T[k1] >> 2) + (_T[k2] >> 2)
    return f + (_TH[kh] >> 2) if kh else f


def is_win_keys(k0: int, k1: int, k2: int, w: int, kh: int = 0) -> bool:
    """Hot path: a 3k+2 hand given as suit keys and golds wins. Size is not checked.

    ``kh`` is the honour key (R7: honours make pongs and pairs only); 0 means none.
    """
    a = _T[k0]
    b = _T[k1]
    c = _T[k2]
    if kh:
        h = _TH[kh]
        d = min(a & 3, b & 3, c & 3, h & 3)  # an honour value's d+1 is 0 or 3
        return (a >> 2) + (b >> 2) + (c >> 2) + (h >> 2) + d - 1 <= w
    d = min(a & 3, b & 3, c & 3, 3)
    return (a >> 2) + (b >> 2) + (c >> 2) + d - 1 <= w


@lru_cache(maxsize=1024)
def _need_generic(digits: tuple[int, ...]) -> tuple[int, int]:
    """(f, fp) for one suit with any counts (used only when a count would reach 5).
    Memoised for the recursion, boundedly: a memo of every key ever met grew with every
    new hand a long-running server saw (docs/architecture.md, "Memory")."""
    if not any(digits):
        return 0, 2
    i = next(j for j, x in enumerate(digits) if x)
    best = bestp = 99

    def sub(*used: int) -> tuple[int, int]:
        d = list(digits)
        for u in used:
            d[u] -= 1
        return _need_generic(tuple(d))

    a = digits[i]
    for j in range(1, min(a, 3) + 1):
        f, fp = sub(*([i] * j))
        best = min(best, f + 3 - j)
        bestp = min(bestp, fp + 3 - j)
        if j <= 2:
            bestp = min(bestp, f + 2 - j)
    if i <= 6:
        for ub in (0, 1) if digits[i + 1] else (0,):
            for uc in (0, 1) if digits[i + 2] else (0,):
                used = [i] + ([i + 1] if ub else []) + ([i + 2] if uc else [])
                f, fp = sub(*used)
                best = min(best, f + 3 - len(used))
                bestp = min(bestp, fp + 3 - len(used))
    if 1 <= i <= 7 and digits[i + 1]:
        f, fp = sub(i, i + 1)
        best = min(best, f + 1)
        bestp = min(bestp, fp + 1)
    return best, min(bestp, best + 2)


def _suit_value(key: int, extra: int) -> tuple[int, int]:
    """(f, d) of a suit key with one more tile of rank ``extra`` (may make a count 5)."""
    if (key // POW5[extra]) % 5 == 4:
        digs = []
        k = key
        for _ in range(9):
            k, r = divmod(k, 5)
            digs.append(r)
        digs[extra] += 1
        f, fp = _need_generic(tuple(digs))
        return f, fp - f
    v = _T[key + POW5[extra]]
    return v >> 2, (v & 3) - 1


def waits_keys(
    k0: int, k1: int, k2: int, w: int, gold: int | None, kh: int = 0, honours: bool = False
) -> list[int]:
    """Hot path: the kinds whose addition makes a 3k+1 hand win (D-13, by shape).

    The suited kinds always; with ``honours=True`` (R1 playable honours) also 27..33.
    ``kh`` is the honour key of the hand (0: none).
    """
    keys = (k0, k1, k2)
    vals = (_T[k0], _T[k1], _T[k2])
    fs = [v >> 2 for v in vals]
    ds = [(v & 3) - 1 for v in vals]
    ftot = fs[0] + fs[1] + fs[2]
    fh = 0
    dh = 2
    if kh:
        h = _TH[kh]
        fh = h >> 2
        dh = (h & 3) - 1
    # Ready = wins with one more gold. Not ready -> no waits at all.
    if ftot + fh + min(ds[0], ds[1], ds[2], dh) > w + 1:
        return []
    out: list[int] = []
    for s in range(3):
        others_f = ftot - fs[s] + fh
        others_d = min(ds[(s + 1) % 3], ds[(s + 2) % 3], dh)
        key = keys[s]
        base = 9 * s
        for r in range(9):
            kind = base + r
            if kind == gold:
                out.append(kind)  # a natural tile of the gold kind is a gold: hand is ready
                continue
            f, d = _suit_value(key, r)
            if others_f + f + min(others_d, d) <= w:
                out.append(kind)
    if honours:
        suits_d = min(ds[0], ds[1], ds[2], 2)
        for i in range(7):
            kind = NUM_SUITED + i
            if kind == gold:
                out.append(kind)
                continue
            if (kh // POW5[i]) % 5 == 4:
                # a fifth copy (D-13): 5 = pong + pair, one joker cheaper than 4 copies
                f, d = fh - 1, -1
            else:
                v = _TH[kh + POW5[i]]
                f, d = v >> 2, (v & 3) - 1
            if ftot + f + min(suits_d, d) <= w:
                out.append(kind)
    return out


# Combined kept vectors, memoised per pair of interned vector ids (see tables.kept_id).
# Bounded (docs/architecture.md, "Memory"): emptied when it passes COMBINED_MAX entries.
_COMBINED: dict[int, tuple[int, ...]] = {}
_ID_SHIFT = 1 << 24
COMBINED_MAX: Final = 400_000


def _combined(ia: int, ib: int) -> tuple[int, ...]:
    key = ia * _ID_SHIFT + ib
    v = _COMBINED.get(key)
    if v is None:
        v = combine_kept(KEPT_VECTORS[ia], KEPT_VECTORS[ib])
        if len(_COMBINED) >= COMBINED_MAX:
            _COMBINED.clear()
        _COMBINED[key] = v
    return v


def shanten_keys(k0: int, k1: int, k2: int, w: int, melds: int, kh: int = 0) -> int:
    """Hot path: shanten of a hand that must make ``melds`` melds + a pair.

    It is ``3*melds + 1 - w - kept`` where ``kept`` is the most natural tiles that fit
    into ``melds`` partial melds plus a partial pair (golds and draws fill the rest).
    ``kh`` is the honour key (R7: honour blocks are subsets of a pong); 0 means none.
    """
    ab = _COMBINED.get(kept_id(k0) * _ID_SHIFT + kept_id(k1))
    if ab is None:
        ab = _combined(kept_id(k0), kept_id(k1))
    if kh:
        c = _combined(kept_id(k2), kept_honours_id(kh))
    else:
        c = KEPT_VECTORS[kept_id(k2)]
    best = 0
    for j in range(melds + 1):
        r = melds - j
        x = ab[j] + c[6 + r]
        y = ab[6 + j] + c[r]
        if y > x:
            x = y
        if x > best:
            best = x
    return 3 * melds + 1 - w - best


# Split shanten: a decision tries many hands that differ from one base hand in
# a single suit (each candidate discard, each candidate draw). The other suits' kept vectors
# are combined once (``others_id``) and each candidate only combines that with the changed
# suit's vector (``shanten_split``) — the same max-plus convolution, so the same numbers.
_CID: dict[int, int] = {}
CID_MAX: Final = 100_000  # emptied when full, as _COMBINED


def combined_id(ia: int, ib: int) -> int:
    """Interned id (``KEPT_VECTORS``) of the combination of two interned kept vectors."""
    key = ia * _ID_SHIFT + ib
    v = _CID.get(key)
    if v is None:
        if len(_CID) >= CID_MAX:
            _CID.clear()
        v = _CID[key] = _intern(_combined(ia, ib))
    return v


def suit_ids(k0: int, k1: int, k2: int, kh: int) -> tuple[int, int, int, int]:
    """Interned kept-vector ids of the three suit keys and the honour key (0: none)."""
    return kept_id(k0), kept_id(k1), kept_id(k2), kept_honours_id(kh)


def others_id(ids: Sequence[int], i: int) -> int:
    """Interned id of the combined kept vector of every suit but ``i`` (0-2 suits, 3 the
    honours), from :func:`suit_ids`."""
    if i == 3:
        return combined_id(combined_id(ids[0], ids[1]), ids[2])
    a, b = [ids[j] for j in range(3) if j != i]
    return combined_id(combined_id(a, b), ids[3])


def shanten_split(oid: int, vid: int, w: int, melds: int) -> int:
    """``shanten_keys`` of a hand given as the combined vector of the unchanged suits
    (:func:`others_id`) and the changed suit's vector id (``kept_id``/``kept_honours_id``)."""
    v = _COMBINED.get(oid * _ID_SHIFT + vid)
    if v is None:
        v = _combined(oid, vid)
    return 3 * melds + 1 - w - v[6 + melds]


# ----------------------------------------------------------------------------------------
# Validated, convenient API over 27-count vectors


def _check(
    counts: Sequence[int],
    gold: int | None,
    exposed: int,
    sizes: tuple[int, ...],
    honours: bool,
) -> int:
    n = len(counts)
    if n not in (NUM_SUITED, NUM_PLAYABLE):
        raise HandError(f"a hand is 27 suited counts (or 34 with the honours), got {n}")
    if not 0 <= exposed <= 5:
        raise HandError(f"exposed melds must be 0-5, got {exposed}")
    if honours:
        if gold is not None and not 0 <= gold < NUM_PLAYABLE:
            raise HandError(f"the gold must be a suited kind or an honour, got {gold}")
    else:
        if gold is not None and not 0 <= gold < NUM_SUITED:
            raise HandError(f"the gold must be a suited kind, got {gold}")
        if n == NUM_PLAYABLE:
            for kind in range(NUM_SUITED, NUM_PLAYABLE):
                if counts[kind]:
                    # R1: honours are flowers unless the profile plays them
                    raise HandError(
                        f"{KIND_STR[kind]} is a flower here: honours are playable only with "
                        "honours=True (profile honours = playable)"
                    )
    for kind, c in enumerate(counts):
        if c < 0 or c > 4:
            raise HandError(f"{c} copies of {KIND_STR[kind]}: a kind has at most 4")
    total = sum(counts)
    want = [3 * (5 - exposed) + s for s in sizes]
    if total not in want:
        raise HandError(
            f"hand has {total} tiles; with {exposed} exposed melds it must have "
            + " or ".join(str(x) for x in want)
        )
    return total


def is_win(
    counts: Sequence[int], gold: int | None, exposed: int = 0, *, honours: bool = False
) -> bool:
    """R7: the 3k+2 hand is exactly (5 - exposed) melds + one pair, golds as wildcards.

    ``counts`` has 27 entries, or 34 with honours at 27..33; ``honours=True`` (R1 profile
    field ``honours = "playable"``) lets them make pongs and the pair.
    """
    _check(counts, gold, exposed, (2,), honours)
    k0, k1, k2, kh, w = split_keys34(counts, gold)
    return is_win_keys(k0, k1, k2, w, kh)


def waits(
    counts: Sequence[int], gold: int | None, exposed: int = 0, *, honours: bool = False
) -> list[int]:
    """R7/D-13: the playable kinds whose addition wins, for a 3k+1 hand (27, or 34 with
    ``honours=True``; the gold kind is listed whenever the hand is ready)."""
    _check(counts, gold, exposed, (1,), honours)
    k0, k1, k2, kh, w = split_keys34(counts, gold)
    return waits_keys(k0, k1, k2, w, gold, kh, honours)


def is_ready(
    counts: Sequence[int], gold: int | None, exposed: int = 0, *, honours: bool = False
) -> bool:
    """D-13: ready (听牌) means the 3k+1 hand plus one gold would win."""
    _check(counts, gold, exposed, (1,), honours)
    k0, k1, k2, kh, w = split_keys34(counts, gold)
    return is_win_keys(k0, k1, k2, w + 1, kh)


def is_any_tile_ready(
    counts: Sequence[int], gold: int | None, exposed: int = 0, *, honours: bool = False
) -> bool:
    """R8 闲金: the 3k+1 hand wins with ANY playable kind (27 suited; 34 with honours)."""
    return len(waits(counts, gold, exposed, honours=honours)) == (
        NUM_PLAYABLE if honours else NUM_SUITED
    )


def shanten(
    counts: Sequence[int], gold: int | None, exposed: int = 0, *, honours: bool = False
) -> int:
    """-1 complete, 0 ready (3k+1); for an incomplete 3k+2 hand, the best over one discard."""
    _check(counts, gold, exposed, (1, 2), honours)
    k0, k1, k2, kh, w = split_keys34(counts, gold)
    return shanten_keys(k0, k1, k2, w, 5 - exposed, kh)


# ----------------------------------------------------------------------------------------
# Decompositions (for scoring: 金雀, 金龙, 清一色 with golds as themselves …)


@dataclass(frozen=True, slots=True, order=True)
class Group:
    """One meld or the pair of a decomposition.

    ``tiles`` are the kinds the group stands for (sorted); ``golds`` the kinds that golds
    stand for inside it (a sub-multiset of ``tiles``; equal to the gold kind when a gold is
    used as itself). With playable honours (R1/R7) a pong or the pair may be of an honour
    (kinds 27..33, e.g. ``555z`` with ``golds == (31,)`` for a gold standing for 5z); a chow
    never is.
    """

    type: str  # "chow" | "pong" | "pair"
    tiles: tuple[int, ...]
    golds: tuple[int, ...]

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_dataclass(self)  # pickle/copy also when compiled

    def to_json(self) -> dict[str, object]:
        return {
            "type": self.type,
            "tiles": fmt(self.tiles),
            "golds": [KIND_STR[k] for k in self.golds],
        }


@dataclass(frozen=True, slots=True)
class Decomposition:
    """A concealed hand split into melds and one pair (R7), with the golds' roles."""

    groups: tuple[Group, ...]
    gold: int | None

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_dataclass(self)  # pickle/copy also when compiled

    @property
    def pair(self) -> Group:
        return next(g for g in self.groups if g.type == "pair")

    @property
    def melds(self) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.type != "pair")

    @property
    def gold_pair(self) -> bool:
        """金雀: the pair is two golds."""
        return len(self.pair.golds) == 2

    @property
    def gold_pong_of_gold(self) -> bool:
        """金龙: three golds form a pong of the gold kind itself."""
        return any(
            g.type == "pong" and len(g.golds) == 3 and g.tiles[0] == self.gold for g in self.groups
        )

    @property
    def golds_as_themselves(self) -> bool:
        """No gold substitutes any other kind."""
        return all(k == self.gold for g in self.groups for k in g.golds)

    def to_json(self) -> dict[str, object]:
        return {
            "melds": [g.to_json() for g in self.melds],
            "pair": self.pair.to_json(),
        }


def decompositions(
    counts: Sequence[int],
    gold: int | None,
    exposed: int = 0,
    limit: int = 1000,
    *,
    honours: bool = False,
) -> list[Decomposition]:
    """All distinct ways a 3k+2 hand splits into melds + one pair, golds as wildcards.

    With ``honours=True`` honours (27..33) make pongs and the pair, never chows, and a gold
    may stand for an honour (R1, R7).
    """
    _check(counts, gold, exposed, (2,), honours)
    k0, k1, k2, kh, w = split_keys34(counts, gold)
    if not is_win_keys(k0, k1, k2, w, kh):
        return []
    nat = [0 if k == gold else counts[k] for k in range(len(counts))]
    g = gold if gold is not None else 0
    found: set[tuple[Group, ...]] = set()
    _enumerate(nat, w, g, False, [], found, limit)
    return [Decomposition(gs, gold) for gs in sorted(found)]


@cache
def _grp(type: str, tiles: tuple[int, ...], golds: tuple[int, ...]) -> Group:
    """One shared (immutable) Group per value: the enumeration builds the same few groups
    many times. Bounded: there are a few thousand distinct groups."""
    return Group(type, tiles, golds)


def _enumerate(
    nat: list[int],
    w: int,
    gold: int,
    have_pair: bool,
    acc: list[Group],
    found: set[tuple[Group, ...]],
    limit: int,
) -> None:
    if len(found) >= limit:
        return
    i = next((k for k in range(len(nat)) if nat[k]), -1)
    if i < 0:
        # Only golds remain: they stand for the gold kind itself (pair and pongs).
        rest = list(acc)
        left = w
        if not have_pair:
            if left < 2:
                return
            rest.append(_grp("pair", (gold, gold), (gold, gold)))
            left -= 2
        if left % 3:
            return
        for _ in range(left // 3):
            rest.append(_grp("pong", (gold,) * 3, (gold,) * 3))
        found.add(tuple(sorted(rest)))
        return
    r = i % 9
    base = i - r

    def attempt(group: Group, used: Iterable[int], golds: int, pair: bool) -> None:
        if golds > w:
            return
        used = list(used)
        for u in used:
            nat[u] -= 1
        if all(nat[u] >= 0 for u in used):
            acc.append(group)
            _enumerate(nat, w - golds, gold, pair, acc, found, limit)
            acc.pop()
        for u in used:
            nat[u] += 1

    for j in range(1, min(nat[i], 3) + 1):
        attempt(_grp("pong", (i, i, i), (i,) * (3 - j)), [i] * j, 3 - j, have_pair)
    if not have_pair:
        for j in range(1, min(nat[i], 2) + 1):
            attempt(_grp("pair", (i, i), (i,) * (2 - j)), [i] * j, 2 - j, True)
    if i >= NUM_SUITED:
        return  # R7: no honour chows
    # chows containing i, with i as the lowest natural tile of the chow
    for start in (r - 2, r - 1, r):
        if start < 0 or start > 6:
            continue
        ranks = [start, start + 1, start + 2]
        lower = [x for x in ranks if x < r]  # below i: no naturals left there, must be golds
        upper = [x for x in ranks if x > r]
        for mask in range(1 << len(upper)):
            naturals = [base + r] + [base + x for b, x in enumerate(upper) if mask >> b & 1]
            gold_for = [base + x for x in lower] + [
                base + x for b, x in enumerate(upper) if not mask >> b & 1
            ]
            if any(nat[k] == 0 for k in naturals[1:]):
                continue
            attempt(
                _grp("chow", tuple(base + x for x in ranks), tuple(sorted(gold_for))),
                naturals,
                len(gold_for),
                have_pair,
            )
