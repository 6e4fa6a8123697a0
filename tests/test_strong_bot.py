"""The 高手 (``StrongBot``, bots/strong.py): deterministic, always legal, within its budget,
departing from the fast bot only on a significant gain, and the review's cost estimates.

Search budgets here are small (a few dozen rollouts) so the suite stays fast on the
pure-Python fallback; the arena figures are in docs/strong-bot.md (bench/strong.py)."""

from __future__ import annotations

import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fujian_mahjong.analysis.tables import POW5
from fujian_mahjong.bots import HeuristicBot, RandomBot
from fujian_mahjong.bots.heuristic import THREAT, quick_threat
from fujian_mahjong.bots.heuristic_v1 import HeuristicV1Bot
from fujian_mahjong.bots.strong import (
    STRONG_THREAT,
    StrongBot,
    Weights,
    compare_actions,
    determinize,
    public_state,
    tile_risk,
)
from fujian_mahjong.engine import Action, Game, Phase, to_jsonl
from fujian_mahjong.engine.game import Meld
from fujian_mahjong.review import review
from fujian_mahjong.tiles import parse, physical_set

SMALL: dict[str, Any] = {"max_rollouts": 48, "min_worlds": 4, "batch": 4, "deadline_s": None}
TINY: dict[str, Any] = {"max_rollouts": 12, "min_worlds": 2, "batch": 2, "deadline_s": None}


def _play(profile: str, seed: str, players: int = 4) -> Game:
    g = Game.new(profile, seed=seed, players=players)
    bots = [HeuristicBot() for _ in range(players)]
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].act(g.seat_view(s)).action)
    return g


def _views(profile: str, seed: str, players: int = 4, every: int = 3) -> list[Game]:
    """Copies of a heuristic hand's game at every ``every``-th decision."""
    import copy

    g = Game.new(profile, seed=seed, players=players)
    bots = [HeuristicBot() for _ in range(players)]
    out = []
    i = 0
    while not g.is_over():
        s = g.to_act()[0]
        if i % every == 0:
            out.append(copy.deepcopy(g))
        g.apply(s, bots[s].act(g.seat_view(s)).action)
        i += 1
    return out


# ---------------------------------------------------------------------------- worlds


@pytest.mark.parametrize("profile", ["fuzhou-tcy", "fuzhou-doudou", "sanming", "fuzhou-bianfeng"])
def test_sampled_worlds_are_consistent_with_the_seats_view(profile: str) -> None:
    players = 3 if profile == "sanming" else 4
    full = [0] * 42
    for k in physical_set():
        full[k] += 1
    rng = random.Random(1)
    checked = 0
    for g in _views(profile, f"worlds-{profile}", players):
        s = g.to_act()[0]
        pub = public_state(g.seat_view(s))
        if pub is None:
            continue
        for swaps in (0, 60):
            w = determinize(pub, rng, Weights() if swaps else None, swaps)
            assert w.tiles_accounted() == full
            assert w.legal_actions(s) == g.legal_actions(s)
            assert (w.live, w.reserve, w.phase) == (g.live, g.reserve, g.phase)
            assert w.counts[s] == g.counts[s]
            for o in range(players):
                assert w.hand_size(o) == g.hand_size(o)
                assert w.seat_view(s).to_json()["melds"] == g.seat_view(s).to_json()["melds"]
        checked += 1
    assert checked > 5


def test_a_seat_locked_by_jin_kan_keeps_a_winning_hand_in_every_world() -> None:
    # R8.5: a 金坎 hand is the two shown tiles and tiles complete without golds, locked until
    # a draw wins it. A world that dealt it at random could draw it a gold it cannot win
    # with and may not discard (R5): a rollout would find a seat with no legal action.
    from pathlib import Path

    from fujian_mahjong.analysis import shanten_keys, split_keys34
    from fujian_mahjong.bots.base import play_out
    from fujian_mahjong.scenario import load_scenarios

    root = Path(__file__).resolve().parents[1]
    sc = load_scenarios(root / "scenarios" / "r8-jin-kan.jsonl")[0]
    g = Game.from_wall(sc.profile, sc.wall, sc.dice, sc.players, sc.dealer, sc.streak)
    for a in sc.actions[:3]:  # seat 1 declares 金坎 with its discard
        g.apply(int(a["seat"]), Action.from_json(a))
    while g.phase is Phase.CLAIMS:
        g.apply(g.to_act()[0], Action("pass"))
    assert g.jin_kan[1] and g.phase is Phase.TURN
    s = g.to_act()[0]
    pub = public_state(g.seat_view(s))
    assert pub is not None and pub.jin_kan[1]
    shown = list(pub.jin_kan_tiles[1])
    rng = random.Random(3)
    for i in range(200):
        w = determinize(pub, rng, Weights(), 40)
        c = w.counts[1]
        assert w.hand_size(1) == g.hand_size(1)
        assert c[w.gold] == 0
        assert all(c[k] >= shown.count(k) for k in shown)
        k0, k1, k2, kh, wild = split_keys34(c, w.gold)
        assert shanten_keys(k0, k1, k2, wild + 1, 5 - len(w.melds[1]), kh) == -1
        if i < 30:
            play_out(w, [HeuristicV1Bot(f"jk{i}:{o}") for o in range(w.n)])
            assert w.is_over()


@settings(max_examples=200, deadline=None)
@given(
    gold=st.sampled_from([s * 9 + r for s in range(3) for r in range(1, 8)]),
    melds=st.integers(0, 3),
    extra=st.integers(0, 40),
    seed=st.integers(0, 2**32),
)
def test_a_locked_hand_is_drawn_from_the_unseen_tiles_and_wins_with_a_gold(
    gold: int, melds: int, extra: int, seed: int
) -> None:
    # R8.5: whatever the unseen tiles around a real 金坎 hand, the sampled hand is made of
    # them, holds the shown tiles and no gold, and one gold completes it
    from fujian_mahjong.analysis import shanten_keys, split_keys34
    from fujian_mahjong.bots.strong import _locked_hand

    rng = random.Random(seed)
    left = [4] * 34
    left[gold] = 0
    hand = [gold - 1, gold + 1, gold - 1, gold - 1]  # the shown tiles and a pair
    left[gold - 1] -= 3
    left[gold + 1] -= 1
    while len(hand) < 16 - 3 * melds:
        k = rng.randrange(34)
        run = (k, k + 1, k + 2) if rng.random() < 0.5 and k < 27 and k % 9 <= 6 else (k, k, k)
        if all(left[t] >= run.count(t) for t in run):
            hand += run
            for t in run:
                left[t] -= 1
    others = [k for k in range(34) for _ in range(left[k])]
    rng.shuffle(others)
    unseen = hand + others[:extra]
    rng.shuffle(unseen)
    got = _locked_hand(unseen, (gold - 1, gold + 1), len(hand), gold, rng)
    assert got is not None and len(got) == len(hand)
    assert all(got.count(k) <= unseen.count(k) for k in set(got))
    assert got[:2] == [gold - 1, gold + 1] and gold not in got
    c = [0] * 34
    for k in got:
        c[k] += 1
    k0, k1, k2, kh, w = split_keys34(c, gold)
    assert shanten_keys(k0, k1, k2, w + 1, 5 - melds, kh) == -1


def test_a_world_reveals_nothing_hidden() -> None:
    # R12: two games that differ only in what the seat cannot see give the same worlds
    g = _views("fuzhou-tcy", "hidden", every=7)[3]
    s = g.to_act()[0]
    pub1 = public_state(g.seat_view(s))
    import copy

    h = copy.deepcopy(g)
    others = [o for o in range(4) if o != s]
    a, b = others[0], others[1]
    ka = next(k for k in range(34) if h.counts[a][k] and k != h.gold)
    kb = next(k for k in range(34) if h.counts[b][k] and k != h.gold and k != ka)
    for seat, out, inn in ((a, ka, kb), (b, kb, ka)):
        h.counts[seat][out] -= 1
        h.counts[seat][inn] += 1
    h.wall = list(reversed(h.wall))
    pub2 = public_state(h.seat_view(s))
    assert pub1 is not None and pub2 is not None
    w1 = determinize(pub1, random.Random(5))
    w2 = determinize(pub2, random.Random(5))
    assert w1.counts == w2.counts and w1.wall == w2.wall


# ---------------------------------------------------------------------------- the bot


def test_deterministic_given_the_seed() -> None:
    def run(seed: str) -> list[dict[str, Any]]:
        g = Game.new("fuzhou-tcy", seed="det")
        bots: list[Any] = [StrongBot(seed, screen=0.0, **SMALL)] + [HeuristicBot()] * 3
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, bots[s].act(g.seat_view(s)).action)
        return g.events

    a, b = run("x"), run("x")
    assert a == b
    # the same view asked twice gives the same decision and the same search
    for g in _views("fuzhou-tcy", "det2", every=5):
        s = g.to_act()[0]
        v = g.seat_view(s)
        b1, b2 = StrongBot(7, screen=0.0, **SMALL), StrongBot(7, screen=0.0, **SMALL)
        d1, d2 = b1.act(v), b2.act(v)
        assert d1 == d2
        assert (b1.last is None) == (b2.last is None)
        if b1.last is not None and b2.last is not None:
            assert b1.last.gain == b2.last.gain and b1.last.worlds == b2.last.worlds


@pytest.mark.parametrize(
    ("profile", "players"),
    [("fuzhou-tcy", 4), ("fuzhou-doudou", 4), ("sanming", 3), ("fuzhou-bianfeng", 4)],
)
def test_never_illegal(profile: str, players: int) -> None:
    # the strong bot decides at every seat of random and heuristic hands, searching every
    # discard and claim it can (screens off) on a small budget
    for i in range(2):
        g = Game.new(profile, seed=f"legal-{i}", players=players)
        strong = StrongBot(i, screen=0.0, claim_screen=0.0, **TINY)
        others = [RandomBot(i), HeuristicBot()]
        n = 0
        while not g.is_over():
            s = g.to_act()[0]
            v = g.seat_view(s)
            d = strong.act(v)
            assert d.action in v.legal, (profile, i, d.action, v.legal)
            assert d.reason
            # move the hand on with another bot half the time (more varied positions)
            a = d.action if (n + s) % 2 else others[n % 2].act(v).action
            g.apply(s, a)
            n += 1


def test_respects_the_rollout_budget_and_the_clock() -> None:
    positions = [g for g in _views("fuzhou-tcy", "budget", every=2) if g.phase == "turn"]
    searched = 0
    for g in positions:
        v = g.seat_view(g.to_act()[0])
        bot = StrongBot(1, screen=0.0, max_rollouts=40, min_worlds=4, batch=4, deadline_s=None)
        bot.act(v)
        if bot.last is not None:
            searched += 1
            assert 0 < bot.last.rollouts <= 40 and bot.rollouts == bot.last.rollouts
    assert searched > 3
    # an injected clock: every reading advances 0.3 s, the deadline is 1 s -> a few worlds
    ticks = itertools.count()
    bot = StrongBot(
        1,
        screen=0.0,
        max_rollouts=10_000,
        min_worlds=1,
        batch=4,
        deadline_s=1.0,
        clock=lambda: 0.3 * next(ticks),
    )
    for g in positions:
        v = g.seat_view(g.to_act()[0])
        bot.act(v)
        if bot.last is not None:
            assert bot.last.stopped == "deadline"
            assert bot.last.worlds <= 4
            break
    else:
        pytest.fail("no search")


# ---------------------------------------------------------------------------- the gate


def _position() -> Game:
    """Seat 0 to discard, two tiles from ready, holding two useless tiles: 9p, a lone
    terminal (the one the heuristic bot throws first) and 5m, which every other seat has
    discarded. Each other seat has four exposed pongs and four concealed tiles, so each is
    most likely ready (seat 3 does wait on 9p)."""
    g = Game.new("fuzhou-tcy", seed="fold", players=4, dealer=0)
    gold = parse("9s")[0]
    hands = {
        0: "7m7m8m8m9m 6p7p7p 2s3s5s5s6s6s7s 5m 9p",
        1: "5p5p 7s8s",  # waits 6s or 9s
        2: "7m8m 8s8s",  # waits 6m or 9m
        3: "7p8p 6m6m",  # waits 6p or 9p
    }
    melds = {
        1: ["1m1m1m", "2m2m2m", "3m3m3m", "4m4m4m"],
        2: ["1p1p1p", "2p2p2p", "3p3p3p", "4p4p4p"],
        3: ["2s2s2s", "3s3s3s", "4s4s4s", "8p8p8p"],
    }
    disc = {0: "1p 4p", 1: "5m 1s 6s 2p", 2: "5m 1s 3p 4m", 3: "5m 1s 2m 3m 1m"}
    flowers = {0: "1z2z3z", 1: "4z5z1f", 2: "6z7z2f3f", 3: "1z2z5f"}
    g.gold = g.indicator = gold
    g.counts = [[0] * 34 for _ in range(4)]
    for s, h in hands.items():
        for k in parse(h):
            g.counts[s][k] += 1
    g.keys = [
        [
            sum(g.counts[s][k] * POW5[k % 9] for k in range(34) if k != gold and k // 9 == i)
            for i in range(4)
        ]
        for s in range(4)
    ]
    g._ready = [-1] * 4
    g.melds = [
        [Meld("pong", tuple(parse(m)), (s + 2) % 4) for m in melds.get(s, [])] for s in range(4)
    ]
    g.discards = [parse(disc[s]) for s in range(4)]
    g.flowers = [parse(flowers[s]) for s in range(4)]
    g.sets = [0] * 4
    left = [0] * 42
    for k in physical_set():
        left[k] += 1
    left[gold] -= 1
    for s in range(4):
        for k in [*parse(hands[s]), *parse(disc[s]), *parse(flowers[s])]:
            left[k] -= 1
        for m in melds.get(s, []):
            for k in parse(m):
                left[k] -= 1
    assert min(left) >= 0
    wall = [k for k in range(42) for _ in range(left[k])]
    random.Random(3).shuffle(wall)
    g.wall, g.head, g.tail = wall, 0, len(wall) - 1
    g.phase, g.turn, g.first_discard_pending = Phase.TURN, 0, False
    g.drew_this_turn, g.last_drawn = True, parse("9p")[0]
    g.pending, g.answers, g._legal_stamp = {}, {}, -1
    return g


def test_position_is_what_it_says() -> None:
    g = _position()
    full = [0] * 42
    for k in physical_set():
        full[k] += 1
    assert g.tiles_accounted() == full
    assert g.hand_size(0) == 17 and g.hand_size(3) == 4 and g.live >= 24
    v = g.seat_view(0)
    nine_p, five_m = parse("9p")[0], parse("5m")[0]
    # today's heuristic (the frozen heuristic-v1) pushes 9p, which deals in
    assert HeuristicV1Bot().act(v).action == Action("discard", nine_p)
    assert g._may_win_on(3, nine_p, True)
    assert not any(g._may_win_on(o, five_m, True) for o in (1, 2, 3))
    risk = tile_risk(v)
    assert risk[nine_p] > risk[five_m] + 3


def test_departs_from_the_fast_bot_only_on_a_significant_gain() -> None:
    g = _position()
    v = g.seat_view(0)
    nine_p = parse("9p")[0]
    # the search alone (no defence layer) over heuristic-v1: it departs, and says why
    bot = StrongBot(
        "fold", base=HeuristicV1Bot(), alpha=None, screen=0.0, max_rollouts=480, deadline_s=None
    )
    d = bot.act(v)
    res = bot.last
    assert res is not None and res.candidates[0] == Action("discard", nine_p)
    assert res.chosen != 0 and d.action == res.candidates[res.chosen]
    assert res.gain[res.chosen] - bot.z * res.se[res.chosen] > bot.min_gain
    assert d.action.tile != nine_p and not g._may_win_on(3, d.action.tile, True)
    assert "defence" in d.reason and "防守" in d.reason_zh
    # over heuristic-v1 the defence layer (alpha) alone already folds, naming defence
    d2 = StrongBot("fold", base=HeuristicV1Bot(), alpha=3.0, screen=1e9).act(v)
    assert d2.action.tile != nine_p and "defence" in d2.reason
    # early in a hand nothing is a significant gain: the strong bot plays the heuristic's
    quiet = 0
    for h in _views("fuzhou-tcy", "quiet", every=4)[:6]:
        s = h.to_act()[0]
        w = h.seat_view(s)
        sb = StrongBot(
            2,
            base=HeuristicV1Bot(),
            screen=0.0,
            alpha=None,
            max_rollouts=64,
            min_worlds=8,
            deadline_s=None,
        )
        if sb.act(w).action == HeuristicV1Bot().act(w).action:
            quiet += 1
        if sb.last is not None:
            assert sb.last.chosen == 0 or (
                sb.last.gain[sb.last.chosen] - sb.z * sb.last.se[sb.last.chosen] > sb.min_gain
            )
    assert quiet >= 5


# ---------------------------------------------------------------------------- review


def test_review_reports_a_cost_per_decision_and_points_lost() -> None:
    g = Game.new("fuzhou-tcy", seed="review-strong")
    bots: list[Any] = [RandomBot(3), HeuristicBot(), HeuristicBot(), HeuristicBot()]
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].act(g.seat_view(s)).action)
    rv = review(g.events, 0, bot="strong", worlds=8, max_rollouts=400)
    assert rv["bot"] == "strong"
    sm = rv["summary"]
    assert {"agreement_rate", "points_lost_per_hand", "points_lost_se"} <= set(sm)
    costed = [d for d in rv["decisions"] if d["cost"] is not None]
    assert costed and all("cost_se" in d and "cost_worlds" in d for d in rv["decisions"])
    for d in rv["decisions"]:
        if d["agree"]:
            assert d["cost"] == 0.0 and d["cost_worlds"] == 0
    lost = sum(d["cost"] for d in costed if d["cost"] > 0)
    assert sm["points_lost_per_hand"] == pytest.approx(lost, abs=0.05)
    assert sm["costs_estimated"] + sm["costs_missing"] == sm["decisions"]
    json.dumps(rv)
    # the same review twice is the same (seeded rollouts)
    assert review(g.events, 0, bot="strong", worlds=8, max_rollouts=400) == rv


def test_compare_actions_is_zero_for_the_same_action_and_signed() -> None:
    g = _position()
    v = g.seat_view(0)
    nine_p, five_m = Action("discard", parse("9p")[0]), Action("discard", parse("5m")[0])
    assert compare_actions(v, nine_p, nine_p) == (0.0, 0.0, 0)
    got = compare_actions(v, nine_p, five_m, worlds=24)
    assert got is not None
    cost, se, n = got
    assert n == 24 and cost > 0 and se >= 0


def test_cli_review_with_the_strong_bot(tmp_path: Any) -> None:
    import subprocess
    import sys

    g = _play("fuzhou-tcy", "cli-strong")
    log = tmp_path / "hand.jsonl"
    log.write_text(to_jsonl(g.events), encoding="utf-8")
    p = subprocess.run(
        [sys.executable, "-m", "fujian_mahjong", "review", str(log), "--seat", "1", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert data["bot"] == "strong" and "points_lost_per_hand" in data["summary"]
    p = subprocess.run(
        [sys.executable, "-m", "fujian_mahjong", "review", str(log), "--seat", "1", "--lang", "en"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0 and "Points lost this hand" in p.stdout


def test_the_strong_bot_defends_from_a_lower_threat() -> None:
    """The 高手's fast bot defends once an opponent is STRONG_THREAT likely ready; the 普通
    waits for THREAT. A fixed position (26 decisions of heuristic-v1, seat 2 to discard):
    seat 0 has two melds and is about 51% likely ready."""
    assert STRONG_THREAT < THREAT
    g = Game.new("fuzhou-tcy", seed="threat-0", players=4, dealer=0)
    v1 = HeuristicV1Bot()
    for _ in range(26):
        s = g.to_act()[0]
        g.apply(s, v1.act(g.seat_view(s)).action)
    assert g.phase == "turn" and g.to_act() == [2]
    v = g.seat_view(2)
    assert STRONG_THREAT <= quick_threat(v, STRONG_THREAT) < THREAT
    plain = HeuristicBot().act(v)
    assert plain.action == Action("discard", parse("5s")[0])
    assert "defence" not in plain.reason
    for bot in (HeuristicBot(threat=STRONG_THREAT), StrongBot(), StrongBot(screen=1e9)):
        d = bot.act(v)
        assert d.action == Action("discard", parse("8s")[0])
        assert d.reason.startswith("defence:") and "the player opposite" in d.reason
        assert d.reason_zh.startswith("防守")
    # the old threshold is one option away
    assert StrongBot(threat=THREAT).act(v).action == plain.action
