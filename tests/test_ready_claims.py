"""A ready hand and a claim that only changes its wait (R6 claims, R7 ready, R10 payments).

heuristic-v1 (today's heuristic, frozen) takes a chow or pong that leaves a ready hand ready;
the 普通 and the 高手 (``HeuristicBot`` and ``StrongBot``, ``ready_claims`` False by default,
bots/heuristic.py READY_CLAIMS) pass it and keep their own draw: a chow takes the place of
the seat's draw, a pong skips to its turn without one, and a self-draw is paid by every
other seat (R10). Positions: fixed seeds played by heuristic-v1 up to the offer."""

from __future__ import annotations

import pytest

from fujian_mahjong.analysis import shanten_keys, split_keys34
from fujian_mahjong.bots import HeuristicBot
from fujian_mahjong.bots.heuristic import READY_CLAIMS
from fujian_mahjong.bots.heuristic_v1 import HeuristicV1Bot
from fujian_mahjong.bots.strong import StrongBot
from fujian_mahjong.engine import Action, Game
from fujian_mahjong.engine.view import SeatView


def _offer(seed: str, steps: int) -> SeatView:
    g = Game.new("fuzhou-tcy", seed=seed, players=4, dealer=0)
    v1 = HeuristicV1Bot()
    for _ in range(steps):
        s = g.to_act()[0]
        g.apply(s, v1.act(g.seat_view(s)).action)
    assert g.phase == "claims"
    return g.seat_view(g.to_act()[0])


def _shanten(counts: list[int], gold: int, melds: int) -> int:
    k0, k1, k2, kh, w = split_keys34(counts, gold)
    return shanten_keys(k0, k1, k2, w, melds, kh)


@pytest.mark.parametrize(
    ("seed", "steps", "seat", "kind"),
    [("ready-claim-4", 16, 0, "pong"), ("ready-claim-6", 24, 3, "chow")],
)
def test_a_ready_hand_passes_a_claim_that_only_changes_its_wait(
    seed: str, steps: int, seat: int, kind: str
) -> None:
    v = _offer(seed, steps)
    assert v.seat == seat
    melds = 5 - v.exposed(seat)
    c = list(v.counts)
    assert _shanten(c, v.gold, melds) == 0  # ready before the offer
    took = HeuristicBot(ready_claims=True).act(v)
    assert took.action.type == kind and took.action in v.legal
    _, tile = v.claim
    used = [tile, tile] if kind == "pong" else list(took.action.tiles)
    for k in used:
        c[k] -= 1
    assert _shanten(c, v.gold, melds - 1) == 0  # still ready after it: a new wait only
    assert HeuristicV1Bot().act(v).action == took.action  # today's heuristic claims too
    assert READY_CLAIMS is False  # the 普通's and the 高手's default
    for bot in (HeuristicBot(), StrongBot(), StrongBot(screen=1e9)):
        d = bot.act(v)
        assert d.action == Action("pass")
        assert "ready" in d.reason and "draw" in d.reason
        assert d.reason_zh.startswith("过")
    assert StrongBot(ready_claims=True).act(v).action == took.action


def test_a_claim_that_makes_the_hand_ready_is_still_taken() -> None:
    """Passing is only for a hand that is ready already: one that a claim brings closer is
    answered as before, whatever ``ready_claims`` says."""
    on, off, v1 = HeuristicBot(ready_claims=True), HeuristicBot(), HeuristicV1Bot()
    checked = 0
    for i in range(6):
        g = Game.new("fuzhou-tcy", seed=f"ready-claim-{i}", players=4, dealer=0)
        while not g.is_over():
            s = g.to_act()[0]
            v = g.seat_view(s)
            if g.phase == "claims":
                now = _shanten(list(v.counts), v.gold, 5 - v.exposed(s))
                a, b = on.act(v), off.act(v)
                if now > 0:
                    assert a.action == b.action
                    checked += 1
                elif a.action.type in ("chow", "pong"):
                    assert b.action == Action("pass")
            g.apply(s, v1.act(v).action)
    assert checked > 20
