"""R7 special hands and R10 scoring: one formula per profile, with a breakdown."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fujian_mahjong._compiled import reduce_dataclass
from fujian_mahjong.analysis import Decomposition, decompositions, is_win
from fujian_mahjong.analysis.core import is_win_keys, meld_need_keys, need_keys, split_keys34
from fujian_mahjong.errors import ScoreInputError
from fujian_mahjong.scoring.situation import Situation, check, honours_playable, is_flower_in
from fujian_mahjong.tiles import flower_sets, is_honour

SPECIAL_NAMES: dict[str, tuple[str, str]] = {
    "tian_hu": ("天胡", "Heavenly hand"),
    "qiang_jin": ("抢金", "Rob the gold"),
    "san_jin_dao": ("三金倒", "Three golds"),
    "jin_que": ("金雀", "Gold sparrow"),
    "jin_long": ("金龙", "Gold dragon"),
    "ping_hu": ("平胡（无花无杠）", "Plain win (no flowers, no kongs)"),
    "ping_hu_one_flower": ("平胡（一张花）", "Plain win (one flower)"),
    "wu_shui_hu": ("无水胡", "Clean win (no flowers, kongs or golds)"),
    "qing_yi_se": ("清一色", "One suit"),
    "jin_kan": ("金坎", "Gold gap"),
}

TERM_NAMES: dict[str, tuple[str, str]] = {
    "flowers": ("花", "flowers"),
    "flower_sets": ("套花（每套2）", "flower sets (2 each)"),
    "exposed_kongs": ("明杠", "exposed kongs"),
    "concealed_kongs": ("暗杠（每个2）", "concealed kongs (2 each)"),
    "golds": ("金", "golds"),
    "streak": ("连庄", "dealer streak"),
    "base": ("底", "base"),
    "subtotal": ("小计", "subtotal"),
    "doubled": ("小计×2", "subtotal x2"),
    "self_draw_doubled": ("自摸×2", "self-draw x2"),
    "one": ("基本1", "basic point"),
    "special": ("特殊", "special"),
    "ping_hu_combo": ("平胡加成", "plain-win combination"),
    "cap": ("封顶", "cap"),
    "winner_points": ("胡牌积分", "winner's points"),
    "points_doubled": ("胡牌积分×2", "winner's points x2"),
    "discard_doubled": ("放胡×2", "discard win x2"),
    "total": ("每家付", "each payer pays"),
    "total_discard": ("放胡者付", "the discarder pays"),
    "draw_payment": ("黄庄庄家付每家", "draw: the dealer pays each player"),
}


@dataclass(frozen=True, slots=True)
class Term:
    key: str
    zh: str
    en: str
    value: int

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_dataclass(self)  # pickle/copy also when compiled

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "zh": self.zh, "en": self.en, "value": self.value}


def term(key: str, value: int, suffix: str = "") -> Term:
    if key in SPECIAL_NAMES:
        zh, en = SPECIAL_NAMES[key]
    else:
        zh, en = TERM_NAMES[key]
    return Term(key, zh + suffix, en + suffix, value)


@dataclass(frozen=True, slots=True)
class Score:
    """R10: the points each payer pays (``points``), every seat's payment (zero-sum),
    the specials of the hand and an ordered breakdown."""

    points: int
    payments: tuple[int, ...]
    specials: tuple[str, ...]
    breakdown: tuple[Term, ...]
    winner: int | None
    dec: Decomposition | None = field(default=None, compare=False, repr=False)
    # When no reading changes the score, the scored reading (the first one) is
    # enumerated only if somebody asks for it (``decomposition``), from this situation
    lazy_of: Situation | None = field(default=None, compare=False, repr=False)

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_dataclass(self)  # pickle/copy also when compiled

    @property
    def decomposition(self) -> Decomposition | None:
        """R7: the reading of the hand that was scored (None for a draw or a 3k+1 三金倒)."""
        if self.lazy_of is not None:
            object.__setattr__(self, "dec", readings(self.lazy_of)[0])
            object.__setattr__(self, "lazy_of", None)
        return self.dec

    def to_json(self) -> dict[str, Any]:
        return {
            "points": self.points,
            "payments": list(self.payments),
            "specials": list(self.specials),
            "breakdown": [t.to_json() for t in self.breakdown],
        }


@dataclass(frozen=True, slots=True)
class Quantities:
    """R10 common quantities for the winner."""

    fl: int
    sets: int
    mk: int
    ak: int
    G: int
    L: int

    def __reduce__(self) -> tuple[Any, ...]:
        return reduce_dataclass(self)  # pickle/copy also when compiled


def quantities(sit: Situation) -> Quantities:
    assert sit.gold is not None
    # R1/R10: with playable honours (fuzhou-doudou) only 1f-8f are flowers, so the sets
    # are only 春夏秋冬 and 梅兰竹菊; situation validation keeps honours out of `flowers`.
    flowers = [k for k in sit.flowers if is_flower_in(sit.profile, k)]
    return Quantities(
        fl=len(flowers),
        sets=flower_sets(flowers),
        mk=sum(1 for m in sit.melds if m.is_exposed_kong),
        ak=sum(1 for m in sit.melds if m.type == "kong_concealed"),
        G=sum(1 for k in sit.hand if k == sit.gold),
        L=sit.streak,
    )


def detect_specials(sit: Situation, dec: Decomposition | None, q: Quantities) -> list[str]:
    """R7 table: the specials of the hand under one reading, limited to the profile's."""
    p = sit.profile
    found: list[str] = []
    g3 = q.G - (1 if sit.win == "rob_gold" else 0)  # D-15: a robbed gold never counts
    kongs = q.mk + q.ak
    if sit.win == "heavenly":
        found.append("qiang_jin" if p.heavenly_as_rob_gold else "tian_hu")
    if sit.win == "rob_gold":
        found.append("qiang_jin")
    if g3 >= 3:
        found.append("san_jin_dao")
    if dec is not None and dec.gold_pair and (not p.jin_que_pure or q.G == 2):
        found.append("jin_que")
    if dec is not None and q.G == 3 and dec.gold_pong_of_gold:
        found.append("jin_long")
    if q.fl == 0 and kongs == 0:
        found.append("ping_hu")
        if q.G == 0:
            found.append("wu_shui_hu")
    if q.fl == 1 and kongs == 0:
        found.append("ping_hu_one_flower")
    if dec is not None and dec.golds_as_themselves:
        suited = [*sit.hand, *(k for m in sit.melds for k in m.tiles)]
        if len({k // 9 for k in suited}) == 1:
            found.append("qing_yi_se")
    if (
        sit.jinkan_declared
        and sit.self_draw
        and sit.winning_tile is not None
        and sit.winning_tile == sit.gold
    ):
        found.append("jin_kan")
    seen = dict.fromkeys(k for k in found if k in p.specials)
    return list(seen)


def _max_special(sit: Situation, specials: list[str]) -> tuple[str | None, int]:
    best: str | None = None
    val = 0
    for s in specials:
        v = sit.profile.special_value(s)
        # on a tie prefer a special other than 平胡 (it may combine, doudou +10)
        if v > val or (v == val and best in ("ping_hu", "ping_hu_one_flower")):
            best, val = s, v
    return best, val


Formula = Callable[[Situation, Quantities, list[str]], tuple[int, list[Term]]]


def _flower_terms(q: Quantities, gold_term: bool, sets_weight: int = 2) -> list[Term]:
    terms = [term("flowers", q.fl)]
    if sets_weight:
        terms.append(term("flower_sets", sets_weight * q.sets))
    terms += [term("exposed_kongs", q.mk), term("concealed_kongs", 2 * q.ak)]
    if gold_term:
        terms.append(term("golds", q.G))
    return terms


def formula_tcy(sit: Situation, q: Quantities, specials: list[str]) -> tuple[int, list[Term]]:
    """fuzhou-tcy: F = fl + 2·sets + mk + 2·ak; X = (F + G + L + 5) × 2 + S (max special)."""
    f = q.fl + 2 * q.sets + q.mk + 2 * q.ak
    sub = f + q.G + q.L + 5
    best, s = _max_special(sit, specials)
    terms = [*_flower_terms(q, True), term("streak", q.L), term("base", 5), term("subtotal", sub)]
    terms.append(term("doubled", sub * 2))
    if best:
        terms.append(term(best, s))
    return sub * 2 + s, terms


def formula_bianfeng(sit: Situation, q: Quantities, specials: list[str]) -> tuple[int, list[Term]]:
    """fuzhou-bianfeng: H = fl + 2·sets + mk + 2·ak + G. The winner's points are
    b(1+L) + bH, doubled both ways (X); with a special m they are P = b(m + L) + 2bH (D-10):
    each pays P on a self-draw, and a discarder pays 2P (revision 2: 谁放冲谁负责…2倍)."""
    b = sit.base or sit.profile.base
    h = q.fl + 2 * q.sets + q.mk + 2 * q.ak + q.G
    best, m = _max_special(sit, specials)
    terms = [*_flower_terms(q, True), term("subtotal", h)]
    terms.append(term("base", b))
    terms.append(term("streak", q.L))
    if best:
        terms.append(term(best, m))
        p = b * (m + q.L) + 2 * b * h
        terms.append(term("winner_points", p))
        if sit.self_draw:
            return p, terms
        terms.append(term("discard_doubled", 2 * p))
        return 2 * p, terms
    terms.append(term("one", 1))
    p = b * (1 + q.L) + b * h
    terms.append(term("winner_points", p))
    terms.append(term("points_doubled", 2 * p))
    return 2 * p, terms


def formula_doudou(sit: Situation, q: Quantities, specials: list[str]) -> tuple[int, list[Term]]:
    """fuzhou-doudou: B = 1 + G + fl + mk + 2·ak + 2·sets; T = B (discard), 2B (self-draw),
    2B + m with a special (+10 with 平胡); T ≤ 202; + 2·max(k−1, 0); × n (× 2 for a discard)."""
    p = sit.profile
    n = sit.base or p.base
    b = 1 + q.G + q.fl + q.mk + 2 * q.ak + 2 * q.sets
    best, m = _max_special(sit, specials)
    terms = [term("one", 1), *_flower_terms(q, True), term("subtotal", b)]
    if best:
        t = 2 * b + m
        terms += [term("self_draw_doubled", 2 * b), term(best, m)]
        if best in ("qiang_jin", "san_jin_dao", "jin_que") and "ping_hu" in specials:
            t += p.ping_hu_combo_bonus
            terms.append(term("ping_hu_combo", p.ping_hu_combo_bonus))
    elif sit.self_draw:
        t = 2 * b
        terms.append(term("self_draw_doubled", t))
    else:
        t = b
    if p.cap and t > p.cap:
        terms.append(term("cap", p.cap))
        t = p.cap
    streak = 2 * max(q.L - 1, 0)
    terms.append(term("streak", streak))
    t += streak
    terms.append(term("base", n))
    x = t * n
    if not sit.self_draw:
        x *= 2
        terms.append(term("discard_doubled", x))
    return x, terms


def formula_sanming(sit: Situation, q: Quantities, specials: list[str]) -> tuple[int, list[Term]]:
    """sanming: F = fl + mk + 2·ak; S = sum of specials (D-12); discard X = F + L + G + 5 + S;
    self-draw X = (F + L + G + 5)·2 + S."""
    base = sit.base or sit.profile.base
    sub = q.fl + q.mk + 2 * q.ak + q.L + q.G + base
    terms = [*_flower_terms(q, True, sets_weight=0), term("streak", q.L), term("base", base)]
    terms.append(term("subtotal", sub))
    x = sub
    if sit.self_draw:
        x = sub * 2
        terms.append(term("self_draw_doubled", x))
    for s in specials:
        v = sit.profile.special_value(s)
        terms.append(term(s, v))
        x += v
    return x, terms


FORMULAS: dict[str, Formula] = {
    "tcy": formula_tcy,
    "bianfeng": formula_bianfeng,
    "doudou": formula_doudou,
    "sanming": formula_sanming,
}


def _payments(sit: Situation, x: int) -> tuple[int, ...]:
    pay = [0] * sit.seats
    assert sit.winner is not None
    if sit.self_draw:
        for s in range(sit.seats):
            if s != sit.winner:
                pay[s] = -x
        pay[sit.winner] = x * (sit.seats - 1)
    else:
        assert sit.discarder is not None
        pay[sit.discarder] = -x
        pay[sit.winner] = x
    return tuple(pay)


def score_draw(sit: Situation) -> Score:
    """R10 sanming 黄庄: the dealer pays each other player ``draw_payment``."""
    d = sit.profile.draw_payment
    pay = [0] * sit.seats
    if d:
        for s in range(sit.seats):
            if s != sit.dealer:
                pay[s] = d
        pay[sit.dealer] = -d * (sit.seats - 1)
    return Score(d, tuple(pay), (), (term("draw_payment", d),), None)


def _hand_counts(sit: Situation) -> tuple[list[int], bool]:
    """The winner's concealed counts: 27 suited kinds, or 34 with honours (R1 doudou)."""
    honours = honours_playable(sit.profile) and (
        any(is_honour(k) for k in sit.hand) or (sit.gold is not None and is_honour(sit.gold))
    )
    counts = [0] * (34 if honours else 27)
    for k in sit.hand:
        counts[k] += 1
    return counts, honours


def readings(sit: Situation) -> list[Decomposition | None]:
    """Every valid reading of the winner's hand (R7: the most favourable one is scored)."""
    counts, honours = _hand_counts(sit)
    if sit.win == "three_golds" and len(sit.hand) % 3 == 1:
        return [None]  # R7/R8: declared on a 3k+1 hand (window A, or 斗斗 on a discard)
    # R7: with honours, they make pongs and pairs (never chows); a gold may stand for one
    decs: list[Decomposition | None] = list(
        decompositions(counts, sit.gold, len(sit.melds), honours=honours)
    )
    if not decs:
        g3 = counts[sit.gold] if sit.gold is not None else 0
        if sit.win == "rob_gold":
            g3 -= 1
        if sit.win in ("three_golds",) or (g3 >= 3 and sit.self_draw):
            return [None]  # R7: 三金倒 needs no complete shape
        raise ScoreInputError("field 'hand': the hand is not a winning hand (5 melds + 1 pair, R7)")
    return decs


def _reading_matters(sit: Situation, q: Quantities) -> bool:
    """Whether the choice of reading can change the specials (R7): only 金雀 (a pair of
    two golds), 金龙 (a pong of three golds as the gold kind) and 清一色 (golds as
    themselves) look at the reading. Each is checked directly on the need tables: when no
    reading can have any of them, every reading gets the same specials and the same score,
    so the first reading is the scored one (``score`` then skips the enumeration)."""
    p = sit.profile
    jin_que = "jin_que" in p.specials and q.G >= 2 and (not p.jin_que_pure or q.G == 2)
    jin_long = "jin_long" in p.specials and q.G == 3
    qing = False
    if "qing_yi_se" in p.specials:
        suited = [*sit.hand, *(k for m in sit.melds for k in m.tiles)]
        qing = len({k // 9 for k in suited}) == 1
    if not (jin_que or jin_long or qing):
        return False
    counts, _honours = _hand_counts(sit)
    k0, k1, k2, kh, w = split_keys34(counts, sit.gold)
    # a pair of two golds: the other tiles make melds with the golds left (the rest of the
    # golds then make pongs of the gold kind: the hand is 3k+2)
    if jin_que and meld_need_keys(k0, k1, k2, kh) <= w - 2:
        return True
    # a pong of three golds standing for the gold kind: the other tiles complete alone
    if jin_long and need_keys(k0, k1, k2, kh) <= 0:
        return True
    if qing:
        # golds as themselves: the hand wins with the golds read as plain tiles of their kind
        a0, a1, a2, ah, _w = split_keys34(counts, None)
        if is_win_keys(a0, a1, a2, 0, ah):
            return True
    return False


def _has_reading(sit: Situation) -> bool:
    """``readings(sit)`` is not empty (the same checks and errors, no enumeration)."""
    if sit.win == "three_golds" and len(sit.hand) % 3 == 1:
        return True
    counts, honours = _hand_counts(sit)
    if is_win(counts, sit.gold, len(sit.melds), honours=honours):
        return True
    g3 = counts[sit.gold] if sit.gold is not None else 0
    if sit.win == "rob_gold":
        g3 -= 1
    if sit.win in ("three_golds",) or (g3 >= 3 and sit.self_draw):
        return True
    raise ScoreInputError("field 'hand': the hand is not a winning hand (5 melds + 1 pair, R7)")


def score(sit: Situation) -> Score:
    """R10: score a win situation under the most favourable reading of the hand (R7)."""
    if sit.win == "draw":
        return score_draw(sit)
    check(sit)
    q = quantities(sit)
    formula = FORMULAS[sit.profile.scoring]
    if not _reading_matters(sit, q) and _has_reading(sit):
        # Every reading scores the same; the first one is found only on demand
        specials = detect_specials(sit, None, q)
        x, terms = formula(sit, q, specials)
        terms = [*terms, term("total" if sit.self_draw else "total_discard", x)]
        return Score(x, _payments(sit, x), tuple(specials), tuple(terms), sit.winner, lazy_of=sit)
    best: tuple[int, list[Term], list[str], Decomposition | None] | None = None
    for dec in readings(sit):
        specials = detect_specials(sit, dec, q)
        x, terms = formula(sit, q, specials)
        if best is None or x > best[0]:
            best = (x, terms, specials, dec)
    assert best is not None
    x, terms, specials, dec = best
    terms = [*terms, term("total" if sit.self_draw else "total_discard", x)]
    return Score(x, _payments(sit, x), tuple(specials), tuple(terms), sit.winner, dec)
