"""The difficulty ladder (docs/bots.md): random, greedy (新手), heuristic (普通), neural (熟手),
strong (高手) and the frozen reference heuristic-v1.

* every kind resolves on every interface (``fjmj simulate --players``, ``fjmj play --bots``,
  the simulator, ``make_bot``), ``strong`` lazily from bots/strong.py;
* heuristic-v1 plays the recorded golden hands (it is the heuristic of that time);
* the new heuristic folds against a likely ready hand and keeps a gold pair for 金雀
  (stacked walls), its reasons naming defence and the special;
* greedy's discards minimise the shanten (its slips are marked);
* a short duplicate run puts the ladder in order.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.golden import DATA, digest, hand_log
from fujian_mahjong.bots import (
    BOT_KINDS,
    BOT_RATINGS,
    LADDER,
    GreedyBot,
    HeuristicBot,
    HeuristicV1Bot,
    make_bot,
)
from fujian_mahjong.bots.greedy import shanten_after_discard
from fujian_mahjong.bots.heuristic import _Table
from fujian_mahjong.cli.common import CliError
from fujian_mahjong.cli.main import main
from fujian_mahjong.cli.play import seat_kinds
from fujian_mahjong.engine import Action, Game
from fujian_mahjong.engine.wall import build_wall
from fujian_mahjong.errors import MahjongError
from fujian_mahjong.sim import simulate
from fujian_mahjong.tiles import parse, parse_kind

KINDS = ("random", "greedy", "heuristic", "heuristic-v1")


# ------------------------------------------------------------------ names on every interface


def test_ladder_kinds_are_registered_in_order() -> None:
    for k in KINDS:
        assert k in BOT_KINDS
        assert make_bot(k, "seed").name == k
    assert LADDER[:3] == ("random", "greedy", "heuristic")
    assert "heuristic-v1" not in LADDER  # a reference, not a level
    assert set(BOT_RATINGS) >= set(LADDER) | {"heuristic-v1"}
    mu = {k: v[0] for k, v in BOT_RATINGS.items()}
    assert mu["random"] < mu["greedy"] < mu["heuristic"] == 25.0, BOT_RATINGS
    assert mu["heuristic-v1"] <= mu["heuristic"]
    assert all(sigma > 0 for _mu, sigma in BOT_RATINGS.values())
    with pytest.raises(MahjongError, match="unknown bot kind"):
        make_bot("wizard")


def test_strong_resolves_lazily_to_strongbot() -> None:
    from fujian_mahjong.bots.strong import StrongBot

    bot = make_bot("strong", "s")
    assert isinstance(bot, StrongBot)
    assert "strong" in LADDER and LADDER[-1] == "strong"  # the strongest level


def test_neural_is_the_level_between_heuristic_and_strong() -> None:
    """The neural network is a level of its own (熟手): above the 普通, below the 高手, in the
    order its duplicate points put it (docs/bots.md, "The neural bot"), and it is rated."""
    assert LADDER[LADDER.index("heuristic") + 1 : LADDER.index("strong")] == ("neural",)
    # rated like the 高手 by placements (docs/bots.md: more points than the 普通, 2 v 2, but
    # above one of its seats only half the time)
    assert BOT_RATINGS["neural"][0] >= BOT_RATINGS["heuristic-v1"][0]
    assert make_bot("neural", "s").name == "neural"


@pytest.mark.parametrize("kind", [*KINDS, "neural", "strong"])
def test_every_kind_on_simulate_players(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(
        [
            "simulate",
            "--players",
            f"{kind},random,random,random",
            "--hands",
            "1",
            "--json",
            "--no-progress",
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0, out
    assert kind in json.loads(out)["by_kind"]


@pytest.mark.parametrize("kind", [*KINDS, "neural", "strong"])
def test_every_kind_on_play_bots(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``fjmj play --bots KIND`` accepts the kind: it gets as far as asking for a terminal
    (the test has none); an unknown kind is refused before that."""
    assert seat_kinds(kind, 4) == [kind] * 4
    assert main(["play", "--bots", kind]) == 2
    err = capsys.readouterr().err
    assert "interactive terminal" in err and "--bots" not in err


def test_play_bots_per_seat_and_unknown_kinds() -> None:
    assert seat_kinds("greedy, heuristic ,random", 4) == ["greedy", "greedy", "heuristic", "random"]
    assert seat_kinds("heuristic-v1,greedy", 3) == ["heuristic-v1", "heuristic-v1", "greedy"]
    with pytest.raises(CliError, match="unknown bot kind 'wizard'"):
        seat_kinds("greedy,wizard,random", 4)
    with pytest.raises(CliError, match="one per bot seat"):
        seat_kinds("greedy,heuristic", 4)


def test_unknown_kind_on_the_command_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--bots", "wizard"]) == 2
    assert "--bots: unknown bot kind 'wizard'" in capsys.readouterr().err
    assert main(["simulate", "--players", "greedy,wizard", "--hands", "1"]) == 2
    assert "unknown bot kind 'wizard'" in capsys.readouterr().err


# ------------------------------------------------------------------ heuristic-v1 is frozen


def test_heuristic_v1_plays_the_recorded_golden_hands() -> None:
    """heuristic-v1 is the heuristic the golden logs were recorded with (bench/golden.py):
    the same seeds give byte-identical event logs."""
    want = json.loads(Path(DATA).read_text(encoding="utf-8"))
    for group, profile, players in (
        ("fuzhou-tcy", "fuzhou-tcy", 4),
        ("fuzhou-doudou", "fuzhou-doudou", 4),
        ("sanming-3p", "sanming", 3),
    ):
        for i in range(15):
            assert digest(hand_log(group, profile, players, i)) == want[group][i], (group, i)


def test_heuristic_v1_is_its_own_class() -> None:
    assert BOT_KINDS["heuristic-v1"] is HeuristicV1Bot
    assert HeuristicV1Bot is not HeuristicBot and BOT_KINDS["heuristic"] is HeuristicBot


# ------------------------------------------------------------------ defence


def _pass_claims(g: Game, pong_seat: int | None = None) -> None:
    """Answer a discard: ``pong_seat`` pongs, everyone else passes."""
    while g.phase == "claims":
        for s in list(g.to_act()):
            legal = g.legal_actions(s)
            pong = [a for a in legal if a.type == "pong"]
            g.apply(s, pong[0] if s == pong_seat and pong else Action("pass"))


def _discard(g: Game, seat: int, tile: str, pong_seat: int | None = None) -> None:
    assert g.phase == "turn" and g.turn == seat, (g.phase, g.turn, seat)
    g.apply(seat, Action("discard", parse_kind(tile)))
    _pass_claims(g, pong_seat)


def _defence_game() -> Game:
    """fuzhou-tcy, gold 9s. Seat 1 pongs 2m, 8m and 5m and throws 5p, 4p and 6p after them:
    three melds and middle tiles, a hand that is most likely ready. Seat 0 is three from
    ready, holding 1m (never seen) and 4p/5p (seat 1 threw them)."""
    deal = {
        0: parse("2m 1m 4m 7m 9m 1p 3p 4p 8p 6s 5s 1s 3s 7s 8s 2p 6m"),
        1: parse("22m 55m 88m 456p 123s 77s 3p 7p"),
        2: parse("8m 1m 3m 6m 9m 2p 5p 7p 9p 2s 4s 6s 8s 3p 6p 4s"),
        3: parse("5m 1m 3m 6m 9m 1p 2p 6p 7p 8p 2s 4s 8s 1s 3s 4m"),
    }
    wall = build_wall(deal, parse("9p 1p 9m 9p 6p 5p"), parse("9s"), 4, 0)
    g = Game.from_wall("fuzhou-tcy", wall)
    _discard(g, 0, "2m", pong_seat=1)
    _discard(g, 1, "5p")
    _discard(g, 2, "8m", pong_seat=1)
    _discard(g, 1, "4p")
    _discard(g, 2, "9p")
    _discard(g, 3, "5m", pong_seat=1)
    _discard(g, 1, "6p")
    _discard(g, 2, "9m")
    _discard(g, 3, "6p")
    assert g.phase == "turn" and g.turn == 0 and len(g.melds[1]) == 3
    return g


def test_heuristic_folds_against_a_likely_ready_hand() -> None:
    g = _defence_game()
    v = g.seat_view(0)
    table = _Table(v)
    seat1 = table.opp(1)
    assert seat1 is not None and seat1.p > 0.8  # three melds, middle tiles thrown
    assert all(o.p < 0.2 for o in table.opps if o.seat != 1)
    safe = {parse_kind("4p"), parse_kind("5p")}  # seat 1 threw them
    old = HeuristicV1Bot().act(v)
    assert old.action.type == "discard" and old.action.tile not in safe  # it never folds
    new = HeuristicBot().act(v)
    assert new.action.type == "discard" and new.action.tile in safe, new
    danger_old = table.danger(old.action.tile, g.gold)[0]
    danger_new = table.danger(new.action.tile, g.gold)[0]
    assert danger_new < danger_old / 3
    assert (
        new.reason.startswith(("fold:", "defence:")) and "the player on your right" in new.reason
    ), new.reason
    assert "防守" in new.reason_zh and "下家" in new.reason_zh, new.reason_zh


# ------------------------------------------------------------------ 金雀


def _jin_que_game() -> Game:
    """fuzhou-tcy, gold 9s. Seat 1 holds two golds (9s 9s) and two flowers (no 平胡); it
    draws 5p (throws 3s: ready), then 7p: 123456789m 4567p 9p 8s + two golds wins now as a
    plain hand, and throwing 8s leaves 123456789m 456p 79p: the natural tiles one 8p from
    five melds, the two golds the pair (金雀)."""
    deal = {
        0: parse("11m 22p 33p 55p 11s 22s 44s 55s 7s"),
        1: parse("123456789m 4p 6p 9p 1f 2f 9s 9s"),
        2: parse("2p 3p 1p 5s 6s 6s 6p 7s 1p 2s 4s 5s 7p 8p 3m 8m"),
        3: parse("2m 3m 4m 5m 6m 7m 1p 8p 8p 2s 4s 4p 6s 7m 5m 6m"),
    }
    wall = build_wall(deal, parse("5p 9m 1s 3s 7p 8p"), parse("3s 8s 9s"), 4, 0)
    g = Game.from_wall("fuzhou-tcy", wall)
    assert g.gold == parse_kind("9s") and len(g.flowers[1]) == 2
    _discard(g, 0, "7s")
    _discard(g, 1, "3s")
    _discard(g, 2, "9m")
    _discard(g, 3, "1s")
    _discard(g, 0, "3s")
    assert g.phase == "turn" and g.turn == 1
    return g


def test_heuristic_keeps_the_gold_pair_for_jin_que() -> None:
    g = _jin_que_game()
    v = g.seat_view(1)
    assert Action("win") in v.legal
    assert HeuristicV1Bot().act(v).action == Action("win")  # v1 takes the plain win
    d = HeuristicBot().act(v)
    assert d.action == Action("discard", parse_kind("8s")), d
    assert "金雀" in d.reason and "金雀" in d.reason_zh
    assert g.hand(1).count(g.gold) == 2
    g.apply(1, d.action)
    _pass_claims(g)
    g.apply(2, Action("discard", parse_kind("8p")))  # the 金雀 tile (金雀 wins first, R6)
    win = HeuristicBot().act(g.seat_view(1))
    assert win.action == Action("win"), win
    g.apply(1, win.action)
    _pass_claims(g)
    assert g.is_over() and g.win is not None and g.win["winner"] == 1
    sc = g.score()
    assert sc is not None and "jin_que" in sc.specials


def test_heuristic_passes_a_plain_discard_win_when_ready_for_jin_que() -> None:
    g = _jin_que_game()
    g.apply(1, HeuristicBot().act(g.seat_view(1)).action)  # keeps the pair (above)
    _pass_claims(g)
    # seat 2 throws 2p: 123456789m 456p 79p + 2p + two golds wins as a plain hand
    g.apply(2, Action("discard", parse_kind("2p")))
    assert g.phase == "claims" and 1 in g.to_act()
    v = g.seat_view(1)
    assert Action("win") in v.legal
    assert HeuristicV1Bot().act(v).action == Action("win")
    d = HeuristicBot().act(v)
    assert d.action == Action("pass") and "金雀" in d.reason, d


# ------------------------------------------------------------------ greedy


def test_greedy_discards_minimise_shanten_and_slips_are_marked() -> None:
    checked = slips = 0
    for seed in range(6):
        g = Game.new("fuzhou-tcy", seed=f"greedy-{seed}")
        exact = [GreedyBot(f"{seed}:{s}", mistake_rate=0.0) for s in range(4)]
        sloppy = GreedyBot(f"{seed}:x")
        while not g.is_over():
            s = g.to_act()[0]
            v = g.seat_view(s)
            d = exact[s].act(v)
            assert d.action in v.legal and d.reason and d.reason_zh
            if d.action.type == "discard":
                best = min(
                    shanten_after_discard(v, a.tile)
                    for a in v.legal
                    if a.type == "discard" and a.tile != v.gold
                )
                assert shanten_after_discard(v, d.action.tile) == best
                checked += 1
                m = sloppy.act(v)
                if shanten_after_discard(v, m.action.tile) > best:
                    slips += 1
                    assert "slip" in m.reason and "失误" in m.reason_zh
            if d.action.type in ("pong", "chow"):
                assert "->" in d.reason  # a claim only when it lowers the shanten
            g.apply(s, d.action)
    assert checked > 100 and slips > 0


# ------------------------------------------------------------------ the ladder in order


def test_duplicate_ladder_order_short_run() -> None:
    """random < greedy < heuristic in duplicate (2 v 2, every seating of each deal)."""
    a = simulate(
        "fuzhou-tcy",
        30,
        "ladder-test",
        ("greedy", "greedy", "random", "random"),
        workers=2,
        duplicate=True,
    ).to_json()["by_kind"]
    assert a["greedy"]["points_per_hand"] > 5 and a["greedy"]["ci95"][0] > 0
    b = simulate(
        "fuzhou-tcy",
        60,
        "ladder-test",
        ("heuristic", "heuristic", "greedy", "greedy"),
        workers=2,
        duplicate=True,
    ).to_json()["by_kind"]
    assert b["heuristic"]["points_per_hand"] > 0 and b["heuristic"]["placement_vs_field"] > 0
    assert b["heuristic"]["deal_ins_per_hand"] < b["greedy"]["deal_ins_per_hand"]
