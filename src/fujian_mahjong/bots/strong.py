"""StrongBot (高手, kind ``strong``): the fast bot plus a determinized rollout search with a
significance gate (docs/strong-bot.md).

At each decision the bot asks the fast bot (``base``, by default
:class:`~fujian_mahjong.bots.heuristic.HeuristicBot`, which has its own defence) for its
choice. Optionally (``alpha``) a learned deal-in model (:func:`tile_risk`, fitted on the
project's own simulated games) swaps the fast bot's discard for a safer one of the same
shanten. Then, where the deal-in model finds a tile much safer than the chosen one
(``screen`` points of expected loss), the bot searches:

1. it prunes the legal actions to a few candidates (the chosen discard, the safest tile, the
   safest tile keeping the best shanten, the next tile by shanten and effective tiles; an
   answer to a discard: the choice, pass and the claims);
2. it samples *worlds*: the hidden information — the other seats' concealed tiles, the kinds
   of their concealed kongs and the order of the wall — drawn consistently with everything
   the seat can see (R12: only its view), then pulled by Metropolis swaps toward what the
   other seats' play reveals (:class:`Weights`: how far a hand of so many discards and melds
   usually is, and that a ready seat does not let its winning tile pass);
3. it plays every candidate out in the *same* worlds (common random numbers: the rollout
   ``policy``, heuristic-v1 at every seat, is deterministic, so two candidates differ only
   by the candidate) and scores the seat's points at the end of the hand;
4. it departs from the choice only when a candidate's paired mean gain is significant
   (mean difference > ``z`` standard errors and > ``min_gain`` points).

The search stops early when one candidate is clearly better or none can become so, and is
bounded by a budget of rollouts (deterministic) and a wall-clock deadline (a safety net
that only an overloaded machine reaches). Everything is seeded from the bot's seed and the
view's public state, never from the global ``random``: the same view gives the same
decision.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from fujian_mahjong.analysis import shanten_keys, split_keys34, waits_keys
from fujian_mahjong.analysis.tables import POW5
from fujian_mahjong.bots.base import Bot, Decision, play_out
from fujian_mahjong.bots.heuristic import (
    GOLDS_IN_READY_HAND,
    R_DISC,
    READY_CLAIMS,
    HeuristicBot,
    _Table,
    pay,
    shanten_words,
)
from fujian_mahjong.bots.heuristic_v1 import HeuristicV1Bot
from fujian_mahjong.engine.actions import Action
from fujian_mahjong.engine.events import Phase
from fujian_mahjong.engine.game import Game, Meld
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.i18n import tile_name
from fujian_mahjong.rules import Profile
from fujian_mahjong.scoring.score import score
from fujian_mahjong.scoring.situation import MeldIn, Situation
from fujian_mahjong.tiles import flower_sets, is_flower, parse, physical_set

__all__ = [
    "ReadyChoice",
    "SearchResult",
    "StrongBot",
    "WaitValue",
    "compare_actions",
    "determinize",
    "ready_choices",
    "wait_value",
]

# the 高手 passes a discard win when waiting is worth more than this times the win now
# (measured 1 v 3 against heuristic-v1, tcy, duplicate: 0.9–1.2 gain alike, +0.36 points a
# hand on 10,000 deals; passing every early win loses 1.5; docs/strong-bot.md); 0: never
SELF_DRAW_RATIO = 1.1

# the 高手 keeps a ready hand that the fast bot would break to defend when staying ready is
# worth more by this many points (ready_choices; +0.08 [+0.04, +0.12] a hand 1 v 3 against
# heuristic-v1, 10,000 deals; docs/strong-bot.md); 0: never
STAY_READY_MARGIN = 0.01

# the 高手's fast bot starts to defend when some opponent is this likely ready (the 普通
# waits for heuristic.THREAT, 0.55, which keeps it fast); measured 1 v 3 against
# heuristic-v1, duplicate, paired: 0.3 gains over 0.55 (docs/strong-bot.md)
STRONG_THREAT = 0.3

_NK = 34
_PHYSICAL = tuple(physical_set())
_CLAIMS = ("chow", "pong", "kong")


# ---------------------------------------------------------------------------- worlds


def _keys(c: Sequence[int], gold: int) -> list[int]:
    """The engine's per-suit analysis keys of the natural (non-gold) tiles of 34 counts."""
    keys = [0, 0, 0, 0]
    for k in range(_NK):
        n = c[k]
        if n and k != gold:
            keys[k // 9] += n * POW5[k % 9]
    return keys


@dataclass
class _Public:
    """What the seat knows of the hand (R12), gathered once per decision."""

    profile: Profile
    seat: int
    n: int
    dealer: int
    streak: int
    dice: tuple[int, int]
    gold: int
    indicator: int
    phase: Phase
    turn: int
    wall_left: int
    last_group: bool
    own: list[int]
    drawn: int
    sizes: list[int]
    melds: list[list[tuple[str, tuple[int, ...], int | None]]]
    discards: list[list[int]]
    flowers: list[list[int]]
    claim_from: int
    claim_tile: int
    claim_kind: str
    first_discard_pending: bool
    gold_discarded: list[bool]
    xian_jin: list[bool]
    jin_kan: list[bool]
    jin_kan_tiles: list[tuple[int, ...]]
    passed: list[set[int]] = field(default_factory=list)  # per seat: kinds it let pass
    unseen: list[int] = field(default_factory=list)  # the tiles the seat cannot see
    hidden_kongs: list[int] = field(default_factory=list)  # seats, one per hidden kong


def public_state(view: SeatView) -> _Public | None:
    """The seat's knowledge of the hand, read through its view only (R12); None where the
    search does not apply (an opening window, a robbed kong, the last group)."""
    js = view.to_json()
    phase = view.phase
    if phase not in (Phase.TURN, Phase.CLAIMS) or js["last_group"]:
        return None
    n = view.players
    seat = view.seat
    gold = view.gold
    if gold < 0:
        return None
    profile = view.profile
    melds: list[list[tuple[str, tuple[int, ...], int | None]]] = []
    hidden: list[int] = []
    for s in range(n):
        row: list[tuple[str, tuple[int, ...], int | None]] = []
        for (typ, tiles), mj in zip(view.melds(s), js["melds"][s], strict=True):
            if typ == "kong_concealed" and not tiles:
                hidden.append(s)
            row.append((typ, tiles, mj.get("from")))
        melds.append(row)
    discards = [view.discards(s) for s in range(n)]
    flowers = [view.flowers(s) for s in range(n)]
    claim_from, claim_tile = view.claim
    claimed = any(t in ("chow", "pong", "kong_exposed", "kong_added") for r in melds for t, *_ in r)
    n_disc = sum(len(d) for d in discards)
    first_pending = n_disc == 0 and not claimed
    claim_kind = ""
    if phase is Phase.CLAIMS:
        if not discards[claim_from] or discards[claim_from][-1] != claim_tile:
            return None  # a kong being robbed (sanming), not a discard
        if claim_from == view.dealer and n_disc == 1 and not claimed:
            return None  # opening window B (抢金): the fast bot's rules decide
        claim_kind = "discard"
    jk = js.get("jin_kan") or {}
    jin_kan = [str(s) in jk for s in range(n)]
    jin_kan_tiles = [tuple(parse(jk[str(s)])) if str(s) in jk else () for s in range(n)]
    own = view.counts
    pub = _Public(
        profile=profile,
        seat=seat,
        n=n,
        dealer=view.dealer,
        streak=int(js["streak"]),
        dice=(int(js["dice"][0]), int(js["dice"][1])),
        gold=gold,
        indicator=gold,
        phase=phase,
        turn=seat if phase is Phase.TURN else claim_from,
        wall_left=int(js["wall"]),
        last_group=bool(js["last_group"]),
        own=own,
        drawn=view.drawn,
        sizes=[view.hand_size(s) for s in range(n)],
        melds=melds,
        discards=discards,
        flowers=flowers,
        claim_from=claim_from,
        claim_tile=claim_tile,
        claim_kind=claim_kind,
        first_discard_pending=first_pending,
        gold_discarded=[view.gold_discarded(s) for s in range(n)],
        xian_jin=[view.xian_jin(s) for s in range(n)],
        jin_kan=jin_kan,
        jin_kan_tiles=jin_kan_tiles,
        hidden_kongs=hidden,
    )
    # the unseen tiles: the 144 less everything the seat sees
    seen = [0] * 42
    for k in range(_NK):
        seen[k] += own[k]
    for s in range(n):
        for _t, tiles, _f in melds[s]:
            for k in tiles:
                seen[k] += 1
        for k in discards[s]:
            seen[k] += 1
        for k in flowers[s]:
            seen[k] += 1
    seen[pub.indicator] += 1
    left = [0] * 42
    for k in _PHYSICAL:
        left[k] += 1
    unseen: list[int] = []
    for k in range(42):
        m = left[k] - seen[k]
        if m < 0:
            return None  # inconsistent (cannot happen with a real view)
        unseen.extend([k] * m)
    hidden_in_hands = sum(pub.sizes[s] for s in range(n) if s != seat) + 4 * len(hidden)
    if len(unseen) != hidden_in_hands + pub.wall_left:
        return None
    pub.unseen = unseen
    pub.passed = passed_kinds(view)
    return pub


def passed_kinds(view: SeatView) -> list[set[int]]:
    """Per seat, the kinds discarded by the seats after it in play order since its own last
    discard (up to the seat now acting, or the discarder being answered): it did not win on
    them, and its concealed hand has not changed since. Exact when nobody claimed in the
    meantime; a claim that skipped seats makes this an approximation."""
    n = view.players
    frm, _tile = view.claim
    stop = frm if frm >= 0 else view.seat
    out: list[set[int]] = []
    for o in range(n):
        got: set[int] = set()
        if o != stop:
            x = (o + 1) % n
            while x != stop:
                d = view.discards(x)
                if d:
                    got.add(d[-1])
                x = (x + 1) % n
        out.append(got)
    return out


class Weights:
    """How likely another seat's concealed hand is, given how far its hand has gone:
    ``table[(turns, melds)][shanten]`` is P(the fast bot's shanten) / P(the shanten of a
    uniform sample of the unseen tiles), both measured in the project's own simulator
    (``bench/strong.py calibrate``): a world drawn uniformly is pulled toward these odds by
    Metropolis swaps between the hands and the wall (:func:`determinize`). A ready hand
    whose waits include a kind the seat let pass since its last discard (the fast bot
    always wins when it can) or a kind it discarded itself is much less likely
    (``passed``, ``discarded``)."""

    def __init__(
        self,
        table: dict[tuple[int, int], Sequence[float]] | None = None,
        passed: float = 0.05,
        discarded: float = 0.15,
    ) -> None:
        self.table = table if table is not None else dict(_RATIO)
        self.passed = passed
        self.discarded = discarded

    def row(self, turns: int, melds: int) -> tuple[float, ...]:
        """The odds by shanten (0, 1, …, the last for anything worse) of a seat that has made
        ``turns`` discards and claims, ``melds`` of them melds (uniform where unmeasured)."""
        m = min(melds, 3)
        t = min(turns, _MAX_TURNS)
        row = self.table.get((t, m))
        while row is None and t > 0:
            t -= 1
            row = self.table.get((t, m))
        return tuple(row) if row is not None else (1.0,)

    def ratio(self, turns: int, melds: int, shanten: int) -> float:
        row = self.row(turns, melds)
        return row[min(shanten, len(row) - 1)] if shanten >= 0 else 1.0


# P(heuristic's shanten) / P(uniform sample's shanten) by (discards made, melds): filled
# from measurements (bench/strong.py ``calibrate``); empty rows mean "uniform".
_MAX_TURNS = 12
_RATIO: dict[tuple[int, int], tuple[float, ...]] = {
    (0, 0): (2.939, 1.71, 1.147, 0.849, 0.693),
    (1, 0): (9.785, 3.87, 1.167, 0.472, 0.211),
    (1, 1): (19.057, 4.169, 0.931, 0.286, 0.142),
    (2, 0): (34.443, 5.482, 0.931, 0.24, 0.071),
    (2, 1): (30.354, 4.192, 0.871, 0.181, 0.057),
    (2, 2): (62.815, 3.568, 0.47, 0.044, 0.005),
    (3, 0): (54.146, 5.595, 0.655, 0.125, 0.017),
    (3, 1): (56.468, 4.472, 0.541, 0.079, 0.007),
    (3, 2): (76.657, 2.861, 0.298, 0.023, 0.005),
    (4, 0): (59.869, 4.929, 0.503, 0.075, 0.005),
    (4, 1): (94.634, 3.586, 0.315, 0.027, 0.005),
    (4, 2): (79.414, 2.166, 0.205, 0.01, 0.005),
    (4, 3): (73.497, 0.891, 0.026, 0.005, 0.005),
    (5, 0): (87.535, 3.733, 0.33, 0.049, 0.005),
    (5, 1): (114.241, 2.766, 0.176, 0.013, 0.005),
    (5, 2): (119.37, 1.504, 0.062, 0.005, 0.005),
    (5, 3): (66.104, 0.438, 0.009, 0.005, 0.005),
    (6, 0): (100.919, 3.124, 0.221, 0.018, 0.005),
    (6, 1): (120.509, 2.187, 0.108, 0.01, 0.005),
    (6, 2): (125.519, 0.955, 0.024, 0.005, 0.005),
    (6, 3): (80.491, 0.2, 0.005, 0.005, 0.005),
    (7, 0): (99.266, 2.554, 0.149, 0.017, 0.005),
    (7, 1): (127.758, 1.413, 0.049, 0.019, 0.005),
    (7, 2): (134.714, 0.488, 0.005, 0.005, 0.005),
    (7, 3): (67.974, 0.075, 0.005, 0.005, 0.005),
    (8, 1): (131.986, 0.845, 0.042, 0.024, 0.008),
    (8, 2): (123.476, 0.217, 0.005, 0.005, 0.005),
    (8, 3): (47.824, 0.023, 0.005, 0.005, 0.005),
    (9, 1): (137.052, 0.324, 0.011, 0.005, 0.005),
    (9, 2): (75.96, 0.095, 0.005, 0.005, 0.005),
    (9, 3): (49.077, 0.006, 0.005, 0.005, 0.005),
    (10, 2): (57.605, 0.016, 0.005, 0.005, 0.005),
    (10, 3): (33.12, 0.005, 0.005, 0.005, 0.005),
    (11, 3): (11.949, 0.005, 0.005, 0.005, 0.005),
}


def determinize(
    pub: _Public,
    rng: random.Random,
    weights: Weights | None = None,
    swaps: int = 0,
) -> Game:
    """One world consistent with the seat's knowledge: the unseen tiles dealt at random to
    the other seats' concealed hands (never a flower: those are replaced at once, R4) and
    their hidden concealed kongs, the rest (flowers included) as the wall in random order.
    With ``weights`` and ``swaps``, that many Metropolis swaps between a hand and the wall
    then pull each hand's shanten toward the odds of :class:`Weights`."""
    n = pub.n
    seat = pub.seat
    pool = list(pub.unseen)
    rng.shuffle(pool)
    fl = _flower_kinds(pub.profile)
    # hidden concealed kongs: a kind with four unseen natural copies
    kong_kinds: list[int] = []
    for _s in pub.hidden_kongs:
        have = [0] * 42
        for k in pool:
            have[k] += 1
        opts = [k for k in range(_NK) if have[k] == 4 and k != pub.gold and not fl[k]]
        k = opts[rng.randrange(len(opts))] if opts else -1
        if k >= 0:
            for _ in range(4):
                pool.remove(k)
        kong_kinds.append(k)
    naturals = [k for k in pool if not fl[k]]
    flowers_left = [k for k in pool if fl[k]]
    hands: list[list[int]] = [[] for _ in range(n)]
    # R8.5: a seat locked by 金坎 holds its two shown tiles and tiles complete without
    # golds (a pair and sets); dealt at random it could draw a gold it cannot win with
    # and, the gold being its only discard where golds may not be discarded, not act
    for s in range(n):
        if s != seat and pub.jin_kan[s]:
            locked = _locked_hand(naturals, pub.jin_kan_tiles[s], pub.sizes[s], pub.gold, rng)
            if locked is not None:
                hands[s] = locked
                for k in locked:
                    naturals.remove(k)
    at = 0
    for s in range(n):
        if s == seat or hands[s]:
            continue
        m = pub.sizes[s]
        hands[s] = naturals[at : at + m]
        at += m
    rest = naturals[at:]
    if weights is not None and swaps > 0:
        _metropolis(pub, rng, weights, swaps, hands, rest)
    wall = rest + flowers_left
    rng.shuffle(wall)
    g = Game(pub.profile, n, pub.dealer, pub.streak)
    g.dice = pub.dice
    g.wall = wall
    g.head = 0
    g.tail = len(wall) - 1
    gold = pub.gold
    counts = []
    keys = []
    for s in range(n):
        c = list(pub.own) if s == seat else [0] * _NK
        if s != seat:
            for k in hands[s]:
                c[k] += 1
        counts.append(c)
        keys.append(_keys(c, gold))
    g.counts = counts
    g.keys = keys
    g._ready = [-1] * n
    g.flowers = [list(f) for f in pub.flowers]
    hon = pub.profile.honours_playable
    g.sets = [flower_sets(f, hon) for f in pub.flowers]
    kk = iter(kong_kinds)
    melds: list[list[Meld]] = []
    ek = ck = 0
    for s in range(n):
        row = []
        for typ, tiles, frm in pub.melds[s]:
            if typ == "kong_concealed":
                ck += 1
                if not tiles:
                    k = next(kk)
                    tiles = (k,) * 4 if k >= 0 else (0,) * 4
            elif typ in ("kong_exposed", "kong_added"):
                ek += 1
            row.append(Meld(typ, tiles, frm))
        melds.append(row)
    g.melds = melds
    g.exposed_kongs = ek
    g.concealed_kongs = ck
    g.discards = [list(d) for d in pub.discards]
    g.gold = gold
    g.indicator = pub.indicator
    g.first_discard_pending = pub.first_discard_pending
    g.last_group = pub.last_group
    g.gold_discarded = list(pub.gold_discarded)
    g.xian_jin = list(pub.xian_jin)
    g.xian_jin_draws = [2] * n
    g.jin_kan = list(pub.jin_kan)
    g.jin_kan_tiles = list(pub.jin_kan_tiles)
    g.last_drawn = pub.drawn
    g.turn = pub.turn
    g.claim_from = pub.claim_from
    g.claim_tile = pub.claim_tile
    if pub.phase is Phase.TURN:
        g.phase = Phase.TURN
        g.drew_this_turn = pub.drawn >= 0
        g.pending = {}
        g.answers = {}
    else:
        g.phase = Phase.CLAIMS
        g.claim_kind = "discard"
        g.drew_this_turn = False
        d, k = pub.claim_from, pub.claim_tile
        pending: dict[int, list[Action]] = {}
        for i in range(1, n):
            o = (d + i) % n
            acts = g._claim_options(o, d, k, False)
            if acts:
                pending[o] = [*acts, Action("pass")]
        g.pending = pending
        g.answers = {}
    return g


def _locked_hand(
    naturals: Sequence[int], shown: Sequence[int], size: int, gold: int, rng: random.Random
) -> list[int] | None:
    """A concealed hand of ``size`` tiles for a seat locked by 金坎 (R8.5), drawn from the
    unseen natural tiles: the shown tiles, a pair and sets, no gold. The sets are found by a
    depth-first search over the options in a random order (each option at or after the one
    before, so no set of sets is tried twice); the real hand is one answer, so there always
    is one. None only where the seat's knowledge is inconsistent."""
    have = [0] * _NK
    for k in naturals:
        have[k] += 1
    for k in shown:
        if have[k] == 0:
            return None
        have[k] -= 1
    rest = size - len(shown)
    if rest < 2 or (rest - 2) % 3:
        return None
    need = (rest - 2) // 3
    options: list[tuple[int, ...]] = [(k, k, k) for k in range(_NK) if k != gold]
    options += [
        (k, k + 1, k + 2) for k in range(27) if k % 9 <= 6 and gold not in (k, k + 1, k + 2)
    ]
    rng.shuffle(options)
    pairs = [k for k in range(_NK) if k != gold and have[k] >= 2]
    rng.shuffle(pairs)
    chosen: list[tuple[int, ...]] = []

    def fill(start: int) -> bool:
        if len(chosen) == need:
            return True
        for i in range(start, len(options)):
            opt = options[i]
            for k in opt:
                have[k] -= 1
            if min(have[k] for k in opt) >= 0:
                chosen.append(opt)
                if fill(i):
                    return True
                chosen.pop()
            for k in opt:
                have[k] += 1
        return False

    for p in pairs:
        have[p] -= 2
        if fill(0):
            hand = [*shown, p, p]
            for opt in chosen:
                hand.extend(opt)
            return hand
        have[p] += 2
    return None


def _flower_kinds(profile: Profile) -> list[bool]:
    hon = profile.honours_playable
    return [is_flower(k, hon) for k in range(42)]


def _hand_shanten(hand: Sequence[int], gold: int, melds: int) -> int:
    c = [0] * _NK
    for k in hand:
        c[k] += 1
    k0, k1, k2, kh, w = split_keys34(c, gold)
    return shanten_keys(k0, k1, k2, w, melds, kh)


class _Chain:
    """One other seat's concealed hand in the Metropolis walk: its analysis keys kept up to
    date swap by swap, and its current odds."""

    __slots__ = ("discarded", "hand", "keys", "melds", "passed", "row", "w", "weight")

    def __init__(
        self,
        hand: list[int],
        gold: int,
        exposed: int,
        row: tuple[float, ...],
        passed: set[int],
        disc: set[int],
    ) -> None:
        self.hand = hand
        self.melds = 5 - exposed
        self.row = row
        self.passed = passed
        self.discarded = disc
        self.keys = [0, 0, 0, 0]
        self.w = 0
        for k in hand:
            self._add(k, gold)
        self.weight = 0.0

    def _add(self, k: int, gold: int) -> None:
        if k == gold:
            self.w += 1
        else:
            self.keys[k // 9] += POW5[k % 9]

    def _sub(self, k: int, gold: int) -> None:
        if k == gold:
            self.w -= 1
        else:
            self.keys[k // 9] -= POW5[k % 9]

    def odds(self, weights: Weights, gold: int, honours: bool) -> float:
        k0, k1, k2, kh = self.keys
        sh = shanten_keys(k0, k1, k2, self.w, self.melds, kh)
        row = self.row
        r = row[sh if sh < len(row) else -1] if sh >= 0 else 1.0
        if sh == 0 and (self.passed or self.discarded):
            for k in waits_keys(k0, k1, k2, self.w, gold, kh, honours):
                if k in self.passed:
                    r *= weights.passed
                elif k in self.discarded:
                    r *= weights.discarded
        return r


def _metropolis(
    pub: _Public,
    rng: random.Random,
    weights: Weights,
    swaps: int,
    hands: list[list[int]],
    rest: list[int],
) -> None:
    """Swap tiles between the other seats' hands and the natural wall tiles, accepting a
    swap with the ratio of the :class:`Weights` odds of the hand (Metropolis: the uniform
    proposal is symmetric, so a world is drawn in proportion to the product of the odds)."""
    if not rest:
        return
    gold = pub.gold
    hon = pub.profile.honours_playable
    chains: list[_Chain] = []
    for s in range(pub.n):
        if s == pub.seat or not hands[s] or pub.jin_kan[s]:
            continue
        ch = _Chain(
            hands[s],
            gold,
            len(pub.melds[s]),
            weights.row(len(pub.discards[s]) + len(pub.melds[s]), len(pub.melds[s])),
            pub.passed[s] if pub.passed else set(),
            set(pub.discards[s]),
        )
        ch.weight = ch.odds(weights, gold, hon)
        chains.append(ch)
    if not chains:
        return
    nr = len(rest)
    nc = len(chains)
    for _ in range(swaps):
        ch = chains[rng.randrange(nc)]
        h = ch.hand
        i = rng.randrange(len(h))
        j = rng.randrange(nr)
        a = h[i]
        b = rest[j]
        if a == b:
            continue
        ch._sub(a, gold)
        ch._add(b, gold)
        wn = ch.odds(weights, gold, hon)
        if wn >= ch.weight or rng.random() * ch.weight < wn:
            h[i] = b
            rest[j] = a
            ch.weight = wn
        else:
            ch._sub(b, gold)
            ch._add(a, gold)


def _clone(g: Game) -> Game:
    """A copy of a world that a rollout may change (the wall list is only read)."""
    c = Game(g.profile, g.n, g.dealer, g.streak)
    c.dice = g.dice
    c.wall = g.wall
    c.head = g.head
    c.tail = g.tail
    c.counts = [list(x) for x in g.counts]
    c.keys = [list(x) for x in g.keys]
    c._ready = list(g._ready)
    c.flowers = [list(x) for x in g.flowers]
    c.sets = list(g.sets)
    c.melds = [[Meld(m.type, m.tiles, m.claimed_from) for m in row] for row in g.melds]
    c.discards = [list(x) for x in g.discards]
    c.gold = g.gold
    c.indicator = g.indicator
    c.exposed_kongs = g.exposed_kongs
    c.concealed_kongs = g.concealed_kongs
    c.phase = g.phase
    c.turn = g.turn
    c.first_discard_pending = g.first_discard_pending
    c.last_group = g.last_group
    c.pending = dict(g.pending)
    c.answers = dict(g.answers)
    c.claim_tile = g.claim_tile
    c.claim_from = g.claim_from
    c.claim_kind = g.claim_kind
    c.kong_window_prev = g.kong_window_prev
    c.dealer_rob_discard = g.dealer_rob_discard
    c.last_drawn = g.last_drawn
    c.gold_discarded = list(g.gold_discarded)
    c.xian_jin = list(g.xian_jin)
    c.xian_jin_draws = list(g.xian_jin_draws)
    c.jin_kan = list(g.jin_kan)
    c.jin_kan_tiles = list(g.jin_kan_tiles)
    c.drew_this_turn = g.drew_this_turn
    return c


# ---------------------------------------------------------------------------- search


@dataclass
class SearchResult:
    """What a search found: per candidate, the paired mean gain over the first candidate (the
    fast bot's choice) in points per hand, its standard error and the worlds played."""

    candidates: list[Action]
    gain: list[float]
    se: list[float]
    worlds: int
    rollouts: int
    chosen: int  # index into candidates
    stopped: str  # "significant", "futile", "budget", "deadline"


def _stats(vals: Sequence[float]) -> tuple[float, float]:
    n = len(vals)
    if n == 0:
        return 0.0, math.inf
    m = sum(vals) / n
    if n < 2:
        return m, math.inf
    var = sum((v - m) ** 2 for v in vals) / (n - 1)
    return m, math.sqrt(var / n)


def _rollout(world: Game, seat: int, action: Action, policy: Sequence[Bot]) -> int:
    g = _clone(world)
    g.apply(seat, action)
    if not g.is_over():
        play_out(g, policy)
    sc = g.score()
    return sc.payments[seat] if sc is not None else 0


class _Options:
    """The discards open to the seat (golds aside where discarding one is penalised): per
    kind the shanten after it, the deal-in risk (:func:`tile_risk`) and, on demand, the
    effective tiles after it (for a hand within one tile of ready)."""

    def __init__(self, view: SeatView) -> None:
        self.view = view
        self.counts = view.counts
        self.gold = view.gold
        self.melds = 5 - view.exposed(view.seat)
        self._vis: list[int] | None = None
        self._uke: dict[int, int] = {}
        risk = tile_risk(view)
        penal = view.gold_discard_rule != "free"
        kinds = {a.tile for a in view.legal if a.type == "discard"}
        self.risk = {k: r for k, r in risk.items() if k in kinds}
        self.shanten: dict[int, int] = {}
        c = self.counts
        for k in self.risk:
            c[k] -= 1
            k0, k1, k2, kh, w = split_keys34(c, self.gold)
            self.shanten[k] = shanten_keys(k0, k1, k2, w, self.melds, kh)
            c[k] += 1
        if penal:
            self.risk.pop(self.gold, None)
            self.shanten.pop(self.gold, None)

    def shape(self, k: int) -> tuple[int, int]:
        """(shanten, effective tiles) after discarding ``k``."""
        sh = self.shanten[k]
        if sh > 1:
            return sh, 0
        uke = self._uke.get(k)
        if uke is None:
            if self._vis is None:
                self._vis = self.view.visible_counts()
            c = self.counts
            c[k] -= 1
            uke = _ukeire(c, self.gold, self.melds, sh, self._vis, self.view.playable_kinds)
            c[k] += 1
            self._uke[k] = uke
        return sh, uke


def _options(view: SeatView) -> _Options | None:
    o = _Options(view)
    return o if o.risk else None


class StrongBot:
    """The 高手: the fast bot's choice unless a rollout search shows a significant gain.

    ``max_rollouts`` bounds the rollouts per decision (deterministic); ``deadline_s`` is a
    wall-clock safety net measured with ``clock``; ``z`` and ``min_gain`` make the gate."""

    name = "strong"

    def __init__(
        self,
        seed: int | str = 0,
        *,
        max_rollouts: int = 480,
        min_worlds: int = 24,
        batch: int = 8,
        z: float = 2.5,
        min_gain: float = 1.0,
        deadline_s: float | None = 0.6,
        clock: Callable[[], float] = time.perf_counter,
        swaps: int = 120,
        weights: Weights | None = None,
        screen: float = 2.0,
        claim_screen: float = 99.0,
        alpha: float | None = None,
        min_risk: float = 0.5,
        margin: float = 0.0,
        max_candidates: int = 4,
        base: Bot | None = None,
        policy: Bot | None = None,
        self_draw: float = SELF_DRAW_RATIO,
        ready_fold: float = 0.0,
        stay_ready: float = STAY_READY_MARGIN,
        threat: float = STRONG_THREAT,
        ready_claims: bool = READY_CLAIMS,
    ) -> None:
        self.seed = seed
        self.max_rollouts = max_rollouts
        self.min_worlds = min_worlds
        self.batch = batch
        self.z = z
        self.min_gain = min_gain
        self.deadline_s = deadline_s
        self.clock = clock
        self.swaps = swaps
        self.screen = screen
        self.alpha = alpha
        self.min_risk = min_risk
        self.margin = margin
        self.claim_screen = claim_screen
        self.max_candidates = max_candidates
        self.self_draw = self_draw
        self.last_wait: WaitValue | None = None  # the last discard win valued (self_draw)
        self.ready_fold = ready_fold
        self.stay_ready = stay_ready
        self.last_ready: dict[int, ReadyChoice] | None = None  # the last ready turn valued
        self.weights = weights if weights is not None else Weights()
        # threat and ready_claims configure the default fast bot (not a given base)
        self.base: Bot = (
            base
            if base is not None
            else HeuristicBot(seed, threat=threat, ready_claims=ready_claims)
        )
        self.policy: Bot = policy if policy is not None else HeuristicV1Bot(seed)
        self.last: SearchResult | None = None  # the last search (diagnostics, review)
        self.rollouts = 0  # rollouts played over the bot's life (bench)

    # ------------------------------------------------------------------ entry point

    def act(self, view: SeatView) -> Decision:
        self.last = None
        d0 = self.base.act(view)
        if self.self_draw > 0 and view.phase is Phase.CLAIMS and d0.action.type == "win":
            d1 = self._wait_for_self_draw(view)
            if d1 is not None:
                return d1
        ready = self.ready_fold > 0 or self.stay_ready > 0
        if ready and view.phase is Phase.TURN and d0.action.type == "discard":
            d1 = self._ready_discard(view, d0.action.tile)
            if d1 is not None:
                return d1
        turn = view.phase is Phase.TURN and d0.action.type == "discard"
        opts = _options(view) if turn else None
        fast = self.defend(view, d0, opts)
        cands = self.candidates(view, fast.action, opts)
        if len(cands) < 2:
            return fast
        pub = public_state(view)
        if pub is None:
            return fast
        res = self.search(pub, cands, self._rng(view))
        self.last = res
        if res.chosen == 0:
            return fast
        return self._explain(view, cands[res.chosen], res, opts)

    def _wait_for_self_draw(self, view: SeatView) -> Decision | None:
        """Pass a discard win when waiting for a self-draw (each other seat pays, R10) is
        worth more than ``self_draw`` times the win now (:func:`wait_value`)."""
        wv = wait_value(view)
        self.last_wait = wv
        if wv is None or wv.now <= 0 or wv.wait <= self.self_draw * wv.now:
            return None
        if Action("pass") not in view.legal:
            return None
        why = (
            f"pass the win ({wv.now:.0f}): waiting for a self-draw is worth {wv.wait:.0f} "
            f"({wv.p:.0%} a draw, {wv.draws} draws left)"
        )
        why_zh = (
            f"过胡 ({wv.now:.0f}): 等自摸期望 {wv.wait:.0f} (每摸 {wv.p:.0%}, 还有 {wv.draws} 摸)"
        )
        return Decision(Action("pass"), why, why_zh)

    def _ready_discard(self, view: SeatView, base: int) -> Decision | None:
        """With a ready hand at the seat's turn: the discard of :func:`ready_choices` worth
        most (one keeping the hand ready, or the safest one, breaking it) where it beats the
        fast bot's discard by more than ``ready_fold`` points (the fast bot keeps the hand
        ready) or ``stay_ready`` points (it breaks it); 0 turns either off."""
        ch = ready_choices(view, base)
        self.last_ready = ch
        if ch is None or base not in ch:
            return None
        margin = self.ready_fold if ch[base].ready else self.stay_ready
        if margin <= 0:
            return None
        best = max(ch.values(), key=lambda r: (r.value, -r.tile))
        if best.value <= ch[base].value + margin:
            return None
        if Action("discard", best.tile) not in view.legal:
            return None
        en, zh = tile_name(best.tile, "en"), tile_name(best.tile)
        b, bz = tile_name(base, "en"), tile_name(base)
        gain = best.value - ch[base].value
        r0, r1 = ch[base].risk, best.risk
        what, what_zh = (
            ("keeps the hand ready", "保持听牌")
            if best.ready
            else ("gives up the ready hand for safety", "拆听保安全")
        )
        why = (
            f"discard {en}, not {b}: {what}; worth {gain:.1f} points more a hand "
            f"(deal-in costs about {r1:.1f} points against {r0:.1f} for {b})"
        )
        why_zh = (
            f"打 {zh}, 不打 {bz}: {what_zh}, 每盘期望多 {gain:.1f} 分 "
            f"(点炮预计失 {r1:.1f} 分, 打 {bz} 失 {r0:.1f} 分)"
        )
        return Decision(Action("discard", best.tile), why, why_zh)

    def _rng(self, view: SeatView) -> random.Random:
        """A generator seeded by the bot's seed and the view's public state (plus its own
        tiles): the same view always gives the same worlds."""
        parts = [
            str(self.seed),
            str(view.seat),
            view.phase,
            str(view.live),
            str(view.claim),
            ",".join(map(str, view.counts)),
            str(view.drawn),
        ]
        for s in range(view.players):
            parts.append(",".join(map(str, view.discards(s))))
            parts.append(str(view.melds(s)))
        h = hashlib.blake2b("|".join(parts).encode(), digest_size=8).digest()
        return random.Random(int.from_bytes(h, "big"))

    # ------------------------------------------------------------------ defence

    def defend(self, view: SeatView, d0: Decision, opts: _Options | None) -> Decision:
        """The fast policy: the fast bot's discard, unless another discard keeps the same
        shanten and is safer by more than ``alpha`` points per effective tile it gives up
        (the deal-in model, :func:`tile_risk`). Anything else is the fast bot's."""
        if opts is None or self.alpha is None:
            return d0
        base = d0.action.tile
        if base not in opts.risk or opts.risk[base] < self.min_risk:
            return d0
        sh0, uke0 = opts.shape(base)
        best = base
        best_v = base_v = self.alpha * uke0 - opts.risk[base]
        for k in sorted(opts.risk):
            if k == base or opts.shanten[k] != sh0:
                continue
            v = self.alpha * opts.shape(k)[1] - opts.risk[k]
            if v > best_v + 1e-9 and v > base_v + self.margin:
                best, best_v = k, v
        if best == base:
            return d0
        uke = opts.shape(best)[1]
        r0, r1 = opts.risk[base], opts.risk[best]
        en, zh = tile_name(best, "en"), tile_name(best)
        b, bz = tile_name(base, "en"), tile_name(base)
        far, far_zh = shanten_words(sh0)
        why = (
            f"defence: discard {en}, not {b} — dealing in costs about {r1:.1f} points "
            f"against {r0:.1f} for {b}; the hand is {far} either way "
            f"({uke} tiles help it against {uke0})"
        )
        why_zh = (
            f"防守: 打 {zh}, 不打 {bz} — 点炮预计失 {r1:.1f} 分, 打 {bz} 失 {r0:.1f} 分; "
            f"两张打后都是{far_zh} (有效牌 {uke} 张, 打 {bz} {uke0} 张)"
        )
        return Decision(Action("discard", best), why, why_zh)

    # ------------------------------------------------------------------ candidates

    def candidates(
        self, view: SeatView, base: Action, opts: _Options | None = None
    ) -> list[Action]:
        """The actions worth searching, the fast policy's first; empty where the search is
        not worth its time. A discard is searched only when the deal-in model
        (:func:`tile_risk`) finds a tile at least ``screen`` points safer than the fast
        policy's; the candidates are then that tile, the safest tile, the safest tile that
        keeps the best shanten and the next tile by shanten and effective tiles. An answer
        to a discard (claim or pass) is searched when a claim is offered and some other
        seat's hand is far enough along (``claim_screen``)."""
        legal = view.legal
        if len(legal) < 2:
            return []
        if view.phase is Phase.CLAIMS:
            return self._claim_candidates(view, base)
        if view.phase is not Phase.TURN or base.type != "discard":
            return []
        if opts is None:
            opts = _options(view)
        if opts is None:
            return []
        risk = opts.risk
        if base.tile not in risk:
            return []
        safest = min(risk, key=lambda k: (risk[k], k))
        if risk[base.tile] - risk[safest] < self.screen:
            return []
        best_sh = min(opts.shanten.values())
        out = [base]

        def add(k: int) -> None:
            a = Action("discard", k)
            if a not in out and len(out) < self.max_candidates:
                out.append(a)

        add(safest)
        keep = [k for k, sh in opts.shanten.items() if sh == best_sh]
        if keep:
            add(min(keep, key=lambda k: (risk[k], k)))
        ranked = sorted(risk, key=lambda k: (opts.shanten[k], -opts.shape(k)[1], k))
        for k in ranked:
            if k != base.tile:
                add(k)
                break
        return out

    def _claim_candidates(self, view: SeatView, base: Action) -> list[Action]:
        if base.type == "win" or base.type not in (*_CLAIMS, "pass"):
            return []
        claims = [a for a in view.legal if a.type in _CLAIMS]
        if not claims:
            return []
        threat = 0.0
        for rows in danger_features(view).values():
            if rows:  # turns + 3/5/7 for one/two/three or more melds
                f = next(iter(rows.values()))
                threat = max(threat, f[1] + 3 * f[3] + 5 * f[4] + 7 * f[5])
        if threat < self.claim_screen:
            return []
        out = [base]
        for a in [Action("pass"), *claims]:
            if a not in out and len(out) < self.max_candidates:
                out.append(a)
        return out

    # ------------------------------------------------------------------ search

    def search(self, pub: _Public, cands: Sequence[Action], rng: random.Random) -> SearchResult:
        """Play every candidate out in the same worlds (see the module docstring)."""
        t0 = self.clock()
        seat = pub.seat
        policy = [self.policy] * pub.n
        k = len(cands)
        vals: list[list[int]] = [[] for _ in range(k)]
        alive = [True] * k
        rollouts = 0
        worlds = 0
        stopped = "budget"
        while True:
            live = sum(alive)
            if rollouts + live * self.batch > self.max_rollouts:
                stopped = "budget"
                break
            if self.deadline_s is not None and self.clock() - t0 > self.deadline_s:
                stopped = "deadline"
                break
            for _ in range(self.batch):
                if self.deadline_s is not None and self.clock() - t0 > self.deadline_s:
                    break
                world = determinize(pub, rng, self.weights, self.swaps)
                base_v = _rollout(world, seat, cands[0], policy)
                vals[0].append(base_v)
                for i in range(1, k):
                    if alive[i]:
                        vals[i].append(_rollout(world, seat, cands[i], policy) - base_v)
                rollouts += live
                worlds += 1
            if worlds < self.min_worlds:
                continue
            best_lo = -math.inf
            for i in range(1, k):
                if not alive[i]:
                    continue
                m, se = _stats(vals[i])
                if m + self.z * se < self.min_gain:
                    alive[i] = False  # cannot become a significant gain
                best_lo = max(best_lo, m - self.z * se)
            if best_lo > self.min_gain:
                stopped = "significant"
                break
            if not any(alive[1:]):
                stopped = "futile"
                break
        self.rollouts += rollouts
        gains = [0.0]
        ses = [0.0]
        for i in range(1, k):
            m, se = _stats(vals[i])
            gains.append(m)
            ses.append(se)
        chosen = 0
        best = self.min_gain
        for i in range(1, k):
            if alive[i] and gains[i] - self.z * ses[i] > best:
                best = gains[i] - self.z * ses[i]
                chosen = i
        return SearchResult(list(cands), gains, ses, worlds, rollouts, chosen, stopped)

    # ------------------------------------------------------------------ reasons

    def _explain(
        self, view: SeatView, a: Action, res: SearchResult, opts: _Options | None
    ) -> Decision:
        i = res.candidates.index(a)
        gain = res.gain[i]
        base = res.candidates[0]
        risk = opts.risk if opts is not None else {}
        defence = (
            base.type == "discard"
            and a.tile in risk
            and base.tile in risk
            and risk[a.tile] < risk[base.tile]
        ) or (a.type == "pass" and base.type in _CLAIMS)
        what, what_zh = action_words(a)
        other, other_zh = action_words(base)
        if a.type == base.type == "discard":
            other = tile_name(base.tile, "en")  # "discard 5 Characters, not 9 Dots"
        if defence:
            why = (
                f"defence: {what}, not {other} — safer: in {res.worlds} simulated deals "
                f"it kept {gain:.1f} points a hand more"
            )
            why_zh = f"防守: {what_zh}, 不{other_zh} — 更安全: 模拟 {res.worlds} 局, 每局多保 {gain:.1f} 分"
        else:
            why = (
                f"{what}, not {other}: in {res.worlds} simulated deals it won "
                f"{gain:.1f} points a hand more"
            )
            why_zh = f"{what_zh}, 不{other_zh}: 模拟 {res.worlds} 局, 每局多得 {gain:.1f} 分"
        return Decision(a, why, why_zh)


def action_words(a: Action) -> tuple[str, str]:
    """An action in words, tiles as the table names them: ("discard 5 Dots", "打 五饼")."""
    t = a.type
    if t == "discard":
        return f"discard {tile_name(a.tile, 'en')}", f"打 {tile_name(a.tile)}"
    if t == "pass":
        return "pass", "过"
    if t == "chow":
        tiles = [tile_name(k, "en") for k in a.tiles]
        return (
            f"chow with {' and '.join(tiles)}",
            f"吃 (用 {''.join(tile_name(k) for k in a.tiles)})",
        )
    words = {
        "pong": ("pong", "碰"),
        "kong": ("kong", "杠"),
        "concealed_kong": ("a concealed kong", "暗杠"),
        "added_kong": ("an added kong", "加杠"),
        "win": ("win", "胡"),
        "three_golds": ("three golds", "三金倒"),
        "rob_gold": ("rob the gold", "抢金"),
        "jin_kan": ("金坎", "金坎"),
    }
    en, zh = words.get(t, (t.replace("_", " "), t))
    if a.tile >= 0:
        return f"{en} {tile_name(a.tile, 'en')}", f"{zh} {tile_name(a.tile)}"
    return en, zh


def _ukeire(c: list[int], gold: int, melds: int, s: int, visible: Sequence[int], kinds: int) -> int:
    """Unseen copies of the kinds that lower the shanten of a 3k+1 hand."""
    k0, k1, k2, kh, w = split_keys34(c, gold)
    if s == 0:
        ks = waits_keys(k0, k1, k2, w, gold, kh, kinds > 27)
    else:
        ks = []
        for k in range(kinds):
            if c[k] >= 4:
                continue
            c[k] += 1
            a0, a1, a2, ah, aw = split_keys34(c, gold)
            if shanten_keys(a0, a1, a2, aw, melds, ah) < s:
                ks.append(k)
            c[k] -= 1
    return sum(max(0, 4 - visible[k] - (1 if k == gold else 0)) for k in ks)


# The deal-in model (``bench/strong.py calibrate``): a logistic regression, fitted on the
# fast bot's games, of "that other seat wins on this kind now" on :func:`danger_features`.
_DANGER_BETA = (
    -6.068,
    0.874,
    -0.48,
    0.731,
    1.113,
    1.305,
    -0.628,
    -0.314,
    0.0,
    -3.535,
    -2.021,
    -1.35,
)


def _rank_class(k: int) -> int:
    """0 terminal, 1 two/eight, 2 middle, 3 honour."""
    if k >= 27:
        return 3
    r = k % 9
    return 0 if r in (0, 8) else 1 if r in (1, 7) else 2


def danger_features(view: SeatView) -> dict[int, dict[int, tuple[float, ...]]]:
    """Per other seat that may win on a discard, per kind the seat holds (golds aside): the
    features of the deal-in model — how far that seat's hand has gone (its discards and
    melds), the kind's rank class, whether that seat discarded the kind itself, whether it
    let the kind pass since its last discard (:func:`passed_kinds`)."""
    n = view.players
    me = view.seat
    gold = view.gold
    held = [k for k, c in enumerate(view.counts) if c and k != gold]
    passed = passed_kinds(view)
    out: dict[int, dict[int, tuple[float, ...]]] = {}
    for o in range(n):
        if o == me or view.gold_discarded(o) or view.xian_jin(o):
            continue  # R5/R8: that seat may not win on a discard
        dl = view.discards(o)
        disc = set(dl)
        m = view.exposed(o)
        t = float(min(len(dl) + m, 12))
        rows: dict[int, tuple[float, ...]] = {}
        for k in held:
            r = _rank_class(k)
            rows[k] = (
                1.0,
                t,
                t * t / 10,
                float(m == 1),
                float(m == 2),
                float(m >= 3),
                float(r == 0),
                float(r == 1),
                float(r == 3),
                float(k in disc),
                float(k in passed[o]),
                t * float(m >= 1) / 10,
            )
        out[o] = rows
    return out


def deal_in_cost(view: SeatView, o: int) -> float:
    """What a discard that seat ``o`` wins on is expected to cost, from its public flowers and
    kongs (R10 fuzhou-tcy: X = (F + G + L + 5) x 2 + S, F = flowers + 2 sets + kongs; 平胡 when
    it has no flowers and no kongs)."""
    fl = view.flowers(o)
    melds = view.melds(o)
    kongs = sum(1 for t, _ in melds if t.startswith("kong"))
    hidden = sum(1 for t, _ in melds if t == "kong_concealed")
    sets = flower_sets(fl, view.honours_playable)
    f = len(fl) + 2 * sets + kongs + hidden
    cost = 2.0 * (f + 5) + 2.2
    if not kongs and "ping_hu" in view.has_special:
        if not fl:
            cost += view.special_value("ping_hu")
        elif len(fl) == 1 and "ping_hu_one_flower" in view.has_special:
            cost += view.special_value("ping_hu_one_flower")
    return cost


def tile_risk(view: SeatView) -> dict[int, float]:
    """Per kind the seat holds (golds aside), the expected points lost by discarding it now:
    the sum over the other seats of P(that seat wins on it) x what it would cost."""
    feats = danger_features(view)
    risk: dict[int, float] = {k: 0.0 for k, c in enumerate(view.counts) if c and k != view.gold}
    beta = _DANGER_BETA
    for o, rows in feats.items():
        cost = deal_in_cost(view, o)
        for k, f in rows.items():
            z = sum(b * x for b, x in zip(beta, f, strict=True))
            risk[k] += cost / (1.0 + math.exp(-z))
    return risk


# ---------------------------------------------------------------------------- self-draw

# Declining a discard win to wait for a self-draw (option ``self_draw``; R6: a win may be
# declined, D-7: no 过水, so later discard wins stay open). Measured on the strong bot's ready
# hands against three heuristic-v1 (fuzhou-tcy, 16,000 hands):
# an own draw completes the hand SELF_DRAW_NATURAL times as often as the unseen natural
# waits over the unseen tiles say, and only SELF_DRAW_GOLD for the unseen golds (the other
# seats keep theirs); an opponent's discard is one of the seat's natural waits
# SELF_DRAW_OFFER times as often as a uniform unseen tile; a ready opponent (the fast bot's
# ready chance, growing with its discards) self-draws SELF_DRAW_OPP_SELF of the rounds and
# wins on a third seat's discard SELF_DRAW_OPP_OTHER; the fast bot's danger model
# underrates the seat's deal-ins by SELF_DRAW_DEAL_IN.
SELF_DRAW_NATURAL = 0.8
SELF_DRAW_GOLD = 0.3
SELF_DRAW_OFFER = 0.65
SELF_DRAW_OPP_SELF = 0.085
SELF_DRAW_OPP_OTHER = 0.19
SELF_DRAW_DEAL_IN = 1.6


@dataclass
class WaitValue:
    """A discard win offered to the seat, valued two ways (points for the seat)."""

    now: float  # the discard win now (R10, exact)
    wait: float  # expected points of passing and keeping the ready hand
    p: float  # chance per own draw to complete the hand (golds included)
    draws: int  # own draws left
    offer: float  # chance per round that another seat discards a winning tile
    end: float  # chance this round that another seat wins first
    deal_in: float  # chance that a discard of a drawn tile deals in


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1.0 - 1e-6)
    return math.log(p / (1.0 - p))


def _other_offers(prof: Profile) -> bool:
    """The profile changes who is offered a discard win or when (R6 拦胡: the highest score
    wins a discard, not the nearest; R8.4 闲金: no discard wins at all), which the model of
    :func:`wait_value` does not cover."""
    return prof.discard_winner == "highest_score" or prof.xian_jin


def _seat_state(
    view: SeatView,
) -> tuple[list[int], int, tuple[MeldIn, ...], tuple[int, ...]]:
    """What the seat's wins are scored from (R10), from its view only (R12): the unseen
    copies of each playable kind, the dealer's streak, its melds and its flowers."""
    vis = view.visible_counts()
    unseen = [max(0, 4 - vis[k]) for k in range(view.playable_kinds)]
    melds = tuple(MeldIn(t, tiles) for t, tiles in view.melds(view.seat))
    return unseen, int(view.to_json()["streak"]), melds, tuple(view.flowers(view.seat))


def _win_payment(
    view: SeatView,
    prof: Profile,
    hand: list[int],
    melds: tuple[MeldIn, ...],
    flowers: tuple[int, ...],
    streak: int,
    frm: int,
    k: int,
    win: str,
) -> float | None:
    """What the seat is paid for winning with ``k`` added to ``hand`` (R10's exact score
    of its own hand: 平胡, 金雀, 三金倒 and the golds included), by a discard of ``frm`` or
    by ``win`` itself; None where ``k`` does not complete it."""
    seat = view.seat
    sit = Situation(
        profile=prof,
        seats=view.players,
        dealer=view.dealer,
        win=win,
        gold=view.gold,
        winner=seat,
        discarder=frm if win == "discard" else None,
        hand=tuple(sorted([*hand, k])),
        winning_tile=k,
        melds=melds,
        flowers=flowers,
        streak=streak,
    )
    try:
        return float(score(sit).payments[seat])
    except MahjongError:
        return None


def _outs(
    waits: set[int], unseen: list[int], gold: int, gain: Callable[[int, str], float | None]
) -> tuple[float, int, float, float]:
    """A ready hand's outs: (its own draws' completing tiles, weighted as measured — other
    seats keep their golds; the unseen natural waits another seat may discard; the mean
    self-draw payment over the outs; the mean discard-win payment over the natural waits)."""
    outs = 0.0
    nat = 0
    s_sum = d_sum = 0.0
    for k in sorted(waits):
        m = unseen[k]
        if not m:
            continue
        x = gain(k, "self_draw")
        if x is not None:
            e = m * (SELF_DRAW_GOLD if k == gold else SELF_DRAW_NATURAL)
            outs += e
            s_sum += e * x
        if k != gold:
            y = gain(k, "discard")
            if y is not None:
                nat += m
                d_sum += m * y
    return outs, nat, s_sum / outs if outs else 0.0, d_sum / nat if nat else 0.0


def wait_value(view: SeatView) -> WaitValue | None:
    """The value of winning the discard being answered now against passing and waiting with
    the ready hand (R6: a win may be declined; D-7: later discard wins stay open), from the
    seat's view only (R12). Waiting: each own draw completes the hand with p = the unseen
    copies of the waits (a gold always completes a ready hand, R7) over the unseen playable
    tiles, and wins (n - 1)·X as a self-draw (R10, each other seat pays); a drawn tile that
    does not win is discarded, and may deal in (the fast bot's danger model); each round
    another seat may discard a winning tile (then the same choice again) or win first (a
    self-draw costs the seat its X). Every X is R10's exact score of the seat's hand. None
    where it does not apply (not a discard win; ``sanming``, whose 拦胡 and 闲金 change the
    offers)."""
    if view.phase is not Phase.CLAIMS or Action("win") not in view.legal:
        return None
    prof = view.profile
    if _other_offers(prof):
        return None
    frm, tile = view.claim
    gold = view.gold
    if frm < 0 or tile < 0 or gold < 0:
        return None
    seat = view.seat
    n = view.players
    c = view.counts
    hon = view.honours_playable
    kinds = view.playable_kinds
    k0, k1, k2, kh, w = split_keys34(c, gold)
    waits = set(waits_keys(k0, k1, k2, w, gold, kh, hon))
    if tile not in waits:
        return None
    waits.add(gold)
    unseen, streak, melds, flowers = _seat_state(view)
    u = sum(unseen)
    if u == 0:
        return None
    hand = [k for k in range(len(c)) for _ in range(c[k])]

    def gain(k: int, win: str) -> float | None:
        return _win_payment(view, prof, hand, melds, flowers, streak, frm, k, win)

    now = gain(tile, "discard")
    if now is None:
        return None
    outs, nat, self_x, disc_x = _outs(waits, unseen, gold, gain)
    p = outs / u
    # own draws left: the live tiles less the flowers among them (a flower's replacement
    # also comes off the wall, R4), dealt in turn from the discarder's next seat (R6)
    fl_total = sum(1 for k in _PHYSICAL if is_flower(k, hon))
    fl_unseen = max(0, fl_total - sum(len(view.flowers(s)) for s in range(n)))
    others = sum(view.hand_size(s) for s in range(n) if s != seat)
    wall_play = max(1, u - others)
    live = round(view.live * wall_play / (wall_play + fl_unseen))
    i = (seat - frm - 1) % n
    draws = (live - 1 - i) // n + 1 if live > i else 0
    offer = 1.0 - (1.0 - min(1.0, SELF_DRAW_OFFER * nat / u)) ** (n - 1)
    # the other seats (the fast bot's ready model and costs, R10)
    tb = _Table(view)
    opps: list[tuple[float, float]] = []  # (logit of ready, what its self-draw costs)
    for o in tb.opps:
        f, sp = tb._flower_term(view, o.seat, GOLDS_IN_READY_HAND)
        opps.append((_logit(o.p), pay(tb.scoring, tb.base, f, GOLDS_IN_READY_HAND, sp, True)))
    # a drawn tile that does not win is discarded: its chance to deal in and expected cost
    wt = risk_p = risk_x = 0.0
    for k in range(kinds):
        m = unseen[k]
        if not m or k in waits:
            continue
        dp, dx, _o = tb.danger(k, gold)
        wt += m
        risk_p += m * dp
        risk_x += m * dx
    deal_p = min(0.9, SELF_DRAW_DEAL_IN * risk_p / wt) if wt else 0.0
    deal_x = SELF_DRAW_DEAL_IN * risk_x / wt if wt else 0.0
    value = 0.0
    end0 = 0.0
    rate = SELF_DRAW_OPP_SELF + SELF_DRAW_OPP_OTHER
    for j in range(draws - 1, -1, -1):
        stay = 1.0
        loss = 0.0
        for lg, cost in opps:
            r = 1.0 / (1.0 + math.exp(-(lg + R_DISC * j)))
            stay *= 1.0 - r * rate
            loss += r * SELF_DRAW_OPP_SELF * cost
        end = 1.0 - stay
        if j == 0:
            end0 = end
        p_off = offer * (1.0 - end / 2)
        p_end = end * (1.0 - offer / 2)
        p_cont = max(0.0, 1.0 - p_off - p_end)
        after = p_off * max(disc_x, value) - loss * (1.0 - offer / 2) + p_cont * value
        value = p * self_x + (1.0 - p) * (-deal_x + (1.0 - deal_p) * after)
    return WaitValue(now, value, p, draws, offer, end0, deal_p)


def compare_actions(
    view: SeatView,
    played: Action,
    best: Action,
    *,
    worlds: int = 32,
    seed: int | str = 0,
    swaps: int = 120,
    policy: Bot | None = None,
) -> tuple[float, float, int] | None:
    """The estimated cost in points of ``played`` against ``best`` at this view: over
    ``worlds`` sampled worlds (weighted as the bot's, :func:`determinize`), each action
    played out by the fast bot at every seat, the paired mean of (best − played) for the
    seat, its standard error and the worlds played (2 rollouts each). ``(0, 0, 0)`` when the
    two are the same action; None where the search does not apply (an opening window, a
    robbed kong, the last group)."""
    if played == best:
        return 0.0, 0.0, 0
    pub = public_state(view)
    if pub is None:
        return None
    rng = StrongBot(seed)._rng(view)
    weights = Weights()
    pol = [policy if policy is not None else HeuristicV1Bot(seed)] * pub.n
    diffs: list[float] = []
    for _ in range(worlds):
        w = determinize(pub, rng, weights, swaps)
        diffs.append(_rollout(w, pub.seat, best, pol) - _rollout(w, pub.seat, played, pol))
    m, se = _stats(diffs)
    return m, se, worlds


# ---------------------------------------------------------------------------- ready fold

# the danger model's chance and cost of the discard made now, scaled as the drawn tiles'
# (SELF_DRAW_DEAL_IN, measured on the strong bot's discards from a ready hand)
READY_FOLD_DEAL_IN = SELF_DRAW_DEAL_IN


@dataclass
class ReadyChoice:
    """One discard of a ready seat at its turn, valued with :func:`wait_value`'s model."""

    tile: int  # the kind discarded
    ready: bool  # the hand stays ready after it
    value: float  # expected points for the seat from here (the discard's risk included)
    risk: float  # what discarding it now is expected to cost (danger model x calibration)


def ready_choices(view: SeatView, fold: int = -1) -> dict[int, ReadyChoice] | None:
    """At the seat's turn with a ready hand (R6/R7: 16 tiles after the discard, one more
    completes it), every discard that keeps it ready and the safest discard, each valued as
    the discard's expected deal-in cost plus what the hand is worth afterwards: the model of
    :func:`wait_value` (own self-draws at (n - 1)·X, later discard wins, other seats winning
    first, dealing in with the drawn tiles) for a ready hand, for the safest one a folded
    hand (no win of its own; only the other seats' self-draws and its safest discards cost
    it), and so ``fold`` too when it breaks the hand. None where it does not apply (not a turn, no ready discard, ``sanming``)."""
    if view.phase is not Phase.TURN:
        return None
    prof = view.profile
    if _other_offers(prof):
        return None
    gold = view.gold
    if gold < 0:
        return None
    seat = view.seat
    n = view.players
    c = list(view.counts)
    hon = view.honours_playable
    kinds = view.playable_kinds
    legal = {a.tile for a in view.legal if a.type == "discard"}
    held = [k for k in range(len(c)) if c[k] and k != gold and k in legal]
    if not held:
        return None
    unseen, streak, melds, flowers = _seat_state(view)
    u = sum(unseen)
    if u == 0:
        return None
    tb = _Table(view)
    opps: list[tuple[float, float]] = []
    for o in tb.opps:
        f, sp = tb._flower_term(view, o.seat, GOLDS_IN_READY_HAND)
        opps.append((_logit(o.p), pay(tb.scoring, tb.base, f, GOLDS_IN_READY_HAND, sp, True)))
    fl_total = sum(1 for k in _PHYSICAL if is_flower(k, hon))
    fl_unseen = max(0, fl_total - sum(len(view.flowers(s)) for s in range(n)))
    others = sum(view.hand_size(s) for s in range(n) if s != seat)
    wall_play = max(1, u - others)
    live = round(view.live * wall_play / (wall_play + fl_unseen))
    draws = (live - n) // n + 1 if live >= n else 0  # the seat draws after the n - 1 others
    danger = {k: tb.danger(k, gold) for k in range(kinds)}

    def threat(j: int) -> tuple[float, float]:
        stay = 1.0
        loss = 0.0
        for lg, cost in opps:
            r = 1.0 / (1.0 + math.exp(-(lg + R_DISC * j)))
            stay *= 1.0 - r * (SELF_DRAW_OPP_SELF + SELF_DRAW_OPP_OTHER)
            loss += r * SELF_DRAW_OPP_SELF * cost
        return 1.0 - stay, loss

    rounds = [threat(j) for j in range(draws + 1)]

    def value_after(p: float, sx: float, dx: float, offer: float, cx: float, cp: float) -> float:
        """The hand's worth from the round after the seat's discard on (the recursion of
        :func:`wait_value`: round j's threats, then the seat's draw j)."""
        v = 0.0
        for j in range(draws, -1, -1):
            end, loss = rounds[j]
            p_off = offer * (1.0 - end / 2)
            p_cont = max(0.0, 1.0 - p_off - end * (1.0 - offer / 2))
            after = p_off * max(dx, v) - loss * (1.0 - offer / 2) + p_cont * v
            v = after if j == 0 else p * sx + (1.0 - p) * (-cx + (1.0 - cp) * after)
        return v

    out: dict[int, ReadyChoice] = {}
    for t in held:
        c2 = list(c)
        c2[t] -= 1
        k0, k1, k2, kh, w = split_keys34(c2, gold)
        waits = set(waits_keys(k0, k1, k2, w, gold, kh, hon))
        if not waits:
            continue
        waits.add(gold)
        hand = [k for k in range(len(c2)) for _ in range(c2[k])]

        def gain(k: int, win: str, hand: list[int] = hand) -> float | None:
            # a later discard win, taken as from the next seat
            frm = (seat + 1) % n
            return _win_payment(view, prof, hand, melds, flowers, streak, frm, k, win)

        outs, nat, sx, disc_x = _outs(waits, unseen, gold, gain)
        wt = risk_p = risk_x = 0.0
        for k in range(kinds):
            m = unseen[k]
            if not m or k in waits:
                continue
            dp, dx, _o = danger[k]
            wt += m
            risk_p += m * dp
            risk_x += m * dx
        cp = min(0.9, SELF_DRAW_DEAL_IN * risk_p / wt) if wt else 0.0
        cx = SELF_DRAW_DEAL_IN * risk_x / wt if wt else 0.0
        tp = min(0.9, READY_FOLD_DEAL_IN * danger[t][0])
        tx = READY_FOLD_DEAL_IN * danger[t][1]
        v = value_after(
            outs / u,
            sx,
            disc_x,
            1.0 - (1.0 - min(1.0, SELF_DRAW_OFFER * nat / u)) ** (n - 1),
            cx,
            cp,
        )
        out[t] = ReadyChoice(t, True, -tx + (1.0 - tp) * v, tx)
    if not out:
        return None
    # the safest discard (and ``fold``), then folded: each later turn throws the safest
    # other tile held now
    for t in sorted({min(held, key=lambda k: (danger[k][1], k)), fold}):
        if t in out or t not in held:
            continue
        tx = READY_FOLD_DEAL_IN * danger[t][1]
        tp = min(0.9, READY_FOLD_DEAL_IN * danger[t][0])
        rest = sorted(READY_FOLD_DEAL_IN * danger[k][1] for k in held if k != t)
        v = value_after(0.0, 0.0, 0.0, 0.0, rest[0] if rest else tx, 0.0)
        out[t] = ReadyChoice(t, False, -tx + (1.0 - tp) * v, tx)
    return out
