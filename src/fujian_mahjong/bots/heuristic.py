"""HeuristicBot (kind ``heuristic``, 普通): the table-driven player with defence and special
hands (the difficulty ladder, docs/bots.md). ``heuristic-v1`` (bots/heuristic_v1.py) is the
same bot before defence and specials, frozen as the reference.

Rules it follows, in order:

1. Wins are taken (自摸, 放胡, 抢杠, 抢金, 天胡) — except that, holding three golds, a win on
   a discard that pays less than declaring 三金倒 on the next own draw is passed.
   三金倒 is declared at once, unless the profile pays more for 金龙, the hand is ready for
   金龙 (the three golds as a pong of the gold kind) and one more draw is worth the risk:
   then it plays on (三金倒 stays available on every drawn turn). 金坎 is declared when offered.
2. Discards, when nobody threatens and no special is in reach: as ``heuristic-v1`` — the tile
   that leaves the lowest shanten (golds counted as wildcards); ties broken by effective
   tiles (ukeire), then late in the hand by safety, then by keeping connected tiles.
3. Discards otherwise are chosen by expected value: for each candidate, the chance to win
   from the shanten it leaves (a table measured on heuristic-v1 self-play, by live tiles,
   with the effective tiles of a ready hand) times the hand's value by the profile's actual
   scoring (R10: flowers, kongs, golds, 平胡; the value of 金雀, 金龙 and 清一色 when the plan is
   in reach), minus the risk of dealing in (below) times what the discard win would cost.
   Plans: 金雀 (two golds kept as the pair while the natural tiles can still make the
   melds), 金龙 (three golds as a pong), 清一色 (sanming: one suit, golds only as themselves).
4. Defence. The danger model sees only what the seat sees (R12): for each opponent the
   chance that the hand is ready (exposed melds, discards made, middle tiles among the last
   three discards — a hand that throws useful tiles is done with them —, unseen golds), and
   for each kind the chance that it is among a ready hand's waits (discarded by that seat
   already, copies visible, terminal/2-8/middle/honour, how much of that suit the seat threw
   away, a tile three ranks from one of its discards, unseen golds). Both are logistic
   models fitted on heuristic-v1 self-play in all four profiles (bench/ladder.py
   --calibrate). A seat that discarded a gold (self-draw only, R5) or declared 闲金 cannot win
   on a discard and is no danger; a discarded gold is never won on. When the risk outweighs
   the hand's value the bot folds (it gives up shanten for a safe tile); the reason says so
   ("fold: 3s is safe against seat 2's likely ready hand").
5. Claims (chow/pong/kong) as ``heuristic-v1`` (only when they lower the shanten; a kong is
   declined while a 平胡 is possible), except that it makes no claim while folding, a ready
   hand passes a chow or pong that would leave it ready (heuristic-v1 takes it; passing
   keeps the seat's own draw, a chance of a self-draw that every other seat pays, R10;
   ``ready_claims``), and in profiles that play honours (斗斗) it pongs an honour pair
   whenever the shanten does not rise before the hand is ready (an honour pair can only
   grow by a pong).

Honours (R1/R7, ``fuzhou-doudou``): where the profile plays 东南西北中发白, hands are 34
counts and shanten, waits and effective tiles run over all 34 kinds. An honour has no
neighbours (no honour chows), so an isolated honour is the poorest tile to keep and an honour
pair can only grow by a pong.
"""

from __future__ import annotations

import math
from typing import Final

from fujian_mahjong.analysis import need_keys, shanten_keys, split_keys34, tables, waits_keys
from fujian_mahjong.analysis.core import (
    _COMBINED,
    _ID_SHIFT,
    _combined,
    meld_need_keys,
    others_id,
    shanten_split,
    suit_ids,
)
from fujian_mahjong.analysis.tables import POW5, held_ranks, kept_honours_id, kept_id, near_ranks
from fujian_mahjong.bots.base import Decision
from fujian_mahjong.engine.actions import Action
from fujian_mahjong.engine.events import Phase
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.i18n import tile_name
from fujian_mahjong.tiles import flower_sets, is_honour

LATE = 24
_CLAIMS: Final = Phase.CLAIMS  # compiled, a Final is a C static (see engine/game.py)
_SUIT4 = tuple(min(k // 9, 3) for k in range(42))  # suit index, honours (and above) as 3
HONOUR_SLOT = 3  # index of the honour key in a [k0, k1, k2, kh] list


def _en(k: int) -> str:
    """A tile in an English reason as the table names it: ``5 Dots``, ``East wind``
    (i18n.tile_name, the browser's tileName)."""
    return tile_name(k, "en")


def _zh(k: int) -> str:
    """A tile in a Chinese reason as the table names it: ``五饼``, ``东`` (i18n.tile_name)."""
    return tile_name(k, "zh")


def seat_words(seat: int, other: int, n: int) -> tuple[str, str]:
    """Another seat named as the seat being advised sees it (R2: 下家 plays after it, 上家
    before it, 对家 across, or the only other seat of two): (en, zh)."""
    d = (other - seat) % n
    if n == 2 or (n == 4 and d == 2):
        return "the player opposite", "对家"
    if d == 1:
        return "the player on your right", "下家"
    return "the player on your left", "上家"


def _closer(now: int, s: int) -> tuple[str, str]:
    """A claim's effect on the hand in words: (en, zh)."""
    a, a_zh = shanten_words(now)
    b, b_zh = shanten_words(s)
    if s < now:
        if s == 0:
            return f"the hand becomes ready (it was {a})", f"手牌从{a_zh}变为听牌"
        return f"the hand moves to {b} (it was {a})", f"手牌从{a_zh}变为{b_zh}"
    return f"the hand stays {b}", f"手牌仍是{b_zh}"


_ZH_COUNT = ("", "一", "两", "三", "四", "五", "六", "七", "八")


def shanten_words(s: int) -> tuple[str, str]:
    """How far a hand is from ready (its shanten), as players say it: (en, zh), e.g.
    ("2 tiles from ready", "两向听")."""
    if s < 0:
        return "a win", "胡牌"
    if s == 0:
        return "ready", "听牌"
    zh = _ZH_COUNT[s] if s < len(_ZH_COUNT) else str(s)
    return ("1 tile from ready" if s == 1 else f"{s} tiles from ready"), f"{zh}向听"


def _slot(k: int) -> tuple[int, int]:
    """(key index, weight) of one tile of kind k in [k0, k1, k2, kh]."""
    if k < 27:
        return k // 9, POW5[k % 9]
    return HONOUR_SLOT, POW5[k - 27]


def _keys_of(c: list[int], gold: int) -> tuple[list[int], int]:
    """[k0, k1, k2, kh] of the natural tiles and the golds w (27 or 34 counts)."""
    k0, k1, k2, kh, w = split_keys34(c, gold if gold >= 0 else None)
    return [k0, k1, k2, kh], w


def _shanten(c: list[int], gold: int, melds: int) -> int:
    k, w = _keys_of(c, gold)
    return shanten_keys(k[0], k[1], k[2], w, melds, k[3])


# ---------------------------------------------------------------------------- models
# Measured on heuristic-v1 self-play (bench/ladder.py --calibrate): the chance that a seat
# wins the hand after a discard that leaves shanten s (rows 0..4), by live tiles per four
# players (columns: < 15, < 25, < 35, more).
_P_WIN: tuple[tuple[float, ...], ...] = (
    (0.28, 0.39, 0.53, 0.67),
    (0.06, 0.15, 0.265, 0.41),
    (0.013, 0.06, 0.14, 0.21),
    (0.005, 0.015, 0.056, 0.10),
    (0.002, 0.005, 0.02, 0.036),
)
P_SELF_DRAW = 0.25  # share of wins that are self-drawn (heuristic-v1, fuzhou-tcy: 23%)
CLAIM_FOLD = True  # no claim while folding
# P(a seat is ready) = logistic(R0 + R_MELD·melds + R_DISC·min(discards, 12) + R_MID·middle
# tiles (ranks 3-7) among its last three discards + R_GOLD·unseen golds)
R0, R_MELD, R_DISC, R_MID, R_GOLD = -4.072, 1.182, 0.112, 0.663, 0.179
# P(kind t is among a ready seat's waits) = logistic(W0 + W_OWN·(the seat discarded t)
# + W_VIS[min(copies visible, 3)] + W_RANK[t] + W_SUIT·(share of its discards in t's suit)
# + W_SUJI·(a discard three ranks from t) + W_GOLD·unseen golds)
W0, W_OWN, W_SUIT, W_SUJI, W_GOLD = -1.736, -2.748, -0.432, -0.321, 0.15
W_VIS = (0.0, -0.284, -0.554, -1.062)
W_RANK = tuple(
    (-2.481 if k >= 27 else -0.761 if k % 9 in (0, 8) else -0.38 if k % 9 in (1, 7) else 0.0)
    for k in range(34)
)
# Defence acts only while some opponent is at least this likely ready. Measured (docs/bots.md):
# defending against every faint threat (0.12) cost more wins than the deal-ins it saved
# (a safe tile kept now is a dangerous one kept for later); from 0.4 up it pays.
THREAT = 0.55
DECLINE_MARGIN = 1.2  # a win is passed for a special worth this many times more
# A candidate's value: (attack + plan)·(1 − SURVIVE·P(deal in)) − DEAL_IN_COST·P(deal in)·cost
DEAL_IN_COST = 1.0
SURVIVE = 1.0
PLAN_SHARE = 0.5  # of the wins a plan at shanten s makes, the share that score the special
JQ_PURE_GOLDS = 2  # sanming 金雀: exactly two golds, both the pair
GOLDS_IN_READY_HAND = 0.8  # mean golds of a ready hand (heuristic-v1 self-play)
# Whether a ready hand takes a chow or pong that leaves it ready (heuristic-v1 does) or passes
# and keeps its draw: a chow takes the place of the seat's draw, a pong skips to the seat
# without one, and a self-draw is paid by every other seat (R10). Passing measured +1.0
# points a hand for this bot and +1.4 for the 高手, 1 v 3 against heuristic-v1 (docs/bots.md)
READY_CLAIMS = False
MIN_READY = 0.02  # an opponent less likely ready than this is left out of the danger


def _logistic(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _ready_chance(melds: int, disc: list[int], ug: int) -> float:
    """The chance that a seat with ``melds`` exposed melds and discards ``disc`` is ready."""
    mid = 0
    for k in disc[-3:]:
        if k < 27 and 2 <= k % 9 <= 6:
            mid += 1
    return _logistic(R0 + R_MELD * melds + R_DISC * min(len(disc), 12) + R_MID * mid + R_GOLD * ug)


# the most a seat without an exposed meld can score on the ready model (12+ discards, the
# last three middle tiles, three golds unseen)
_NO_MELD_MAX = 1.0 / (1.0 + math.exp(-(R0 + R_DISC * 12 + R_MID * 3 + R_GOLD * 3)))


def quick_threat(view: SeatView, threat: float = THREAT) -> float:
    """The largest chance that an opponent who may win on a discard is ready, cheaply (the
    unseen golds counted from the seats that discarded one): no defence below ``threat``
    (a seat without an exposed meld is left out when it could never reach it)."""
    gold = view.gold
    ug = 3 - (view.counts[gold] if gold >= 0 else 0)
    opps: list[int] = []
    for o in range(view.players):
        if o == view.seat:
            continue
        if view.gold_discarded(o):
            ug -= 1
        elif not view.xian_jin(o):
            opps.append(o)
    top = 0.0
    for o in opps:
        m = view.exposed(o)
        if m == 0 and threat > _NO_MELD_MAX:
            continue
        p = _ready_chance(m, view.discards(o), max(0, ug))
        if p > top:
            top = p
    return top


def _p_win(s: int, live4: int, uke: int = -1) -> float:
    """The chance to win the hand from shanten ``s`` with ``live4`` live tiles (per four
    players); for shanten 0 to 2 with ``uke`` effective tiles known, scaled by them (the
    same self-play: a typical ready hand has 9.5, one from ready 18, two from ready 26)."""
    if s < 0:
        return 1.0
    col = 0 if live4 < 15 else 1 if live4 < 25 else 2 if live4 < 35 else 3
    p = _P_WIN[min(s, 4)][col]
    if uke >= 0:
        if s == 0:
            p *= min(1.5, max(0.4, 0.2 + 0.08 * uke))
        elif s == 1:
            p *= min(1.7, max(0.3, 0.05 + 0.058 * uke))
        elif s == 2:
            p *= min(1.9, max(0.25, 0.045 * uke - 0.25))
    return min(p, 0.95)


def pay(scoring: str, base: int, f: int, g: float, special: int, self_draw: bool) -> float:
    """R10: what one payer pays for a win with flower term ``f`` (fl + 2·sets + mk + 2·ak;
    sanming fl + mk + 2·ak), ``g`` golds and ``special`` (the special's value; sanming adds
    specials, the others take the largest), the streak left out."""
    if scoring == "tcy":
        return (f + g + 5) * 2.0 + special
    if scoring == "bianfeng":
        h = f + g
        if special:
            p = base * special + 2.0 * base * h
            return p if self_draw else 2.0 * p
        return 2.0 * (base + base * h)
    if scoring == "doudou":
        b = 1.0 + g + f
        t = 2.0 * b + special if special else (2.0 * b if self_draw else b)
        t = min(t, 202.0)
        return t * base * (1.0 if self_draw else 2.0)
    sub = f + g + base  # sanming
    return (2.0 * sub if self_draw else sub) + special


class _Opp:
    """What this seat can see of one opponent that could win on its discard (R12)."""

    __slots__ = ("cost", "disc", "frac", "melds", "p", "seat")

    def __init__(
        self, seat: int, p: float, cost: float, disc: set[int], frac: list[float], melds: int
    ) -> None:
        self.seat = seat
        self.p = p  # chance that the hand is ready
        self.cost = cost  # what a discard win would cost this seat
        self.disc = disc
        self.frac = frac  # share of its discards per suit (honours as suit 3)
        self.melds = melds

    def wait(self, t: int, vis: list[int], ug: int) -> float:
        """The chance that kind t is among the waits of this seat's hand if it is ready."""
        x = W0 + W_VIS[min(vis[t], 3)] + W_RANK[t] + W_GOLD * ug
        if t in self.disc:
            x += W_OWN
        if t < 27:
            x += W_SUIT * self.frac[t // 9]
            r = t % 9
            b = t - r
            if (r >= 3 and b + r - 3 in self.disc) or (r <= 5 and b + r + 3 in self.disc):
                x += W_SUJI
        else:
            x += W_SUIT * self.frac[3]
        return _logistic(x)


class _Table:
    """Per decision: the profile's scoring and the seat's own win value, the opponents."""

    __slots__ = ("base", "n", "opps", "scoring", "threat", "ug", "vis")

    def __init__(self, view: SeatView) -> None:
        prof = view._g.profile
        self.scoring = prof.scoring
        self.base = prof.base
        self.n = view.players
        vis = view.visible_counts()
        self.vis = vis
        gold = view.gold
        self.ug = max(0, 4 - vis[gold]) if gold >= 0 else 0
        self.opps: list[_Opp] = []
        self.threat = 0.0
        for o in range(self.n):
            if o == view.seat or view.gold_discarded(o) or view.xian_jin(o):
                continue  # R5/R8.4: that seat cannot win on a discard
            disc = view.discards(o)
            m = view.exposed(o)
            nd = len(disc)
            p = _ready_chance(m, disc, self.ug)
            if p < MIN_READY:
                continue  # no danger worth the work
            per = [0.0, 0.0, 0.0, 0.0]
            for k in disc:
                per[_SUIT4[k]] += 1.0
            if nd:
                per = [x / nd for x in per]
            f, special = self._flower_term(view, o, GOLDS_IN_READY_HAND)
            cost = pay(self.scoring, self.base, f, GOLDS_IN_READY_HAND, special, False)
            self.opps.append(_Opp(o, p, cost, set(disc), per, m))
            if p > self.threat:
                self.threat = p

    def _flower_term(self, view: SeatView, s: int, golds: float) -> tuple[int, int]:
        """(flower term, 平胡/无水胡 special) of seat s's win as its flowers and kongs stand."""
        fl = view.flowers(s)
        mk = ak = 0
        for t, _tiles in view.melds(s):
            if t == "kong_concealed":
                ak += 1
            elif t.startswith("kong"):
                mk += 1
        n = len(fl)
        if self.scoring == "sanming":
            f = n + mk + 2 * ak
        else:
            f = n + mk + 2 * ak
            if n >= 4:
                f += 2 * flower_sets(fl, view.honours_playable)
        special = 0
        if mk + ak == 0:
            has = view.has_special
            if n == 0 and "ping_hu" in has:
                special = view.special_value("ping_hu")
            elif n == 1 and "ping_hu_one_flower" in has:
                special = view.special_value("ping_hu_one_flower")
            elif n == 0 and "wu_shui_hu" in has and golds < 1:
                special = view.special_value("wu_shui_hu")
        return f, special

    def value(self, view: SeatView, golds: int, special: int = 0) -> float:
        """The seat's expected points for a win (self-drawn P_SELF_DRAW of the time) with
        ``special`` on top of its 平胡 (added in sanming, the larger one elsewhere)."""
        f, ph = self._flower_term(view, view.seat, golds)
        if self.scoring == "sanming":
            sp = ph + special
        else:
            sp = max(ph, special)
        sd = pay(self.scoring, self.base, f, golds, sp, True) * (self.n - 1)
        dw = pay(self.scoring, self.base, f, golds, sp, False)
        return P_SELF_DRAW * sd + (1.0 - P_SELF_DRAW) * dw

    def danger(self, t: int, gold: int) -> tuple[float, float, int]:
        """(chance that discarding t deals in, its expected cost, the seat it fears most)."""
        if t == gold:
            return 0.0, 0.0, -1  # R5: a discarded gold is never won on
        d = 0.0
        cost = 0.0
        worst = -1
        top = 0.0
        for o in self.opps:
            x = o.p * o.wait(t, self.vis, self.ug)
            d += x
            cost += x * o.cost
            if x * o.cost > top:
                top = x * o.cost
                worst = o.seat
        return d, cost, worst

    def opp(self, seat: int) -> _Opp | None:
        for o in self.opps:
            if o.seat == seat:
                return o
        return None


def _flush_suit(view: SeatView, c: list[int], gold: int) -> int:
    """Sanming 清一色 (R7: one suit, golds only as themselves): the suit worth aiming at, or
    -1. Every exposed meld must be of it, no gold of another suit may be held (sanming
    forbids discarding a gold), and at least 9 of the seat's suited tiles must be of it."""
    if "qing_yi_se" not in view.has_special:
        return -1
    per = [0, 0, 0]
    for k in range(27):
        per[k // 9] += c[k]
    suit = -1
    for _t, tiles in view.melds(view.seat):
        for k in tiles:
            if k >= 27:
                return -1
            if suit >= 0 and k // 9 != suit:
                return -1
            suit = k // 9
            per[suit] += 1
    if suit < 0:
        suit = max(range(3), key=lambda i: per[i])
    if gold >= 0 and c[gold] and gold // 9 != suit:
        return -1
    if per[suit] < 9:
        return -1
    return suit


def _flush_complete(c: list[int], suit: int, gold: int) -> bool:
    """A 3k+2 hand (counts) that is 清一色 in ``suit`` as it stands: no tile of another suit
    and its tiles (golds as themselves) complete."""
    key = 0
    for k in range(len(c)):
        if c[k] and (k >= 27 or k // 9 != suit):
            return False
    for r in range(9):
        key += c[9 * suit + r] * POW5[r]
    return need_keys(key, 0, 0, 0) <= 0


def _flush_shanten(c: list[int], suit: int, melds: int) -> int:
    """Shanten toward 清一色 in ``suit``: only its tiles count (golds as themselves)."""
    key = 0
    for r in range(9):
        key += c[9 * suit + r] * POW5[r]
    k = [0, 0, 0]
    k[suit] = key
    return shanten_keys(k[0], k[1], k[2], 0, melds, 0)


class HeuristicBot:
    """Shanten + effective tiles, with defence (a danger model and fold/push by expected
    value) and the special hands of the profile; explains each decision."""

    name = "heuristic"

    def __init__(
        self, seed: int | str = 0, *, threat: float = THREAT, ready_claims: bool = READY_CLAIMS
    ) -> None:
        self.seed = seed
        # defence acts only while some opponent is at least this likely ready (THREAT; the
        # 高手 defends earlier, bots/strong.py STRONG_THREAT)
        self.threat = threat
        # whether a ready hand takes a chow or pong that keeps it ready (a new wait) or
        # passes it, keeping its own draw (READY_CLAIMS)
        self.ready_claims = ready_claims

    # ------------------------------------------------------------------ entry point

    def act(self, view: SeatView) -> Decision:
        legal = view.legal
        by_type: dict[str, list[Action]] = {}
        for a in legal:
            by_type.setdefault(a.type, []).append(a)
        if "win" in by_type:
            d = self._decline_for_three_golds(view, by_type)
            if d is None:
                d = self._decline_for_special(view)
            if d is not None:
                return d
            return Decision(by_type["win"][0], "win: the hand is complete", "胡牌: 牌已成")
        if "rob_gold" in by_type:
            return Decision(
                by_type["rob_gold"][0], "rob the gold (抢金): the hand is ready", "抢金: 已听牌"
            )
        if "three_golds" in by_type:
            d = self._three_golds(view, by_type["three_golds"][0])
            if d is not None:
                return d
        if view.phase is _CLAIMS:
            return self._claim(view, by_type)
        if "jin_kan" in by_type:
            return Decision(
                by_type["jin_kan"][0],
                "declare Gold gap (金坎): a drawn gold wins for +70",
                "金坎: 摸到金即胡 (+70)",
            )
        if "discard" not in by_type:
            # last group (sanming kong choice) or a forced pass
            return self._kong_or_pass(view, by_type)
        return self._turn(view, by_type)

    # ------------------------------------------------------------------ specials

    def _decline_for_three_golds(
        self, view: SeatView, by: dict[str, list[Action]]
    ) -> Decision | None:
        """Holding three golds, a win on a discard pays less than 三金倒 declared on the next
        own draw (a self-draw: every other seat pays): pass it while that draw is likely."""
        gold = view.gold
        if view.phase is not _CLAIMS or gold < 0 or view.counts[gold] != 3:
            return None
        if "san_jin_dao" not in view.has_special or view.live * 4 < view.players * 12:
            return None
        tb = _Table(view)
        sjd = view.special_value("san_jin_dao")
        f, ph = tb._flower_term(view, view.seat, 3)
        best = sjd + ph if tb.scoring == "sanming" else max(sjd, ph)
        three = pay(tb.scoring, tb.base, f, 3, best, True) * (tb.n - 1)
        jl = view.special_value("jin_long") if "jin_long" in view.has_special else 0
        here = pay(tb.scoring, tb.base, f, 3, max(best, best - sjd + jl if jl else 0), False)
        if "three_golds" in by and three > here:
            # 斗斗 (R7): 三金倒 on the next player's discard, scored as a self-draw
            return Decision(
                by["three_golds"][0],
                f"declare Three golds (三金倒) for {three:.0f} rather than win the discard ({here:.0f})",
                f"三金倒 ({three:.0f}), 不胡此张 ({here:.0f})",
            )
        risk = min(0.9, sum(o.p for o in tb.opps) * 0.3)
        if three * (1.0 - risk) <= here:
            return None
        return Decision(
            Action("pass"),
            f"pass the win: Three golds (三金倒) on your next draw pays {three:.0f} "
            f"(this win {here:.0f})",
            f"过胡: 下一摸三金倒得 {three:.0f} (此胡 {here:.0f})",
        )

    def _decline_for_special(self, view: SeatView) -> Decision | None:
        """A plain win passed for 金雀 or 清一色: when the hand is (or, after a discard,
        stays) ready for the special and the chance to still make it, times what it pays,
        is worth more than this win (R6: a win may be declined)."""
        gold = view.gold
        if gold < 0 or view.live * 4 < view.players * 16:
            return None
        c = view.counts
        w = c[gold]
        has = view.has_special
        pure = view._g.profile.jin_que_pure
        jq = w >= 2 and "jin_que" in has and not (pure and w != JQ_PURE_GOLDS)
        flush = _flush_suit(view, c, gold)
        if not jq and flush < 0:
            return None
        claims = view.phase is _CLAIMS
        tile = view.claim[1] if claims else -1
        keys = [view.keys[0], view.keys[1], view.keys[2], view.kh]
        if claims:
            c[tile] += 1
            i, wt = _slot(tile)
            keys[i] += wt
        # is this win the special already? (it scores the most favourable reading, R7)
        if jq and meld_need_keys(keys[0], keys[1], keys[2], keys[3]) <= w - 2:
            return None
        if flush >= 0 and _flush_complete(c, flush, gold):
            return None
        tb = _Table(view)
        vis = tb.vis
        unseen = max(1, sum(max(0, 4 - vis[k]) for k in range(view.playable_kinds)))
        # the special's outs after the best discard (a self-draw: the hand has 3k+2 tiles)
        outs = 0
        best_t = -1
        rest = [k for k in range(len(c)) if c[k] and k != gold] if not claims else [-1]
        if claims:
            c[tile] -= 1
            i, wt = _slot(tile)
            keys[i] -= wt
        for t in rest:
            k2 = list(keys)
            if t >= 0:
                i, wt = _slot(t)
                k2[i] -= wt
                c[t] -= 1
            n_out = 0
            for k in range(view.playable_kinds):
                left = max(0, 4 - vis[k])
                if not left:
                    continue
                if k == gold:
                    if jq and not pure and meld_need_keys(k2[0], k2[1], k2[2], k2[3]) <= w - 1:
                        n_out += left
                    continue
                i, wt = _slot(k)
                k3 = list(k2)
                k3[i] += wt
                if jq and meld_need_keys(k3[0], k3[1], k3[2], k3[3]) <= w - 2:
                    n_out += left
                elif flush >= 0 and k // 9 == flush:
                    c[k] += 1
                    if _flush_complete(c, flush, gold):
                        n_out += left
                    c[k] -= 1
            if t >= 0:
                c[t] += 1
            if n_out > outs:
                outs, best_t = n_out, t
        if outs == 0:
            return None
        # per round: a draw, and the others' discards (they keep what they can use)
        q = min(0.8, (1.0 + 0.5 * (tb.n - 1)) * outs / unseen)
        h = min(0.9, 0.05 + 0.3 * sum(o.p for o in tb.opps))
        rounds = view.live // max(1, tb.n)
        p = q / (q + h) * (1.0 - ((1.0 - q) * (1.0 - h)) ** rounds)
        key = "jin_que" if jq else "qing_yi_se"
        special = tb.value(view, w, view.special_value(key))
        f, ph = tb._flower_term(view, view.seat, w)
        if claims:
            now = pay(tb.scoring, tb.base, f, w, ph, False)
        else:
            now = pay(tb.scoring, tb.base, f, w, ph, True) * (tb.n - 1)
        if p * special <= DECLINE_MARGIN * now:
            return None
        label = "金雀" if jq else "清一色"
        label_en = "Gold sparrow (金雀)" if jq else "One suit (清一色)"
        keep = "keep the two golds as the pair: " if jq else ""
        keep_zh = "留两金作将, " if jq else ""
        if claims:
            act = Action("pass")
            en = f"pass the win ({now:.0f}): {keep}ready for {label_en}"
            zh = f"过胡 ({now:.0f}): {keep_zh}听{label}"
        else:
            act = Action("discard", best_t)
            en = (
                f"discard {_en(best_t)}, passing the self-drawn win ({now:.0f}): "
                f"{keep}ready for {label_en}"
            )
            zh = f"打 {_zh(best_t)}, 不自摸 ({now:.0f}): {keep_zh}听{label}"
        if act not in view.legal:
            return None
        return Decision(
            act,
            f"{en} with {outs} tiles, worth about {p * special:.0f}",
            f"{zh} ({outs} 张), 期望约 {p * special:.0f}",
        )

    def _three_golds(self, view: SeatView, act: Action) -> Decision | None:
        """Declare 三金倒, or play on for 金龙 while the hand is ready for it (the three golds
        as a pong of the gold kind) and one more draw is worth the risk."""
        has = view.has_special
        if "jin_long" not in has or view.phase is _CLAIMS:
            return Decision(act, "declare Three golds (三金倒)", "三金倒")
        if view.live * 4 < view.players * 12:
            return Decision(act, "declare Three golds (三金倒)", "三金倒")
        c = view.counts
        gold = view.gold
        melds = 5 - view.exposed(view.seat)
        keys = [view.keys[0], view.keys[1], view.keys[2], view.kh]
        # the hand holds 3k+2 tiles: the best 金龙 shanten after a natural discard
        best = 99
        best_keys = keys
        for k in range(len(c)):
            if c[k] and k != gold:
                i, wt = _slot(k)
                k2 = list(keys)
                k2[i] -= wt
                s = shanten_keys(k2[0], k2[1], k2[2], 0, melds - 1, k2[3])
                if s < best:
                    best, best_keys = s, k2
        if best > 0:
            return Decision(act, "declare Three golds (三金倒)", "三金倒")
        tb = _Table(view)
        vis = tb.vis
        outs = 0
        for k in range(view.playable_kinds):
            if k == gold:
                continue
            i, wt = _slot(k)
            k2 = list(best_keys)
            k2[i] += wt
            if shanten_keys(k2[0], k2[1], k2[2], 0, melds - 1, k2[3]) < 0:
                outs += max(0, 4 - vis[k])
        unseen = max(1, sum(max(0, 4 - v) for v in vis[: view.playable_kinds]))
        p = outs / unseen
        sjd = view.special_value("san_jin_dao")
        jl = view.special_value("jin_long")
        f, ph = tb._flower_term(view, view.seat, 3)
        if tb.scoring == "sanming":
            v3 = pay(tb.scoring, tb.base, f, 3, sjd + ph, True) * (tb.n - 1)
            vj = pay(tb.scoring, tb.base, f, 3, sjd + jl + ph, True) * (tb.n - 1)
        else:
            v3 = pay(tb.scoring, tb.base, f, 3, max(sjd, ph), True) * (tb.n - 1)
            vj = pay(tb.scoring, tb.base, f, 3, max(jl, ph), True) * (tb.n - 1)
        h = min(0.9, 0.05 + 0.3 * sum(o.p for o in tb.opps))
        cost = max((o.cost for o in tb.opps), default=0.0)
        if p * vj + (1 - p) * ((1 - h) * v3 - h * cost) <= v3:
            return Decision(act, "declare Three golds (三金倒)", "三金倒")
        return None  # play on for 金龙

    def _ping_hu_possible(self, view: SeatView) -> bool:
        specials = view.has_special
        if "ping_hu" not in specials and "wu_shui_hu" not in specials:
            return False
        fl = len(view.flowers(view.seat))
        if any(t.startswith("kong") for t, _ in view.melds(view.seat)):
            return False
        return fl == 0 or (fl == 1 and "ping_hu_one_flower" in specials)

    # ------------------------------------------------------------------ claims

    def _folding(self, view: SeatView, now: int) -> _Opp | None:
        """The seat to fold against when this hand is two or more from ready and an
        opponent is likely ready (no claim then: it would cost safe tiles), else None."""
        if now < 2 or not CLAIM_FOLD or quick_threat(view, self.threat) < self.threat:
            return None
        tb = _Table(view)
        if tb.threat < self.threat:
            return None
        return max(tb.opps, key=lambda o: o.p)

    def _claim(self, view: SeatView, by: dict[str, list[Action]]) -> Decision:
        pass_ = Action("pass")
        _, tile = view.claim
        c = view.counts
        gold = view.gold
        melds = 5 - view.exposed(view.seat)
        now = _shanten(c, gold, melds)
        best: tuple[int, Action, str, str] | None = None
        for a in by.get("kong", []):
            if self._ping_hu_possible(view):
                continue
            c2 = list(c)
            c2[tile] -= 3
            s = _shanten(c2, gold, melds - 1)
            if s <= now:
                best = (
                    s - 1,
                    a,
                    f"kong {_en(tile)}: one more flower point, "
                    f"the hand stays {shanten_words(s)[0]}",
                    f"杠 {_zh(tile)}: 多一花, 手牌仍是{shanten_words(s)[1]}",
                )
        honour_pong = view.honours_playable and is_honour(tile)
        # a claim that leaves the shanten as it is: only by a ready hand that takes
        # claims, or for an honour pong before the hand is ready
        keep = self.ready_claims or now > 0
        passed = False  # a ready-keeping chow or pong passed (the reason says so)
        for a in by.get("pong", []):
            c2 = list(c)
            c2[tile] -= 2
            s = _shanten(c2, gold, melds - 1)
            passed = passed or (s == now == 0 and not keep)
            if s < now or (s == now == 0 and keep) or (honour_pong and s <= now and keep):
                if best is None or s < best[0]:
                    best = (
                        s,
                        a,
                        f"pong {_en(tile)}: {_closer(now, s)[0]}",
                        f"碰 {_zh(tile)}: {_closer(now, s)[1]}",
                    )
        for a in by.get("chow", []):
            if is_honour(tile) or any(is_honour(t) for t in a.tiles):
                continue  # R7: honours make pongs and pairs, never chows
            c2 = list(c)
            for t in a.tiles:
                c2[t] -= 1
            s = _shanten(c2, gold, melds - 1)
            passed = passed or (s == now == 0 and not keep)
            if s < now or (s == now == 0 and keep):
                if best is None or s < best[0]:
                    pair = " and ".join(_en(t) for t in a.tiles)
                    pair_zh = "".join(_zh(t) for t in a.tiles)
                    best = (
                        s,
                        a,
                        f"chow {_en(tile)} with {pair}: {_closer(now, s)[0]}",
                        f"吃 {_zh(tile)} (用 {pair_zh}): {_closer(now, s)[1]}",
                    )
        if best is not None:
            fold = self._folding(view, best[0])
            if fold is not None:
                who, who_zh = seat_words(view.seat, fold.seat, view.players)
                far, far_zh = shanten_words(max(0, best[0]))  # a kong ranks one lower
                return Decision(
                    pass_,
                    f"fold: no chow, pong or kong — {who} is likely ready ({fold.p:.0%}) "
                    f"and the claim would leave your hand only {far}",
                    f"弃和防守: {who_zh}可能已听 (约 {fold.p:.0%}), 吃碰后也只是{far_zh}, 不吃碰杠",
                )
            return Decision(best[1], best[2], best[3])
        if passed:
            return Decision(
                pass_,
                "pass: the hand is ready; a claim would only change the wait and give up a draw",
                "过: 已听牌, 吃碰只换听口, 还少摸一张",
            )
        return Decision(
            pass_,
            f"pass: no claim brings the hand closer to ready (it is {shanten_words(now)[0]})",
            f"过: 吃碰杠都不能更快听牌 (现在{shanten_words(now)[1]})",
        )

    def _kong_or_pass(self, view: SeatView, by: dict[str, list[Action]]) -> Decision:
        for key in ("concealed_kong", "added_kong"):
            if by.get(key) and not self._ping_hu_possible(view):
                return Decision(
                    by[key][0], "kong: more flower points, replacement draw", "杠: 多花番, 补牌"
                )
        if "pass" in by:
            return Decision(by["pass"][0], "pass", "过")
        return Decision(next(iter(by.values()))[0], "only choice", "唯一选择")

    # ------------------------------------------------------------------ own turn

    def _turn(self, view: SeatView, by: dict[str, list[Action]]) -> Decision:
        c = view.counts
        gold = view.gold
        melds = 5 - view.exposed(view.seat)
        # kongs first (they keep the shape and add flower points) unless 平胡 is possible
        if not self._ping_hu_possible(view):
            cur = None
            for a in by.get("concealed_kong", []) + by.get("added_kong", []):
                cur = _shanten(c, gold, melds) if cur is None else cur
                c2 = list(c)
                if a.type == "concealed_kong":
                    c2[a.tile] -= 4
                    s = _shanten(c2, gold, melds - 1)
                else:
                    c2[a.tile] -= 1
                    s = _shanten(c2, gold, melds)
                if s <= cur:
                    return Decision(
                        a,
                        f"{a.type.replace('_', ' ')} {_en(a.tile)}: more flower points and "
                        f"a replacement draw; the hand stays {shanten_words(s)[0]}",
                        f"{'暗杠' if a.type == 'concealed_kong' else '加杠'} {_zh(a.tile)}: "
                        f"多花番, 补一张; 手牌仍是{shanten_words(s)[1]}",
                    )
        discards = by["discard"]
        penal = view.gold_discard_rule != "free"
        cands = [a for a in discards if not (penal and a.tile == gold)] or discards
        # the engine keeps the natural tiles' keys (R7): no recount from the 34 counts
        k3 = view.keys
        keys = [k3[0], k3[1], k3[2], view.kh]
        w = c[gold] if gold >= 0 else 0
        # The untouched suits are combined once per suit, then each candidate
        # combines only the suit it changes (the same numbers as shanten_keys).
        # From the one combined vector: shanten (melds + a pair: slot 6 + melds), toward
        # 金雀 (the golds are the pair: the melds alone, slot melds) and toward 金龙 (three
        # golds as a pong: melds - 1 + a pair from natural tiles, slot 5 + melds).
        ids = suit_ids(keys[0], keys[1], keys[2], keys[3])
        others: list[int] = [-1, -1, -1, -1]
        at = 6 + melds
        base_s = 3 * melds + 1 - w
        has = view.has_special
        jq = w >= 2 and "jin_que" in has
        if jq and w != JQ_PURE_GOLDS and view._g.profile.jin_que_pure:
            jq = False
        jl = w == 3 and "jin_long" in has
        scored: list[tuple[int, Action]] = []
        plan_s: list[tuple[int, int]] = []  # per candidate: (金雀 shanten, 金龙 shanten)
        for a in cands:
            t = a.tile
            if t == gold:
                s = shanten_keys(keys[0], keys[1], keys[2], w - 1, melds, keys[3])
                plan_s.append((99, 99))
            else:
                i, wt = _slot(t)
                oid = others[i]
                if oid < 0:
                    oid = others[i] = others_id(ids, i)
                vid = kept_honours_id(keys[3] - wt) if i == HONOUR_SLOT else kept_id(keys[i] - wt)
                v = _COMBINED.get(oid * _ID_SHIFT + vid)
                if v is None:
                    v = _combined(oid, vid)
                s = base_s - v[at]
                if jq or jl:
                    plan_s.append(
                        (
                            base_s - v[melds] if jq else 99,
                            3 * melds - 2 - v[5 + melds] if jl else 99,
                        )
                    )
            scored.append((s, a))
        best_s = min(s for s, _ in scored)
        flush = _flush_suit(view, c, gold)
        top = [a for s, a in scored if s == best_s]
        if len(set(a.tile for a in cands)) > 1:
            plan = jq or jl or flush >= 0
            if plan:
                # a plan decides only where a discard off the lowest shanten gets closer to
                # the special than every lowest-shanten one; else the lowest-shanten
                # discards closest to it are ranked as heuristic-v1 ranks them
                pv = self._plan_shanten(c, melds, scored, plan_s, jq, jl, flush)
                near = min(pv[j] for j, (s, _a) in enumerate(scored) if s == best_s)
                plan = min(pv) < near
                if not plan:
                    top = [a for j, (s, a) in enumerate(scored) if s == best_s and pv[j] == near]
            if plan or quick_threat(view, self.threat) >= self.threat:
                tb = _Table(view)
                return self._by_value(
                    view, tb, c, keys, w, melds, scored, best_s, plan_s, jq, jl, flush
                )
        if len(top) == 1:
            a = top[0]
            return Decision(
                a,
                f"discard {_en(a.tile)}: the only discard that leaves the hand "
                f"{shanten_words(best_s)[0]}",
                f"打 {_zh(a.tile)}: 只有打它才"
                + ("能听牌" if best_s == 0 else f"是{shanten_words(best_s)[1]}"),
            )
        danger = self._danger(view) if view.live < LATE else None
        ranked = self._rank(view, c, keys, w, gold, melds, best_s, top, None, danger)
        _score, a, uke = ranked[0]
        return self._plain_reason(view, c, a, best_s, uke, None, danger)

    @staticmethod
    def _plan_shanten(
        c: list[int],
        melds: int,
        scored: list[tuple[int, Action]],
        plan_s: list[tuple[int, int]],
        jq: bool,
        jl: bool,
        flush: int,
    ) -> list[int]:
        """Per candidate discard: its shanten toward the nearest special in reach."""
        out: list[int] = []
        base = _flush_shanten(c, flush, melds) if flush >= 0 else 99
        for j, (_s, a) in enumerate(scored):
            v = 99
            if jq or jl:
                sj, sl = plan_s[j]
                v = min(sj if jq else 99, sl if jl else 99)
            if flush >= 0:
                t = a.tile
                sf = base
                if t < 27 and t // 9 == flush:
                    c[t] -= 1
                    sf = _flush_shanten(c, flush, melds)
                    c[t] += 1
                v = min(v, sf)
            out.append(v)
        return out

    def _rank(
        self,
        view: SeatView,
        c: list[int],
        keys: list[int],
        w: int,
        gold: int,
        melds: int,
        best_s: int,
        top: list[Action],
        tb: _Table | None,
        danger: list[float] | None = None,
    ) -> list[tuple[float, Action, int]]:
        """heuristic-v1's order of the lowest-shanten discards: effective tiles, then
        (``danger``: heuristic-v1's late-hand risk per kind) safety, then connected tiles
        kept; (score, action, ukeire), best first."""
        visible = tb.vis if tb is not None else view.visible_counts()
        honours = view.honours_playable
        ranked: list[tuple[float, Action, int]] = []
        for a in top:
            c[a.tile] -= 1
            if best_s <= 1:
                t = a.tile
                after = list(keys)
                wa = w
                if t == gold:
                    wa -= 1
                else:
                    i, wt = _slot(t)
                    after[i] -= wt
                uke = self._ukeire(c, gold, melds, best_s, visible, honours, after, wa)
            else:
                uke = 0
            c[a.tile] += 1
            value = self._tile_value(c, a.tile, gold)
            score = uke * 10 - value
            if danger is not None:
                score -= danger[a.tile] * 6
            ranked.append((score, a, uke))
        ranked.sort(key=lambda x: -x[0])
        return ranked

    def _plain_reason(
        self,
        view: SeatView,
        c: list[int],
        a: Action,
        best_s: int,
        uke: int,
        tb: _Table | None,
        danger: list[float] | None = None,
    ) -> Decision:
        far, far_zh = shanten_words(best_s)
        why = f"discard {_en(a.tile)}: leaves the hand {far}"
        why_zh = f"打 {_zh(a.tile)}: 打后{far_zh}"
        if best_s <= 1:
            win = "win" if best_s == 0 else "get ready"
            why += f", {uke} tiles left to {win} with"
            why_zh += f", {'胡' if best_s == 0 else '进'}张 {uke} 张"
        if is_honour(a.tile) and c[a.tile] == 1:
            why += ", an isolated honour (pong or pair only)"
            why_zh += ", 孤张字牌 (只能碰或作将)"
        if view.live >= LATE:
            safe = False
        elif tb is not None:
            safe = tb.danger(a.tile, view.gold)[0] < 0.01
        else:
            safe = (danger if danger is not None else self._danger(view))[a.tile] == 0
        if safe:
            why += ", safe late in the hand"
            why_zh += ", 后期安全牌"
        return Decision(a, why, why_zh)

    def _by_value(
        self,
        view: SeatView,
        tb: _Table,
        c: list[int],
        keys: list[int],
        w: int,
        melds: int,
        scored: list[tuple[int, Action]],
        best_s: int,
        plan_s: list[tuple[int, int]],
        jq: bool,
        jl: bool,
        flush: int,
    ) -> Decision:
        """Expected value per discard: the chance to win from the shanten left times the
        hand's value, plus what a special adds where it is in reach, minus the risk of
        dealing in times its cost. Defence decides when it changes heuristic-v1's choice."""
        gold = view.gold
        live4 = view.live * 4 // max(1, tb.n)
        v_n = tb.value(view, w)
        d_jq = d_jl = d_fl = 0.0
        if jq:
            d_jq = tb.value(view, w, view.special_value("jin_que")) - v_n
        if jl:
            sp = view.special_value("jin_long")
            if tb.scoring == "sanming":
                sp += view.special_value("san_jin_dao")
            d_jl = tb.value(view, w, sp) - v_n
        fl_s0 = 99
        if flush >= 0:
            d_fl = tb.value(view, w, view.special_value("qing_yi_se")) - v_n
            fl_s0 = _flush_shanten(c, flush, melds)
        top = [a for s, a in scored if s == best_s]
        ranked = self._rank(view, c, keys, w, gold, melds, best_s, top, tb)
        uke_of = {a.tile: u for _sc, a, u in ranked} if best_s <= 1 else {}
        order = {a.tile: i for i, (_sc, a, _u) in enumerate(ranked)}
        rows: list[tuple[float, float, float, float, int, Action, int, int]] = []
        seen: set[int] = set()
        for j, (s, a) in enumerate(scored):
            t = a.tile
            if t in seen:
                continue
            seen.add(t)
            # effective tiles of the lowest-shanten discards (heuristic-v1's ranking); the
            # others (folds) take the table's mean for their shanten
            uke = uke_of.get(t, -1)
            attack = _p_win(s, live4, uke) * v_n
            plan = 0.0
            ps = 99
            if jq or jl:
                sj, sl = plan_s[j]
                if jq:
                    plan += PLAN_SHARE * _p_win(sj, live4) * d_jq
                    ps = sj
                if jl:
                    plan += PLAN_SHARE * _p_win(sl, live4) * d_jl
                    ps = min(ps, sl)
            if flush >= 0:
                sf = fl_s0
                if t < 27 and t // 9 == flush:
                    c[t] -= 1
                    sf = _flush_shanten(c, flush, melds)
                    c[t] += 1
                plan += PLAN_SHARE * _p_win(sf, live4) * d_fl
                ps = min(ps, sf)
            d, cost, worst = tb.danger(t, gold) if tb.threat >= self.threat else (0.0, 0.0, -1)
            # heuristic-v1's order breaks ties (effective tiles, connected tiles kept)
            rank = order.get(t, -1)
            tie = -0.001 * (rank if rank >= 0 else 50 + self._tile_value(c, t, gold))
            rows.append((attack + tie, plan, d, cost, worst, a, s, ps))
        # attack never prefers a higher shanten (heuristic-v1's first rule): a level's
        # values stay below the lowest value of the level under it
        cap = 1e9
        for lvl in sorted({r[6] for r in rows}):
            low = cap
            for i, r in enumerate(rows):
                if r[6] == lvl:
                    if r[0] > cap:
                        rows[i] = (cap, *r[1:])
                    low = min(low, rows[i][0])
            cap = low - 1e-6
        plain = max(rows, key=lambda r: r[0])
        planned = max(rows, key=lambda r: r[0] + r[1])
        chosen = max(
            rows, key=lambda r: (r[0] + r[1]) * (1.0 - SURVIVE * r[2]) - DEAL_IN_COST * r[3]
        )
        a = chosen[5]
        t = a.tile
        s = chosen[6]
        # rows are compared by their discard (one row per kind), never by identity: compiled
        # with mypyc a row is an unboxed tuple, boxed anew by each max(), so ``is`` would
        # call a choice a defence against itself
        if chosen[5] != planned[5]:
            return self._defence_reason(view, tb, chosen, planned)
        if chosen[5] != plain[5]:
            if jl:
                en, zh = "Gold dragon (金龙, the three golds as a pong)", "金龙 (三金作刻)"
            elif jq:
                en, zh = "Gold sparrow (金雀, the two golds kept as the pair)", "金雀 (留金作将)"
            else:
                en, zh = "One suit (清一色)", "清一色"
            return Decision(
                a,
                f"discard {_en(t)}: aim for {en}, {shanten_words(chosen[7])[0]} for it "
                f"(the hand is {shanten_words(s)[0]})",
                f"打 {_zh(t)}: 做{zh}, 还差{shanten_words(chosen[7])[1]} (手牌{shanten_words(s)[1]})",
            )
        uke = uke_of.get(t, 0)
        return self._plain_reason(view, c, a, s, uke, tb)

    @staticmethod
    def _defence_reason(
        view: SeatView,
        tb: _Table,
        chosen: tuple[float, float, float, float, int, Action, int, int],
        planned: tuple[float, float, float, float, int, Action, int, int],
    ) -> Decision:
        """Why defence changed the discard, in words a player can act on: whom it fears
        (by relation), the tile attack wanted and what it risks, by how much, and what the
        hand gives up. The two tiles always differ (one row per kind); where their chances
        round alike the expected points say the difference."""
        a = chosen[5]
        t = a.tile
        att = planned[5].tile
        s = chosen[6]
        o = tb.opp(planned[4]) if planned[4] >= 0 else None
        if o is not None:
            who, who_zh = seat_words(view.seat, o.seat, view.players)
            melds = "" if o.melds == 0 else f", {o.melds} melds shown"
            melds_zh = "" if o.melds == 0 else f", 已亮 {o.melds} 副"
            fear = f"{who} is likely ready ({o.p:.0%}{melds})"
            fear_zh = f"{who_zh}可能已听 (约 {o.p:.0%}{melds_zh})"
        else:
            fear, fear_zh = "another player is likely ready", "有人可能已听"
        d1, c1, d0, c0 = chosen[2], chosen[3], planned[2], planned[3]
        if round(d0 * 100) > round(d1 * 100):
            by = f"{_en(att)} would deal in about {d0:.0%} of the time, {_en(t)} {d1:.0%}"
            by_zh = f"打 {_zh(att)} 约 {d0:.0%} 会点炮, 打 {_zh(t)} 约 {d1:.0%}"
        elif round(c0, 1) > round(c1, 1):
            by = (
                f"{_en(att)} would cost more if it deals in ({c0:.1f} points expected "
                f"against {c1:.1f} for {_en(t)})"
            )
            by_zh = f"{_zh(att)} 点炮代价更大 (预计失 {c0:.1f} 分, 打 {_zh(t)} 失 {c1:.1f} 分)"
        else:
            by = f"{_en(t)} is the safer tile"
            by_zh = f"{_zh(t)} 更安全"
        far, far_zh = shanten_words(s)
        if s > planned[6]:
            was, was_zh = shanten_words(planned[6])
            return Decision(
                a,
                f"fold: discard {_en(t)}, not {_en(att)} — {fear}; {by}; you give up speed: "
                f"the hand is {far} instead of {was}",
                f"弃和防守: 打 {_zh(t)}, 不打 {_zh(att)} — {fear_zh}; {by_zh}; 放弃进攻: "
                f"打后{far_zh} (打 {_zh(att)} 则{was_zh})",
            )
        same = s == planned[6]
        keep = f"the hand is {far} either way" if same else f"the hand is {far}"
        keep_zh = f"两张打后都是{far_zh}" if same else f"打后{far_zh}"
        return Decision(
            a,
            f"defence: discard {_en(t)}, not {_en(att)} — {fear}; {by}; {keep}",
            f"防守: 打 {_zh(t)}, 不打 {_zh(att)} — {fear_zh}; {by_zh}; {keep_zh}",
        )

    # ------------------------------------------------------------------ helpers

    def _ukeire(
        self,
        c: list[int],
        gold: int,
        melds: int,
        s: int,
        visible: list[int],
        honours: bool,
        keys: list[int] | None = None,
        w: int = 0,
    ) -> int:
        """Unseen copies of the kinds that lower the shanten of a 3k+1 hand (34 kinds
        where honours are playable: an honour helps only if held, as its pair or pong).
        ``keys``/``w``: the hand's [k0, k1, k2, kh] and golds when the caller has them."""
        if keys is None:
            keys, w = _keys_of(c, gold)
        if s == 0:
            kinds = waits_keys(keys[0], keys[1], keys[2], w, gold, keys[3], honours)
        else:
            kinds = []
            if gold >= 0 and shanten_keys(keys[0], keys[1], keys[2], w + 1, melds, keys[3]) < s:
                kinds.append(gold)
            ids = suit_ids(keys[0], keys[1], keys[2], keys[3])
            # each suit holding natural tiles: the kinds near them (the other suits
            # are combined once per suit, only the changed suit per candidate)
            for i in range(4):
                key = keys[i]
                if not key:
                    continue
                oid = others_id(ids, i)
                base = 9 * i
                if i == HONOUR_SLOT:
                    for r in held_ranks(key):  # R7: no honour chows, so no neighbours
                        k = 27 + r
                        if c[k] < 4 and k != gold:
                            vid = kept_honours_id(key + POW5[r])
                            if shanten_split(oid, vid, w, melds) < s:
                                kinds.append(k)
                    continue
                # shanten_split(oid, kept_id(...), w, melds) < s, inlined:
                # 3 * melds + 1 - w - v[6 + melds] < s
                loaded = tables._KEPT_IDS
                kid = kept_id if loaded is None else loaded.__getitem__
                shift = oid * _ID_SHIFT
                at = 6 + melds
                above = 3 * melds + 1 - w - s
                for r in near_ranks(key):
                    k = base + r
                    if c[k] < 4 and k != gold:
                        vid = kid(key + POW5[r])
                        v = _COMBINED.get(shift + vid)
                        if v is None:
                            v = _combined(oid, vid)
                        if v[at] > above:
                            kinds.append(k)
        return sum(max(0, 4 - visible[k] - (1 if k == gold else 0)) for k in kinds)

    @staticmethod
    def _tile_value(c: list[int], k: int, gold: int) -> float:
        """How much a tile is worth keeping: neighbours and copies (after removing it).
        An honour has no neighbours (R7: pongs and pairs only), so an isolated one is worth
        less than an isolated terminal."""
        if k == gold:
            return 100.0
        if is_honour(k):
            return 3.0 * c[k] - 1.0
        r = k % 9
        base = k - r
        v = 3.0 * c[k]
        for d, wgt in ((-2, 1.0), (-1, 2.0), (1, 2.0), (2, 1.0)):
            x = r + d
            if 0 <= x < 9:
                v += wgt * c[base + x]
        if r in (0, 8):
            v -= 0.5
        return v

    @staticmethod
    def _danger(view: SeatView) -> list[float]:
        """Late-game risk of each kind (0 safe .. 1): a kind an opponent discarded is safe
        against them; a suit (the honours count as one) an opponent keeps discarding is less
        likely to be their wait; a kind with 3+ copies visible is nearly dead."""
        opps = [s for s in range(view.players) if s != view.seat]
        vis = view.visible_counts()
        nk = len(vis)
        d = [0.0] * nk
        for s in opps:
            disc = view.discards(s)
            gone = set(disc)
            per_suit = [0, 0, 0, 0]
            for k in disc:
                per_suit[_SUIT4[k]] += 1
            pen = [1.0 - min(1.0, x / 6) for x in per_suit]  # the same floats, once per suit
            for k in range(nk):
                if k not in gone:
                    d[k] += pen[_SUIT4[k]]
        n = max(1, len(opps))
        return [0.0 if vis[k] >= 3 else d[k] / n for k in range(nk)]
