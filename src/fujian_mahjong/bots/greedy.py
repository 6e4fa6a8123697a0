"""GreedyBot (kind ``greedy``, 新手): the beginner of the difficulty ladder (docs/bots.md).

It plays for the shortest way to a ready hand and nothing else:

1. Every win is taken (自摸, 放胡, 抢金, 三金倒 at once, 金坎 when offered).
2. Discards: a tile that leaves the lowest shanten (golds counted as wildcards); ties go
   to the tile with the fewest neighbours and copies, then the lowest kind. A gold is never
   discarded where the profile penalises it unless only golds are left. It never looks at
   the other seats (no defence, no safety) and never plans a special hand.
3. Claims (chow/pong) only when they lower the shanten; it never declares a kong.
4. Occasional mistakes: with probability ``mistake_rate`` (default 10%) a discard is a
   random tile among those that do *not* keep the lowest shanten (a beginner's slip).

Seeded (``random.Random(f"greedy-bot:{seed}")``), so a hand with the same seeds plays the
same way.
"""

from __future__ import annotations

import random

from fujian_mahjong.analysis import shanten_keys
from fujian_mahjong.analysis.tables import POW5
from fujian_mahjong.bots.base import Decision, _below
from fujian_mahjong.engine.actions import Action
from fujian_mahjong.engine.events import Phase
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.tiles import is_honour, name

MISTAKE_RATE = 0.1


def _en(k: int) -> str:
    return name(k, "en")


def _keys(view: SeatView) -> tuple[list[int], int]:
    """[k0, k1, k2, kh] of the natural tiles (the engine keeps them, R7) and the golds."""
    k = view.keys
    gold = view.gold
    return [k[0], k[1], k[2], view.kh], (view.counts[gold] if gold >= 0 else 0)


def _without(keys: list[int], w: int, t: int, gold: int) -> tuple[list[int], int]:
    """The keys and golds after one tile of kind ``t`` leaves the hand."""
    if t == gold:
        return keys, w - 1
    out = list(keys)
    if t < 27:
        out[t // 9] -= POW5[t % 9]
    else:
        out[3] -= POW5[t - 27]
    return out, w


def _sh(keys: list[int], w: int, melds: int) -> int:
    return shanten_keys(keys[0], keys[1], keys[2], w, melds, keys[3])


def shanten_after_discard(view: SeatView, t: int) -> int:
    """The shanten of the seat's hand after discarding one tile of kind ``t``."""
    keys, w = _keys(view)
    k2, w2 = _without(keys, w, t, view.gold)
    return _sh(k2, w2, 5 - view.exposed(view.seat))


def _value(c: list[int], k: int) -> int:
    """Neighbours and copies of a tile (after removing it): the poorest goes first."""
    if is_honour(k):
        return 3 * c[k]
    r = k % 9
    v = 3 * c[k]
    for d in (-2, -1, 1, 2):
        x = r + d
        if 0 <= x < 9:
            v += (3 - abs(d)) * c[k - r + x]
    return v


class GreedyBot:
    """Lowest shanten, no defence, no specials, an occasional slip (新手)."""

    name = "greedy"

    def __init__(self, seed: int | str = 0, mistake_rate: float = MISTAKE_RATE) -> None:
        self.rng = random.Random(f"greedy-bot:{seed}")
        self.mistake_rate = mistake_rate

    def act(self, view: SeatView) -> Decision:
        by: dict[str, list[Action]] = {}
        for a in view.legal:
            by.setdefault(a.type, []).append(a)
        for key, en, zh in (
            ("win", "win: the hand is complete", "胡牌: 牌已成"),
            ("rob_gold", "rob the gold (抢金): the hand is ready", "抢金: 已听牌"),
            ("three_golds", "declare 三金倒 (three golds)", "三金倒"),
            ("jin_kan", "declare 金坎: a drawn gold wins", "金坎: 摸到金即胡"),
        ):
            if key in by:
                return Decision(by[key][0], en, zh)
        if view.phase is Phase.CLAIMS:
            return self._claim(view, by)
        if "discard" in by:
            return self._discard(view, by["discard"])
        if "pass" in by:
            return Decision(by["pass"][0], "pass", "过")
        return Decision(view.legal[0], "only choice", "唯一选择")

    def _claim(self, view: SeatView, by: dict[str, list[Action]]) -> Decision:
        _, tile = view.claim
        keys, w = _keys(view)
        melds = 5 - view.exposed(view.seat)
        now = _sh(keys, w, melds)
        best: tuple[int, Action] | None = None
        for a in by.get("pong", []) + by.get("chow", []):
            used = (tile, tile) if a.type == "pong" else a.tiles
            if a.type == "chow" and (is_honour(tile) or any(is_honour(t) for t in used)):
                continue
            k2 = keys
            for t in used:
                k2, _ = _without(k2, w, t, -1)
            s = _sh(k2, w, melds - 1)
            if s < now and (best is None or s < best[0]):
                best = (s, a)
        if best is not None:
            s, a = best
            verb, verb_zh = ("pong", "碰") if a.type == "pong" else ("chow", "吃")
            return Decision(
                a,
                f"{verb} {_en(tile)}: shanten {now} -> {s}",
                f"{verb_zh} {name(tile)}: 向听 {now}→{s}",
            )
        return Decision(
            Action("pass"),
            f"pass: no claim lowers the shanten ({now})",
            f"过: 吃碰都不降低向听 ({now})",
        )

    def _discard(self, view: SeatView, discards: list[Action]) -> Decision:
        gold = view.gold
        penal = view.gold_discard_rule != "free"
        cands = [a for a in discards if not (penal and a.tile == gold)] or discards
        keys, w = _keys(view)
        melds = 5 - view.exposed(view.seat)
        c = view.counts
        scored: list[tuple[int, int, int, Action]] = []
        for a in cands:
            k2, w2 = _without(keys, w, a.tile, gold)
            c[a.tile] -= 1
            v = 100 if a.tile == gold else _value(c, a.tile)
            c[a.tile] += 1
            scored.append((_sh(k2, w2, melds), v, a.tile, a))
        scored.sort(key=lambda x: (x[0], x[1], x[2]))
        best = scored[0][0]
        worse = [x for x in scored if x[0] > best and x[3].tile != gold]
        if worse and self.rng.random() < self.mistake_rate:
            s, _v, t, a = worse[_below(self.rng, len(worse))]
            return Decision(
                a,
                f"discard {_en(t)}: a beginner's slip (shanten {s}, {best} was possible)",
                f"打 {name(t)}: 新手失误 (向听 {s}, 本可 {best})",
            )
        s, _v, t, a = scored[0]
        return Decision(a, f"discard {_en(t)}: shanten {s}", f"打 {name(t)}: 向听 {s}")
