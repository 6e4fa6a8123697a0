"""Bots and the simulator: strength, determinism across workers, protocol, CLI."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fujian_mahjong.bots import BOT_KINDS, Decision, HeuristicBot, RandomBot
from fujian_mahjong.engine import Action, Game, from_jsonl, replay
from fujian_mahjong.engine.view import SeatView
from fujian_mahjong.sim import SimulationError, simulate


def _strip(d: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in d.items() if k not in ("seconds", "hands_per_s")}


@pytest.mark.parametrize("profile", ["fuzhou-tcy", "sanming"])
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
    with pytest.raises(SimulationError, match=r"seed '3:0'"):
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
