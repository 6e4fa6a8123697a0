"""Bots and the simulator: strength, determinism across workers, protocol, CLI."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fujian_mahjong.bots import BOT_KINDS, Decision, HeuristicBot, RandomBot
from fujian_mahjong.engine import Action, Game, from_jsonl, replay
from fujian_mahjong.engine.match import hand_seed as derive_seed
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.engine.wall import build_wall
from fujian_mahjong.sim import SimulationError, simulate
from fujian_mahjong.tiles import parse, parse_kind


def _strip(d: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in d.items() if k not in ("seconds", "hands_per_s")}


@pytest.mark.parametrize("profile", ["fuzhou-tcy", "sanming", "fuzhou-doudou"])
def test_heuristic_beats_random_decisively(profile: str) -> None:
    sm = simulate(profile, 300, seed=42, kinds=("heuristic", "random", "heuristic", "random"))
    h = sm.kind_stats["heuristic"]
    r = sm.kind_stats["random"]
    assert h["ci95_low"] > 0, h  # the 95% CI of the heuristic's mean points excludes zero
    assert r["ci95_high"] < 0, r
    assert h["win_rate"] > 5 * r["win_rate"]


def test_same_seed_same_summary_for_any_worker_count() -> None:
    a = simulate(
        "fuzhou-doudou",
        120,
        seed=7,
        kinds=("heuristic", "random", "random", "heuristic"),
        workers=1,
    )
    b = simulate(
        "fuzhou-doudou",
        120,
        seed=7,
        kinds=("heuristic", "random", "random", "heuristic"),
        workers=2,
    )
    assert _strip(a.to_json()) == _strip(b.to_json())
    c = simulate("fuzhou-doudou", 120, seed=8, kinds=("heuristic", "random", "random", "heuristic"))
    assert _strip(a.to_json()) != _strip(c.to_json())


def test_seats_rotate_over_bot_kinds() -> None:
    from fujian_mahjong.sim.simulate import seat_kinds

    kinds = ("heuristic", "heuristic", "random", "random")
    seen = {seat_kinds(kinds, i)[0] for i in range(4)}
    assert seen == {"heuristic", "random"}
    assert [seat_kinds(kinds, i).count("heuristic") for i in range(4)] == [2, 2, 2, 2]


class _Spy:
    """A bot that records what it was given."""

    name = "spy"

    def __init__(self) -> None:
        self.seen: list[object] = []

    def act(self, view: SeatView) -> Decision:
        self.seen.append(view)
        return Decision(view.legal[0], "first")


def test_bots_get_only_a_seat_view_r12() -> None:
    g = Game.new("fuzhou-tcy", seed=3)
    spy = _Spy()
    for _ in range(20):
        if g.is_over():
            break
        s = g.to_act()[0]
        g.apply(s, spy.act(g.seat_view(s)).action)
    assert all(isinstance(v, SeatView) for v in spy.seen)
    v = g.seat_view(1)
    assert not hasattr(v, "wall") and not hasattr(v, "hands")
    assert set(v.to_json()) >= {"hand", "melds", "discards", "legal_actions"}
    assert "hands" not in v.to_json()


def test_random_bot_is_seeded() -> None:
    g = Game.new("fuzhou-tcy", seed=5)
    v = g.seat_view(g.to_act()[0])
    a = [RandomBot(1).act(v).action for _ in range(3)]
    assert a == [RandomBot(1).act(v).action for _ in range(3)]


def test_heuristic_explains_and_keeps_golds() -> None:
    """The heuristic never discards a gold where the profile penalises it (Fuzhou D-4)
    unless only golds are left, always takes wins, and explains every decision."""
    bot = HeuristicBot()
    for seed in range(60):
        g = Game.new("fuzhou-tcy", seed=seed)
        while not g.is_over():
            s = g.to_act()[0]
            v = g.seat_view(s)
            d = bot.act(v)
            assert d.reason
            assert d.action in v.legal
            if any(a.type == "win" for a in v.legal):
                assert d.action.type == "win"
            if d.action.type == "discard" and d.action.tile == g.gold:
                assert all(k == g.gold for k in g.hand(s))
            g.apply(s, d.action)


def test_simulation_error_reports_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    class Bad:
        name = "bad"

        def __init__(self, seed: object = 0) -> None:
            pass

        def act(self, view: SeatView) -> Decision:
            return Decision(Action("chow", -1, (0, 1)), "never legal as a first move")

    monkeypatch.setitem(BOT_KINDS, "bad", Bad)  # type: ignore[arg-type]
    # R12 (docs/engine.md, revision 2): hand seeds are HMAC-derived from the run's seed
    with pytest.raises(SimulationError, match=re.escape(f"hand 0 (seed {derive_seed('3', 0)!r}")):
        simulate("fuzhou-tcy", 5, seed=3, kinds=("bad", "bad", "bad", "bad"))
    from fujian_mahjong.cli import simulate as cli_sim

    ns = argparse.Namespace(
        profile="fuzhou-tcy",
        hands=3,
        seed="3",
        players="bad,bad,bad,bad",
        workers=1,
        json=True,
        log_dir=None,
        no_progress=True,
    )
    assert cli_sim.run(ns) == 1


def test_cli_simulate_json_and_log_dir(tmp_path: Path) -> None:
    exe = [sys.executable, "-m", "fujian_mahjong", "simulate"]
    p = subprocess.run(
        [
            *exe,
            "--hands",
            "20",
            "--seed",
            "1",
            "--players",
            "heuristic,random,random",
            "--profile",
            "sanming",
            "--json",
            "--log-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["hands"] == 20 and set(out["by_kind"]) == {"heuristic", "random"}
    assert {"win_rate_by_seat", "draw_rate", "win_kinds", "specials", "hands_per_s"} <= set(out)
    logs = sorted(tmp_path.glob("*.jsonl"))
    assert len(logs) == 20
    g = replay(from_jsonl(logs[0].read_text()))
    assert g.is_over()
    for bad in (
        ["--players", "heuristic,wizard,random,random"],
        ["--hands", "0"],
        ["--players", "random,random"],
        ["--profile", "nope"],
    ):
        p = subprocess.run([*exe, *bad], capture_output=True, text=True, check=False)
        assert p.returncode == 2 and "Traceback" not in p.stderr and p.stderr.count("\n") == 1, (
            p.stderr
        )


# ------------------------------------------------------------------ honours (R1/R7 rev. 2)


def _doudou(deal: dict[int, str], gold: str = "9m", draws: str = "") -> Game:
    """A fuzhou-doudou hand on a stacked wall: dealer 0; the gold indicator is the tail tile
    (R5); nobody holds a flower, so there is no replacement."""
    wall = build_wall(
        {s: parse(t) for s, t in deal.items()}, parse(draws), [parse_kind(gold)], 4, 0
    )
    return Game.from_wall("fuzhou-doudou", wall)


# fillers for seats that only need to hold tiles (no flowers, no 9m, at most one 4z
# elsewhere; with the hands below no kind exceeds its 4 copies)
OTHERS = {
    1: "1122p1166s66z77z55p99s",
    2: "7788m1122p3344p11z22z",
    3: "7788m3344p1166s33z55z",
}


def test_heuristic_discards_an_isolated_honour_before_a_connected_tile() -> None:
    """R7: an honour makes only pongs and pairs, so a lone 北 is the poorest tile."""
    deal = {0: "123m456m789p23s55s67p4z8s", **OTHERS}
    g = _doudou(deal)
    assert g.turn == 0 and g.hand(0).count(parse_kind("4z")) == 1
    v = g.seat_view(0)
    assert len(v.counts) == 34 and v.honours_playable
    d = HeuristicBot().act(v)
    assert d.action.type == "discard" and d.action.tile == parse_kind("4z"), d
    assert "N" in d.explain("en") and "北" in d.explain("zh")


def test_heuristic_pongs_an_honour_pair_when_it_lowers_shanten() -> None:
    deal = {
        0: "123m456m789p23s55s67p4z8s",
        1: "123m456m789p55s4z4z67p9s",
        2: OTHERS[2],
        3: OTHERS[3],
    }
    g = _doudou(deal)
    g.apply(0, Action("discard", parse_kind("4z")))
    assert g.phase == "claims"
    v = g.seat_view(1)
    assert Action("pong") in v.legal or any(a.type == "pong" for a in v.legal)
    d = HeuristicBot().act(v)
    assert d.action.type == "pong", d
    assert "N" in d.explain("en") and "北" in d.explain("zh")


def test_heuristic_never_chows_honours_and_plays_doudou_hands() -> None:
    """Honours are pong/kong/pair only (R7): every decision is legal, no chow uses an
    honour, and whole doudou hands with four heuristic bots finish."""
    bot = HeuristicBot()
    honour_pongs = 0
    for seed in range(25):
        g = Game.new("fuzhou-doudou", seed=f"honours-{seed}")
        while not g.is_over():
            s = g.to_act()[0]
            v = g.seat_view(s)
            d = bot.act(v)
            assert d.action in v.legal and d.reason and d.explain("zh")
            if d.action.type == "chow":
                assert all(t < 27 for t in d.action.tiles)
            if d.action.type == "pong" and v.claim[1] >= 27:
                honour_pongs += 1
            g.apply(s, d.action)
    assert honour_pongs > 0  # honour pairs do get ponged


def test_heuristic_ukeire_counts_honour_waits() -> None:
    """A ready hand waiting on an honour pair (shanpon 5s/北) counts the unseen 北 too."""
    bot = HeuristicBot()
    c = [0] * 34
    for k in parse("123m456m789p55s4z4z"):
        c[k] += 1
    visible = list(c)
    with_h = bot._ukeire(c, 8, 1, 0, visible, True)  # gold 9m, one exposed meld
    # two unseen 5s, two unseen 北, and the three golds (D-13: a drawn gold always wins)
    assert with_h == 2 + 2 + 3


def test_isolated_honour_is_worth_least() -> None:
    """Tie-break value (R7): a lone honour can only pair or pong, so it ranks below a lone
    terminal and a lone middle tile; an honour pair is kept like a suited pair."""
    c = [0] * 34
    for k in parse("4z9s5p"):
        c[k] += 1
    v = HeuristicBot._tile_value
    assert v(c, parse_kind("4z"), 8) < v(c, parse_kind("9s"), 8) < v(c, parse_kind("5p"), 8)
    c[parse_kind("4z")] += 1
    assert v(c, parse_kind("4z"), 8) > v(c, parse_kind("5p"), 8)
