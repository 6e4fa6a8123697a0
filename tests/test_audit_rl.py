"""Adversarial review of the RL environments (docs/rl.md, R12): the Gymnasium env without a
seed draws its base seed from ``secrets`` (two envs never share a deal), and nothing in
``info`` (reset, steps, the end, an illegal action) carries the hand's seed or the wall."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fujian_mahjong.rl.gym_env import FujianMahjongGymEnv


def _flat(info: dict[str, Any]) -> str:
    return repr(sorted(info.items()))


def test_unseeded_gym_envs_draw_their_own_seed() -> None:
    a, b = FujianMahjongGymEnv(), FujianMahjongGymEnv()
    a.reset()
    b.reset()
    assert a.game is not None and b.game is not None
    assert a.game.seed != b.game.seed
    assert a.game.events[0]["seed_sha256"] != b.game.events[0]["seed_sha256"]


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31), choice=st.integers(0, 2**31))
def test_gym_info_never_carries_the_seed_or_the_wall(seed: int, choice: int) -> None:
    env = FujianMahjongGymEnv(profile="fuzhou-doudou", seed=seed)
    rng = random.Random(choice)
    obs, info = env.reset()
    infos = [info]
    done = False
    while not done:
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        obs, _r, done, _t, info = env.step(rng.choice(legal))
        infos.append(info)
    assert env.game is not None
    hand_seed = str(env.game.seed)
    for i in infos:
        text = _flat(i)
        assert hand_seed not in text and "seed" not in text and "wall" not in text
    # an illegal action: one clear line, still no seed
    env.reset()
    _o, _r, _d, _t, bad = env.step(
        -1 if env.action_masks().all() else int(np.argmin(env.action_masks()))
    )
    assert bad.get("illegal_action") and str(env.game.seed) not in _flat(bad)
