"""HeuristicV1Bot (kind ``heuristic-v1``): the frozen reference copy of the heuristic bot as it
was before the difficulty ladder (docs/bots.md). Never change its play: it is the baseline
that every figure "against today's heuristic" is measured against, and the golden logs
(bench/golden.py, tests/data/golden_logs.json) were recorded with it. The improved bot is
``bots/heuristic.py`` (kind ``heuristic``).

The original heuristic: a real player built on the table-driven analysis (R7).

Rules it follows, in order:

1. Wins are always taken (自摸, 放胡, 抢杠, 抢金, 天胡). 三金倒 is declared at once, unless
   the profile pays more for 金龙 than for 三金倒, the hand is ready and at least 16 live
   tiles remain: then it plays on for 金龙 (it can still declare 三金倒 on a later turn).
   金坎 is declared when offered (sanming: it locks a ready hand that a gold completes).
2. Discards: the tile that leaves the lowest shanten (golds counted as wildcards);
   ties are broken by effective tiles (ukeire: kinds that lower the shanten, weighted by
   the copies it cannot see), then — late in the hand (live < 24) — by safety (kinds
   opponents discarded, kinds with many copies visible), then by keeping connected tiles.
   A gold is never discarded where the profile penalises it unless only golds are left.
3. Claims (chow/pong/kong) are made only when they lower the shanten, or keep a ready
   hand ready; a kong is declined while a 平胡 (no flowers, no kongs) is still possible.

Honours (R1/R7, ``fuzhou-doudou``): where the profile plays 东南西北中发白, hands are 34
counts and shanten, waits and effective tiles run over all 34 kinds. An honour has no
neighbours (no honour chows), so an isolated honour is the poorest tile to keep and an honour
pair can only grow by a pong.
"""

from __future__ import annotations

from typing import Final

from fujian_mahjong.analysis import shanten_keys, split_keys34, tables, waits_keys
from fujian_mahjong.analysis.core import (
    _COMBINED,
    _ID_SHIFT,
    _combined,
    others_id,
    shanten_split,
    suit_ids,
)
from fujian_mahjong.analysis.tables import POW5, held_ranks, kept_honours_id, kept_id, near_ranks
from fujian_mahjong.bots.base import Decision
from fujian_mahjong.engine.actions import Action
from fujian_mahjong.engine.events import Phase
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.tiles import is_honour, name

LATE = 24
_CLAIMS: Final = Phase.CLAIMS  # compiled, a Final is a C static (see engine/game.py)
_SUIT4 = tuple(min(k // 9, 3) for k in range(42))  # suit index, honours (and above) as 3
HONOUR_SLOT = 3  # index of the honour key in a [k0, k1, k2, kh] list


def _en(k: int) -> str:
    """English tile name for reasons: 5p, E S W N Red Green White (tiles.name)."""
    return name(k, "en")


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


class HeuristicV1Bot:
    """Shanten + effective tiles + late-game safety; explains each decision."""

    name = "heuristic-v1"

    def __init__(self, seed: int | str = 0) -> None:
        self.seed = seed

    # ------------------------------------------------------------------ entry point

    def act(self, view: SeatView) -> Decision:
        legal = view.legal
        by_type: dict[str, list[Action]] = {}
        for a in legal:
            by_type.setdefault(a.type, []).append(a)
        if "win" in by_type:
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
                "declare 金坎: a drawn gold wins for +70",
                "金坎: 摸到金即胡 (+70)",
            )
        if "discard" not in by_type:
            # last group (sanming kong choice) or a forced pass
            return self._kong_or_pass(view, by_type)
        return self._turn(view, by_type)

    # ------------------------------------------------------------------ decisions

    def _three_golds(self, view: SeatView, act: Action) -> Decision | None:
        if view.special_value("jin_long") > view.special_value("san_jin_dao") and view.live >= 16:
            melds = 5 - view.exposed(view.seat)
            c = view.counts
            if view.phase is not _CLAIMS and _shanten(c, view.gold, melds) <= 0:
                return None  # play on for 金龙
        return Decision(act, "declare 三金倒 (three golds)", "三金倒")

    def _ping_hu_possible(self, view: SeatView) -> bool:
        specials = view.has_special
        if "ping_hu" not in specials and "wu_shui_hu" not in specials:
            return False
        fl = len(view.flowers(view.seat))
        if any(t.startswith("kong") for t, _ in view.melds(view.seat)):
            return False
        return fl == 0 or (fl == 1 and "ping_hu_one_flower" in specials)

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
                    f"kong {_en(tile)}: flowers +1, shanten {s}",
                    f"杠 {name(tile)}: 花番+1, 向听 {s}",
                )
        for a in by.get("pong", []):
            c2 = list(c)
            c2[tile] -= 2
            s = _shanten(c2, gold, melds - 1)
            if s < now or (s == now == 0):
                if best is None or s < best[0]:
                    best = (
                        s,
                        a,
                        f"pong {_en(tile)}: shanten {now} -> {s}",
                        f"碰 {name(tile)}: 向听 {now}→{s}",
                    )
        for a in by.get("chow", []):
            if is_honour(tile) or any(is_honour(t) for t in a.tiles):
                continue  # R7: honours make pongs and pairs, never chows
            c2 = list(c)
            for t in a.tiles:
                c2[t] -= 1
            s = _shanten(c2, gold, melds - 1)
            if s < now or (s == now == 0):
                if best is None or s < best[0]:
                    pair = "".join(_en(t) for t in a.tiles)
                    pair_zh = "".join(name(t) for t in a.tiles)
                    best = (
                        s,
                        a,
                        f"chow {_en(tile)} with {pair}: shanten {now} -> {s}",
                        f"吃 {name(tile)} (用 {pair_zh}): 向听 {now}→{s}",
                    )
        if best is not None:
            return Decision(best[1], best[2], best[3])
        return Decision(
            pass_,
            f"pass: no claim improves the hand (shanten {now})",
            f"过: 吃碰杠都不改善手牌 (向听 {now})",
        )

    def _kong_or_pass(self, view: SeatView, by: dict[str, list[Action]]) -> Decision:
        for key in ("concealed_kong", "added_kong"):
            if by.get(key) and not self._ping_hu_possible(view):
                return Decision(
                    by[key][0], "kong: more flower points, replacement draw", "杠: 多花番, 补牌"
                )
        if "pass" in by:
            return Decision(by["pass"][0], "pass", "过")
        for acts in by.values():
            return Decision(acts[0], "only choice", "唯一选择")
        # not a StopIteration: inside a generator or Pool.map that would end a loop quietly
        raise MahjongError(f"seat {view.seat} has no legal action (phase {view.phase})")

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
                        f"{a.type.replace('_', ' ')} {_en(a.tile)}: keeps shanten {s}",
                        f"{'暗杠' if a.type == 'concealed_kong' else '加杠'} {name(a.tile)}: 向听不变 {s}",
                    )
        discards = by["discard"]
        penal = view.gold_discard_rule != "free"
        cands = [a for a in discards if not (penal and a.tile == gold)] or discards
        scored: list[tuple[int, Action]] = []
        # the engine keeps the natural tiles' keys (R7): no recount from the 34 counts
        k3 = view.keys
        keys = [k3[0], k3[1], k3[2], view.kh]
        w = c[gold] if gold >= 0 else 0
        # The untouched suits are combined once per suit, then each candidate
        # combines only the suit it changes (the same numbers as shanten_keys)
        ids = suit_ids(keys[0], keys[1], keys[2], keys[3])
        others: list[int] = [-1, -1, -1, -1]
        # shanten_split inlined: 3 * melds + 1 - w - (combined vector)[6 + melds]
        at = 6 + melds
        base_s = 3 * melds + 1 - w
        for a in cands:
            t = a.tile
            if t == gold:
                s = shanten_keys(keys[0], keys[1], keys[2], w - 1, melds, keys[3])
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
            scored.append((s, a))
        best_s = min(s for s, _ in scored)
        top = [a for s, a in scored if s == best_s]
        if len(top) == 1:
            a = top[0]
            return Decision(
                a,
                f"discard {_en(a.tile)}: shanten {best_s}",
                f"打 {name(a.tile)}: 向听 {best_s}",
            )
        visible = view.visible_counts()
        honours = view.honours_playable
        late = view.live < LATE
        danger = self._danger(view) if late else None
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
        score, a, uke = ranked[0]
        why = f"discard {_en(a.tile)}: shanten {best_s}"
        why_zh = f"打 {name(a.tile)}: 向听 {best_s}"
        if best_s <= 1:
            why += f", {uke} effective tiles"
            why_zh += f", 有效牌 {uke} 张"
        if is_honour(a.tile) and c[a.tile] == 1:
            why += ", an isolated honour (pong or pair only)"
            why_zh += ", 孤张字牌 (只能碰或作将)"
        if late and danger is not None and danger[a.tile] == 0:
            why += ", safe late in the hand"
            why_zh += ", 后期安全牌"
        return Decision(a, why, why_zh)

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
