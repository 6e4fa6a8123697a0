"""The batched environment (fujian_mahjong.rl.vec.VecGames, docs/rl.md): the same
trajectories as N single AEC environments, masks equal to the engine's legal actions,
observations from the acting seat's view only (R12)."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from fujian_mahjong.engine import Game
from fujian_mahjong.errors import IllegalAction, MahjongError
from fujian_mahjong.rl import VecGames, raw_env
from fujian_mahjong.rl.encoding import N_ACTIONS, OBS_SIZE, legal_map


@pytest.mark.parametrize(("profile", "players"), [("fuzhou-tcy", 4), ("sanming", 3)])
def test_batch_replays_single_environments(profile: str, players: int) -> None:
    """N games with seeds s_i and the same actions give exactly what N single AEC
    environments reset with s_i give: observations, masks, acting seats, rewards, logs."""
    n = 5
    seeds = [f"vec{i}" for i in range(n)]
    vec = VecGames(n, profile, players)
    out = vec.reset(seeds)
    envs = [raw_env(profile=profile, players=players, seed=s) for s in seeds]
    for e in envs:
        e.reset()
    rng = random.Random(3)
    hands_done = 0
    for _ in range(400):
        actions = []
        for i, e in enumerate(envs):
            agent = e.agent_selection
            o = e.observe(agent)
            assert int(out.seat[i]) == int(agent.split("_")[1])
            assert np.array_equal(out.obs[i], o["observation"])
            assert np.array_equal(out.mask[i], o["action_mask"])
            actions.append(rng.choice(np.flatnonzero(o["action_mask"]).tolist()))
        out = vec.step(actions)
        for i, e in enumerate(envs):
            e.step(actions[i])
            if e.terminations[e.agent_selection]:
                assert out.done[i]
                want = [e.rewards[a] for a in e.possible_agents]
                assert out.rewards[i].tolist() == want
                assert sum(want) == 0  # zero-sum
                events = e.game.events if e.game else []
                hands_done += 1
                for _a in e.possible_agents:
                    e.step(None)
                e.reset()
                # the batch has moved on to the same next hand
                assert vec.games[i].events[:3] == (e.game.events[:3] if e.game else [])
                assert events  # the finished hand had a log
            else:
                assert not out.done[i]
                assert not out.rewards[i].any()
                assert vec.games[i].events == (e.game.events if e.game else [])
    assert hands_done >= 5
    assert vec.finished == hands_done


def test_masks_are_the_engines_legal_actions_and_shapes() -> None:
    vec = VecGames(4, "fuzhou-doudou", 4)
    out = vec.reset(range(4))
    assert out.obs.shape == (4, OBS_SIZE) and out.obs.dtype == np.float32
    assert out.mask.shape == (4, N_ACTIONS) and out.mask.dtype == np.int8
    rng = random.Random(0)
    for _ in range(300):
        for i in range(4):
            g = vec.games[i]
            s = g.to_act()[0]
            assert s == out.seat[i]
            v = g.seat_view(s)
            want = legal_map(v.legal, v.claim[1])
            assert sorted(np.flatnonzero(out.mask[i]).tolist()) == sorted(want)
            assert sorted(vec.legal(i).values(), key=str) == sorted(v.legal, key=str)
            for j, a in want.items():
                assert vec.index_of(i, a) == j
        out = vec.step([rng.choice(np.flatnonzero(m).tolist()) for m in out.mask])


def test_deterministic_and_illegal_actions_change_nothing() -> None:
    def run() -> list[bytes]:
        vec = VecGames(3)
        out = vec.reset([7, 8, 9])
        seen = []
        for _ in range(150):
            out = vec.step(out.mask.argmax(axis=1))
            seen.append(out.obs.tobytes() + out.rewards.tobytes())
        return seen

    assert run() == run()
    vec = VecGames(2)
    out = vec.reset(["a", "b"])
    before = [list(g.events) for g in vec.games]
    bad = out.mask.argmax(axis=1)
    bad[1] = int(np.flatnonzero(out.mask[1] == 0)[0])
    with pytest.raises(IllegalAction, match="game 1"):
        vec.step(bad)
    assert [g.events for g in vec.games] == before
    with pytest.raises(MahjongError):
        vec.step([0])
    with pytest.raises(MahjongError):
        vec.reset([1])


def _hide_differently(g: Game, s: int, rng: random.Random) -> Game:
    """A copy of ``g`` that differs only where seat ``s`` cannot look: two other seats
    trade concealed tiles, and the wall is reversed (R12)."""
    h = copy.deepcopy(g)
    others = [o for o in range(g.n) if o != s]
    rng.shuffle(others)
    a, b = others[0], others[1]
    ka = [k for k in range(34) if h.counts[a][k] and k != h.gold]
    kb = [k for k in range(34) if h.counts[b][k] and k != h.gold and k not in ka]
    if ka and kb:
        x, y = ka[0], kb[0]
        h.counts[a][x] -= 1
        h.counts[a][y] += 1
        h.counts[b][y] -= 1
        h.counts[b][x] += 1
    h.wall = list(reversed(h.wall))
    return h


def test_observation_ignores_what_the_seat_cannot_see() -> None:
    """R12: resampling other seats' concealed tiles and the wall leaves the acting seat's
    observation and mask unchanged."""
    vec = VecGames(3)
    out = vec.reset(["r12a", "r12b", "r12c"])
    rng = random.Random(5)
    probe = VecGames(1)
    probe.reset(["probe"])
    checked = 0
    for t in range(240):
        if t % 7 == 0:
            for i in range(3):
                g = vec.games[i]
                h = _hide_differently(g, int(out.seat[i]), rng)
                assert h.counts != g.counts and h.wall != g.wall
                probe.set_game(0, h)
                got = probe.current()
                assert got.seat[0] == out.seat[i]
                assert np.array_equal(got.obs[0], out.obs[i])
                assert np.array_equal(got.mask[0], out.mask[i])
                checked += 1
        out = vec.step([rng.choice(np.flatnonzero(m).tolist()) for m in out.mask])
    assert checked >= 90
