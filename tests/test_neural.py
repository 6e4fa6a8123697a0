"""The neural bot (bots/neural.py) and its pipeline (rl/train.py), docs/bots.md "The neural
bot": deterministic, always legal, only its seat's view (R12), plays without the rl extra,
and the pipeline runs end to end on a tiny budget."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fujian_mahjong.bots import BOT_KINDS, make_bot
from fujian_mahjong.bots.neural import (
    N_VIEW_FEATURES,
    WEIGHTS,
    NeuralBot,
    PolicyNet,
    load_policy,
    view_features,
)
from fujian_mahjong.engine import Game
from fujian_mahjong.rl import train
from fujian_mahjong.rl.vec import VecGames
from tests.test_vec_env import _hide_differently


def test_shipped_weights_load_and_are_small() -> None:
    assert WEIGHTS.is_file()
    assert WEIGHTS.stat().st_size <= 20 * 2**20
    net = load_policy()
    assert net.meta["architecture"].startswith("MLP")
    assert net.meta["curves"]  # the training curve travels with the weights
    assert "neural" in BOT_KINDS
    assert make_bot("neural", "x").name == "neural"


@pytest.mark.parametrize(("profile", "players"), [("fuzhou-tcy", 4), ("sanming", 3)])
def test_plays_legal_and_deterministic(profile: str, players: int) -> None:
    """Game.apply raises on an illegal action: whole hands played prove legality; the same
    seed plays the same hand twice."""

    def run(seed: str) -> list[Any]:
        g = Game.new(profile, seed=seed, players=players)
        bots = [make_bot("neural", f"{seed}:{s}") for s in range(players)]
        while not g.is_over():
            s = g.to_act()[0]
            d = bots[s].act(g.seat_view(s))
            assert d.action in g.legal_actions(s)
            assert d.reason and d.reason_zh
            g.apply(s, d.action)
        return g.events

    for i in range(6):
        assert run(f"n{i}") == run(f"n{i}")


def test_decisions_ignore_what_the_seat_cannot_see() -> None:
    """R12: other seats' concealed tiles traded and the wall reversed: the same decision."""
    rng = random.Random(2)
    bot = NeuralBot()
    checked = changed = 0
    for i in range(4):
        g = Game.new("fuzhou-tcy", seed=f"r12-{i}")
        bots = [make_bot("heuristic", s) for s in range(4)]
        while not g.is_over():
            s = g.to_act()[0]
            v = g.seat_view(s)
            if len(v.legal) > 1:
                h = _hide_differently(g, s, rng)
                changed += h.counts != g.counts and h.wall != g.wall
                assert bot.act(h.seat_view(s)) == bot.act(v)
                o1, _ = bot.observe(v)
                o2, _ = bot.observe(h.seat_view(s))
                assert np.array_equal(o1, o2)
                assert np.array_equal(view_features(v), view_features(h.seat_view(s)))
                checked += 1
            g.apply(s, bots[s].act(v).action)
    assert checked > 40
    assert changed == checked  # every probe really differed where the seat cannot look


def test_batched_inference_matches_the_bot() -> None:
    """The bot's observation is the environment's: the batched argmax over VecGames picks
    what NeuralBot picks from the same seat view."""
    net = load_policy()
    bot = NeuralBot(policy=net)
    vec = VecGames(8)
    out = vec.reset([f"b{i}" for i in range(8)])
    compared = 0
    for _ in range(30):
        vf = np.stack([view_features(vec.view(i)) for i in range(8)])
        acts = net.act_batch(out.obs, out.mask, vf if net.view_features else None)
        for i in range(8):
            d = bot.act(vec.view(i))
            assert vec.index_of(i, d.action) == acts[i] or out.mask[i].sum() == 1
            compared += 1
        out = vec.step(acts)
    assert compared == 240


def test_plays_without_the_rl_extra() -> None:
    """Only numpy is needed: with gymnasium and pettingzoo unimportable the bot loads and
    plays a hand, and the AEC environment says which extra it needs."""
    code = """
import sys
sys.modules["gymnasium"] = None
sys.modules["pettingzoo"] = None
from fujian_mahjong.bots import make_bot
from fujian_mahjong.bots.base import play_out
from fujian_mahjong.engine import Game
g = Game.new("fuzhou-tcy", seed="extra")
play_out(g, [make_bot("neural", s) for s in range(4)])
assert g.is_over()
import fujian_mahjong.rl as rl
try:
    rl.raw_env()
except ImportError as e:
    assert "rl extra" in str(e), e
else:
    raise AssertionError("raw_env without pettingzoo")
print("ok")
"""
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_pipeline_end_to_end_on_a_tiny_budget(tmp_path: Path) -> None:
    """gen → fit → eval through the CLI, a few hundred decisions and one epoch."""
    data = tmp_path / "d.npz"
    weights = tmp_path / "w.npz"
    assert train.main(["gen", "--teacher", "heuristic", "--hands", "8", "--batch", "4",
                       "--seed", "tiny", "--out", str(data)]) == 0  # fmt: skip
    with np.load(data) as z:
        d = {k: z[k] for k in z.files}
    assert 100 <= len(d["action"]) <= 1000
    assert (d["mask"][np.arange(len(d["action"])), d["action"]] == 1).all()  # labels legal
    assert (d["mask"].sum(axis=1) > 1).all()  # only decisions with a choice
    assert d["vfeat"].shape == (len(d["action"]), N_VIEW_FEATURES)
    # the value target is the hand's final points from the seat's view: one per (hand, seat)
    # and zero-sum over the four seats
    per: dict[tuple[int, int], float] = {}
    for h, s, v in zip(d["hand"].tolist(), d["seat"].tolist(), d["value"].tolist(), strict=True):
        assert per.setdefault((h, s), v) == v
    again = train.generate("heuristic", 8, "tiny", batch=4)
    assert all(np.array_equal(again[k], d[k]) for k in ("obs", "mask", "action", "value", "vfeat"))
    assert train.main(["fit", "--data", str(data), "--epochs", "1", "--hidden", "32",
                       "--seed", "1", "--out", str(weights)]) == 0  # fmt: skip
    net = PolicyNet.load(weights)
    assert net.meta["epochs"] == 1 and len(net.meta["curves"]) == 1
    assert net.view_features
    assert json.loads(json.dumps(net.meta)) == net.meta
    p2, _ = train.fit(d, seed=1, hidden=(32,), epochs=1)
    assert all(np.array_equal(p2[k], v) for k, v in net.arrays().items())  # from a seed
    js = train.evaluate(str(weights), "random", 2, seed="tiny")
    assert js["deals"] == 2 and js["hands"] == 8
    assert "neural" in js["by_kind"]
    st = train.match_stats(str(weights), "random", 2, seed="tiny")
    k = js["by_kind"]["neural"]  # the same deals and seatings as simulate's
    assert st["hands"] == 8 and st["points_per_hand"] == pytest.approx(k["points_per_hand"])
    assert 0 <= st["call_rate"] <= 1 and st["placement"] == pytest.approx(k["placement"])
    # paired against other weights on the same deals: against itself, no difference at all
    same = train.match_stats(str(weights), "random", 2, seed="tiny", baseline=str(weights))
    assert same["vs_baseline"] == 0 and same["deals_differing"] == 0
    assert same["points_per_hand"] == st["points_per_hand"]
    # DAgger: the network plays every seat, the teacher labels its decisions
    dag = tmp_path / "dag.npz"
    assert train.main(["gen", "--teacher", "heuristic", "--hands", "4", "--batch", "2",
                       "--seed", "tiny-d", "--player", str(weights), "--out", str(dag)]) == 0  # fmt: skip
    with np.load(dag) as z:
        assert len(z["action"]) > 20 and json.loads(str(z["meta"]))["player"] == "w.npz"
    # an ensemble in one file: another network of the same encoding (another seed and width)
    # merged with it plays the mean of their logits and values
    other, merged = tmp_path / "w2.npz", tmp_path / "m.npz"
    train.save_weights(*train.fit(d, seed=2, hidden=(16,), epochs=1), str(other))
    assert train.main(["merge", "--weights", str(weights), str(other), "--out", str(merged)]) == 0
    nets = [PolicyNet.load(p) for p in (weights, other, merged)]
    rows = d["obs"][:50], d["mask"][:50], d["vfeat"][:50].astype(np.float32)
    (la, va), (lb, vb), (lm, vm) = (n.forward(*rows) for n in nets)
    assert np.allclose(lm, (la + lb) / 2, atol=1e-4) and np.allclose(vm, (va + vb) / 2, atol=1e-3)
    assert nets[2].layers[0][0].shape[1] == 48 and nets[2].meta["ensemble"][1]["seed"] == 2
    # networks of another depth are refused in one line, and nothing is written
    bad = tmp_path / "bad.npz"
    assert train.main(["merge", "--weights", str(weights), str(WEIGHTS), "--out", str(bad)]) == 2
    assert not bad.exists()


def test_rollouts_and_the_advantage_head_on_a_tiny_budget(tmp_path: Path) -> None:
    """roll → qfit through the CLI (two hands, one epoch), docs/bots.md "Learning from
    rollouts": candidates are legal and hold the teacher's action; the candidates share the
    hand's wall and hidden tiles (common random numbers), so the teacher's own action played
    out gives exactly the points the hand ended with; the head travels in the weights, and
    the bot with it still plays legal, deterministic hands from its seat's view."""
    data = tmp_path / "r.npz"
    out = tmp_path / "q.npz"
    assert train.main(["roll", "--hands", "2", "--seed", "tiny-r", "--out", str(data)]) == 0
    with np.load(data) as z:
        d = {k: z[k] for k in z.files}
    n = len(d["obs"])
    assert n > 20 and d["cand"].shape == (n, 3) and d["vfeat"].shape == (n, N_VIEW_FEATURES)
    for i in range(n):
        cand = [int(c) for c in d["cand"][i] if c >= 0]
        assert len(cand) == len(set(cand)) >= 2 and all(d["mask"][i, c] for c in cand)
        j = cand.index(int(d["teacher"][i]))
        assert d["ret"][i, j] == d["value"][i]
    again = train.rollout_data(2, "tiny-r")
    assert all(np.array_equal(again[k], d[k]) for k in ("obs", "cand", "ret"))
    assert train.main(["qfit", "--data", str(data), "--epochs", "1", "--hidden", "16",
                       "--margin", "0.01", "--out", str(out)]) == 0  # fmt: skip
    net = PolicyNet.load(out)
    assert net.has_q and net.q_top == 3 and net.q_margin == 0.01
    assert net.meta["q_head"]["decisions"] == n and len(net.meta["q_head"]["curves"]) == 2
    base = load_policy()
    assert all(np.array_equal(a, net.arrays()[k]) for k, a in base.arrays().items())  # frozen
    bot = NeuralBot(policy=net)

    moved = 0

    def run(seed: str) -> list[Any]:
        nonlocal moved
        g = Game.new("fuzhou-tcy", seed=seed)
        while not g.is_over():
            s = g.to_act()[0]
            dec = bot.act(g.seat_view(s))
            assert dec.action in g.legal_actions(s)
            moved += "rollout advantage" in dec.reason and "推演优势" in dec.reason_zh
            g.apply(s, dec.action)
        return g.events

    assert run("q0") == run("q0")
    assert moved  # the head moved some choices (a tiny head, a tiny margin)
    # R12 with the head: other seats' concealed tiles and the wall changed, same decisions
    rng = random.Random(5)
    g = Game.new("fuzhou-tcy", seed="q-r12")
    checked = 0
    while not g.is_over():
        s = g.to_act()[0]
        v = g.seat_view(s)
        if len(v.legal) > 1:
            assert bot.act(_hide_differently(g, s, rng).seat_view(s)) == bot.act(v)
            checked += 1
        g.apply(s, bot.act(v).action)
    assert checked > 10
    # act_batch applies the bot's rule (row by row here: a batch's matrix products may round
    # the last bits differently, and the head's candidates can be that close)
    vec = VecGames(4)
    o = vec.reset([f"qb{i}" for i in range(4)])
    for _ in range(20):
        vf = np.stack([view_features(vec.view(i)) for i in range(4)])
        acts = np.concatenate(
            [net.act_batch(o.obs[i : i + 1], o.mask[i : i + 1], vf[i : i + 1]) for i in range(4)]
        )
        for i in range(4):
            assert vec.index_of(i, bot.act(vec.view(i)).action) == acts[i] or o.mask[i].sum() == 1
        o = vec.step(acts)


def test_match_stats_refuses_a_deal_that_stopped_with_stop_iteration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a StopIteration escaping a bot would end a Pool.map chunk quietly and lose deals; the
    # figures are refused instead of computed over fewer deals than asked
    import fujian_mahjong.bots.base as base

    def stops(*_a: Any, **_k: Any) -> int:
        raise StopIteration

    monkeypatch.setattr(base, "play_out", stops)
    with pytest.raises(RuntimeError, match="deal 0 of 'x'"):
        train.match_stats(None, "heuristic-v1", 2, seed="x")
